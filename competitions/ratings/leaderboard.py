"""Live Elo leaderboards in Redis (one per preset), and a tournament's order-independent table.

The rating rules are in :mod:`competitions.ratings.model`; this module only stores and reads.  Keys
(under the store's prefix ``{p}``, listed with the rest in :mod:`store.redis_store`)::

    {p}elo:boards                 set of board names (normally preset names)
    {p}elo:{board}:ranking        sorted set: bot id -> live rating (top N, ranks)
    {p}elo:{board}:bot:{id}       hash: version, rating, information, games, wins, draws
    {p}elo:{board}:history:{id}   list of JSON points {match, time, rating, change, games}, oldest first
    {p}elo:{board}:h2h:{id}       hash: "{opponent}:games|wins|draws" -> the bot's count against it
    {p}elo:{board}:applied        set of the match ids already rated (idempotency)
    {p}elo:{board}:fitted         the cached Bradley–Terry table: JSON {matches, computed, rows}, where
                                  matches is how many rated matches it was fitted from
    {p}elo:{board}:fitted-lock    present while one process refits the table (SET NX EX)

Applying a match is optimistic and atomic: read the bots' hashes (each carries a
``version`` bumped by every match that touches the bot), compute the new values in Python,
then one Lua script checks, all at once, that the match is not yet applied and that no
version moved, and writes everything.  A moved version means another worker rated a match
of the same bots in between: re-read and retry, so no update is lost and the rating rules
are not duplicated in Lua.

The Bradley–Terry table is fitted from every rated match of the board, which at 100,000
matches takes tens of seconds (reading and parsing the results more than the fit), so pages
read it from a cache (:meth:`Leaderboard.fitted_cached`): stale while revalidating.  The
table records how many matches it was fitted from; since the applied set only grows, a
different count means it is stale, and a reader then serves it as it is and starts one
refit in the background (one per board across every process: whoever takes the lock).
Only a small board without any table yet is fitted while the reader waits.
"""

from __future__ import annotations

import json
import math
import secrets
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from competitions.ratings.model import (
    DEFAULT_CONFIG,
    Z95,
    EloConfig,
    EloUpdate,
    MatchResultLike,
    RatingRow,
    Tally,
    bradley_terry,
    elo_update,
    head_to_head,
    los_from_counts,
    los_from_ratings,
    rated_match,
    tallies,
)
from store.redis_store import Store
from store.versions import BotVersions, rated_view

#: Attempts before giving up on a contended match.  Every failed attempt means another
#: match of the same bots was applied, so running out signals a fault, not bad luck.
MAX_ATTEMPTS = 100

# KEYS: applied, ranking, boards, then per bot (n of them) its hash, history, head-to-head.
# ARGV: match id, board name, payload JSON {bots: [{bot, version, rating, fields, history, h2h}]}.
# Returns 1 when applied now, 0 when it had been applied, -1 when a bot's version moved.
_APPLY = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 0 end
local bots = cjson.decode(ARGV[3]).bots
local n = #bots
for i, b in ipairs(bots) do
  if tonumber(redis.call('HGET', KEYS[3 + i], 'version') or '0') ~= b.version then return -1 end
end
for i, b in ipairs(bots) do
  redis.call('HSET', KEYS[3 + i], unpack(b.fields))
  redis.call('ZADD', KEYS[2], b.rating, b.bot)
  redis.call('RPUSH', KEYS[3 + n + i], b.history)
  for j = 1, #b.h2h, 2 do
    redis.call('HINCRBY', KEYS[3 + 2 * n + i], b.h2h[j], b.h2h[j + 1])
  end
end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[2])
return 1
"""

_ROW_FIELDS = ("rating", "information", "games", "wins", "draws")

# KEYS: bot hashes.  Returns their _ROW_FIELDS, flat, in order: one reply for a whole page of
# rows (a thousand-row page as a thousand pipelined HMGETs costs redis-py more than Redis).
_READ_ROWS = """
local out = {}
for i, key in ipairs(KEYS) do
  local values = redis.call('HMGET', key, 'rating', 'information', 'games', 'wins', 'draws')
  for j = 1, 5 do out[(i - 1) * 5 + j] = values[j] end
end
return out
"""

# KEYS: the fitted table.  ARGV: the new table JSON, its match count.  A refit stores its table
# unless one fitted from more matches is there already (a slower refit of an older applied set
# must not replace a newer table).  Returns 1 when stored.
_STORE_FITTED = """
local old = redis.call('GET', KEYS[1])
if old and cjson.decode(old).matches >= tonumber(ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
return 1
"""

# KEYS: the lock.  ARGV: the holder's token.  Deletes the lock only if it is still the holder's.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

#: A board without a cached table is fitted while the reader waits only up to this many
#: rated matches (well under a second); a larger one shows no Bradley–Terry column until
#: its first background refit is done.
SYNC_FIT_MATCHES = 2_000
#: A stale table is refitted at most this often (seconds since its fit): on a busy arena every
#: read finds new matches, and back-to-back refits would keep a core busy for little change.
REFIT_INTERVAL_S = 30.0
#: Expiry of the refit lock: only frees the lock of a refitter that died; a finished refit
#: deletes it.
REFIT_LOCK_S = 600
#: Results read per round trip while refitting (a 100,000-result MGET would be one huge reply).
READ_CHUNK = 2_000


#: Tables parsed in this process, by key, with the stored text they were parsed from: a page
#: that finds the same text again skips decoding a thousand rows (most of its cost).
_PARSED: dict[str, tuple[str, FittedTable]] = {}
#: Tables kept parsed (one per board normally; tests use many prefixes).
PARSED_TABLES = 64


@dataclass(frozen=True)
class FittedTable:
    """A cached Bradley–Terry table: its rows, how many rated matches it was fitted from, and
    when (``time.time()``)."""

    matches: int
    computed: float
    rows: list[RatingRow]

    def to_json(self) -> str:
        """The stored form (rows as lists of their fields, in :class:`RatingRow` order)."""
        return json.dumps({"matches": self.matches, "computed": self.computed,
                           "rows": [[r.rank, r.bot_id, r.rating, r.lower, r.upper, r.games, r.wins, r.draws,
                                     r.provisional, r.los_next] for r in self.rows]})

    @classmethod
    def from_json(cls, raw: str) -> FittedTable:
        """The inverse of :meth:`to_json`."""
        data = json.loads(raw)
        return cls(int(data["matches"]), float(data["computed"]), [RatingRow(*row) for row in data["rows"]])


@dataclass(frozen=True)
class HistoryPoint:
    """A bot's live rating after one of its matches."""

    match_id: str
    time: float
    rating: float
    change: float
    games: int


@dataclass(frozen=True)
class HeadToHead:
    """A bot's games against one opponent (as opponents, not partners)."""

    opponent: str
    games: int
    wins: int
    draws: int

    @property
    def losses(self) -> int:
        """Games the opponent's party finished above the bot's."""
        return self.games - self.wins - self.draws

    @property
    def los(self) -> float:
        """Likelihood that the bot is the stronger of the two, from wins and losses."""
        return los_from_counts(self.wins, self.losses)


class Leaderboard:
    """One board's live Elo: record match results, query the table."""

    def __init__(self, store: Store, board: str, config: EloConfig = DEFAULT_CONFIG, *,
                 all_versions: bool = False) -> None:
        """``all_versions``: list every version of every bot; by default the ranking, its
        pages and its size leave out superseded versions (:mod:`store.versions`),
        whose ratings, history and head-to-head stay readable by their rated id."""
        if not board or ":" in board or any(ch.isspace() for ch in board):
            raise ValueError(f"bad board name {board!r}: no ':' or spaces")
        self.store = store
        self.client = store.client
        self.board = board
        self.config = config
        self.all_versions = all_versions
        self._hidden_ids: set[str] | None = None
        self._base = f"{store.prefix}elo:{board}:"
        self._boards = f"{store.prefix}elo:boards"
        self._apply = self.client.register_script(_APPLY)
        self._store_fitted = self.client.register_script(_STORE_FITTED)
        self._release = self.client.register_script(_RELEASE)
        self._read_rows = self.client.register_script(_READ_ROWS)

    def _key(self, *parts: str) -> str:
        return self._base + ":".join(parts)

    # ----------------------------------------------------------------- recording
    def record(self, result: MatchResultLike, now: float | None = None) -> dict[str, float] | None:
        """Rate a match once: the rating change per bot, or ``None`` if it was already rated.

        Safe to call from any number of workers at once, and again after a retry.  A match
        with nothing to rate (aborted, or unrated: see :func:`rated_match`) changes no rating,
        history or head-to-head: it is only marked applied, like any other (``{}``, then
        ``None``)."""
        match = rated_match(rated_view(result))
        bots = match.bots
        keys = [self._key("applied"), self._key("ranking"), self._boards,
                *(self._key("bot", b) for b in bots), *(self._key("history", b) for b in bots),
                *(self._key("h2h", b) for b in bots)]
        played = tallies(match)
        versus: dict[str, list[str]] = {b: [] for b in bots}
        for (bot, opponent), tally in head_to_head(match).items():
            versus[bot] += [f"{opponent}:games", str(tally.games), f"{opponent}:wins", str(tally.wins),
                            f"{opponent}:draws", str(tally.draws)]
        stamp = time.time() if now is None else now
        for _ in range(MAX_ATTEMPTS):
            pipe = self.client.pipeline(transaction=False)
            pipe.sismember(keys[0], match.match_id)
            for bot in bots:
                pipe.hgetall(self._key("bot", bot))
            applied, *states = pipe.execute()
            if applied:
                return None
            before = {bot: float(state.get("rating", self.config.initial))
                      for bot, state in zip(bots, states, strict=True)}
            update = elo_update(match, before, self.config)
            payload = [_bot_payload(match.match_id, bot, state, before[bot], update, played[bot], versus[bot], stamp)
                       for bot, state in zip(bots, states, strict=True)]
            outcome = self._apply(keys=keys, args=[match.match_id, self.board, json.dumps({"bots": payload})])
            if outcome == 1:
                return update.changes
            if outcome == 0:
                return None
        raise RuntimeError(f"match {match.match_id}: ratings kept changing under {MAX_ATTEMPTS} attempts")

    # ----------------------------------------------------------------- queries
    def applied(self, match_id: str) -> bool:
        """Whether a match has been rated on this board."""
        return bool(self.client.sismember(self._key("applied"), match_id))

    def top(self, n: int = 20) -> list[RatingRow]:
        """The ``n`` best live ratings, best first."""
        return self.page(0, n)

    def page(self, start: int, count: int) -> list[RatingRow]:
        """``count`` rows of the live ranking from place ``start + 1`` on (for paging)."""
        if count <= 0 or start < 0:
            return []
        if self._hidden():  # places among the versions shown: LOS over the next one shown
            ids = self.ranked_ids()[start:start + count + 1]
        else:
            ids = [str(x) for x in self.client.zrevrange(self._key("ranking"), start, start + count)]
        return self._rows(ids, start + 1)[:count]

    def ranked_ids(self) -> list[str]:
        """Every rated bot's id (of the versions shown), best live rating first (ids only:
        no row is read)."""
        hidden = self._hidden()
        return [str(bot) for bot in self.client.zrevrange(self._key("ranking"), 0, -1) if str(bot) not in hidden]

    def size(self) -> int:
        """How many bots (of the versions shown) have a rating on this board."""
        if self._hidden():
            return len(self.ranked_ids())
        return int(self.client.zcard(self._key("ranking")))

    def _hidden(self) -> set[str]:
        """The rated ids this board leaves out: superseded versions, unless it shows all.
        Read once per instance (a page's or a command's queries share one look)."""
        if self._hidden_ids is None:
            self._hidden_ids = set() if self.all_versions else BotVersions(self.store).superseded()
        return self._hidden_ids

    def rank(self, bot_id: str) -> int | None:
        """The bot's place (1 = best), or ``None`` if it has no rating on this board."""
        place = self.client.zrevrank(self._key("ranking"), bot_id)
        return place + 1 if isinstance(place, int) else None

    def row(self, bot_id: str) -> RatingRow | None:
        """The bot's row (with the LOS over the bot ranked just below), or ``None``."""
        place = self.rank(bot_id)
        if place is None:
            return None
        ids = [str(x) for x in self.client.zrevrange(self._key("ranking"), place - 1, place)]
        return self._rows(ids, place)[0]

    def _rows(self, ids: list[str], first_rank: int) -> list[RatingRow]:
        """Rows for consecutive bots of the ranking; the last one only feeds its
        predecessor's LOS (its own LOS would need the bot after it)."""
        stats = self._stats(ids)
        return [self._row(bot, first_rank + i, stats[i], stats[i + 1] if i + 1 < len(ids) else None)
                for i, bot in enumerate(ids)]

    def rows_for(self, bot_ids: Sequence[str]) -> dict[str, RatingRow]:
        """The rows of any bots (a page of another order than the live one), each with its
        live rank and its LOS over the bot ranked just below it: three round trips whatever
        their number, instead of reading the whole board to pick a page from it."""
        ids = list(dict.fromkeys(bot_ids))
        pipe = self.client.pipeline(transaction=False)
        for bot in ids:
            pipe.zrevrank(self._key("ranking"), bot)
        places = {bot: place for bot, place in zip(ids, pipe.execute(), strict=True) if isinstance(place, int)}
        pipe = self.client.pipeline(transaction=False)
        for place in places.values():
            pipe.zrevrange(self._key("ranking"), place + 1, place + 1)
        below = {bot: str(after[0]) if after else None
                 for bot, after in zip(places, pipe.execute(), strict=True)}
        needed = list(dict.fromkeys([*places, *(b for b in below.values() if b is not None)]))
        stats = dict(zip(needed, self._stats(needed), strict=True))
        return {bot: self._row(bot, place + 1, stats[bot], stats[below[bot]] if below[bot] else None)  # type: ignore[index]
                for bot, place in places.items()}

    def _stats(self, ids: list[str]) -> list[dict[str, Any]]:
        """The rating fields of each of ``ids`` (one script call)."""
        flat = self._read_rows(keys=[self._key("bot", bot) for bot in ids]) if ids else []
        width = len(_ROW_FIELDS)
        return [dict(zip(_ROW_FIELDS, flat[i * width:(i + 1) * width], strict=True)) for i in range(len(ids))]

    def _row(self, bot: str, rank: int, stats: dict[str, Any], below: dict[str, Any] | None) -> RatingRow:
        """A live row from the bot's fields and those of the bot ranked below it (for LOS)."""
        rating, games = float(stats["rating"]), int(stats["games"])
        sigma = _sigma(stats)
        lower_sigma = None if below is None else _sigma(below)
        los = None
        if sigma is not None and lower_sigma is not None and below is not None:
            los = los_from_ratings(rating - float(below["rating"]), sigma**2 + lower_sigma**2)
        return RatingRow(rank, bot, rating, None if sigma is None else rating - Z95 * sigma,
                         None if sigma is None else rating + Z95 * sigma, games, int(stats["wins"]),
                         int(stats["draws"]), games < self.config.provisional_games, los)

    def fitted(self) -> list[RatingRow]:
        """The order-independent Bradley–Terry table of every match rated on this board:
        shown beside the live Elo, which depends on the order workers finished in.  Fitted
        now, from every result (the CLI's fresh table); pages read :meth:`fitted_cached`."""
        return self._fit()[1]

    def standings(self, n: int) -> tuple[list[RatingRow], dict[str, RatingRow]]:
        """The headline table: the ``n`` best rows of the Bradley–Terry table fitted now (its
        order does not depend on the order matches finished in, the live Elo's does), and
        each of those bots' live Elo row, by bot id."""
        fitted = self.shown(self.fitted())[:n]
        return fitted, self.rows_for([row.bot_id for row in fitted])

    def shown(self, fitted: list[RatingRow]) -> list[RatingRow]:
        """A Bradley–Terry table (fitted from every version's matches) as this board shows
        it: superseded versions left out unless it shows all, the others ranked among
        themselves.  A row whose next row was left out gets its LOS over the next row shown,
        from the two ratings and intervals (without their covariance, which the table does
        not keep)."""
        hidden = self._hidden()
        if not hidden:
            return fitted
        kept = [row for row in fitted if row.bot_id not in hidden]
        following = {row.bot_id: fitted[i + 1].bot_id for i, row in enumerate(fitted[:-1])}
        shown: list[RatingRow] = []
        for place, row in enumerate(kept):
            below = kept[place + 1] if place + 1 < len(kept) else None
            los = row.los_next if below is not None and following.get(row.bot_id) == below.bot_id else None
            if below is not None and los is None:
                los = _los_between(row, below)
            shown.append(replace(row, rank=place + 1, los_next=los))
        return shown

    def _fit(self) -> tuple[int, list[RatingRow]]:
        """The table of the applied set as read now, and how many matches that set held."""
        applied = sorted(str(m) for m in self.client.smembers(self._key("applied")))
        results = [rated_view(result) for start in range(0, len(applied), READ_CHUNK)
                   for result in self.store.match_results(applied[start:start + READ_CHUNK])]
        return len(applied), tournament_table(results, self.config)

    def refit(self) -> FittedTable:
        """Fit the table now and cache it (unless a table of more matches was cached
        meanwhile); the table fitted.  Its count is of the ids it read, not of the applied set
        when it is stored: matches rated during the fit leave it stale, never counted in."""
        matches, rows = self._fit()
        table = FittedTable(matches, time.time(), rows)
        self._store_fitted(keys=[self._key("fitted")], args=[table.to_json(), matches])
        return table

    def cached_table(self) -> FittedTable | None:
        """The cached table as it is, stale or not, or ``None``."""
        raw = self.client.get(self._key("fitted"))
        return None if raw is None else FittedTable.from_json(str(raw))

    def fitted_cached(self, sync_matches: int = SYNC_FIT_MATCHES,
                      refit_interval_s: float = REFIT_INTERVAL_S) -> list[RatingRow]:
        """The Bradley–Terry table for a page, without making it wait for a large refit.

        Fresh (fitted from as many matches as are applied now): served.  Stale: served as
        it is, and refitted in the background if its fit is ``refit_interval_s`` old, by one
        process at a time.  None cached: fitted now if the board has at most
        ``sync_matches`` rated matches, else an empty table while the background fit runs."""
        pipe = self.client.pipeline(transaction=False)
        pipe.get(self._key("fitted"))
        pipe.scard(self._key("applied"))
        raw, applied = pipe.execute()
        table = None if raw is None else self._parsed(str(raw))
        if applied == 0 or (table is not None and table.matches == applied):
            return [] if table is None else list(table.rows)
        if table is None and applied <= sync_matches:
            return self.refit().rows
        if table is None or time.time() - table.computed >= refit_interval_s:
            self.refit_in_background()
        return [] if table is None else list(table.rows)

    def _parsed(self, raw: str) -> FittedTable:
        """The table stored as ``raw``, decoded once per process for the same text."""
        key = self._key("fitted")
        known = _PARSED.get(key)
        if known is not None and known[0] == raw:
            return known[1]
        table = FittedTable.from_json(raw)
        if len(_PARSED) >= PARSED_TABLES:
            _PARSED.pop(next(iter(_PARSED)), None)
        _PARSED[key] = (raw, table)
        return table

    def refit_in_background(self) -> threading.Thread | None:
        """Start a refit in a daemon thread if no process is refitting this board; the
        thread, or ``None`` when another holds the lock."""
        token = secrets.token_hex(8)
        if not self.client.set(self._key("fitted-lock"), token, nx=True, ex=REFIT_LOCK_S):
            return None

        def run() -> None:
            try:
                self.refit()
            finally:
                self._release(keys=[self._key("fitted-lock")], args=[token])

        thread = threading.Thread(target=run, name=f"refit-{self.board}", daemon=True)
        thread.start()
        return thread

    def history(self, bot_id: str, last: int | None = None) -> list[HistoryPoint]:
        """The bot's live rating after each of its matches (or its ``last`` ones), in the
        order they were rated."""
        points = []
        start = 0 if last is None else -max(1, last)
        for raw in self.client.lrange(self._key("history", bot_id), start, -1):
            data = json.loads(raw)
            points.append(HistoryPoint(data["match"], data["time"], data["rating"], data["change"], data["games"]))
        return points

    def opponents(self, bot_id: str) -> list[HeadToHead]:
        """The bot's head-to-head record against every opponent, most games first."""
        by_opponent: dict[str, dict[str, int]] = {}
        for name, value in self.client.hgetall(self._key("h2h", bot_id)).items():
            opponent, _, what = str(name).rpartition(":")
            by_opponent.setdefault(opponent, {})[what] = int(value)
        records = [HeadToHead(o, c.get("games", 0), c.get("wins", 0), c.get("draws", 0))
                   for o, c in by_opponent.items()]
        return sorted(records, key=lambda r: (-r.games, r.opponent))

    def head_to_head(self, bot_id: str, opponent: str) -> HeadToHead:
        """The bot's record against one opponent (all zero if they never met)."""
        games, wins, draws = self.client.hmget(
            self._key("h2h", bot_id), [f"{opponent}:{what}" for what in ("games", "wins", "draws")])
        return HeadToHead(opponent, int(games or 0), int(wins or 0), int(draws or 0))


def _los_between(upper: RatingRow, lower: RatingRow) -> float | None:
    """LOS of ``upper`` over ``lower`` from their ratings and 95% intervals (as independent)."""
    variance = 0.0
    for row in (upper, lower):
        if row.lower is None or row.upper is None:
            return None
        variance += ((row.upper - row.lower) / (2 * Z95)) ** 2
    return los_from_ratings(upper.rating - lower.rating, variance)


def _sigma(stats: dict[str, Any]) -> float | None:
    """The live rating's standard error from its Fisher information, ``None`` while nil."""
    information = float(stats["information"])
    return 1 / math.sqrt(information) if information > 0 else None


def _bot_payload(match_id: str, bot: str, state: dict[str, str], before: float, update: EloUpdate,
                 tally: Tally, versus: list[str], stamp: float) -> dict[str, Any]:
    """What the script writes for one bot: its hash fields as absolute values (the version
    check guarantees ``state`` is still current), its history point, its head-to-head
    increments."""
    version = int(state.get("version", 0))
    rating = before + update.changes[bot]
    games = int(state.get("games", 0)) + tally.games
    fields = {"version": version + 1, "rating": repr(rating),
              "information": repr(float(state.get("information", 0.0)) + update.information[bot]),
              "games": games, "wins": int(state.get("wins", 0)) + tally.wins,
              "draws": int(state.get("draws", 0)) + tally.draws}
    history = {"match": match_id, "time": stamp, "rating": rating, "change": update.changes[bot], "games": games}
    return {"bot": bot, "version": version, "rating": repr(rating), "history": json.dumps(history),
            "fields": [str(item) for pair in fields.items() for item in pair], "h2h": versus}


def record_match(store: Store, result: MatchResultLike, config: EloConfig = DEFAULT_CONFIG) -> dict[str, float] | None:
    """Rate a match once on its preset's board (``ruleset.name``): what a match task calls
    after recording the result.  The rating change per bot, or ``None`` if already rated."""
    return Leaderboard(store, rated_match(rated_view(result)).preset, config).record(result)


def boards(store: Store) -> list[str]:
    """Every board that has recorded a match, sorted."""
    return sorted(str(b) for b in store.client.smembers(f"{store.prefix}elo:boards"))


def tournament_table(results: Iterable[MatchResultLike], config: EloConfig = DEFAULT_CONFIG) -> list[RatingRow]:
    """The order-independent Bradley–Terry table of a tournament's match results
    (protobuf ``MatchResult`` or the stored JSON dicts, in any order), per registered bot:
    a board's versions are told apart before (see :meth:`Leaderboard.fitted`)."""
    return bradley_terry((rated_match(rated_view(result, by_version=False)) for result in results), config)
