"""What the chaos benchmark reads from Redis while the faults happen: which matches are
open, queued, running, on which referee, seating which bots; the seat ledger against each
bot's capacity; and, for every fault, when each match that was in flight at it recovered.

Raw keys of the documented layouts (``store/redis_store.py``, ``store/fleet.py``,
``store/seats.py``), read with cheap commands in two pipelined round trips per poll, so
polling a few times a second neither parses every outcome nor slows the arena.  A match is
named by its key ``tournament:index``."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from competitions.tournaments.schedule import Schedule
from store.redis_store import Store
from store.seat_keys import bot_of_seat

RETRY = "#retry"


@dataclass
class Snapshot:
    """One poll's view of the arena (an empty one before the first poll)."""

    at: float = 0.0
    open: set[str] = field(default_factory=set)
    leases: dict[str, str] = field(default_factory=dict)
    """Open match -> lease holder (``worker-1@host#attempt``, or ``...#retry`` while a retry waits)."""
    started: dict[str, float] = field(default_factory=dict)
    claims: dict[str, str] = field(default_factory=dict)
    """Open match -> the id of the referee whose claim it is under (it runs there)."""
    seats: dict[str, set[str]] = field(default_factory=dict)
    """Bot id -> the matches the seat ledger says it has seats in now."""
    live: dict[str, str] = field(default_factory=dict)
    """Live referee id -> its address (the newest entry of an address wins)."""

    def running(self) -> set[str]:
        """Matches a worker is playing now (a lease not held for a retry) or a referee runs."""
        return {m for m, h in self.leases.items() if not h.endswith(RETRY)} | set(self.claims)

    def queued(self) -> int:
        """Open matches nobody plays now: waiting in the broker or for a retry."""
        return len(self.open - self.running())

    def held_by(self, worker: str, running_only: bool = False) -> set[str]:
        return {m for m, h in self.leases.items()
                if h.startswith(f"{worker}@") and not (running_only and h.endswith(RETRY))}

    def on_referee(self, address: str) -> set[str]:
        ids = {i for i, a in self.live.items() if a == address}
        return {m for m, holder in self.claims.items() if holder in ids}


@dataclass
class Capacity:
    """The seat ledger sampled against the capacity each bot declared."""

    peak: dict[str, int] = field(default_factory=dict)
    declared: dict[str, int] = field(default_factory=dict)
    over: list[dict[str, Any]] = field(default_factory=list)
    samples: int = 0


class Watch:
    """Polls the store; keeps the last good :class:`Snapshot` for the times Redis is down."""

    def __init__(self, store: Store, fleet_ttl_s: float, bots: dict[str, str]) -> None:
        self.store, self.ttl, self.bots = store, fleet_ttl_s, bots
        self.prefix = store.prefix
        self.schedules: list[Schedule] = []
        self.match_ids: dict[str, str] = {}
        """match key -> match id, and match id -> match key."""
        self.done: set[str] = set()
        self.last = Snapshot()
        self.capacity = Capacity()

    def add(self, schedule: Schedule) -> None:
        self.schedules.append(schedule)
        for match in schedule.matches:
            key = f"{schedule.tournament_id}:{match.index}"
            self.match_ids[key], self.match_ids[match.match_id] = match.match_id, key

    def _key(self, *parts: str) -> str:
        return self.prefix + ":".join(parts)

    def poll(self) -> Snapshot:
        """Read a new snapshot (raises ``redis.RedisError`` while Redis is down)."""
        client = self.store.client
        active = [s for s in self.schedules if s.tournament_id not in self.done]
        pipe = client.pipeline(transaction=False)
        for schedule in active:
            pipe.hkeys(self._key("tournament", schedule.tournament_id, "outcomes"))
            pipe.hgetall(self._key("tournament", schedule.tournament_id, "started"))
        pipe.zrangebyscore(self._key("fleet", "live"), time.time() - self.ttl, "+inf")
        found = pipe.execute()
        shot = Snapshot(at=time.time())
        for number, schedule in enumerate(active):
            outcomes, started = set(found[2 * number]), found[2 * number + 1]
            if len(outcomes) == len(schedule.matches):
                self.done.add(schedule.tournament_id)
            for match in schedule.matches:
                key = f"{schedule.tournament_id}:{match.index}"
                if str(match.index) not in outcomes:
                    shot.open.add(key)
                if str(match.index) in started:
                    shot.started[key] = float(started[str(match.index)])
        live = [str(i) for i in found[-1]]
        pipe = client.pipeline(transaction=False)
        opened = sorted(shot.open)
        tids = [key.rsplit(":", 1) for key in opened]
        if opened:
            pipe.mget([self._key("tournament", tid, "lease", index) for tid, index in tids])
            pipe.mget([self._key("fleet", "match", self.match_ids[key]) for key in opened])
        for referee_id in live:
            pipe.hget(self._key("fleet", "referee", referee_id), "address")
            pipe.hget(self._key("fleet", "referee", referee_id), "heartbeat")
            pipe.hgetall(self._key("fleet", "capacity", referee_id))
        more = pipe.execute()
        if opened:
            shot.leases = {k: str(v) for k, v in zip(opened, more[0], strict=True) if v is not None}
            shot.claims = {k: str(v) for k, v in zip(opened, more[1], strict=True) if v is not None}
            more = more[2:]
        newest: dict[str, tuple[float, str]] = {}
        declared: dict[str, int] = {}
        for number, referee_id in enumerate(live):
            address, beat, capacities = more[3 * number:3 * number + 3]
            if address is not None and float(beat or 0) >= newest.get(str(address), (-1.0, ""))[0]:
                newest[str(address)] = (float(beat or 0), referee_id)
            for seat, capacity in capacities.items():  # by seat key: each version of a bot has its own
                declared[str(seat)] = max(declared.get(str(seat), 0), int(capacity))
        shot.live = {referee_id: address for address, (_, referee_id) in newest.items()}
        tracked = set(self.bots.values())
        seats = sorted(seat for seat in declared if bot_of_seat(seat) in tracked)
        pipe = client.pipeline(transaction=False)
        for seat in seats:
            pipe.hgetall(self._key("fleet", "seats", seat))
        self._sample_seats(shot, dict(zip(seats, pipe.execute(), strict=True)), set(live), declared)
        self.last = shot
        return shot

    def _sample_seats(self, shot: Snapshot, ledgers: dict[str, dict[str, str]], live: set[str],
                      declared: dict[str, int]) -> None:
        """Seats each version of a bot (``ledgers`` by seat key) holds on live referees (what
        the ledger's own script counts) against the capacity it declared; a sample over it is
        a finding.  The seats and peaks are kept by bot."""
        self.capacity.samples += 1
        for seat, fields in ledgers.items():
            bot = bot_of_seat(seat)
            used, matches = 0, set()
            for match_id, value in fields.items():
                referee_id, _, seats = str(value).rpartition(":")
                if referee_id in live:
                    used += int(seats)
                    matches.add(self.match_ids.get(str(match_id), str(match_id)))
            shot.seats[bot] = shot.seats.get(bot, set()) | matches
            self.capacity.peak[bot] = max(self.capacity.peak.get(bot, 0), used)
            if seat in declared:
                self.capacity.declared[bot] = declared[seat]
            if declared.get(seat) and used > declared[seat] and len(self.capacity.over) < 50:
                self.capacity.over.append({"at": shot.at, "bot": seat, "seats": used, "capacity": declared[seat],
                                           "ledger": {str(k): str(v) for k, v in fields.items()}})

    def outcome_times(self, keys: list[str]) -> dict[str, float]:
        """When each of ``keys`` got its outcome (those that have one)."""
        if not keys:
            return {}
        pipe = self.store.client.pipeline(transaction=False)
        for key in keys:
            tid, index = key.rsplit(":", 1)
            pipe.hget(self._key("tournament", tid, "outcomes"), index)
        return {key: float(json.loads(raw)["recorded"]) for key, raw in zip(keys, pipe.execute(), strict=True)
                if raw is not None}
