"""The fleet-wide seat ledger: how many seats each bot plays now on all the live referees
together, so that the capacity a bot declares (``Hello.capacity``, the seats it plays at
once) holds for the whole fleet and not per referee.

A bot with a stream on every referee declares its whole capacity on each; each referee
counting only its own seats would give it up to N times that at once (more decisions
waiting in its thread pool, then timeouts).  Keys, under the fleet's (see
:mod:`workers.storage.fleet`):

* ``fleet:capacity:{bot id}`` - hash, referee id -> the capacity the bot declared to that
  referee (written when a stream opens, dropped when it closes).  The bot's capacity is the
  smallest declared to a live referee: a bot restarted with a smaller ``--capacity`` is held
  to it as soon as one stream says so.
* ``fleet:seats:{bot id}`` - hash, match id -> ``{referee id}:{seats}``: the seats of the
  bot in each match running now, written by the referee that runs the match (whichever
  referee holds the bot's stream, so a seat relayed from another referee counts too).

Both are keyed by the bot, never by a referee's session.  A field counts only while its
referee is in ``fleet:live`` (its heartbeat is younger than the TTL): a referee that dies
holds no capacity once it leaves the directory, and its fields are deleted by the next
:meth:`SeatLedger.take` that reads them.  A match's seats are taken in one Lua script
(read, sum, compare, write: one round trip, atomic, so two referees starting matches of
one bot at once cannot both squeeze in) and released in another (compare-and-delete: only
the referee that took them).  The scripts read ``fleet:live`` and the bots' two hashes,
all passed as keys.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from workers.storage.fleet import FleetDirectory

#: KEYS: fleet:live, then per bot its seats hash and its capacity hash.
#: ARGV: referee id, match id, oldest live heartbeat, then per bot its seats needed and the
#: capacity the caller knows it declared (0: none known).  Returns {} when the seats are
#: taken, else {bot index (1-based), seats in use, capacity}.  A field of the same match
#: is not counted (taking a match's seats again is idempotent) and is overwritten.
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
  local needed, capacity = tonumber(ARGV[2 + 2 * i]), tonumber(ARGV[3 + 2 * i])
  local declared = redis.call('HGETALL', capacity_key)
  for j = 1, #declared, 2 do
    if live(declared[j]) then
      local seats = tonumber(declared[j + 1])
      if capacity == 0 or seats < capacity then capacity = seats end
    else
      redis.call('HDEL', capacity_key, declared[j])
    end
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
  redis.call('HSET', KEYS[2 * i], match, me .. ':' .. ARGV[2 + 2 * i])
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


@dataclass(frozen=True)
class SeatNeed:
    """What a match asks of one bot."""

    seats: int
    """Seats of the match the bot plays."""
    declared: int
    """The capacity the bot declared to the calling referee (0: it has no stream there)."""


@dataclass(frozen=True)
class SeatRefusal:
    """Why a match's seats were not taken: one bot has no room left fleet-wide."""

    bot_id: str
    in_use: int
    """Seats the bot plays now on the live referees."""
    capacity: int
    """Its capacity (0: no live referee knows it: the bot is connected nowhere)."""
    needed: int


class SeatLedger:
    """Takes and releases the seats of a match in the fleet-wide ledger (synchronous
    redis-py, like :class:`FleetDirectory`: the referee calls it off its event loop)."""

    def __init__(self, directory: FleetDirectory) -> None:
        self.directory = directory
        self._take = directory.client.register_script(_TAKE)
        self._release = directory.client.register_script(_RELEASE)

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
            keys += [directory.key("seats", bot_id), directory.key("capacity", bot_id)]
            args += [needs[bot_id].seats, needs[bot_id].declared]
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

    def entries(self, bot_id: str) -> dict[str, str]:
        """The bot's ledger as stored (match id -> ``{referee id}:{seats}``), dead referees'
        fields included until a take reads them."""
        return {str(k): str(v) for k, v in self.directory.client.hgetall(self.directory.key("seats", bot_id)).items()}
