"""The automatic SPRTs of new versions in Redis: which versions wait, which test each got,
which tests run.  The workers start and close the tests (:mod:`competitions.version_tests`);
bot hosts read whether a version's test is settled, to keep its predecessor running until
it is (:mod:`hosting.host`).

Keys (under the store's prefix ``{p}``, listed with the rest in :mod:`store.redis_store`)::

    {p}new-versions          sorted set: seat key -> first seen, written by the referee when a
                             bot says hello with a later version (:mod:`store.versions`)
    {p}version-tests         hash: the new version's seat key -> its test JSON, written once
    {p}version-tests:open    hash: run id -> the tested version's seat key, while the run has
                             no verdict
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from store.redis_store import Store


@dataclass(frozen=True)
class VersionTest:
    """What the arena did about one new version."""

    seat: str
    """The new version (``{bot id}@{version}``)."""
    run_id: str
    """Its SPRT run (empty when none was started: see ``skipped``)."""
    predecessor: str
    """The version it was tested against (its seat key; empty when skipped)."""
    owner: str
    """The bot's owner, whose share of the fleet the run counts against."""
    created: float
    skipped: str = ""
    """Why no run was started (the newest version of a burst is tested, not each one)."""

    def to_json(self) -> str:
        """As stored."""
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, raw: str) -> VersionTest:
        """The inverse of :meth:`to_json`."""
        data: dict[str, Any] = json.loads(raw)
        return cls(**data)


class VersionTestStore:
    """Typed access to the waiting versions and their tests."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.client = store.client

    def _key(self, *parts: str) -> str:
        return self.store.prefix + ":".join(parts)

    def waiting(self) -> list[tuple[str, float]]:
        """New versions without a test yet, oldest first: (seat key, first seen)."""
        raw: list[tuple[str, float]] = self.client.zrange(self._key("new-versions"), 0, -1,  # type: ignore[assignment]
                                                          withscores=True)
        return [(str(seat), float(seen)) for seat, seen in raw]

    def record(self, test: VersionTest) -> bool:
        """Record what was done about a waiting version (once: ``False`` if another worker
        did first) and take it off the waiting list; an open run counts for its owner."""
        if not self.client.hsetnx(self._key("version-tests"), test.seat, test.to_json()):
            self.client.zrem(self._key("new-versions"), test.seat)
            return False
        pipe = self.client.pipeline(transaction=True)
        if test.run_id:
            pipe.hset(self._key("version-tests", "open"), test.run_id, test.seat)
        pipe.zrem(self._key("new-versions"), test.seat)
        pipe.execute()
        return True

    def test_of(self, seat: str) -> VersionTest | None:
        """The test of a version (by its seat key), if it has one."""
        raw = self.client.hget(self._key("version-tests"), seat)
        return None if raw is None else VersionTest.from_json(str(raw))

    def tests_of(self, seats: list[str]) -> dict[str, VersionTest]:
        """The tests of those of ``seats`` that have one, by seat key (one round trip)."""
        if not seats:
            return {}
        found = self.client.hmget(self._key("version-tests"), seats)
        return {seat: VersionTest.from_json(str(raw)) for seat, raw in zip(seats, found, strict=True)
                if raw is not None}

    def waits(self, seat: str) -> bool:
        """Whether a version is listed as waiting for its test."""
        return self.client.zscore(self._key("new-versions"), seat) is not None

    def open_tests(self) -> list[VersionTest]:
        """The tests whose run has no verdict yet."""
        seats = [str(seat) for seat in self.client.hvals(self._key("version-tests", "open"))]
        if not seats:
            return []
        found = self.client.hmget(self._key("version-tests"), seats)
        return [VersionTest.from_json(str(raw)) for raw in found if raw is not None]

    def settled(self, seat: str) -> bool:
        """Whether the version's test is over (its verdict in, or no test was due): until
        then its predecessor must stay connected."""
        test = self.test_of(seat)
        return test is not None and not (test.run_id and self.client.hexists(
            self._key("version-tests", "open"), test.run_id))

    def close(self, run_id: str) -> None:
        """A run reached its verdict (or its cap): it no longer counts for its owner."""
        self.client.hdel(self._key("version-tests", "open"), run_id)
