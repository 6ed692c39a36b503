"""The referee fleet's directory in Redis: which referees are alive, where they listen,
how busy they are, which bots are connected to each, and which referee runs which match.

Every referee process writes its own entries (:class:`referee.fleet.FleetMember`) and
every worker reads them to place a match (:class:`competitions.referee_client.FleetReferees`).
Liveness is a TTL, not a membership protocol: a referee renews its keys every third of
``ttl_s``; one that is SIGKILLed simply stops renewing, and its keys, its connected-bots
set and its match claims expire on their own.  Keys, under the store's prefix:

* ``fleet:live`` - sorted set, referee id -> time of its last heartbeat (unix seconds);
  readers skip members older than ``ttl_s`` and the next heartbeat of anyone prunes them.
  A referee is in it while it holds anything: a draining one too, so that the seats
  (:mod:`store.seats`) and claims of the matches it still runs keep counting;
* ``fleet:draining`` - sorted set, referee id -> time of its last heartbeat, of the live
  referees that are stopping (they drain the matches in flight): every reader that chooses
  where new work goes (placement, relays, the fleet told to bots) leaves them out.  Written
  with ``fleet:live`` by the draining referee's heartbeat, pruned with it, and left by the
  referee's final withdrawal;
* ``fleet:referee:{id}`` - hash: ``address``, ``capacity`` (matches it runs at once),
  ``running`` (matches it runs now), ``heartbeat``, ``relay_address`` (its relay
  listener, empty when the relay is served on ``address``); expires after ``ttl_s``;
* ``fleet:bots:{id}`` - set of what has an open stream to that referee: each connected
  version's seat key (``{bot id}@{version}``, :mod:`store.seat_keys`) and its bot's id;
  expires with it;
* ``fleet:bot:{seat}`` - for a seat key or a bot id, set of the ids of the referees that
  version (or any version of that bot) has a stream to: the index placement reads (a few
  keys per match, however many referees there are), written with ``fleet:bots:{id}``.  It
  has no TTL of its own: a member counts only while its referee is in ``fleet:live`` and
  not draining, and a reader deletes the members that have left ``fleet:live`` (a stopped
  referee removes itself at once);
* ``fleet:capacity:{id}`` - hash, seat key -> the capacity (seats at once) each of those
  versions declared in its hello to that referee; expires with it (read by
  :mod:`store.seats`, which also holds ``fleet:seats:{bot id}``);
* ``fleet:match:{match id}`` - the claim: the id of the referee that runs the match
  (``SET NX`` with a TTL renewed by the owner's heartbeat), so a match id runs on at most
  one referee at a time, fleet-wide.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import redis

from store.redis_store import Store
from store.seat_keys import bot_of_seat, names_version

DEFAULT_TTL_S = 10.0
"""How long a referee that stopped renewing stays in the directory (and holds its claims)."""

#: Extend a claim only while it is still the caller's (a lapsed claim another referee took
#: must not be taken back).
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
#: Where a match's bots are connected, in one round trip: the holder of the match's claim
#: (KEYS[1]); from each bot's index of referees (KEYS[2..]), the live referees that are not
#: draining (score in ``fleet:live``, ARGV[1], at least ARGV[2]; not in ``fleet:draining``,
#: ARGV[3]), each with how many of the match's seats are local there (ARGV[4..]: each bot's
#: seats), as one string ``"{id}={seats} ..."`` (a reply of one element, whatever the
#: fleet's size); and the positions of the bots connected to no such referee.  A member
#: whose referee the live set no longer lists (pruned: dead) is deleted on the way, so a
#: SIGKILLed referee's entries heal themselves; a draining referee's are kept (it still
#: plays its bots' seats) and skipped.
_CANDIDATES = """
local holder = redis.call('GET', KEYS[1]) or ''
local live = nil
local local_seats, order, missing = {}, {}, {}
for i = 2, #KEYS do
  local found = false
  local referees = redis.call('SMEMBERS', KEYS[i])
  if #referees > 0 and live == nil then
    live = {}
    for _, referee in ipairs(redis.call('ZRANGEBYSCORE', ARGV[1], ARGV[2], '+inf')) do live[referee] = true end
    for _, referee in ipairs(redis.call('ZRANGE', ARGV[3], 0, -1)) do live[referee] = nil end
  end
  local seats = tonumber(ARGV[i + 2])
  for _, referee in ipairs(referees) do
    if live[referee] then
      found = true
      local before = local_seats[referee]
      if before == nil then order[#order + 1] = referee; before = 0 end
      local_seats[referee] = before + seats
    elseif not redis.call('ZSCORE', ARGV[1], referee) then
      redis.call('SREM', KEYS[i], referee)
    end
  end
  if not found then missing[#missing + 1] = i - 1 end
end
local counts = {}
for j, referee in ipairs(order) do counts[j] = referee .. '=' .. local_seats[referee] end
return {holder, table.concat(counts, ' '), missing}
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
    relay_address: str = ""
    """host:port of its relay listener (mutual TLS between referees); empty: ``address``."""

    @property
    def room(self) -> int:
        """Matches it may still start."""
        return self.capacity - self.running


class FleetDirectory:
    """Reads and writes of the fleet's keys (synchronous redis-py: the referee calls it off
    its event loop, the workers from their task threads)."""

    def __init__(self, store: Store, ttl_s: float = DEFAULT_TTL_S, live_cache_s: float = 0.0) -> None:
        """``live_cache_s``: how long :meth:`live_entries` keeps the live list it read (a
        worker places many matches per heartbeat period; a referee that died since is
        harmless: it answers UNAVAILABLE and the call moves on; one that joined since is
        used from the next read).  0 reads it every time."""
        if ttl_s <= 0:
            raise ValueError(f"the fleet TTL must be positive, got {ttl_s}")
        self.client = store.client
        self.prefix = store.prefix
        self.ttl_s = ttl_s
        self.live_cache_s = live_cache_s
        self._cached: tuple[float, list[RefereeEntry]] = (-float("inf"), [])
        self._placed: Counter[str] = Counter()
        """Matches :meth:`place` sent to each referee since the live list was last read: the
        running counts it read do not show them yet, and a burst of placements ranked on
        those counts alone would all go to the same referee."""
        self._renew = self.client.register_script(_RENEW)
        self._release = self.client.register_script(_RELEASE)
        self._candidates = self.client.register_script(_CANDIDATES)

    def _key(self, *parts: str) -> str:
        return self.prefix + "fleet:" + ":".join(parts)

    def key(self, *parts: str) -> str:
        """The full name of one of the fleet's keys (``fleet:{parts...}`` under the prefix),
        for the modules that share them (the seat ledger, :mod:`store.seats`)."""
        return self._key(*parts)

    @property
    def _ttl_ms(self) -> int:
        return max(1, int(self.ttl_s * 1000))

    # ------------------------------------------------------------ a referee's own entries
    def announce(self, referee_id: str, address: str, capacity: int, running: int, bots: Iterable[str] | None,
                 renew_matches: Sequence[str] = (), declared: Mapping[str, int] | None = None,
                 draining: bool = False, relay_address: str = "") -> bool:
        """Write (or renew) a referee's entry and the claims of the matches it runs: the
        heartbeat.  ``bots`` rewrites the set of its connected bots (the first heartbeat, and
        the first after a Redis error, so that an add or remove lost to an outage is
        repaired); ``None`` only renews the set, which costs the same however many bots are
        connected (see ``docs/fleet.md``).  ``declared`` (bot id -> capacity) rewrites the
        capacities the connected bots declared, as ``bots`` the set; ``None`` renews it.
        ``draining``: the referee is stopping (see :meth:`live_ids`); a referee never
        returns from draining, and its first draining heartbeat is what marks it.

        Returns whether the live set had forgotten the referee (its first heartbeat, or a
        late one after readers pruned it and its bots' index entries) or its bots and
        capacities had expired (a heartbeat late by more than the TTL): the caller then
        rewrites its bots at the next heartbeat."""
        now = time.time()
        members = None if bots is None else set(bots)
        stale = set() if members is None else {str(b) for b in self.client.smembers(self._key("bots", referee_id))}
        pipe = self.client.pipeline(transaction=True)
        entry = self._key("referee", referee_id)
        pipe.hset(entry, mapping={"address": address, "capacity": capacity, "running": running, "heartbeat": now,
                                  "relay_address": relay_address})
        pipe.pexpire(entry, self._ttl_ms)
        bot_set = self._key("bots", referee_id)
        if members is not None:
            pipe.delete(bot_set)
            if members:
                pipe.sadd(bot_set, *members)
            for bot_id in stale - members:
                pipe.srem(self._key("bot", bot_id), referee_id)
            for bot_id in members:
                pipe.sadd(self._key("bot", bot_id), referee_id)
        bots_renewed = len(pipe)
        pipe.pexpire(bot_set, self._ttl_ms)
        capacities = self._key("capacity", referee_id)
        if declared is not None:
            pipe.delete(capacities)
            if declared:
                pipe.hset(capacities, mapping={bot_id: seats for bot_id, seats in declared.items()})
        pipe.pexpire(capacities, self._ttl_ms)
        pipe.zremrangebyscore(self._key("live"), "-inf", now - 2 * self.ttl_s)
        pipe.zremrangebyscore(self._key("draining"), "-inf", now - 2 * self.ttl_s)
        if draining:  # before the live set's write, whose reply is the one returned
            pipe.zadd(self._key("draining"), {referee_id: now})
        pipe.zadd(self._key("live"), {referee_id: now})
        for match_id in renew_matches:
            self._renew(keys=[self._key("match", match_id)], args=[referee_id, self._ttl_ms], client=pipe)
        results = pipe.execute()
        # a heartbeat later than the TTL but inside the live set's 2 x TTL finds its bots (and
        # their capacities, which share the TTL) expired while the referee still counts as
        # live: rewrite them too (a referee with no bot has no such key; its rewrite is cheap)
        expired = members is None and not results[bots_renewed]
        return bool(results[-1 - len(renew_matches)]) or expired

    def bot_connected(self, referee_id: str, seat: str, capacity: int = 1) -> None:
        """A version of a bot (its seat key, :mod:`store.seat_keys`) opened a stream to the
        referee (between heartbeats), declaring that it plays ``capacity`` seats at once:
        listed under its seat key and its bot's id, and its capacity kept in Redis so that a
        referee that plays a seat of it relayed from this referee's stream knows the bound
        of its seats fleet-wide (:mod:`store.seats`)."""
        pipe = self.client.pipeline(transaction=False)
        for member in dict.fromkeys((seat, bot_of_seat(seat))):
            pipe.sadd(self._key("bot", member), referee_id)
            pipe.sadd(self._key("bots", referee_id), member)
        pipe.pexpire(self._key("bots", referee_id), self._ttl_ms)
        pipe.hset(self._key("capacity", referee_id), seat, capacity)
        pipe.pexpire(self._key("capacity", referee_id), self._ttl_ms)
        pipe.execute()

    def bot_disconnected(self, referee_id: str, seat: str, last: bool = True) -> None:
        """A version's stream to the referee ended; ``last``: no other version of its bot is
        connected there, so the bot's id is delisted too."""
        pipe = self.client.pipeline(transaction=False)
        for member in dict.fromkeys((seat, *([bot_of_seat(seat)] if last else []))):
            pipe.srem(self._key("bot", member), referee_id)
            pipe.srem(self._key("bots", referee_id), member)
        pipe.hdel(self._key("capacity", referee_id), seat)
        pipe.execute()

    def set_running(self, referee_id: str, running: int) -> None:
        """The referee's count of running matches changed (a match started or ended); the
        entry's TTL is set again, so that a write that lands after :meth:`withdraw` leaves
        nothing that outlives it."""
        pipe = self.client.pipeline(transaction=False)
        pipe.hset(self._key("referee", referee_id), "running", running)
        pipe.pexpire(self._key("referee", referee_id), self._ttl_ms)
        pipe.execute()

    def withdraw(self, referee_id: str) -> None:
        """Remove a stopped referee at once (a dead one expires instead): its seats and
        claims stop counting."""
        bots = self.client.smembers(self._key("bots", referee_id))
        pipe = self.client.pipeline(transaction=True)
        for bot_id in bots:
            pipe.srem(self._key("bot", str(bot_id)), referee_id)
        pipe.delete(self._key("referee", referee_id), self._key("bots", referee_id), self._key("capacity", referee_id))
        pipe.zrem(self._key("live"), referee_id)
        pipe.zrem(self._key("draining"), referee_id)
        pipe.execute()

    # ------------------------------------------------------------ reading the fleet
    def live_ids(self, draining: bool = False) -> list[str]:
        """The ids of the referees whose entries have not expired and that take new work
        (one round trip, no entry read).  ``draining`` adds the referees that are stopping:
        they take no new match or relay, but hold the seats and claims of the matches they
        still run (what the seat ledger counts, and where running matches are read)."""
        pipe = self.client.pipeline(transaction=False)
        pipe.zrangebyscore(self._key("live"), time.time() - self.ttl_s, "+inf")
        if not draining:
            pipe.zrange(self._key("draining"), 0, -1)
        replies = pipe.execute()
        leaving = set() if draining else {str(i) for i in replies[1]}
        return [str(i) for i in replies[0] if str(i) not in leaving]

    def live(self, draining: bool = False) -> list[RefereeEntry]:
        """Every referee whose entry has not expired and that takes new work (``draining``:
        the stopping ones too, see :meth:`live_ids`), in no particular order."""
        ids = self.live_ids(draining)
        if not ids:
            return []
        pipe = self.client.pipeline(transaction=False)
        for referee_id in ids:
            pipe.hgetall(self._key("referee", referee_id))
        entries = []
        for referee_id, data in zip(ids, pipe.execute(), strict=True):
            if data and "address" in data:
                entries.append(RefereeEntry(referee_id, str(data["address"]), int(data.get("capacity", 0)),
                                            int(data.get("running", 0)), float(data.get("heartbeat", 0)),
                                            str(data.get("relay_address", ""))))
        return entries

    def live_entries(self) -> list[RefereeEntry]:
        """:meth:`live`, read again once the last read is ``live_cache_s`` old."""
        read_at, entries = self._cached
        if time.monotonic() - read_at >= self.live_cache_s:
            entries = self.live()
            self._cached = (time.monotonic(), entries)
            self._placed.clear()
        return entries

    def place(self, match_id: str, bot_ids: Sequence[str]) -> list[RefereeEntry]:
        """Where to send match ``match_id``, best first: the live referee that holds its claim
        (it runs the match: a retry joins it there), then :meth:`placements`."""
        holder, local, missing = self._seats_local(match_id, bot_ids)
        entries = self.live_entries()
        running = [entry for entry in entries if entry.referee_id == holder]
        ranked = [entry for entry in self._ranked(entries, local, missing, match_id) if entry.referee_id != holder]
        if not running and ranked:
            self._placed[ranked[0].referee_id] += 1
        return running + ranked

    def placements(self, bot_ids: Sequence[str]) -> list[RefereeEntry]:
        """The live referees that may run a match seating ``bot_ids``, best first; none
        unless every bot has a stream to some live referee.  A seat whose bot has no stream
        on the referee chosen is relayed from one where it has (:mod:`referee.relay`), so
        the best referee is the one with the most seats local (all of them: no relay), then
        the least busy (fewest running matches, then most room); only referees with room
        are listed."""
        _, local, missing = self._seats_local("", bot_ids)
        return self._ranked(self.live_entries(), local, missing)

    def _ranked(self, entries: list[RefereeEntry], local: Mapping[str, int], missing: bool,
                match_id: str = "") -> list[RefereeEntry]:
        """Most seats local first, then the least busy (the running count read, plus the
        matches placed there since), then most room; a tie goes to the referee whose hash
        with ``match_id`` is lowest (rendezvous hashing; without a match, the lowest id), so
        that equally loaded referees share a burst of matches rather than take it in the
        order of their ids."""
        if missing:
            return []

        def rank(entry: RefereeEntry) -> tuple[int, int, int, bytes]:
            busy = entry.running + self._placed[entry.referee_id]
            tie = (hashlib.blake2b(f"{match_id}/{entry.referee_id}".encode(), digest_size=8).digest() if match_id
                   else entry.referee_id.encode())
            return -local.get(entry.referee_id, 0), busy, busy - entry.capacity, tie

        return sorted((entry for entry in entries if entry.room > 0), key=rank)

    def hosting(self, bot_ids: Sequence[str]) -> list[RefereeEntry]:
        """The live referees where every one of ``bot_ids`` has a stream open, the least
        busy first (where a relay finds a bot; where tools wait for bots to connect)."""
        wanted = sorted(set(bot_ids))
        _, local, _ = self._seats_local("", wanted)
        return sorted((entry for entry in self.live_entries() if local.get(entry.referee_id, 0) == len(wanted)),
                      key=lambda e: (e.running, -e.room, e.referee_id))

    def _seats_local(self, match_id: str, bot_ids: Sequence[str]) -> tuple[str, dict[str, int], bool]:
        """One round trip whatever the fleet's size (:data:`_CANDIDATES`): the holder of
        ``match_id``'s claim (``""`` for none), how many of the seats ``bot_ids`` are local
        to each live referee, by referee id, and whether a bot is connected to no live
        referee."""
        seats: dict[str, int] = {}
        for bot_id in bot_ids:
            seats[bot_id] = seats.get(bot_id, 0) + 1
        holder, counts, missing = self._candidates(
            keys=[self._key("match", match_id), *(self._key("bot", bot_id) for bot_id in seats)],
            args=[self._key("live"), time.time() - self.ttl_s, self._key("draining"), *seats.values()])
        local = {referee_id: int(seats) for referee_id, _, seats in
                 (pair.rpartition("=") for pair in str(counts).split())}
        return str(holder or ""), local, bool(missing)

    def connected_bots(self, versions: bool = False) -> set[str]:
        """Every bot with a stream open to at least one live referee that takes new work (by
        id; with ``versions``, each connected version's seat key too)."""
        keys = [self._key("bots", entry.referee_id) for entry in self.live()]
        members = {str(member) for member in self.client.sunion(keys)} if keys else set()
        return members if versions else {member for member in members if not names_version(member)}

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
