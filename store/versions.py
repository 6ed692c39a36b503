"""Bot versions: every version string a bot says in its hello is rated as its own entity.

A bot (a registered name and token) improves over time; its author wants each version's
rating apart, and the old versions' results kept where they were earned.  So each
``(bot, version)`` gets a *rated id*, the id its ratings, history and head-to-head live
under on every leaderboard:

* the first version a bot connects with is rated under the bot's own id, so an arena's
  results recorded before versions were (which carry no version) count for that first
  version, and a bot that never changes version looks exactly as before;
* each later version gets ``{bot id}-v{n}`` (``n`` from 2, in order of first appearance).

A bot's *current* version is the one its owner pinned (:meth:`BotVersions.pin`), else its
newest version that may play: a version the arena is still checking, or one that failed
its check (:mod:`store.version_checks`), is never current, and an older version connecting
again (a rollback process, the predecessor an SPRT keeps beside the new one) does not make
it current again: its owner pins it for that.  The others are *superseded*.  Leaderboards
show current versions unless asked for every version, and a seat naming the bot alone
goes to its current version where that is connected.

Keys (under the store's prefix ``{p}``, listed with the rest in :mod:`store.redis_store`)::

    {p}bot-versions:{bot}   hash: version string -> rated id
    {p}rated:{rated id}     hash: bot, version, label ("name@version"), first_seen, and the
                            arena's compliance check of the version (:mod:`store.version_checks`):
                            check (pending, passed or failed; none for a version that needed
                            none), check_summary, check_report, checked_at
    {p}bot-current:{bot}    the rated id of the bot's current version
    {p}bot-pin:{bot}        the rated id of the version the bot's owner pinned as current
    {p}superseded           set of rated ids that are not their bot's current version
    {p}new-versions         sorted set: seat key ({bot}@{version}) -> first seen, of each later
                            version (not a bot's first) until the arena's automatic SPRT
                            against its predecessor takes it (:mod:`competitions.version_tests`);
                            a version being checked joins it once it passed
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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
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


class VersionError(ValueError):
    """A version cannot be pinned: the bot has none by that name, or it failed its check."""


class CheckState(StrEnum):
    """Where the arena's compliance check of a version stands (:mod:`store.version_checks`)."""

    PENDING = "pending"
    PASSED = "passed"
    FAILED = "failed"


#: Check states of a version that may not play (nor be its bot's current version).
NOT_PLAYABLE = frozenset({CheckState.PENDING, CheckState.FAILED})


@dataclass(frozen=True)
class Arrival:
    """What a hello's version is to the arena."""

    rated_id: str
    check: CheckState | None
    """Its compliance check (``None``: it needs none: seen before checks were asked, or
    allocated without one)."""
    new: bool
    """Whether this hello allocated it."""
    current: str | None
    """The bot's current version's rated id after this hello."""


def version_order(rated_id: str) -> int:
    """A rated id's place among its bot's versions: 1 for the first (rated under the bot's
    id), ``n`` for ``{bot id}-v{n}``."""
    found = LATER_VERSION.search(rated_id)
    return int(found.group()[2:]) if found else 1


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

    def rated_key(self, rated_id: str) -> str:
        """The key of a version's record (its fields: the module's docstring)."""
        return self._key("rated", rated_id)

    def rated_of(self, bot_id: str, version: str) -> str | None:
        """The rated id of a version the bot already has (``None``: it never said it)."""
        found = self.client.hget(self._key("bot-versions", bot_id), version)
        return None if found is None else str(found)

    def rated_id(self, bot_id: str, version: str, check: bool = False) -> str:
        """The rated id of ``bot_id`` at ``version``, allocated on first sight (atomically:
        two referees seeing a new version at once agree on its id).  ``check``: a version
        allocated now is to pass the arena's compliance check before it plays (its check is
        pending, and it waits for its automatic SPRT until it passed)."""
        return self._allocate(bot_id, version, check)[0]

    def _allocate(self, bot_id: str, version: str, check: bool) -> tuple[str, bool]:
        """:meth:`rated_id`, and whether this call allocated it."""
        versions = self._key("bot-versions", bot_id)
        known = self.client.hget(versions, version)
        if known is not None:
            return str(known), False
        name = self.store.bot_names([bot_id]).get(bot_id, bot_id)

        allocated: list[tuple[str, bool]] = []

        def allocate(pipe: redis.client.Pipeline) -> None:
            allocated.clear()
            found = pipe.hget(versions, version)
            if found is not None:
                allocated.append((str(found), False))
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
                "bot": bot_id, "version": version, "label": f"{name}@{version}", "first_seen": repr(now),
                **({"check": CheckState.PENDING.value} if check else {})})
            if count and not check:  # a later version: to be tested against its predecessor
                pipe.zadd(self._key("new-versions"), {seat_key(bot_id, version): now})
            allocated.append((rated, True))

        self.client.transaction(allocate, versions)
        return allocated[0]

    def connected(self, bot_id: str, version: str, check: bool = False) -> Arrival:
        """A bot said hello with ``version`` (allocated now with a pending check if ``check``,
        see :meth:`rated_id`): it becomes the bot's current version if it is its newest one
        that may play and no version is pinned (see the module's docstring)."""
        rated, new = self._allocate(bot_id, version, check)
        raw = self.client.hget(self._key("rated", rated), "check")
        state = None if raw is None else CheckState(str(raw))
        if state not in NOT_PLAYABLE:
            self.promote(bot_id, rated)
        return Arrival(rated, state, new, self.current(bot_id))

    def promote(self, bot_id: str, rated: str) -> bool:
        """Make ``rated`` the bot's current version if no version is pinned and it is newer
        than the current one (a version that passed its check, one that said hello);
        whether it is current now."""
        return self._switch(bot_id, lambda pipe, now: rated if pipe.get(self._key("bot-pin", bot_id)) is None and (
            now is None or version_order(rated) >= version_order(now)) else now)

    def pin(self, bot_id: str, version: str | None) -> str | None:
        """Pin ``version`` as the bot's current version whatever comes after it (``None``:
        unpin, and the newest version that may play is current again); returns the current
        rated id.  Raises :class:`VersionError` for a version the bot never had or one that
        may not play."""
        pin = self._key("bot-pin", bot_id)
        if version is None:
            self.client.delete(pin)
            playable = [r.rated_id for r in self.versions(bot_id) if self.check_of(r.rated_id) not in NOT_PLAYABLE]
            newest = max(playable, key=version_order, default=None)
            if newest is not None:
                self._switch(bot_id, lambda pipe, now: newest)
            return newest
        rated = self.rated_of(bot_id, version)
        if rated is None:
            raise VersionError(f"the bot has no version {version[:64]!r}: it never connected with it")
        if self.check_of(rated) in NOT_PLAYABLE:
            raise VersionError(f"version {version[:64]!r} cannot be pinned: it did not pass the arena's check")
        self.client.set(pin, rated)
        self._switch(bot_id, lambda pipe, now: rated)
        return rated

    def pinned_versions(self, bot_ids: Sequence[str]) -> dict[str, str]:
        """The version string each of ``bot_ids`` has pinned, for those that pinned one
        (two round trips): what a bot host keeps running beside the newest."""
        if not bot_ids:
            return {}
        pins = self.client.mget([self._key("bot-pin", bot) for bot in bot_ids])
        rated = {bot: str(pin) for bot, pin in zip(bot_ids, pins, strict=True) if pin is not None}
        records = self.records(rated.values())
        return {bot: records[r].version for bot, r in rated.items() if r in records}

    def pinned(self, bot_id: str) -> str | None:
        """The rated id the bot's owner pinned, if any."""
        raw = self.client.get(self._key("bot-pin", bot_id))
        return None if raw is None else str(raw)

    def check_of(self, rated_id: str) -> CheckState | None:
        """The state of a version's compliance check (``None``: it needed none)."""
        state = self.client.hget(self._key("rated", rated_id), "check")
        return None if state is None else CheckState(str(state))

    def _switch(self, bot_id: str, choose: Callable[[redis.client.Pipeline, str | None], str | None]) -> bool:
        """Set the bot's current version to what ``choose`` picks from the pipeline (watched)
        and the current one, the superseded set following; whether the choice is current."""
        current = self._key("bot-current", bot_id)
        superseded = self._key("superseded")
        chosen: list[str | None] = []

        def switch(pipe: redis.client.Pipeline) -> None:
            raw = pipe.get(current)
            now = None if raw is None else str(raw)
            target = choose(pipe, now)
            chosen[:] = [target]
            if target is None or target == now:
                return
            pipe.multi()
            if now is not None:
                pipe.sadd(superseded, now)
            pipe.srem(superseded, target)
            pipe.set(current, target)

        self.client.transaction(switch, current, self._key("bot-pin", bot_id))
        return chosen[0] is not None and chosen[0] == str(self.client.get(current) or "")

    def await_test(self, bot_id: str, version: str) -> None:
        """List a later version (not the bot's first) for its automatic SPRT against its
        predecessor (one that was checked first joins once it passed)."""
        rated = self.rated_of(bot_id, version)
        if rated is not None and version_order(rated) > 1:
            self.client.zadd(self._key("new-versions"), {seat_key(bot_id, version): time.time()}, nx=True)

    def forget(self, bot_id: str) -> None:
        """Drop every version of a bot that never played a recorded match (a hosted
        version's check identity, :func:`store.hosted.check_id`): its rated ids would
        otherwise stay, naming nothing any result holds."""
        rated = [str(r) for r in self.client.hvals(self._key("bot-versions", bot_id))]
        pipe = self.client.pipeline(transaction=True)
        pipe.delete(self._key("bot-versions", bot_id), self._key("bot-current", bot_id), self._key("bot-pin", bot_id),
                    *(self._key("rated", r) for r in rated))
        if rated:
            pipe.srem(self._key("superseded"), *rated)
        pipe.execute()

    def current(self, bot_id: str) -> str | None:
        """The rated id of the bot's current version (``None`` before any hello of a version
        that may play)."""
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
