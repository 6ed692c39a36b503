"""Bot versions: every version string a bot says in its hello is rated as its own entity.

A bot (a registered name and token) improves over time; its author wants each version's
rating apart, and the old versions' results kept where they were earned.  So each
``(bot, version)`` gets a *rated id*, the id its ratings, history and head-to-head live
under on every leaderboard:

* the first version a bot connects with is rated under the bot's own id, so an arena's
  results recorded before versions were (which carry no version) count for that first
  version, and a bot that never changes version looks exactly as before;
* each later version gets ``{bot id}-v{n}`` (``n`` from 2, in order of first appearance).

The version a bot connected with last is its *current* version; the others are
*superseded*.  Leaderboards show current versions unless asked for every version.

Keys (under the store's prefix ``{p}``, listed with the rest in :mod:`store.redis_store`)::

    {p}bot-versions:{bot}   hash: version string -> rated id
    {p}rated:{rated id}     hash: bot, version, label ("name@version"), first_seen
    {p}bot-current:{bot}    the rated id of the bot's latest connected version
    {p}superseded           set of rated ids that are not their bot's current version
    {p}new-versions         sorted set: seat key ({bot}@{version}) -> first seen, of each later
                            version (not a bot's first) until the arena's automatic SPRT
                            against its predecessor takes it (:mod:`competitions.version_tests`)
    {p}version-matches:{rated id}   sorted set of the version's recorded match ids by finish time
    {p}version-conduct:{rated id}   hash: the version's conduct totals (the fields of
                                    ``{p}bot-conduct:{bot}``, whose totals are its versions' sum)

The last two are written with the match, by :meth:`store.redis_store.Store.record_match`
from the result's rated ids, so each version's conduct (strikes, timeouts, time per
decision) and matches read apart from the bot's.

Match results carry, beside the protocol's fields, ``bot_versions`` and ``rated_ids`` (one
per seat, written by the referee when it records the match; see :func:`stamp_fields`);
:func:`rated_view` is what the ratings read.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import redis

from store.redis_store import BOT_VERSIONS, EXTRA_RESULT_KEYS, RATED_IDS, Store
from store.seat_keys import seat_key

ResultT = TypeVar("ResultT")
#: How a later version's rated id ends (a bot id is 12 hexadecimal digits: never like this).
LATER_VERSION = re.compile(r"-v[0-9]+$")


@dataclass(frozen=True)
class VersionRecord:
    """One version of a bot."""

    rated_id: str
    bot_id: str
    version: str
    label: str
    """How leaderboards listing every version name it: ``name@version``."""
    first_seen: float
    current: bool


class VersionLimitError(ValueError):
    """A bot has as many versions as it may have, and said hello with a new one."""


class BotVersions:
    """The versions of every bot, next to (and sharing the client of) a :class:`Store`."""

    def __init__(self, store: Store, max_versions: int = 0) -> None:
        """``max_versions``: the most versions a bot may have (0: no limit)."""
        self.store = store
        self.max_versions = max_versions

    @property
    def client(self) -> redis.Redis:
        """The store's client, read at each use (the referee's store may be given a new one)."""
        return self.store.client

    def _key(self, *parts: str) -> str:
        return self.store.prefix + ":".join(parts)

    def rated_id(self, bot_id: str, version: str) -> str:
        """The rated id of ``bot_id`` at ``version``, allocated on first sight (atomically:
        two referees seeing a new version at once agree on its id)."""
        versions = self._key("bot-versions", bot_id)
        known = self.client.hget(versions, version)
        if known is not None:
            return str(known)
        name = self.store.bot_names([bot_id]).get(bot_id, bot_id)

        allocated: list[str] = []

        def allocate(pipe: redis.client.Pipeline) -> None:
            allocated.clear()
            found = pipe.hget(versions, version)
            if found is not None:
                allocated.append(str(found))
                return
            count = int(pipe.hlen(versions))
            if self.max_versions and count >= self.max_versions:
                raise VersionLimitError(f"bot {name!r} has {count} versions, the most a bot may have: connect with "
                                        "one of them or ask the arena's admin (PITCH_MAX_BOT_VERSIONS)")
            rated = bot_id if count == 0 else f"{bot_id}-v{count + 1}"
            now = time.time()
            pipe.multi()
            pipe.hset(versions, version, rated)
            pipe.hset(self._key("rated", rated), mapping={
                "bot": bot_id, "version": version, "label": f"{name}@{version}", "first_seen": repr(now)})
            if count:  # a later version: to be tested against its predecessor
                pipe.zadd(self._key("new-versions"), {seat_key(bot_id, version): now})
            allocated.append(rated)

        self.client.transaction(allocate, versions)
        return allocated[0]

    def connected(self, bot_id: str, version: str) -> str:
        """A bot said hello with ``version``: it becomes the bot's current version (and the
        previous current one superseded); returns its rated id."""
        rated = self.rated_id(bot_id, version)
        current = self._key("bot-current", bot_id)
        superseded = self._key("superseded")

        def switch(pipe: redis.client.Pipeline) -> None:
            previous = pipe.get(current)
            pipe.multi()
            if previous is not None and str(previous) != rated:
                pipe.sadd(superseded, str(previous))
            pipe.srem(superseded, rated)
            pipe.set(current, rated)

        self.client.transaction(switch, current)
        return rated

    def forget(self, bot_id: str) -> None:
        """Drop every version of a bot that never played a recorded match (a hosted
        version's check identity, :func:`store.hosted.check_id`): its rated ids would
        otherwise stay, naming nothing any result holds."""
        rated = [str(r) for r in self.client.hvals(self._key("bot-versions", bot_id))]
        pipe = self.client.pipeline(transaction=True)
        pipe.delete(self._key("bot-versions", bot_id), self._key("bot-current", bot_id),
                    *(self._key("rated", r) for r in rated))
        if rated:
            pipe.srem(self._key("superseded"), *rated)
        pipe.execute()

    def current(self, bot_id: str) -> str | None:
        """The rated id of the bot's latest connected version (``None`` before any hello)."""
        raw = self.client.get(self._key("bot-current", bot_id))
        return None if raw is None else str(raw)

    def current_of(self, bot_ids: Sequence[str]) -> dict[str, str]:
        """The current rated id of each of ``bot_ids`` that has said hello (one round trip)."""
        if not bot_ids:
            return {}
        found = self.client.mget([self._key("bot-current", bot) for bot in bot_ids])
        return {bot: str(rated) for bot, rated in zip(bot_ids, found, strict=True) if rated is not None}

    def superseded(self) -> set[str]:
        """Rated ids of versions that are no longer their bot's current one."""
        return {str(rated) for rated in self.client.smembers(self._key("superseded"))}

    def versions(self, bot_id: str) -> list[VersionRecord]:
        """Every version of a bot, oldest first."""
        ids = sorted({str(r) for r in self.client.hvals(self._key("bot-versions", bot_id))})
        current = self.current(bot_id)
        return sorted((replace(r, current=r.rated_id == current) for r in self.records(ids).values()),
                      key=lambda r: (r.first_seen, r.rated_id))

    def records(self, rated_ids: Iterable[str]) -> dict[str, VersionRecord]:
        """The version records of ``rated_ids`` that have one (one round trip); ``current``
        is not read here and is ``False``."""
        ids = list(dict.fromkeys(rated_ids))
        pipe = self.client.pipeline(transaction=False)
        for rated in ids:
            pipe.hmget(self._key("rated", rated), ["bot", "version", "label", "first_seen"])
        return {rated: VersionRecord(rated, str(bot), str(version), str(label), float(first_seen or 0), False)
                for rated, (bot, version, label, first_seen) in zip(ids, pipe.execute(), strict=True)
                if bot is not None}

    def labels(self, rated_ids: Iterable[str]) -> dict[str, str]:
        """``name@version`` for each rated id that has a version, else the bot's name (a bot
        whose results predate versions and that never said hello since)."""
        ids = list(dict.fromkeys(rated_ids))
        labels = self.store.bot_names(ids)
        labels.update({rated: record.label for rated, record in self.records(ids).items()})
        return labels

    def stamp(self, seats: Sequence[tuple[str, str | None]]) -> dict[str, list[str]]:
        """The version fields of a match result, from each seat's ``(bot id, version)``
        (``None`` for a seat the referee itself plays: rated under the bot's id).

        Every match recorded is stamped, and its versions are nearly always known by then
        (each was allocated at its bot's hello), so the known ones are read in one round
        trip; only a version not allocated yet goes through :meth:`rated_id`."""
        asked = [(bot, version) for bot, version in seats if version is not None]
        pipe = self.client.pipeline(transaction=False)
        for bot, version in asked:
            pipe.hget(self._key("bot-versions", bot), version)
        known = {seat: str(found) for seat, found in zip(asked, pipe.execute(), strict=True) if found is not None}
        return stamp_fields([(bot, version, bot if version is None else known.get((bot, version))
                              or self.rated_id(bot, version)) for bot, version in seats])


def bot_of(rated_id: str) -> str:
    """The bot a rated id belongs to."""
    return LATER_VERSION.sub("", rated_id)


def stamp_fields(seats: Sequence[tuple[str, str | None, str]]) -> dict[str, list[str]]:
    """The fields :func:`rated_view` reads, from each seat's (bot id, version, rated id)."""
    return {BOT_VERSIONS: [version or "" for _, version, _ in seats], RATED_IDS: [rated for _, _, rated in seats]}


def rated_view(result: ResultT, *, by_version: bool = True) -> ResultT | dict[str, Any]:
    """A stored match result as the ratings see it: each seat's bot id replaced by the rated
    id of the version that played it (unless not ``by_version``: a tournament's own table
    is per bot), and the version fields left out (the rest is the protocol's
    ``MatchResult``).  A result without versions (a protobuf, one recorded before versions
    were, or one made by hand) keeps its seats: they are rated under the bots' ids."""
    if not isinstance(result, Mapping):
        return result
    rated = result.get(RATED_IDS)
    seats = result.get("seats")
    plain = {key: value for key, value in result.items() if key not in EXTRA_RESULT_KEYS}
    if not by_version or not rated or not isinstance(seats, list) or len(rated) != len(seats):
        return plain
    return {**plain, "seats": [{**seat, "bot_id": str(rated_id)} for seat, rated_id in zip(seats, rated, strict=True)]}
