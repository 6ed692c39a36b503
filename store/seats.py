"""The fleet-wide seat ledger: how many seats each bot plays now on all the live referees
together, so that the capacity a bot declares (``Hello.capacity``, the seats it plays at
once) holds for the whole fleet and not per referee.

A bot with a stream on every referee declares its whole capacity on each; each referee
counting only its own seats would give it up to N times that at once (more decisions
waiting in its thread pool, then timeouts).  The ledger is one hash per version of a bot
(its seat key, :mod:`store.seat_keys`: two versions connected at once are two processes,
each declaring its own capacity), keyed by the version and never by a referee's session,
under the fleet's keys (see :mod:`store.fleet`):

* ``fleet:seats:{seat key}`` - match id -> ``{referee id}:{seats}``: the version's seats in each
  match running now, written by the referee that runs the match, whichever referee holds
  the bot's stream (so a seat relayed from another referee's stream counts too).

The bound is the capacity the bot declared on the stream that plays the seat: the calling
referee's own stream when it has one, else (a relayed seat) the one it declared to the
referee holding its stream (``fleet:capacity:{referee id}``, written when the stream opens).

A field counts only while its referee is in ``fleet:live`` (its heartbeat is younger than
the TTL), draining or not: a referee that stops keeps its heartbeat, and so its seats,
until the matches it drains have ended; one that dies holds no seats once it leaves the
directory, and its fields
are deleted by the next :meth:`SeatLedger.take` that reads them.  A match's seats are taken
in one Lua script (read, sum, compare, write: one round trip, atomic, so two referees
starting matches of one bot at once cannot both squeeze in) and given back in another
(compare-and-delete: only by the referee that took them).  Each script reads only the keys
it is given, and the take's work grows with the bot's running matches, not with the fleet.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from store.fleet import FleetDirectory
from store.seat_keys import bot_of_seat

#: KEYS: fleet:live, then per bot its seats hash and the capacity hash of the referee its
#: capacity is read from.  ARGV: referee id, match id, oldest live heartbeat, then per bot
#: its seats needed, its capacity (0: read it from that hash), its id and the id of that
#: referee.  Returns {} when the seats are taken, else {bot index (1-based), seats in use,
#: capacity}.  A field of the same match is not counted (taking a match's seats again is
#: idempotent) and is overwritten.
_TAKE = """
local me, match, oldest = ARGV[1], ARGV[2], tonumber(ARGV[3])
local known = {[me] = true}
local function live(referee)
  if known[referee] == nil then
    local beat = redis.call('ZSCORE', KEYS[1], referee)
    known[referee] = beat ~= false and tonumber(beat) >= oldest
  end
  return known[referee]
end
local bots = (#KEYS - 1) / 2
for i = 1, bots do
  local seats_key, capacity_key = KEYS[2 * i], KEYS[2 * i + 1]
  local needed, capacity = tonumber(ARGV[4 * i]), tonumber(ARGV[4 * i + 1])
  if capacity == 0 and live(ARGV[4 * i + 3]) then
    capacity = tonumber(redis.call('HGET', capacity_key, ARGV[4 * i + 2]) or 0)
  end
  local used = 0
  local held = redis.call('HGETALL', seats_key)
  for j = 1, #held, 2 do
    if held[j] ~= match then
      local referee, seats = string.match(held[j + 1], '^(.*):(%d+)$')
      if referee ~= nil and live(referee) then
        used = used + tonumber(seats)
      else
        redis.call('HDEL', seats_key, held[j])
      end
    end
  end
  if capacity == 0 or used + needed > capacity then return {i, used, capacity} end
end
for i = 1, bots do
  redis.call('HSET', KEYS[2 * i], match, me .. ':' .. ARGV[4 * i])
end
return {}
"""

#: KEYS: the bots' seats hashes.  ARGV: referee id, match id.  Deletes the match's field
#: where it is this referee's.
_RELEASE = """
local mine = ARGV[1] .. ':'
for _, key in ipairs(KEYS) do
  local entry = redis.call('HGET', key, ARGV[2])
  if entry and string.sub(entry, 1, #mine) == mine then redis.call('HDEL', key, ARGV[2]) end
end
return 0
"""

#: KEYS: the capacity hashes of the live referees.  Returns a flat list, bot id then the
#: most seats it declared on any of them, for every bot listed there: the union is built
#: in Redis, so the caller parses each connected bot once, not once per referee.
_DECLARED = """
local most, order = {}, {}
for _, key in ipairs(KEYS) do
  local declared = redis.call('HGETALL', key)
  for j = 1, #declared, 2 do
    local bot, seats = declared[j], tonumber(declared[j + 1])
    if most[bot] == nil then order[#order + 1] = bot end
    if most[bot] == nil or seats > most[bot] then most[bot] = seats end
  end
end
local out = {}
for _, bot in ipairs(order) do
  out[#out + 1] = bot
  out[#out + 1] = most[bot]
end
return out
"""


@dataclass(frozen=True)
class SeatNeed:
    """What a match asks of one bot."""

    seats: int
    """Seats of the match the bot plays."""
    declared: int
    """The capacity the bot declared on the calling referee's stream (0: it has none there)."""
    declared_to: str = ""
    """With ``declared`` 0 (a relayed seat): the referee holding the bot's stream, whose
    record of the capacity the bot declared bounds its seats."""


@dataclass(frozen=True)
class SeatUsage:
    """A bot as the directory and the ledger show it fleet-wide (what a page or the
    command line says of its seats, without asking any referee)."""

    in_use: int
    """Seats it plays now on the live referees (the ledger's fields of live referees)."""
    capacity: int
    """The most seats it declared on a stream to a live referee (each stream declares the
    bot's whole capacity); 0: it has no stream on a live referee."""

    @property
    def connected(self) -> bool:
        """Whether it has a stream on a live referee."""
        return self.capacity > 0


@dataclass(frozen=True)
class SeatRefusal:
    """Why a match's seats were not taken: one bot has no room left fleet-wide."""

    bot_id: str
    in_use: int
    """Seats the bot plays now on the live referees."""
    capacity: int
    """Its capacity (0: unknown: the referee said to hold its stream does not, or is dead)."""
    needed: int


class SeatLedger:
    """Takes and releases the seats of a match in the fleet-wide ledger (synchronous
    redis-py, like :class:`FleetDirectory`: the referee calls it off its event loop)."""

    def __init__(self, directory: FleetDirectory) -> None:
        self.directory = directory
        self._take = directory.client.register_script(_TAKE)
        self._release = directory.client.register_script(_RELEASE)
        self._declared = directory.client.register_script(_DECLARED)

    def take(self, referee_id: str, match_id: str, needs: Mapping[str, SeatNeed]) -> SeatRefusal | None:
        """Take every bot's seats of ``match_id`` for ``referee_id``, or none of them; the
        refusal names the first bot without room."""
        bots = list(needs)
        if not bots:
            return None
        directory = self.directory
        keys = [directory.key("live")]
        args: list[str | int | float] = [referee_id, match_id, time.time() - directory.ttl_s]
        for bot_id in bots:
            need = needs[bot_id]
            declared_to = need.declared_to or referee_id
            keys += [directory.key("seats", bot_id), directory.key("capacity", declared_to)]
            args += [need.seats, need.declared, bot_id, declared_to]
        refused = self._take(keys=keys, args=args)
        if not refused:
            return None
        index, in_use, capacity = (int(value) for value in refused)
        bot_id = bots[index - 1]
        return SeatRefusal(bot_id, in_use, capacity, needs[bot_id].seats)

    def release(self, referee_id: str, match_id: str, bot_ids: Sequence[str]) -> None:
        """Give back the seats ``referee_id`` took for ``match_id`` (the match ended, was
        aborted, or never started)."""
        if bot_ids:
            self._release(keys=[self.directory.key("seats", bot_id) for bot_id in bot_ids],
                          args=[referee_id, match_id])

    def reassert(self, referee_id: str, held: Mapping[str, Mapping[str, int]]) -> None:
        """Write back the seats of the matches ``referee_id`` runs (match id -> bot id ->
        seats) where they are missing: a take that found the referee's heartbeat late (it
        looked dead) deleted them while its matches went on.  One pipeline of ``HSETNX``."""
        if not held:
            return
        pipe = self.directory.client.pipeline(transaction=False)
        for match_id, bots in held.items():
            for bot_id, seats in bots.items():
                pipe.hsetnx(self.directory.key("seats", bot_id), match_id, f"{referee_id}:{seats}")
        pipe.execute()

    def usage(self, bot_ids: Sequence[str] | None = None) -> dict[str, SeatUsage]:
        """Each of ``bot_ids`` (default: every bot with a stream on a live referee)
        fleet-wide, summed over its connected versions (each declares and plays its own
        seats): the capacity their streams declared (``fleet:capacity:{referee}``) and the
        seats they play on the live referees (their ledgers), without asking any referee.
        Three round trips however many referees and bots: the live referees, their
        declarations (one script), the versions' ledgers (one pipeline of ``HGETALL``)."""
        if bot_ids is not None and not bot_ids:
            return {}
        directory = self.directory
        live = directory.live_ids(draining=True)  # a draining referee's matches still hold seats
        declared = self._declared_by_every(live)
        by_bot: dict[str, list[str]] = {}
        for seat in declared:
            by_bot.setdefault(bot_of_seat(seat), []).append(seat)
        wanted = sorted(by_bot) if bot_ids is None else list(dict.fromkeys(bot_ids))
        seats = [seat for bot_id in wanted for seat in by_bot.get(bot_id, [bot_id])]
        pipe = directory.client.pipeline(transaction=False)
        for seat in seats:
            pipe.hgetall(directory.key("seats", seat))
        alive = set(live)
        in_use: dict[str, int] = dict.fromkeys(wanted, 0)
        for seat, ledger in zip(seats, pipe.execute(), strict=True):
            for entry in ledger.values():
                referee_id, _, taken = str(entry).rpartition(":")
                if referee_id in alive and taken.isdigit():
                    in_use[bot_of_seat(seat)] += int(taken)
        return {bot_id: SeatUsage(in_use[bot_id], sum(declared.get(seat, 0) for seat in by_bot.get(bot_id, [])))
                for bot_id in wanted}

    def _declared_by_every(self, live: Sequence[str]) -> dict[str, int]:
        """Every seat key (a bot's version) listed by a live referee, with the most seats it
        declared on one."""
        if not live:
            return {}
        flat = self._declared(keys=[self.directory.key("capacity", referee_id) for referee_id in live])
        return {str(seat): int(taken) for seat, taken in zip(flat[::2], flat[1::2], strict=True)}

    def entries(self, bot_id: str) -> dict[str, str]:
        """The bot's ledger as stored (match id -> ``{referee id}:{seats}``), dead referees'
        fields included until a take reads them."""
        return {str(k): str(v) for k, v in self.directory.client.hgetall(self.directory.key("seats", bot_id)).items()}
