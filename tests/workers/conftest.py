"""Fixtures of the CLI tests: one referee per test module, and the environment a deployment
gives the ``pitch-arena`` commands (a module may define its own ``arena``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.workers.celery_harness import ArenaThread


@pytest.fixture(scope="module")
def arena(redis_url: str) -> Iterator[ArenaThread]:
    """One referee for the module (each test registers its own bots)."""
    thread = ArenaThread(redis_url)
    try:
        yield thread
    finally:
        thread.close()


@pytest.fixture()
def env(arena: ArenaThread, redis_url: str) -> dict[str, str]:
    """The environment a deployment gives the CLI (wide output so rows are not wrapped)."""
    return {"REDIS_URL": redis_url, "PITCH_STORE_PREFIX": arena.prefix, "PITCH_ADMIN_TOKEN": "test-admin",
            "PITCH_REFEREE": f"127.0.0.1:{arena.arena.server.port}", "COLUMNS": "200"}
