"""SPRT runs: every run with its bots, games against the cap, and the LLR between its
bounds, read from Redis as the CLI's follower reads them; the page reloads itself while a
run is still going."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from competitions.sprt import control
from competitions.sprt.store import SprtStore
from store.seat_keys import bot_of_seat, seat_label
from web.pages.common import arena, render

#: Runs listed (newest first).
PAGE_SIZE = 50
#: Seconds between reloads while a run is going.
REFRESH_S = 3


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


routes = [Route("/sprt", runs, name="sprt")]
