"""Fixtures of the CLI tests: the environment a deployment gives the ``pitch-arena``
commands, around the module's referee (tests/conftest.py's ``arena``; a module may define
its own)."""

from __future__ import annotations

import pytest

from tests.workers.celery_harness import ArenaThread


@pytest.fixture()
def env(arena: ArenaThread, redis_url: str) -> dict[str, str]:
    """The environment a deployment gives the CLI (wide output so rows are not wrapped)."""
    return {"REDIS_URL": redis_url, "PITCH_STORE_PREFIX": arena.prefix, "PITCH_ADMIN_TOKEN": "test-admin",
            "PITCH_REFEREE": f"127.0.0.1:{arena.arena.server.port}", "COLUMNS": "200"}
