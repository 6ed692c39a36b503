"""The referee fleet's directory in Redis: which referees are alive, where they listen,
how busy they are, which bots are connected to each, and which referee runs which match.

Every referee process writes its own entries (:class:`referee.fleet.FleetMember`) and
every worker reads them to place a match (:class:`workers.referee_client.FleetReferees`).
Liveness is a TTL, not a membership protocol: a referee renews its keys every third of
``ttl_s``; one that is SIGKILLed simply stops renewing, and its keys, its connected-bots
set and its match claims expire on their own.  Keys, under the store's prefix:

* ``fleet:live`` - sorted set, referee id -> time of its last heartbeat (unix seconds);
  readers skip members older than ``ttl_s`` and the next heartbeat of anyone prunes them;
* ``fleet:referee:{id}`` - hash: ``address``, ``capacity`` (matches it runs at once),
  ``running`` (matches it runs now), ``heartbeat``; expires after ``ttl_s``;
* ``fleet:bots:{id}`` - set of the bot ids with an open stream to that referee; expires
  with it;
* ``fleet:capacity:{id}`` - hash, bot id -> the capacity (seats at once) each of those bots
  declared in its hello to that referee; expires with it (read by
  :mod:`workers.storage.seats`, which also holds ``fleet:seats:{bot id}``);
* ``fleet:match:{match id}`` - the claim: the id of the referee that runs the match
  (``SET NX`` with a TTL renewed by the owner's heartbeat), so a match id runs on at most
  one referee at a time, fleet-wide.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import redis

from workers.storage.store import Store

DEFAULT_TTL_S = 10.0
"""How long a referee that stopped renewing stays in the directory (and holds its claims)."""

#: Extend a claim only while it is still the caller's (a lapsed claim another referee took
#: must not be taken back).
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
#: Drop a claim only if it is the caller's.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


@dataclass(frozen=True)
class RefereeEntry:
    """One live referee as the directory shows it."""

    referee_id: str
    address: str
    """host:port bots and workers reach it at."""
    capacity: int
    """Matches it runs at once (``PITCH_MAX_MATCHES``)."""
    running: int
    """Matches it ran at its last report."""
    heartbeat: float
    """Unix time of its last heartbeat."""

    @property
    def room(self) -> int:
        """Matches it may still start."""
        return self.capacity - self.running


class FleetDirectory:
    """Reads and writes of the fleet's keys (synchronous redis-py: the referee calls it off
    its event loop, the workers from their task threads)."""

    def __init__(self, store: Store, ttl_s: float = DEFAULT_TTL_S) -> None:
        if ttl_s <= 0:
            raise ValueError(f"the fleet TTL must be positive, got {ttl_s}")
        self.client = store.client
        self.prefix = store.prefix
        self.ttl_s = ttl_s
        self._renew = self.client.register_script(_RENEW)
        self._release = self.client.register_script(_RELEASE)

    def _key(self, *parts: str) -> str:
        return self.prefix + "fleet:" + ":".join(parts)

    def key(self, *parts: str) -> str:
        """The full name of one of the fleet's keys (``fleet:{parts...}`` under the prefix),
        for the modules that share them (the seat ledger, :mod:`workers.storage.seats`)."""
        return self._key(*parts)

    @property
    def _ttl_ms(self) -> int:
        return max(1, int(self.ttl_s * 1000))

    # ------------------------------------------------------------ a referee's own entries
    def announce(self, referee_id: str, address: str, capacity: int, running: int, bots: Iterable[str] | None,
                 renew_matches: Sequence[str] = (), declared: Mapping[str, int] | None = None) -> None:
        """Write (or renew) a referee's entry and the claims of the matches it runs: the
        heartbeat.  ``bots`` rewrites the set of its connected bots (the first heartbeat, and
        the first after a Redis error, so that an add or remove lost to an outage is
        repaired); ``None`` only renews the set, which costs the same however many bots are
        connected (see ``docs/fleet.md``).  ``declared`` (bot id -> capacity) rewrites the
        capacities the connected bots declared, as ``bots`` the set; ``None`` renews it."""
        now = time.time()
        pipe = self.client.pipeline(transaction=True)
        entry = self._key("referee", referee_id)
        pipe.hset(entry, mapping={"address": address, "capacity": capacity, "running": running, "heartbeat": now})
        pipe.pexpire(entry, self._ttl_ms)
        bot_set = self._key("bots", referee_id)
        if bots is not None:
            pipe.delete(bot_set)
            if members := list(bots):
                pipe.sadd(bot_set, *members)
        pipe.pexpire(bot_set, self._ttl_ms)
        capacities = self._key("capacity", referee_id)
        if declared is not None:
            pipe.delete(capacities)
            if declared:
                pipe.hset(capacities, mapping={bot_id: seats for bot_id, seats in declared.items()})
        pipe.pexpire(capacities, self._ttl_ms)
        pipe.zadd(self._key("live"), {referee_id: now})
        pipe.zremrangebyscore(self._key("live"), "-inf", now - 2 * self.ttl_s)
        for match_id in renew_matches:
            self._renew(keys=[self._key("match", match_id)], args=[referee_id, self._ttl_ms], client=pipe)
        pipe.execute()

    def bot_connected(self, referee_id: str, bot_id: str, capacity: int = 1) -> None:
        """A bot opened a stream to the referee (between heartbeats), declaring that it plays
        ``capacity`` seats at once: kept in Redis so that a referee that plays a seat of the
        bot relayed from this referee's stream knows the bound of its seats fleet-wide
        (:mod:`workers.storage.seats`)."""
        pipe = self.client.pipeline(transaction=False)
        pipe.sadd(self._key("bots", referee_id), bot_id)
        pipe.pexpire(self._key("bots", referee_id), self._ttl_ms)
        pipe.hset(self._key("capacity", referee_id), bot_id, capacity)
        pipe.pexpire(self._key("capacity", referee_id), self._ttl_ms)
        pipe.execute()

    def bot_disconnected(self, referee_id: str, bot_id: str) -> None:
        """A bot's stream to the referee ended."""
        pipe = self.client.pipeline(transaction=False)
        pipe.srem(self._key("bots", referee_id), bot_id)
        pipe.hdel(self._key("capacity", referee_id), bot_id)
        pipe.execute()

    def set_running(self, referee_id: str, running: int) -> None:
        """The referee's count of running matches changed (a match started or ended)."""
        self.client.hset(self._key("referee", referee_id), "running", running)

    def withdraw(self, referee_id: str) -> None:
        """Remove a stopping referee at once (a dead one expires instead)."""
        pipe = self.client.pipeline(transaction=True)
        pipe.delete(self._key("referee", referee_id), self._key("bots", referee_id), self._key("capacity", referee_id))
        pipe.zrem(self._key("live"), referee_id)
        pipe.execute()

    # ------------------------------------------------------------ reading the fleet
    def live(self) -> list[RefereeEntry]:
        """Every referee whose entry has not expired, in no particular order."""
        ids = [str(i) for i in self.client.zrangebyscore(self._key("live"), time.time() - self.ttl_s, "+inf")]
        if not ids:
            return []
        pipe = self.client.pipeline(transaction=False)
        for referee_id in ids:
            pipe.hgetall(self._key("referee", referee_id))
        entries = []
        for referee_id, data in zip(ids, pipe.execute(), strict=True):
            if data and "address" in data:
                entries.append(RefereeEntry(referee_id, str(data["address"]), int(data.get("capacity", 0)),
                                            int(data.get("running", 0)), float(data.get("heartbeat", 0))))
        return entries

    def place(self, match_id: str, bot_ids: Sequence[str]) -> list[RefereeEntry]:
        """Where to send match ``match_id``, best first: the live referee that holds its claim
        (it runs the match: a retry joins it there), then :meth:`placements`."""
        entries = self.live()
        holder = self.holder(match_id)
        running = [entry for entry in entries if entry.referee_id == holder]
        return running + [entry for entry in self.placements(bot_ids, entries) if entry.referee_id != holder]

    def placements(self, bot_ids: Sequence[str], entries: list[RefereeEntry] | None = None) -> list[RefereeEntry]:
        """The live referees (of ``entries``, default :meth:`live`) that may run a match
        seating ``bot_ids``, best first; none unless every bot has a stream to some live
        referee.  A seat whose bot has no stream on the referee chosen is relayed from one
        where it has (:mod:`referee.relay`), so the best referee is the one with the most
        seats local (all of them: no relay), then the least busy (fewest running matches,
        then most room); only referees with room are listed."""
        entries = self.live() if entries is None else entries
        streams = self._streams(bot_ids, entries)
        if not entries or set(bot_ids) - set[str]().union(*streams.values()):
            return []

        def rank(entry: RefereeEntry) -> tuple[int, int, int, str]:
            local = sum(1 for bot_id in bot_ids if bot_id in streams[entry.referee_id])
            return -local, entry.running, -entry.room, entry.referee_id

        return sorted((entry for entry in entries if entry.room > 0), key=rank)

    def hosting(self, bot_ids: Sequence[str], entries: list[RefereeEntry] | None = None) -> list[RefereeEntry]:
        """The live referees where every one of ``bot_ids`` has a stream open, the least
        busy first (where a relay finds a bot; where tools wait for bots to connect)."""
        entries = self.live() if entries is None else entries
        streams = self._streams(bot_ids, entries)
        return sorted((entry for entry in entries if streams[entry.referee_id] >= set(bot_ids)),
                      key=lambda e: (e.running, -e.room, e.referee_id))

    def _streams(self, bot_ids: Sequence[str], entries: list[RefereeEntry]) -> dict[str, set[str]]:
        """Which of ``bot_ids`` have a stream to each of ``entries``, by referee id (one
        round trip)."""
        if not entries:
            return {}
        wanted = sorted(set(bot_ids))
        pipe = self.client.pipeline(transaction=False)
        for entry in entries:
            pipe.smismember(self._key("bots", entry.referee_id), wanted)
        return {entry.referee_id: {bot_id for bot_id, here in zip(wanted, present, strict=True) if here}
                for entry, present in zip(entries, pipe.execute(), strict=True)}

    def connected_bots(self) -> set[str]:
        """Every bot with a stream open to at least one live referee."""
        keys = [self._key("bots", entry.referee_id) for entry in self.live()]
        return {str(bot_id) for bot_id in self.client.sunion(keys)} if keys else set()

    # ------------------------------------------------------------ match claims
    def claim(self, match_id: str, referee_id: str) -> str:
        """Claim ``match_id`` for ``referee_id`` unless another referee holds it; returns the
        holder (``referee_id`` when the claim is ours, also when we held it already)."""
        key = self._key("match", match_id)
        if self.client.set(key, referee_id, nx=True, px=self._ttl_ms):
            return referee_id
        holder = self.client.get(key)
        if holder is None:  # released between the two calls: try once more
            return referee_id if self.client.set(key, referee_id, nx=True, px=self._ttl_ms) else self.holder(match_id)
        return str(holder)

    def holder(self, match_id: str) -> str:
        """The referee running ``match_id`` now, or ``""``."""
        return str(self.client.get(self._key("match", match_id)) or "")

    def release(self, match_id: str, referee_id: str) -> bool:
        """Drop ``referee_id``'s claim of ``match_id`` (the match ended and is recorded)."""
        try:
            return bool(self._release(keys=[self._key("match", match_id)], args=[referee_id]))
        except redis.RedisError:
            return False  # the claim expires with its TTL
