"""Fixtures for referee tests: one private redis-server process per test session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from workers.redis_server import RedisServer


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """URL of a private Redis started for this test session (never the machine's own)."""
    with RedisServer() as server:
        yield server.url
