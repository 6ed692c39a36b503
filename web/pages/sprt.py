"""SPRT runs: every run with its bots, games against the cap, and the LLR between its
bounds, read from Redis as the CLI's follower reads them (the list reloads itself while a
run is still going); and a page per run, as fishtest has one: the LLR's path between its
bounds, the pentanomial and win/draw/loss counts, the Elo estimate with its interval, links
to the two sides and to the games, kept current by server-sent events."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import asdict
from typing import Any

from sse_starlette.sse import EventSourceResponse
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from competitions.sprt import control
from competitions.sprt.store import SprtStore
from competitions.tournaments.schedule import TOURNAMENT_ID, match_id
from competitions.tournaments.store import TournamentError
from store.seat_keys import bot_of_seat, seat_label, version_of_seat
from web.pages.common import arena, not_found, render
from web.templating import bot_path, version_path
from web.views.llr_chart import llr_chart

#: Runs listed (newest first).
PAGE_SIZE = 50
#: Seconds between reloads while a run is going.
REFRESH_S = 3
#: Seconds between two looks at a followed run (a look reads the run's outcomes count first,
#: and the whole standing only when it grew).
EVENT_INTERVAL_S = 1.0
#: Latest counted pairs a run's page lists with their games.
PAIRS_SHOWN = 20


def runs(request: Request) -> Response:
    """Every SPRT run, newest first: bots, preset, hypotheses, games, LLR and verdict."""
    web = arena(request)
    sprts = SprtStore(web.store)
    listed = [control.progress(sprts, run_id) for run_id in sprts.run_ids()[:PAGE_SIZE]]
    seats = [seat for run in listed for seat in (run.spec.new, run.spec.old)]
    known = web.names([bot_of_seat(seat) for seat in seats])
    names = {seat: seat_label(seat, known) for seat in seats}  # a version shows as name@version
    going = any(not run.finished and run.stalled_reason is None for run in listed)
    return render(request, "sprt.html", runs=listed, names=names, refresh=REFRESH_S if going else None)


def _progress(sprts: SprtStore, run_id: str) -> control.SprtProgress:
    """The run's progress; 404 for a malformed or unknown run id (never echoing much of it)."""
    if not TOURNAMENT_ID.fullmatch(run_id):
        raise not_found("SPRT run", run_id)
    try:
        return control.progress(sprts, run_id)
    except TournamentError:
        raise not_found("SPRT run", run_id) from None


def _live(progress: control.SprtProgress) -> dict[str, Any]:
    """What the page shows that changes as pairs come in (the first render and every event)."""
    now = progress.standing
    status = now.status
    elo = status.elo
    state = ((progress.verdict.get("verdict") or "cap reached") if progress.verdict is not None
             else f"stalled: {progress.stalled_reason}" if progress.stalled_reason else "running")
    pairs = [{"pair": pair, "matches": [match_id(progress.spec.run_id, 2 * pair + k) for k in (0, 1)]}
             for pair in reversed(now.counted_pairs[-PAIRS_SHOWN:])]
    return {"state": state, "finished": progress.finished, "llr": round(status.llr, 3),
            "lower": round(status.lower, 3), "upper": round(status.upper, 3), "games": status.games,
            "max_games": progress.spec.max_games, "pairs": status.pairs, "counts": list(status.counts),
            "wdl": list(now.wdl), "elo": round(elo.elo, 1), "elo_lower": round(elo.lower, 1),
            "elo_upper": round(elo.upper, 1), "nelo": round(elo.normalized, 1),
            "nelo_lower": round(elo.normalized_lower, 1), "nelo_upper": round(elo.normalized_upper, 1),
            "los": round(elo.los, 4), "excluded": now.excluded, "running": progress.running,
            "chart": asdict(llr_chart(now.llr_history, status.lower, status.upper)), "recent": pairs}


def _looked(sprts: SprtStore, run_id: str) -> tuple[int, bool]:
    """What says a run changed: its outcomes' count, and whether its verdict is recorded (it
    is written just after the outcome that decided it)."""
    return sprts.runs.count_outcomes(run_id), sprts.verdict(run_id) is not None


def run_page(request: Request) -> Response:
    """One SPRT run's page."""
    web = arena(request)
    progress = _progress(SprtStore(web.store), request.path_params["run_id"])
    spec = progress.spec
    known = web.names([bot_of_seat(spec.new), bot_of_seat(spec.old)])
    sides = []
    for role, seat in (("NEW", spec.new), ("OLD", spec.old)):
        version = version_of_seat(seat)
        link = (version_path(bot_of_seat(seat), version) if version is not None else None) or bot_path(seat)
        sides.append({"role": role, "label": seat_label(seat, known), "href": link})
    return render(request, "sprt_run.html", spec=spec, sides=sides, live=_live(progress))


async def run_events(request: Request) -> Response:
    """Server-sent ``standing`` events (JSON, as :func:`_live`) whenever the run's outcomes
    or its verdict change, then one ``finished`` event; a follower costs two small reads a
    second while nothing changes."""
    web = arena(request)
    sprts = SprtStore(web.store)
    run_id = request.path_params["run_id"]
    await run_in_threadpool(_progress, sprts, run_id)

    async def events() -> AsyncIterator[dict[str, str]]:
        seen: tuple[int, bool] | None = None
        while True:
            now = await run_in_threadpool(_looked, sprts, run_id)
            if now != seen:
                seen = now
                live = _live(await run_in_threadpool(control.progress, sprts, run_id))
                yield {"event": "finished" if live["finished"] else "standing", "data": json.dumps(live)}
                if live["finished"]:
                    return
            await asyncio.sleep(EVENT_INTERVAL_S)

    return EventSourceResponse(events(), ping=15)


routes = [Route("/sprt", runs, name="sprt"),
          Route("/sprt/{run_id}", run_page, name="sprt_run"),
          Route("/sprt/{run_id}/events", run_events, name="sprt_run_events")]
