"""The Redis store: registered bots, their token hashes, match results and match logs.

The one module that knows Redis key names; the referee, the workers and the CLI all go
through it.  Keys live under a prefix (``pitch:`` by default) so tests and several arenas
can share a server without touching each other's data.

Layout::

    {p}bots                 set of bot ids
    {p}bot:{id}             hash: name, owner, description, token_sha256, created, and from
                            ``store.accounts``: disabled, and for a bot an account owns, account
                            and presets (the presets its owner chose it to play; absent: every one)
    {p}bot-name:{name}      bot id (makes names unique)
    {p}token:{sha256}       bot id (token lookup; the token itself is never stored)
    {p}bot-versions:{id}    hash: version string -> rated id (``store.versions``: each
                            version a bot says hello with is rated apart)
    {p}rated:{rated id}     hash: bot, version, label, first_seen, and the version's compliance
                            check (``store.version_checks``): check, check_summary,
                            check_report, checked_at
    {p}bot-current:{id}     rated id of the bot's current version (pinned, else its newest
                            that may play)
    {p}bot-pin:{id}         rated id of the version its owner pinned as current
    {p}version-check-claim:{seat}   the referee checking that version now (SET NX PX)
    {p}superseded           set of rated ids that are not their bot's current version
    {p}new-versions         sorted set: seat key -> first seen, of later versions awaiting
                            their automatic SPRT (``competitions.version_tests``)
    {p}house-bots           set of the ids of the arena's own bots (the web arena's seat for
                            people and its house bots): never entered in round robins by default
    {p}match:{id}           match result JSON, written once (SET NX: a retried match never
                            counts twice)
    {p}match-log:{id}       list of game log JSONs, written with the result
    {p}match-aborted:{id}   list of aborted attempts (result + logs); not a recorded result
    {p}matches              sorted set of match ids by finish time
    {p}bot-matches:{id}     sorted set of the bot's recorded match ids by finish time
    {p}bot-conduct:{id}     hash: the bot's totals over its recorded matches: matches, seats,
                            decisions, strikes, timeouts, time_used_ms, and bucket:{i}, answered
                            decisions per time bucket i (``pitch_sdk.protocol.decision_times``)
    {p}version-matches:{rated id}   as bot-matches, per version of a bot (its rated id, from the
                                    result's ``rated_ids``; a result without them counts for the
                                    bot's first version, rated under the bot's id)
    {p}version-conduct:{rated id}   as bot-conduct, per version: a bot's totals are its versions'

Hosted bot versions (``store.hosted``; ``{ref}`` is ``{bot id}/{version}``; the packages
themselves are artifacts, outside Redis: ``store.artifacts``)::

    {p}hosted:{ref}             hash: sha256, manifest, submitted_by, submitted, status, detail,
                                updated, restarts, report (the compliance check's), checked
    {p}hosted-versions:{bot}    sorted set: version -> submission number
    {p}hosted-count:{bot}       the bot's submissions so far (names the next ``v<N>``)
    {p}hosted-active            set of the refs of versions neither stopped, failing nor rejected
    {p}hosted-log:{ref}         the last 64 KiB of the version's output
    {p}hosted-lease:{ref}       the bot host running the version (SET NX PX, renewed)
    {p}bot-hosts                sorted set: host id -> time of its last heartbeat
    {p}bot-host:{id}            JSON the host reports with each heartbeat; expires
    {p}token:{sha256}           (as above) with a TTL: a bot host's own token for a bot it runs,
                                or for a version's check identity ``{bot id}-check-{hash}``
    {p}bot:{check id}           (as above) with a TTL, also in {p}house-bots: a check identity

Tournaments (``competitions.tournaments.store``; Celery's own keys live under ``{p}celery:``)::

    {p}tournaments                  sorted set of tournament ids by creation time
    {p}tournament:{id}              the schedule (plan) JSON, written once (SET NX)
    {p}tournament:{id}:outcomes     hash: match index -> outcome JSON (played with its result, or
                                    not played with the reason), each written once (HSETNX)
    {p}tournament:{id}:started      hash: match index -> time its latest attempt began (progress)
    {p}tournament:{id}:lease:{i}    the worker responsible for match i now, expiring unless renewed
                                    (while it plays, or until its retry is due)
    {p}tournament:{id}:table        the final table JSON, written once (SET NX)
    {p}auto:{preset}                id of the latest automated round robin of a preset

SPRT runs (``competitions.sprt.store``): the same plan, outcomes, started and lease keys as a
tournament's under ``{p}sprt:{id}`` (index ``{p}sprts``), and::

    {p}sprt:{id}:spec               the run's parameters JSON, written once
    {p}sprt:{id}:released           pairs sent to the workers so far (only ever raised)
    {p}sprt:{id}:verdict            how the run ended JSON, written once (SET NX)

Automatic SPRTs of a new version against its predecessor (``store.version_tests``)::

    {p}version-tests                hash: seat key of the new version -> its test JSON (run id,
                                    predecessor, owner), written once
    {p}version-tests:open           hash: run id -> the tested seat key, while it has no verdict

Ladders (``competitions.ladder.store``; each round is a tournament ``{ladder id}-{n}``)::

    {p}ladders                      sorted set of ladder ids by creation time
    {p}ladder:{id}                  the spec JSON, written once
    {p}ladder:{id}:rounds           list of the round tournaments' ids
    {p}ladder:{id}:partnered        hash: "a|b" -> rounds the two partnered in
    {p}ladder:{id}:finished         set once the last round ended
    {p}ladder-of:{tournament}       the ladder a round belongs to

Ratings (written and read by ``competitions.ratings.leaderboard`` only; a board is normally a preset;
the ids are rated ids: a bot's id, or a later version's from ``{p}bot-versions:{id}``)::

    {p}elo:boards                 set of board names
    {p}elo:{board}:ranking        sorted set: bot id -> live Elo rating
    {p}elo:{board}:bot:{id}       hash: version, rating, information, games, wins, draws
    {p}elo:{board}:history:{id}   list of JSON rating points, one per rated match (for plots)
    {p}elo:{board}:h2h:{id}       hash: "{opponent}:games|wins|draws" -> counts against it
    {p}elo:{board}:applied        set of rated match ids (a match is rated at most once)
    {p}elo:{board}:fitted         cached Bradley–Terry table JSON, with the number of rated matches
                                  it was fitted from (stale when that differs from the applied set's)
    {p}elo:{board}:fitted-lock    held by the one process refitting the table (SET NX EX)
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import redis

from pitch_sdk.protocol.decision_times import percentile_ms

DEFAULT_PREFIX = "pitch:"
#: The fields a stored match result carries besides the protocol's ``MatchResult``: each
#: seat's version and rated id, stamped when the match is recorded (:mod:`store.versions`).
BOT_VERSIONS = "bot_versions"
RATED_IDS = "rated_ids"
EXTRA_RESULT_KEYS = (BOT_VERSIONS, RATED_IDS)
#: Seconds a store call may wait on Redis (no store call blocks on purpose).
SOCKET_TIMEOUT_S = 10.0


class StoreError(ValueError):
    """A store request that cannot be honoured (duplicate name, unknown bot, ...)."""


@dataclass(frozen=True)
class BotRecord:
    """A registered bot, as stored (never with its token)."""

    bot_id: str
    name: str
    owner: str
    description: str
    created: float


def hash_token(token: str) -> str:
    """SHA-256 of a token: tokens are 256-bit random, so a fast hash is enough."""
    return hashlib.sha256(token.encode()).hexdigest()


# KEYS: the result, its logs, the match index, then per bot and per version (rated id) its
# match index and conduct totals.  ARGV: the result JSON, the match id, the finish time,
# {logs: [...], totals: [[field, amount, ...], ...]} (one list per pair of index keys).
# Returns 1 when recorded now, 0 when the match had been recorded.
_RECORD = """
if not redis.call('SET', KEYS[1], ARGV[1], 'NX') then return 0 end
local extra = cjson.decode(ARGV[4])
if #extra.logs > 0 then redis.call('RPUSH', KEYS[2], unpack(extra.logs)) end
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[2])
for i, totals in ipairs(extra.totals) do
  redis.call('ZADD', KEYS[2 + 2 * i], ARGV[3], ARGV[2])
  for j = 1, #totals, 2 do redis.call('HINCRBY', KEYS[3 + 2 * i], totals[j], totals[j + 1]) end
end
return 1
"""


class Store:
    """Typed access to the arena's Redis data."""

    def __init__(self, client: redis.Redis, prefix: str = DEFAULT_PREFIX) -> None:
        self.client = client
        self.prefix = prefix
        self._record = client.register_script(_RECORD)

    @classmethod
    def from_url(cls, url: str, prefix: str = DEFAULT_PREFIX) -> Store:
        """Connect to ``url`` (``redis://``, ``rediss://`` or ``unix://``).

        Every call has a deadline (:data:`SOCKET_TIMEOUT_S`): a Redis that hangs instead of
        refusing connections then fails a call with ``redis.TimeoutError``, which callers
        treat as an outage, instead of blocking a referee's, worker's or page's thread."""
        return cls(redis.Redis.from_url(url, decode_responses=True, socket_timeout=SOCKET_TIMEOUT_S,
                                        socket_connect_timeout=SOCKET_TIMEOUT_S), prefix)

    def _key(self, *parts: str) -> str:
        return self.prefix + ":".join(parts)

    # ----------------------------------------------------------------- bots
    def register_bot(self, name: str, owner: str = "", description: str = "") -> tuple[BotRecord, str]:
        """Register a bot; returns its record and its token (the only time it is shown).

        A name is 1-64 printable characters (``str.isprintable``: no control characters,
        escapes or NUL, which would reach terminals and logs), not starting or ending with a
        space; the error repeats at most 60 characters of a bad name."""
        if not (0 < len(name) <= 64 and name.isprintable() and name.strip() == name):
            shown = name if len(name) <= 60 else name[:60] + "…"
            raise StoreError(f"bad bot name {shown!r}: use 1-64 printable characters, no leading or trailing space")
        bot_id = uuid.uuid4().hex[:12]
        if not self.client.set(self._key("bot-name", name), bot_id, nx=True):
            raise StoreError(f"a bot named {name!r} is already registered")
        # hex, not urlsafe base64: one token in 64 of those starts with "-", which command lines
        # (argparse, Node's parseArgs) take for an option in `--token TOKEN`
        token = secrets.token_hex(32)
        record = BotRecord(bot_id, name, owner, description, time.time())
        pipe = self.client.pipeline()
        pipe.hset(self._key("bot", bot_id), mapping={
            "name": name, "owner": owner, "description": description,
            "token_sha256": hash_token(token), "created": repr(record.created)})
        pipe.set(self._key("token", hash_token(token)), bot_id)
        pipe.sadd(self._key("bots"), bot_id)
        pipe.execute()
        return record, token

    def bot(self, bot_id: str) -> BotRecord | None:
        """The bot with this id, or ``None``."""
        data: dict[str, str] = self.client.hgetall(self._key("bot", bot_id))  # type: ignore[assignment]
        if not data:
            return None
        return BotRecord(bot_id, data["name"], data.get("owner", ""), data.get("description", ""),
                         float(data.get("created", "0")))

    def bot_for_token(self, token: str) -> BotRecord | None:
        """The bot a token belongs to, or ``None`` for an unknown token."""
        bot_id = self.client.get(self._key("token", hash_token(token)))
        return None if bot_id is None else self.bot(str(bot_id))

    def bots(self) -> list[BotRecord]:
        """Every registered bot, by name (one round trip for the ids, one for the records)."""
        ids = sorted(str(i) for i in self.client.smembers(self._key("bots")))
        pipe = self.client.pipeline(transaction=False)
        for bot_id in ids:
            pipe.hmget(self._key("bot", bot_id), ["name", "owner", "description", "created"])
        records = [BotRecord(bot_id, name, owner or "", description or "", float(created or 0))
                   for bot_id, (name, owner, description, created) in zip(ids, pipe.execute(), strict=True)
                   if name is not None]
        return sorted(records, key=lambda r: r.name)

    def bot_names(self, bot_ids: Iterable[str]) -> dict[str, str]:
        """The display name of each of ``bot_ids`` that is registered, or that is the rated
        id of a bot's later version (``name@version``, see :mod:`store.versions`):
        one round trip."""
        ids = list(dict.fromkeys(bot_ids))
        pipe = self.client.pipeline(transaction=False)
        for bot_id in ids:
            pipe.hget(self._key("bot", bot_id), "name")
            pipe.hget(self._key("rated", bot_id), "label")
        found = pipe.execute()
        names = {bot_id: name or label for bot_id, name, label in zip(ids, found[::2], found[1::2], strict=True)}
        return {bot_id: str(name) for bot_id, name in names.items() if name is not None}

    def mark_house(self, bot_id: str) -> None:
        """Count a bot among the arena's own (see :meth:`house_bots`)."""
        self.client.sadd(self._key("house-bots"), bot_id)

    def house_bots(self) -> set[str]:
        """The arena's own bots (the web arena's people's seat and house bots): they play
        the matches they are seated in, but "every connected bot" does not include them."""
        return {str(bot_id) for bot_id in self.client.smembers(self._key("house-bots"))}

    # ----------------------------------------------------------------- matches
    def record_match(self, match_id: str, result: dict[str, Any], game_logs: list[str]) -> bool:
        """Store a match's result and logs once; ``False`` if it was already recorded.

        One script writes the result (SET NX), its logs, its place in the match indexes and
        the conduct totals of each bot and of each version that played, all or nothing:
        written in two steps, a Redis restart between them (or one that kept the first write
        and lost the second from its AOF) left a recorded match missing from every index for
        good, since the result's SET NX then refuses every later attempt.  The versions' share
        of the work is a few more keys and fields in the same call: recording is the hot path."""
        keys = [self._key("match", match_id), self._key("match-log", match_id), self._key("matches")]
        totals: list[list[str]] = []
        for index_key, conduct_key, amounts in match_indexes(result):
            keys += [self.prefix + index_key, self.prefix + conduct_key]
            totals.append([str(item) for pair in amounts.items() for item in pair])
        written = self._record(keys=keys, args=[json.dumps(result, sort_keys=True), match_id, repr(time.time()),
                                                json.dumps({"logs": game_logs, "totals": totals})], client=self.client)
        return bool(written)

    def record_aborted(self, match_id: str, result: dict[str, Any], game_logs: list[str]) -> None:
        """Keep the record of a match the referee aborted (shutdown) without recording it
        as played: a retry with the same match id plays it again from the start."""
        self.client.rpush(self._key("match-aborted", match_id),
                          json.dumps({"result": result, "game_logs": game_logs}, sort_keys=True))

    def aborted_matches(self, match_id: str) -> list[dict[str, Any]]:
        """Every aborted attempt of a match id, oldest first."""
        return [json.loads(str(x)) for x in self.client.lrange(self._key("match-aborted", match_id), 0, -1)]

    def match_result(self, match_id: str) -> dict[str, Any] | None:
        """A recorded match result, or ``None``."""
        raw = self.client.get(self._key("match", match_id))
        return None if raw is None else json.loads(str(raw))

    def match_results(self, match_ids: list[str]) -> list[dict[str, Any]]:
        """The recorded results of ``match_ids`` (one round trip), skipping unknown ids."""
        if not match_ids:
            return []
        raw = self.client.mget([self._key("match", match_id) for match_id in match_ids])
        return [json.loads(str(item)) for item in raw if item is not None]

    def match_logs(self, match_id: str) -> list[str]:
        """A recorded match's game logs (JSON), in game order."""
        return [str(x) for x in self.client.lrange(self._key("match-log", match_id), 0, -1)]

    def bot_matches(self, bot_id: str, count: int, offset: int = 0) -> list[tuple[str, float]]:
        """The bot's recorded matches (every version's), newest first: ``(match id, finish time)``."""
        return self._read_matches(self._key("bot-matches", bot_id), count, offset)

    def bot_match_count(self, bot_id: str) -> int:
        """How many recorded matches the bot played in."""
        return int(self.client.zcard(self._key("bot-matches", bot_id)))

    def bot_conduct(self, bot_id: str) -> Conduct:
        """The bot's totals over every recorded match it played in (its versions' sum)."""
        return self._read_conduct(self._key("bot-conduct", bot_id))

    def version_matches(self, rated_id: str, count: int, offset: int = 0) -> list[tuple[str, float]]:
        """The recorded matches one version of a bot (its rated id, :mod:`store.versions`)
        played in, newest first: ``(match id, finish time)``."""
        return self._read_matches(self._key("version-matches", rated_id), count, offset)

    def version_match_count(self, rated_id: str) -> int:
        """How many recorded matches the version played in."""
        return int(self.client.zcard(self._key("version-matches", rated_id)))

    def version_conduct(self, rated_id: str) -> Conduct:
        """The version's totals over the recorded matches it played in: how one release
        behaves (a new version that times out shows apart from the bot's older ones)."""
        return self._read_conduct(self._key("version-conduct", rated_id))

    def _read_matches(self, key: str, count: int, offset: int) -> list[tuple[str, float]]:
        if count <= 0 or offset < 0:
            return []
        raw = self.client.zrevrange(key, offset, offset + count - 1, withscores=True)
        return [(str(match_id), float(stamp)) for match_id, stamp in raw]  # type: ignore[str-unpack]

    def _read_conduct(self, key: str) -> Conduct:
        raw: dict[str, str] = self.client.hgetall(key)  # type: ignore[assignment]
        buckets = {int(name.removeprefix("bucket:")): int(value) for name, value in raw.items()
                   if name.startswith("bucket:")}
        histogram = [buckets.get(i, 0) for i in range(max(buckets) + 1)] if buckets else []
        return Conduct(int(raw.get("matches", 0)), int(raw.get("seats", 0)), int(raw.get("decisions", 0)),
                       int(raw.get("strikes", 0)), int(raw.get("timeouts", 0)), int(raw.get("time_used_ms", 0)),
                       tuple(histogram))


@dataclass(frozen=True)
class Conduct:
    """How a bot behaved over its recorded matches (each seat it held counts)."""

    matches: int
    seats: int
    decisions: int
    strikes: int
    timeouts: int
    time_used_ms: int
    decision_time_histogram: tuple[int, ...]

    @property
    def median_ms(self) -> int | None:
        """The median answered decision's time bucket (see :func:`percentile_ms`)."""
        return percentile_ms(self.decision_time_histogram, 0.5)

    @property
    def p95_ms(self) -> int | None:
        """The 95th percentile answered decision's time bucket."""
        return percentile_ms(self.decision_time_histogram, 0.95)


def match_indexes(result: dict[str, Any]) -> list[tuple[str, str, dict[str, int]]]:
    """The indexes a recorded result joins, per bot and per version (rated id) that played it:
    ``(its match index's key, its conduct totals' key, the amounts those grow by)``, keys
    without the prefix.  Public for the benchmark that seeds a large arena in bulk
    (``bench/web_pages.py``), which must write exactly what :meth:`Store.record_match` does."""
    seats = result.get("seats", [])
    bots = [str(seat.get("bot_id", "")) for seat in seats]
    rated = result.get(RATED_IDS)
    # as store.versions.rated_view reads them: without one per seat, a result is rated under
    # its bots' ids, the first versions'
    versions = [str(r) for r in rated] if isinstance(rated, list) and len(rated) == len(seats) else bots
    return [*((f"bot-matches:{bot}", f"bot-conduct:{bot}", amounts) for bot, amounts in _conduct(seats, bots).items()),
            *((f"version-matches:{version}", f"version-conduct:{version}", amounts)
              for version, amounts in _conduct(seats, versions).items())]


def _conduct(seats: list[dict[str, Any]], owners: list[str]) -> dict[str, dict[str, int]]:
    """Per owner of a stored result's seats (``owners[i]`` holds seat ``i``: its bot, or its
    version's rated id): the amounts its conduct totals grow by."""
    totals: dict[str, dict[str, int]] = {}
    for seat, owner in zip(seats, owners, strict=True):
        own = totals.setdefault(owner, {"matches": 1})
        for name in ("decisions", "strikes", "timeouts", "time_used_ms"):
            own[name] = own.get(name, 0) + int(seat.get(name, 0))
        own["seats"] = own.get("seats", 0) + 1
        for index, count in enumerate(seat.get("decision_time_histogram", [])):
            if count:
                own[f"bucket:{index}"] = own.get(f"bucket:{index}", 0) + int(count)
    return totals
