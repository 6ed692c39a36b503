"""Live matches: the matches the arena's referees play now (ListMatches of every live
referee of the fleet: :mod:`web.referees`), and a spectator page that follows one as it is
played, fed by server-sent events relayed from the spectator stream (StreamMatchEvents) of
the referee that runs it.

Only public information leaves this module while a match runs: the referee's spectator
stream carries no hidden card, and :mod:`web.views.spectator` folds it without adding
any. Each spectator has its own upstream call, cancelled as soon as the browser goes away,
so a closed tab leaves no stream open on the referee."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import json_format
from sse_starlette.sse import EventSourceResponse
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from competitions.tournaments.store import TournamentStore
from pitch_sdk.proto.pitch.v1 import arena_pb2, bot_pb2
from pitch_sdk.protocol import wire
from pitch_sdk.rules import Ruleset, preset
from pitch_sdk.rules.errors import RulesError
from web.arena import WebArena
from web.humans.games import PERSON_MATCH_PREFIX
from web.pages.common import arena, not_found, render, shown
from web.referees import RefereesUnreachable, RunningMatches
from web.templating import path_for, when
from web.views.spectator import SpectatorTable

#: Seconds between refreshes of the list of running matches in the browser.
REFRESH_INTERVAL_S = 2.0
UNREACHABLE = "the referee cannot be reached"


@dataclass(frozen=True)
class Watched:
    """What the spectator pages know of a match before its events: its variant and seats,
    and either the running entry (and the address of the referee that runs it) or the
    stored result of a match that ended."""

    match_id: str
    ruleset: Ruleset
    bot_ids: list[str]
    names: list[str]
    running: arena_pb2.RunningMatch | None
    result: bot_pb2.MatchResult | None
    running_on: str | None = None


def _watched(web: WebArena, match_id: str) -> Watched:
    """The match from the running list of the referee that runs it, else from the store's
    results; a 503 when it is not recorded and a referee that may run it cannot be reached,
    a 404 when neither the referees nor the store know it."""
    unreachable = False
    try:
        found = web.referees.find_running(match_id)
    except RefereesUnreachable:
        found, unreachable = None, True
    if found is not None:
        match = found.match
        try:
            ruleset = preset(match.preset)
        except RulesError:
            raise HTTPException(404, f"match {shown(match_id)!r} plays a variant this web arena does not know"
                                ) from None
        return Watched(match_id, ruleset, list(match.seat_bot_ids), list(match.seat_names), match, None,
                       found.address)
    stored = web.store.match_result(match_id)
    if stored is None and unreachable:
        raise HTTPException(503, f"{UNREACHABLE}: no live view of match {shown(match_id)!r} now")
    if stored is None:
        raise not_found("match", match_id)
    result = json_format.ParseDict(stored, bot_pb2.MatchResult(), ignore_unknown_fields=True)
    bot_ids = [seat.bot_id for seat in result.seats]
    names = web.names(bot_ids)
    return Watched(match_id, wire.ruleset_from_pb(result.ruleset), bot_ids, [names.get(b, b) for b in bot_ids],
                   None, result)


#: What each kind of running match is called on the list, and whether it is rated.
KINDS = {"rated": ("rated", True), "sprt": ("SPRT, not rated", False), "person": ("a person's game, not rated", False),
         "one-off": ("one-off, not rated", False), "practice": ("practice", False)}


def match_kinds(web: WebArena, matches: list[arena_pb2.RunningMatch]) -> dict[str, str]:
    """What each running match is (:data:`KINDS`), by match id: a match of a round robin or
    a ladder round (``{tournament}.{index}``) is rated; one of an SPRT run is not (a chosen
    line-up, the same partner on both sides), nor a person's game, a practice match or a
    one-off ``RunMatch`` (``pitch-arena match``).  Two round trips for the whole list."""
    owners = {m.match_id: m.match_id.rpartition(".")[0] for m in matches}
    ids = sorted({owner for owner in owners.values() if owner})
    tournaments = TournamentStore(web.store).known(ids)
    sprts = TournamentStore(web.store, kind="sprt").known(ids)
    kinds = {}
    for match in matches:
        owner = owners[match.match_id]
        kinds[match.match_id] = ("practice" if match.practice else "person"
                                 if match.match_id.startswith(PERSON_MATCH_PREFIX) else "rated"
                                 if owner in tournaments else "sprt" if owner in sprts else "one-off")
    return kinds


def _listed(request: Request, match: arena_pb2.RunningMatch, kind: str) -> dict[str, Any]:
    """A running match as the list shows it (and its JSON refresh sends it)."""
    label, rated = KINDS[kind]
    return {"match_id": match.match_id, "preset": match.preset, "game": match.game, "games": match.games,
            "started": when(match.started_unix), "kind": kind, "label": label, "rated": rated,
            "url": str(path_for(request, "spectate", match_id=match.match_id)),
            "seats": [{"bot_id": bot_id, "name": name, "url": str(path_for(request, "bot", bot_id=bot_id))}
                      for bot_id, name in zip(match.seat_bot_ids, match.seat_names, strict=False)]}


def _status(running: RunningMatches) -> dict[str, Any]:
    """How complete the list is: referees asked and those that did not answer (their
    matches are missing from it)."""
    return {"reachable": running.reachable, "referees": running.asked, "silent": running.silent}


def live(request: Request) -> Response:
    """The running matches of every live referee, oldest first; ``?format=json`` is the
    same list for the page's periodic refresh (so it updates without a reload)."""
    web = arena(request)
    running = web.running_matches()
    kinds = match_kinds(web, [entry.match for entry in running.matches])
    matches = ([_listed(request, entry.match, kinds[entry.match.match_id]) for entry in running.matches]
               if running.reachable else None)
    status = _status(running)
    if request.query_params.get("format") == "json":
        return JSONResponse({**status, "matches": matches or []})
    return render(request, "live.html", matches=matches, refresh_ms=int(1000 * REFRESH_INTERVAL_S), **status)


def spectate(request: Request) -> Response:
    """The spectator's table of a running match (drawn by ``live.js`` from the events), or
    the result of a match that has ended, with a link to its replay."""
    watched = _watched(arena(request), request.path_params["match_id"])
    table = SpectatorTable.of(watched.ruleset, watched.names)
    ended = None if watched.result is None else table.finish(watched.result)
    running = watched.running
    return render(request, "spectate.html", match_id=watched.match_id, ruleset=watched.ruleset,
                  seats=list(zip(watched.bot_ids, watched.names, strict=True)), parties=table.party_names(),
                  running=running, started=when(running.started_unix) if running else "", ended=ended)


#: Most events one message carries: a spectator who joins late gets the match so far in a
#: few messages, each with one table, instead of one message (and table) per event.
MAX_BATCH = 500
_ENDED, _BROKEN = object(), object()


def _batch(shown: list[dict[str, Any]], table: SpectatorTable, count: int) -> dict[str, str]:
    """One ``match-events`` message: the events read since the last one (each as the page
    logs it), the table after the last of them, and how many events the page has had."""
    return {"event": "match-events", "data": json.dumps({"events": shown, "table": table.to_dict(),
                                                         "count": count})}


async def _open_stream(web: WebArena, watched: Watched) -> tuple[Any, Any]:
    """The event stream of the match and its first message: from the referee that runs it,
    else the first of the others that has it (:meth:`ArenaReferees.stream_sources`).  A
    404 when every referee answered that it has no such match, a 503 when one that might
    have it could not be reached (never a 500)."""
    request = arena_pb2.StreamMatchEventsRequest(match_id=watched.match_id)
    sources = await run_in_threadpool(web.referees.stream_sources, watched.match_id, watched.running_on)
    unreachable = False
    for address in sources:
        call: Any = web.referees.aio_stub(address).StreamMatchEvents(  # grpc.aio's call; the stubs type the sync one
            request, metadata=web.admin_metadata)
        try:  # a referee that accepts the call but sends nothing is not waited for
            return call, await asyncio.wait_for(call.read(), web.referees.timeout_s)
        except TimeoutError:
            call.cancel()
            unreachable = True
        except grpc.aio.AioRpcError as error:
            call.cancel()
            unreachable = unreachable or error.code() != grpc.StatusCode.NOT_FOUND
    if unreachable:
        raise HTTPException(503, f"{UNREACHABLE}: no live view of match {shown(watched.match_id)!r} now")
    raise not_found("match", watched.match_id)


async def spectate_events(request: Request) -> Response:
    """Server-sent events of a match: ``match-events`` messages (the public events read
    since the previous message and the table after them, as JSON: one event each while the
    match is followed live, many at once while a late spectator catches up), then one
    ``result``. The first message is read before the response starts, so an unknown match
    is a 404 and a silent referee a 503."""
    web = arena(request)
    match_id = request.path_params["match_id"]
    watched = await run_in_threadpool(_watched, web, match_id)
    table = SpectatorTable.of(watched.ruleset, watched.names)
    call, first = await _open_stream(web, watched)

    async def relay() -> AsyncIterator[dict[str, str]]:
        pending: asyncio.Queue[Any] = asyncio.Queue()

        async def read() -> None:  # the referee's stream as fast as it comes, into the queue
            item = first
            try:
                while item is not grpc.aio.EOF:
                    pending.put_nowait(item)
                    if item.HasField("result"):
                        return
                    item = await call.read()
                pending.put_nowait(_ENDED)
            except grpc.aio.AioRpcError:
                pending.put_nowait(_BROKEN)

        reader = asyncio.create_task(read())
        count = 0
        try:
            while True:
                items = [await pending.get()]
                while not pending.empty() and len(items) < MAX_BATCH:
                    items.append(pending.get_nowait())
                shown: list[dict[str, Any]] = []
                for item in items:
                    if item is _ENDED or item is _BROKEN:
                        if shown:
                            yield _batch(shown, table, count)
                        text = ("the referee ended the stream without a result" if item is _ENDED
                                else f"{UNREACHABLE}: the live view stopped")
                        yield {"event": "failure", "data": json.dumps({"text": text})}
                        return
                    if item.HasField("result"):
                        if shown:
                            yield _batch(shown, table, count)
                        yield {"event": "result", "data": json.dumps(table.finish(item.result))}
                        return
                    shown.append(table.apply(item.event))
                    count += 1
                yield _batch(shown, table, count)
        finally:
            reader.cancel()
            call.cancel()  # the browser left (sse_starlette cancels this generator) or the match ended

    # The background task also cancels the call when the generator never ran (a HEAD request).
    return EventSourceResponse(relay(), ping=15, background=BackgroundTask(call.cancel))


routes: list[BaseRoute] = [
    Route("/live", live, name="live"),
    Route("/live/{match_id}", spectate, name="spectate"),
    Route("/live/{match_id}/events", spectate_events, name="spectate_events"),
]
