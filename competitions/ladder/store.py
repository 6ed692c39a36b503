"""Ladders in Redis: the spec, the rounds (each a tournament), who partnered whom, the end.

Keys (under the store's prefix ``{p}``, listed with the rest in :mod:`store.redis_store`)::

    {p}ladders                  sorted set of ladder ids by creation time
    {p}ladder:{id}              the spec JSON, written once
    {p}ladder:{id}:rounds       list of the round tournaments' ids, in order
    {p}ladder:{id}:partnered    hash: "a|b" (sorted bot ids) -> rounds they partnered in
    {p}ladder:{id}:open         set of the rounds not yet seen finished
    {p}ladder:{id}:planned      matches of every round so far
    {p}ladder:{id}:finished     when the last round ended (the ladder is over), written once
    {p}ladder-of:{tournament}   the ladder a round tournament belongs to
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from competitions.tournaments.store import TournamentError
from store.redis_store import Store

# KEYS: the round's owner key, the rounds list, the partnered hash, the open set, the planned
# counter.  ARGV: ladder id, round id, its matches, then each partner pair.  Returns 1 when
# the round is noted now, 0 when it was already.
_ADD_ROUND = """
if not redis.call('SET', KEYS[1], ARGV[1], 'NX') then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[4], ARGV[2])
redis.call('INCRBY', KEYS[5], ARGV[3])
for i = 4, #ARGV do redis.call('HINCRBY', KEYS[3], ARGV[i], 1) end
return 1
"""


@dataclass(frozen=True)
class LadderSpec:
    """What a ladder plays."""

    ladder_id: str
    preset: str
    matches: int
    """Matches to play in all (rounds are planned until their matches reach it); 0: no end
    (beat's automated ladders)."""
    games: int
    """Games per match."""
    seed: int
    parallel: int
    """Rounds played at once."""
    bots: tuple[str, ...] | None = None
    """The bots it may choose from (those connected); ``None``: every connected bot."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (how the spec is stored)."""
        return {**asdict(self), "bots": None if self.bots is None else list(self.bots)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LadderSpec:
        """The inverse of :meth:`to_dict`."""
        bots = data.get("bots")
        return cls(**{**data, "bots": None if bots is None else tuple(bots)})


class LadderStore:
    """Typed access to ladders."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.client = store.client
        self._add_round = self.client.register_script(_ADD_ROUND)

    def _key(self, *parts: str) -> str:
        return self.store.prefix + ":".join(parts)

    def save_spec(self, spec: LadderSpec) -> None:
        """Store a new ladder; refuses an id that is taken."""
        if not self.client.set(self._key("ladder", spec.ladder_id), json.dumps(spec.to_dict()), nx=True):
            raise TournamentError(f"ladder {spec.ladder_id!r} already exists")
        self.client.zadd(self._key("ladders"), {spec.ladder_id: time.time()})

    def spec(self, ladder_id: str) -> LadderSpec:
        """A ladder's spec."""
        raw = self.client.get(self._key("ladder", ladder_id))
        if raw is None:
            raise TournamentError(f"no ladder {ladder_id!r}")
        return LadderSpec.from_dict(json.loads(str(raw)))

    def exists(self, ladder_id: str) -> bool:
        """Whether a ladder of this id was created."""
        return bool(self.client.exists(self._key("ladder", ladder_id)))

    def ladder_ids(self) -> list[str]:
        """Every ladder, oldest first."""
        return [str(x) for x in self.client.zrange(self._key("ladders"), 0, -1)]

    def add_round(self, ladder_id: str, tournament_id: str, teams: Sequence[Sequence[str]], matches: int) -> bool:
        """Note a new round (its tournament already created, with ``matches`` matches) and
        its partnerships, once: ``False`` if the round was noted already (a step that died
        after creating the round's tournament is finished by the next one, which notes it)."""
        pairs = ["|".join(pair) for team in teams for pair in itertools.combinations(sorted(set(team)), 2)]
        keys = [self._key("ladder-of", tournament_id), self._key("ladder", ladder_id, "rounds"),
                self._key("ladder", ladder_id, "partnered"), self._key("ladder", ladder_id, "open"),
                self._key("ladder", ladder_id, "planned")]
        return bool(self._add_round(keys=keys, args=[ladder_id, tournament_id, matches, *pairs]))

    def open_rounds(self, ladder_id: str) -> list[str]:
        """Rounds not yet seen finished (an endless ladder's step reads these, not every round)."""
        return sorted(str(x) for x in self.client.smembers(self._key("ladder", ladder_id, "open")))

    def close_rounds(self, ladder_id: str, tournament_ids: Sequence[str]) -> None:
        """Rounds seen finished."""
        if tournament_ids:
            self.client.srem(self._key("ladder", ladder_id, "open"), *tournament_ids)

    def planned(self, ladder_id: str) -> int:
        """Matches of every round planned so far."""
        return int(self.client.get(self._key("ladder", ladder_id, "planned")) or 0)

    def round_count(self, ladder_id: str) -> int:
        """Rounds planned so far."""
        return int(self.client.llen(self._key("ladder", ladder_id, "rounds")))

    def rounds(self, ladder_id: str) -> list[str]:
        """The round tournaments, in order."""
        return [str(x) for x in self.client.lrange(self._key("ladder", ladder_id, "rounds"), 0, -1)]

    def partnered(self, ladder_id: str) -> dict[frozenset[str], int]:
        """How many rounds each pair of bots partnered in."""
        raw: dict[str, str] = self.client.hgetall(self._key("ladder", ladder_id, "partnered"))  # type: ignore[assignment]
        return {frozenset(pair.split("|")): int(count) for pair, count in raw.items()}

    def ladder_of(self, tournament_id: str) -> str | None:
        """The ladder a tournament is a round of, if any."""
        raw = self.client.get(self._key("ladder-of", tournament_id))
        return None if raw is None else str(raw)

    def finish(self, ladder_id: str) -> bool:
        """Mark the ladder over, once; ``False`` if it was already."""
        return bool(self.client.set(self._key("ladder", ladder_id, "finished"), repr(time.time()), nx=True))

    def finished(self, ladder_id: str) -> bool:
        """Whether the ladder is over."""
        return bool(self.client.exists(self._key("ladder", ladder_id, "finished")))
