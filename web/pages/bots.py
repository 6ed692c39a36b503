"""Bots: the list of registered bots, and a page per bot: connected now or not, its
version and declared capacity (from the referee), the presets its owner chose it to play
(for everyone: they say where the arena enters it), its current version's rating on each
leaderboard with its history, every version with its ratings and its test (each linking to
the version's own page, :mod:`web.pages.versions`), head-to-head against every opponent,
recent matches, and its conduct (strikes, timeouts, time per decision) over its recorded
matches; for its owner, its hosted versions and a form to upload a new one.  With the admin
token, the list's form registers a bot through the referee and shows its token once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import grpc
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from competitions.ratings.leaderboard import HeadToHead, Leaderboard, boards
from competitions.ratings.model import RatingRow
from competitions.version_tests.status import test_standing
from store.accounts import Accounts
from store.redis_store import Store
from store.seat_keys import seat_key, version_of_seat
from store.version_tests import VersionTestStore
from store.versions import BotVersions
from web.auth import bearer, check_admin
from web.hosted.pages import owner_panel
from web.pages.common import arena, not_found, render, shown
from web.security_headers import no_store
from web.templating import path_for
from web.views.charts import Series, history_chart

#: Recent matches shown on a bot's page.
RECENT_MATCHES = 20
#: Opponents shown per leaderboard on a bot's page unless ``?opponents=all`` (a bot of a
#: large arena meets hundreds).
OPPONENTS_SHOWN = 30
#: Latest rating points drawn per leaderboard.
CHART_POINTS = 120
#: Longest owner or description a registration takes.
MAX_TEXT = 500


@dataclass(frozen=True)
class BoardStanding:
    """The bot on one leaderboard: live row, Bradley–Terry row, opponents."""

    board: str
    live: RatingRow
    fitted: RatingRow | None
    opponents: list[HeadToHead]
    """The opponents shown: those it played most, or every one on request."""
    opponent_count: int


def bots(request: Request) -> Response:
    """Every registered bot, with the referee's connection facts when it can be reached."""
    web = arena(request)
    registered = web.store.bots()
    connected = web.connected()
    return render(request, "bots.html", bots=registered, connected=connected or {},
                  referee_down=connected is None)


def bot(request: Request) -> Response:
    """One bot's page."""
    web = arena(request)
    bot_id = request.path_params["bot_id"]
    record = web.store.bot(bot_id)
    if record is None:
        raise not_found("bot", bot_id)
    connected = web.connected()
    info = (connected or {}).get(bot_id)
    every_opponent = request.query_params.get("opponents") == "all"
    versions = BotVersions(web.store).versions(bot_id)
    rated = next((v.rated_id for v in versions if v.current), bot_id)  # ratings: the current version's
    standings: list[BoardStanding] = []
    series: list[Series] = []
    version_rows: dict[str, list[tuple[str, RatingRow]]] = {v.rated_id: [] for v in versions}
    for board_name in boards(web.store):
        board = Leaderboard(web.store, board_name, web.config.elo)
        for version_id, row in board.rows_for(list(version_rows)).items():
            version_rows[version_id].append((board_name, row))
        live = board.row(rated)
        if live is None:
            continue
        # ranked as the leaderboard ranks (Bradley-Terry, superseded versions left out)
        fitted = next((row for row in board.shown(web.fitted_table(board_name)) if row.bot_id == rated), None)
        opponents = board.opponents(rated)
        shown = opponents if every_opponent else opponents[:OPPONENTS_SHOWN]
        standings.append(BoardStanding(board_name, live, fitted, shown, len(opponents)))
        series.append(Series(board_name, str(path_for(request, "leaderboard", board=board_name)),
                             [(p.time, p.rating) for p in board.history(rated, last=CHART_POINTS)]))
    recent = web.store.bot_matches(bot_id, RECENT_MATCHES)
    results = web.store.match_results([match_id for match_id, _ in recent])
    matches = [match_line(result, bot_id, stamp) for result, (_, stamp) in zip(results, recent, strict=False)]
    involved = {bot_id} | {o.opponent for s in standings for o in s.opponents}
    involved |= {seat for line in matches for seat in line["seats"]}
    hosted = owner_panel(request, record)
    page = render(request, "bot.html", record=record, info=info, referee_down=connected is None,
                  presets=Accounts(web.store).presets_of([bot_id])[bot_id], standings=standings,
                  chart=history_chart(series), matches=matches,
                  match_count=web.store.bot_match_count(bot_id), conduct=web.store.bot_conduct(bot_id),
                  names=web.names(involved), versions=[(v, version_rows[v.rated_id]) for v in versions],
                  tests=_version_tests(web.store, bot_id, [v.version for v in versions]), hosted=hosted)
    return page if hosted is None else no_store(page)  # the owner's reports and output: no cache keeps them


def _version_tests(store: Store, bot_id: str, versions: list[str]) -> dict[str, dict[str, Any]]:
    """Each version's automatic SPRT against its predecessor that started, by version: its
    state (testing, better, not-better, undecided), why, and its figures.  Public, as
    fishtest's tests are: a version that lost its test still plays, marked."""
    found = {}
    for seat, test in VersionTestStore(store).tests_of([seat_key(bot_id, v) for v in versions]).items():
        if test.run_id:
            state, detail, figures = test_standing(store, test)
            found[version_of_seat(seat) or ""] = {"state": state, "detail": detail, **figures}
    return found


def match_line(result: dict[str, Any], bot_id: str, finished: float) -> dict[str, Any]:
    """A recent match as the bot's page lists it: preset, seats, the bot's party's games
    (``bot_id`` may be a version's rated id, in a result seen by :func:`store.versions.rated_view`)."""
    seats = sorted(result.get("seats", []), key=lambda s: s.get("seat", 0))
    parties = int(result.get("ruleset", {}).get("parties", 0)) or max(1, len(result.get("party_wins", [])))
    mine = {s.get("seat", 0) % parties for s in seats if s.get("bot_id") == bot_id}
    wins = result.get("party_wins", [])
    own = sum(int(wins[p]) for p in mine if p < len(wins))
    games = len(result.get("games", []))
    return {"match_id": result.get("match_id", ""), "preset": result.get("ruleset", {}).get("name", ""),
            "seats": [str(s.get("bot_id", "")) for s in seats], "won": own, "games": games,
            "forfeited": bool(result.get("forfeited")), "finished": finished,
            "strikes": sum(int(s.get("strikes", 0)) for s in seats if s.get("bot_id") == bot_id)}


async def register(request: Request) -> Response:
    """Register a bot through the referee (admin token required) and show its token once."""
    web = arena(request)
    form = await request.form()
    check_admin(web.config.admin_token, bearer(request) or str(form.get("admin_token", "")))
    name, owner, description = (str(form.get(key, "")).strip() for key in ("name", "owner", "description"))
    if len(owner) > MAX_TEXT or len(description) > MAX_TEXT:
        raise HTTPException(400, f"owner and description are at most {MAX_TEXT} characters")
    try:
        registered = await run_in_threadpool(web.referee.register, name, owner, description)
    except grpc.RpcError as error:
        status = {grpc.StatusCode.ALREADY_EXISTS: 409, grpc.StatusCode.INVALID_ARGUMENT: 400}.get(error.code(), 503)
        detail = error.details() if status != 503 else "the referee cannot be reached: no bot was registered"
        raise HTTPException(status, shown(str(detail))) from None
    return no_store(render(request, "registered.html", status_code=201, name=name, bot_id=registered.bot_id,
                           token=registered.token, referee=web.config.referee))


routes = [
    Route("/bots", bots, name="bots", methods=["GET"]),
    Route("/bots", register, name="register_bot", methods=["POST"]),
    Route("/bots/{bot_id}", bot, name="bot"),
]
