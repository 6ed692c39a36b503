"""Tournament keys in Redis: the plan, one outcome per match, the final table.

The keys follow :mod:`store.redis_store`'s prefix scheme and are listed in its layout.  Every
record that must not count twice is written with a ``NX`` command (``SET NX``, ``HSETNX``):
the first writer wins and a retried or re-delivered task finds it already there.
"""

from __future__ import annotations

import json
import time
from typing import Any

from competitions.tournaments.schedule import Schedule
from competitions.tournaments.table import NOT_PLAYED
from store.redis_store import Store


class TournamentError(ValueError):
    """An unknown tournament, or one that already exists."""


class TournamentStore:
    """Typed access to tournaments, next to (and sharing the client of) a :class:`Store`."""

    def __init__(self, store: Store, kind: str = "tournament") -> None:
        """``kind`` names the keys: ``{p}{kind}:{id}...`` and the index ``{p}{kind}s``.  Round
        robins are ``tournament``; an SPRT run (:mod:`competitions.sprt`) keeps its plan and
        outcomes the same way under ``sprt``, so the same match task code plays both."""
        self.store = store
        self.client = store.client
        self.kind = kind

    def _key(self, *parts: str) -> str:
        return self.store.prefix + ":".join(parts)

    # ----------------------------------------------------------------- plans
    def save_plan(self, schedule: Schedule) -> None:
        """Store a new tournament's schedule; refuses an id that is taken."""
        tournament_id = schedule.tournament_id
        if not self.client.set(self._key(self.kind, tournament_id), json.dumps(schedule.to_dict()), nx=True):
            raise TournamentError(f"{self.kind} {tournament_id!r} already exists")
        self.client.zadd(self._key(self.kind + "s"), {tournament_id: time.time()})

    def plan(self, tournament_id: str) -> Schedule:
        """A tournament's schedule."""
        raw = self.client.get(self._key(self.kind, tournament_id))
        if raw is None:
            raise TournamentError(f"no {self.kind} {tournament_id!r}")
        return Schedule.from_dict(json.loads(str(raw)))

    def tournament_ids(self) -> list[str]:
        """Every tournament, oldest first."""
        return [str(t) for t in self.client.zrange(self._key(self.kind + "s"), 0, -1)]

    def known(self, tournament_ids: list[str]) -> set[str]:
        """Which of ``tournament_ids`` exist (one round trip)."""
        if not tournament_ids:
            return set()
        scores = self.client.zmscore(self._key(self.kind + "s"), tournament_ids)
        return {tid for tid, score in zip(tournament_ids, scores, strict=True) if score is not None}

    # ----------------------------------------------------------------- outcomes
    def record_outcome(self, tournament_id: str, index: int, outcome: dict[str, Any]) -> bool:
        """Record what became of match ``index`` once; ``False`` if it was already recorded."""
        recorded = {**outcome, "recorded": time.time()}
        return bool(self.client.hsetnx(self._key(self.kind, tournament_id, "outcomes"), str(index),
                                       json.dumps(recorded, sort_keys=True)))

    def outcome(self, tournament_id: str, index: int) -> dict[str, Any] | None:
        """What became of match ``index``, or ``None`` while it is pending."""
        raw = self.client.hget(self._key(self.kind, tournament_id, "outcomes"), str(index))
        return None if raw is None else json.loads(str(raw))

    def outcomes(self, tournament_id: str) -> dict[int, dict[str, Any]]:
        """Every recorded outcome, by match index."""
        raw: dict[str, str] = self.client.hgetall(  # type: ignore[assignment]
            self._key(self.kind, tournament_id, "outcomes"))
        return {int(index): json.loads(value) for index, value in raw.items()}

    def count_outcomes(self, tournament_id: str) -> int:
        """How many matches have an outcome."""
        return int(self.client.hlen(self._key(self.kind, tournament_id, "outcomes")))

    def forget_not_played(self, tournament_id: str) -> list[int]:
        """Drop the outcomes of matches recorded as not played (and the table, now stale), so
        they can be launched again; played matches are never touched."""
        dropped = [i for i, o in self.outcomes(tournament_id).items() if o["status"] == NOT_PLAYED]
        if dropped:
            pipe = self.client.pipeline()
            pipe.hdel(self._key(self.kind, tournament_id, "outcomes"), *map(str, dropped))
            pipe.delete(self._key(self.kind, tournament_id, "table"))
            pipe.execute()
        return sorted(dropped)

    def mark_started(self, tournament_id: str, index: int) -> None:
        """Note that an attempt at match ``index`` began (for progress reports only)."""
        self.client.hset(self._key(self.kind, tournament_id, "started"), str(index), repr(time.time()))

    def hold(self, tournament_id: str, index: int, holder: str, seconds: float) -> None:
        """Lease match ``index`` to ``holder`` for ``seconds`` (set again to renew)."""
        self.client.set(self._key(self.kind, tournament_id, "lease", str(index)), holder,
                        px=max(1, round(seconds * 1000)))

    def release(self, tournament_id: str, index: int) -> None:
        """End the lease of match ``index`` (its outcome is recorded)."""
        self.client.delete(self._key(self.kind, tournament_id, "lease", str(index)))

    def leased(self, tournament_id: str, indices: list[int]) -> set[int]:
        """Which of ``indices`` have a live lease (one round trip)."""
        if not indices:
            return set()
        holders = self.client.mget([self._key(self.kind, tournament_id, "lease", str(i)) for i in indices])
        return {index for index, holder in zip(indices, holders, strict=True) if holder is not None}

    def started(self, tournament_id: str) -> dict[int, float]:
        """When the latest attempt at each match began."""
        raw: dict[str, str] = self.client.hgetall(  # type: ignore[assignment]
            self._key(self.kind, tournament_id, "started"))
        return {int(index): float(value) for index, value in raw.items()}

    # ----------------------------------------------------------------- tables
    def save_table(self, tournament_id: str, table: dict[str, Any]) -> bool:
        """Store the final table once; ``False`` if another worker stored it first."""
        return bool(self.client.set(self._key(self.kind, tournament_id, "table"),
                                    json.dumps(table, sort_keys=True), nx=True))

    def table(self, tournament_id: str) -> dict[str, Any] | None:
        """The final table, or ``None`` while the tournament runs."""
        raw = self.client.get(self._key(self.kind, tournament_id, "table"))
        return None if raw is None else json.loads(str(raw))

    # ----------------------------------------------------------------- automation
    def latest_automatic(self, preset: str) -> str | None:
        """The latest automated tournament of a preset."""
        raw = self.client.get(self._key("auto", preset))
        return None if raw is None else str(raw)

    def set_latest_automatic(self, preset: str, tournament_id: str) -> None:
        """Remember the latest automated tournament of a preset."""
        self.client.set(self._key("auto", preset), tournament_id)
