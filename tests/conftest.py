"""Shared test configuration."""

import os
import tempfile
from collections.abc import Iterator

import pytest
from hypothesis import settings

from store.redis_server import RedisServer
from tests.workers.celery_harness import ArenaThread

# Property tests: no per-example deadline (a random game may be long); CI runs are
# reproducible (derandomize) so a red build can be re-run locally with CI=true.
settings.register_profile("default", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE")
    or ("ci" if os.environ.get("CI", "").lower() in ("1", "true", "yes") else "default"))

# A referee or beat started without REDIS_URL keeps its state in PITCH_DATA_DIR (default
# ~/.local/share/pitch-arena): every process a test starts gets a directory of this test run's
# own instead, so no test reads or locks the user's arena.  Tests that check the data directory
# set their own.
os.environ["PITCH_DATA_DIR"] = tempfile.mkdtemp(prefix="pitch-test-data-")
# Account passwords: argon2id at a test's cost (the production cost is 64 MiB and three passes,
# about 0.1 s a hash; tests/store/test_accounts.py checks that default).
os.environ.setdefault("PITCH_ARGON2_MEMORY_KIB", "64")
os.environ.setdefault("PITCH_ARGON2_TIME_COST", "1")


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """URL of a private redis-server started for this test session (never the machine's own)."""
    with RedisServer() as server:
        yield server.url


@pytest.fixture(scope="module")
def arena(redis_url: str) -> Iterator[ArenaThread]:
    """One referee for the module, on its own thread (each test registers its own bots)."""
    thread = ArenaThread(redis_url)
    try:
        yield thread
    finally:
        thread.close()


@pytest.fixture()
def env(arena: ArenaThread, redis_url: str) -> dict[str, str]:
    """The environment a deployment gives the ``pitch-arena`` commands, around the module's
    referee (``arena``; a module may define its own); wide output so rows are not wrapped."""
    return {"REDIS_URL": redis_url, "PITCH_STORE_PREFIX": arena.prefix, "PITCH_ADMIN_TOKEN": "test-admin",
            "PITCH_REFEREE": f"127.0.0.1:{arena.arena.server.port}", "COLUMNS": "200"}
