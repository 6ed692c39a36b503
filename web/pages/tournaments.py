"""Tournaments: the list, each tournament's live progress (matches recorded, running, not
played) pushed to the page by server-sent events until its final table is written, the table
itself, and, with the admin token, a form that starts a new round robin."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from sse_starlette.sse import EventSourceResponse
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from competitions.config import WorkerConfig
from competitions.queue import make_app
from competitions.ratings.leaderboard import tournament_table
from competitions.tournaments import control
from competitions.tournaments.schedule import ScheduleError
from competitions.tournaments.store import TournamentError, TournamentStore
from competitions.tournaments.table import NOT_PLAYED, PLAYED
from web.auth import bearer, check_admin
from web.pages.common import arena, form_number, not_found, render, shown
from web.templating import path_for

#: Tournaments per page of the list.
PAGE_SIZE = 50
MAX_SEED = 999_999_999
"""The largest seed the start form takes (nine digits: what a person types, not a flood)."""
#: Seconds between progress events.
PROGRESS_INTERVAL_S = 1.0
#: The state a played match kept off the ratings shows in the list of matches (with its reason).
UNRATED = "unrated"


def tournaments(request: Request) -> Response:
    """Every tournament, newest first, with its progress."""
    web = arena(request)
    ids = list(reversed(web.tournaments.tournament_ids()))[:PAGE_SIZE]
    listed = [control.progress(web.tournaments, tournament_id) for tournament_id in ids]
    connected = web.connected() or {}
    return render(request, "tournaments.html", tournaments=listed,
                  connected=sorted((b for b in connected.values() if b.connected), key=lambda b: b.name))


def _plan(store: TournamentStore, tournament_id: str) -> Any:
    try:
        return store.plan(tournament_id)
    except TournamentError:
        raise not_found("tournament", tournament_id) from None


def tournament(request: Request) -> Response:
    """One tournament: progress, every match and what became of it, the final table."""
    web = arena(request)
    tournament_id = request.path_params["tournament_id"]
    schedule = _plan(web.tournaments, tournament_id)
    outcomes = web.tournaments.outcomes(tournament_id)
    started = web.tournaments.started(tournament_id)
    matches = []
    for match in schedule.matches:
        outcome = outcomes.get(match.index)
        if outcome is None:
            status, reason = ("running" if match.index in started else "pending"), ""
        else:
            status, reason = outcome["status"], outcome.get("reason", "")
            if status == PLAYED and outcome["result"].get("unrated"):
                status, reason = UNRATED, str(outcome["result"].get("unrated_reason", ""))
        matches.append({"index": match.index, "match_id": match.match_id, "seats": match.seats, "status": status,
                        "reason": reason})
    table = web.tournaments.table(tournament_id)
    fitted = {}
    if table is not None:
        results = [o["result"] for o in outcomes.values() if o["status"] == PLAYED]
        fitted = {row.bot_id: row for row in tournament_table(results, web.config.elo)}
    return render(request, "tournament.html", schedule=schedule,
                  progress=control.progress_of(schedule, outcomes, started, table is not None), matches=matches,
                  table=table, fitted=fitted, names=web.names(schedule.entrants), played=PLAYED,
                  not_played=NOT_PLAYED, unrated=UNRATED)


async def progress_events(request: Request) -> Response:
    """Server-sent ``progress`` events (JSON) every second, then one ``finished`` event."""
    web = arena(request)
    tournament_id = request.path_params["tournament_id"]
    await run_in_threadpool(_plan, web.tournaments, tournament_id)

    async def events() -> AsyncIterator[dict[str, str]]:
        while True:
            now = await run_in_threadpool(control.progress, web.tournaments, tournament_id)
            data = json.dumps({"total": now.total, "played": now.played, "not_played": now.not_played,
                               "running": now.in_progress, "pending": now.pending, "finished": now.finished})
            yield {"event": "finished" if now.finished else "progress", "data": data}
            if now.finished:
                return
            await asyncio.sleep(PROGRESS_INTERVAL_S)

    return EventSourceResponse(events(), ping=15)


async def start_tournament(request: Request) -> Response:
    """Start a round robin (admin token required): every connected bot that plays its
    preset, or those listed."""
    web = arena(request)
    form = await request.form()
    check_admin(web.config.admin_token, bearer(request) or str(form.get("admin_token", "")))
    preset = str(form.get("preset", "")).strip()
    games = form_number(form.get("games", "1"), "games", 1, 1000)
    seed = form_number(form.get("seed", "1"), "seed", 0, MAX_SEED)
    wanted = [str(value) for value in form.getlist("bots") if str(value)]
    connected = await run_in_threadpool(web.connected)
    if connected is None:
        raise HTTPException(503, "the referee cannot be reached: no tournament was started")
    entrants = wanted or control.default_entrants(web.store, [bot.bot_id for bot in connected.values()
                                                               if bot.connected], preset)
    unknown = [bot for bot in entrants if bot not in connected]
    if unknown:
        raise HTTPException(400, f"not a registered bot: {shown(unknown[0])}")

    def create_and_launch() -> str:
        config = WorkerConfig(redis_url=web.config.redis_url, store_prefix=web.config.store_prefix,
                              referee=web.config.referee, admin_token=web.config.admin_token)
        schedule = control.create(web.tournaments, preset, entrants, games=games, seed=seed)
        control.launch(make_app(config), web.tournaments, schedule.tournament_id)
        return schedule.tournament_id

    try:
        tournament_id = await run_in_threadpool(create_and_launch)
    except (ScheduleError, ValueError) as exc:
        raise HTTPException(400, f"cannot schedule it: {shown(str(exc))}") from None
    return RedirectResponse(path_for(request, "tournament", tournament_id=tournament_id), status_code=303)


routes = [
    Route("/tournaments", tournaments, name="tournaments", methods=["GET"]),
    Route("/tournaments", start_tournament, name="start_tournament", methods=["POST"]),
    Route("/tournaments/{tournament_id}", tournament, name="tournament"),
    Route("/tournaments/{tournament_id}/progress", progress_events, name="tournament_progress"),
]
