"""Play against the bots: a person picks a preset and who fills the other seats (the web
service's house bots, or any connected bot), then plays their seat in the browser.

Who may do what:

- Anyone may start a game against house bots: it is what the page is for, the games at
  once are limited (``max_human_matches``), and a person's match is recorded but never
  rated. Seating a connected third-party bot needs the admin token, since it makes
  someone else's bot play a recorded match under its name.
- Only the person who started a game acts in it: the start sets a per-game secret in a
  cookie (HttpOnly, SameSite=Strict, scoped to the game's path), and the table's events
  and decisions check it. Anyone else who opens the table sees public information only
  (no hand, no pending decision).
"""

from __future__ import annotations

import hmac
import json
from collections.abc import AsyncIterator
from typing import Any

from sse_starlette.sse import EventSourceResponse
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from pitch_sdk.rules import preset
from pitch_sdk.rules.presets import PRESETS
from web.accounts.identity import client_address
from web.auth import bearer, check_admin
from web.humans.games import MOST_SEATS, PERSON_MAX_STRIKES, Opponent, PeopleGames, PlayError
from web.humans.house import HOUSE_BOTS
from web.humans.identities import known_identities
from web.humans.seat import DecisionError, Table
from web.pages.common import NUMBER_DIGITS, arena, form_number, not_found, render, shown
from web.templating import path_for

#: The preset the form proposes.
DEFAULT_PRESET = "partnership"
#: Seconds between keep-alive checks of a table's event stream.
EVENT_WAIT_S = 15.0


def people(request: Request) -> PeopleGames:
    """The application's people's games (``web.humans.games.serving`` in the lifespan)."""
    found: PeopleGames | None = getattr(request.app.state, "people", None)
    if found is None:
        raise HTTPException(503, "people's games are not served by this process (no lifespan)")
    return found


def secret_cookie(match_id: str) -> str:
    """The name of the cookie that holds a game's secret."""
    return f"pitch_play_{match_id}"


def is_owner(request: Request, table: Table) -> bool:
    """Whether the request carries the game's secret (constant-time comparison)."""
    given = request.cookies.get(secret_cookie(table.match_id), "")
    return bool(given) and hmac.compare_digest(given.encode(), table.secret.encode())


def table_for(request: Request) -> Table:
    """The game the path names, or a 404."""
    match_id = request.path_params["match_id"]
    table = people(request).tables.get(match_id)
    if table is None:
        raise not_found("game", match_id)
    return table


def play_form(request: Request) -> Response:
    """The form: a preset, points to win, the person's seat and who plays the others."""
    web = arena(request)
    own = {identity.bot_id for identity in known_identities(web.store).values()}
    connected = web.connected()  # any bot of the fleet: PITCH_REFEREE relays the seat of one connected elsewhere
    bots = sorted((b for b in (connected or {}).values() if b.connected and b.bot_id not in own),
                  key=lambda b: b.name.casefold())
    presets = [{"name": name, "players": rules.players, "target": rules.win.target}
               for name, rules in ((name, preset(name)) for name in PRESETS)]
    games = people(request)
    return render(request, "play.html", presets=presets, default=DEFAULT_PRESET, most_seats=MOST_SEATS,
                  house=list(HOUSE_BOTS), bots=bots, referee_down=connected is None, running=games.running,
                  limit=web.config.max_human_matches, decision_ms=web.config.human_decision_ms,
                  bank_ms=web.config.human_bank_ms, max_strikes=PERSON_MAX_STRIKES,
                  per_client=web.config.human_tables_per_client, abandon_s=web.config.human_abandon_s)


#: Characters of the options' JSON (every preset's options together fit in a few hundred).
MAX_OPTIONS_CHARS = 10_000


def _options(form: Any) -> dict[str, Any]:
    """The rules options from the form: its JSON object, and points to win over it."""
    text = str(form.get("options", "")).strip()
    if len(text) > MAX_OPTIONS_CHARS:
        raise HTTPException(400, f"options are at most {MAX_OPTIONS_CHARS} characters of JSON")
    try:
        options = json.loads(text) if text else {}
    except json.JSONDecodeError as exc:
        raise HTTPException(400, f"options must be a JSON object: {shown(str(exc))}") from None
    except RecursionError:  # nested deeper than the parser's recursion allows
        raise HTTPException(400, "options must be a JSON object of rule options, not nested lists or objects "
                                 "hundreds deep") from None
    if not isinstance(options, dict):
        raise HTTPException(400, "options must be a JSON object")
    target = str(form.get("target", "")).strip()
    if target:
        options["target"] = form_number(target, "points to win", 1, 1000)
    return options


async def start_play(request: Request) -> Response:
    """Start a game (admin token only when a connected bot is seated) and go to its table."""
    web = arena(request)
    games = people(request)
    form = await request.form()
    preset_name = str(form.get("preset", "")).strip()
    if preset_name not in PRESETS:
        raise HTTPException(400, f"no preset {shown(preset_name)!r}")
    players = preset(preset_name).players
    seat = form_number(form.get("seat", "0"), "the seat", 0, players - 1)
    try:
        opponents = [Opponent.parse(str(value)) for value in form.getlist("opponent")[:players - 1]]
    except PlayError as exc:
        raise HTTPException(exc.status, str(exc)) from None
    if any(o.bot_id is not None for o in opponents):
        check_admin(web.config.admin_token, bearer(request) or str(form.get("admin_token", "")))
    try:
        table = await games.start(preset_name, _options(form), seat, opponents, client_address(request))
    except PlayError as exc:
        raise HTTPException(exc.status, str(exc)) from None
    response = RedirectResponse(path_for(request, "play_table", match_id=table.match_id), status_code=303)
    response.set_cookie(secret_cookie(table.match_id), table.secret, httponly=True, samesite="strict",
                        path=f"/play/{table.match_id}")
    return response


async def play_table(request: Request) -> Response:
    """A game's table: the person's own view with the secret, the public one without; a
    game this process no longer holds goes to its recorded match."""
    match_id = request.path_params["match_id"]
    table = people(request).tables.get(match_id)
    if table is None:
        recorded = await run_in_threadpool(arena(request).store.match_result, match_id)
        if recorded is None:
            raise not_found("game", match_id)
        return RedirectResponse(f"/matches/{match_id}", status_code=302)
    return render(request, "table.html", table=table, view=table.view(is_owner(request, table)))


async def play_events(request: Request) -> Response:
    """Server-sent ``state`` events (the table's JSON view) at every change, then one
    ``finished`` event with the result."""
    table = table_for(request)
    owner = is_owner(request, table)

    async def events() -> AsyncIterator[dict[str, str]]:
        version = -1
        if owner:  # the person's page is open: their game is not abandoned
            table.owner_pages += 1
        try:
            while True:
                if await table.changed_since(version, EVENT_WAIT_S):
                    version = table.version
                    yield {"event": "finished" if table.finished else "state", "data": json.dumps(table.view(owner))}
                    if table.finished:
                        return
        finally:
            if owner:
                table.owner_pages -= 1
                table.seen()

    return EventSourceResponse(events(), ping=15)


async def play_decision(request: Request) -> Response:
    """The person's answer: ``decision_id`` and either ``index`` (a listed legal action) or
    ``cards`` (comma-separated card names, for a card-set decision). Every refusal is a
    4xx with a JSON ``error`` that says why."""
    try:
        table = table_for(request)
    except HTTPException as exc:
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)
    if not is_owner(request, table):
        return JSONResponse({"error": "only the person who started this game may play it"}, status_code=403)
    form = await request.form()
    decision_id = str(form.get("decision_id", ""))
    index_text = str(form.get("index", "")).strip()
    cards_text = str(form.get("cards", "")).strip()
    if index_text and not (index_text.isascii() and index_text.isdigit() and len(index_text) <= NUMBER_DIGITS):
        return JSONResponse({"error": "index must be a whole number"}, status_code=400)
    index = int(index_text) if index_text else None
    cards = [name.strip() for name in cards_text.split(",") if name.strip()] if cards_text else None
    if index is None and cards is None:
        return JSONResponse({"error": "send index (a legal action) or cards (a card set)"}, status_code=400)
    try:
        sent = people(request).answer(table, decision_id, index, cards)
    except DecisionError as exc:
        return JSONResponse({"error": str(exc)}, status_code=exc.status)
    if not sent:
        return JSONResponse({"error": "the seat's connection to the referee is down; the referee asks again when "
                                      "it is back"}, status_code=503)
    return JSONResponse({"ok": True})


routes: list[BaseRoute] = [
    Route("/play", play_form, name="play", methods=["GET"]),
    Route("/play", start_play, name="start_play", methods=["POST"]),
    Route("/play/{match_id}", play_table, name="play_table", methods=["GET"]),
    Route("/play/{match_id}/events", play_events, name="play_events", methods=["GET"]),
    Route("/play/{match_id}/decision", play_decision, name="play_decision", methods=["POST"]),
]
