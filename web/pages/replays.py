"""Recorded matches: a summary page per match, and a replay viewer per game that steps
decision by decision and hand by hand, face up or from any seat, with a URL per step.

Everything comes from the store's match record (the result and each game's log); the
table at each step is the engine's replay of that log (:mod:`web.views.replay`), so the
viewer holds no rule of its own."""

from __future__ import annotations

import json
from functools import lru_cache

from google.protobuf import json_format
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from pitch_sdk.display.render import party_labels
from pitch_sdk.proto.pitch.v1 import bot_pb2, game_pb2
from pitch_sdk.rules import FULL_VIEW, GameLog, Ruleset
from pitch_sdk.rules.errors import RulesError
from web.pages.common import NUMBER_DIGITS, arena, not_found, query_number, render, shown
from web.views.replay import Replay, game_replay, parse_view, view_name

#: Replays kept built (one per game and viewer), since stepping asks for the same one again and again.
CACHED_REPLAYS = 64


def match(request: Request) -> Response:
    """A recorded match: preset, seed, who sat where, each game's result, a replay link per game."""
    match_id = request.path_params["match_id"]
    record, names = _record(request, match_id)
    ruleset = Ruleset.from_json(record.ruleset.json)
    seats = sorted(record.seats, key=lambda s: s.seat)
    logs = len(arena(request).store.match_logs(match_id))
    outcomes = list(record.games)
    games = [{"number": number, "outcome": outcomes[number - 1] if number <= len(outcomes) else None,
              "logged": number <= logs} for number in range(1, max(len(outcomes), logs) + 1)]
    return render(request, "match.html", record=record, match_id=match_id, seats=seats, names=names,
                  parties=party_labels(ruleset), party_of=ruleset.party_of, games=games,
                  status=lambda s: game_pb2.SeatStatus.Name(s).removeprefix("SEAT_STATUS_").lower().replace("_", " "))


def replay(request: Request) -> Response:
    """One game's table at ``?step=N`` (0: before the first decision; past the last: the
    last) for ``?view=all|seat-K``."""
    match_id = request.path_params["match_id"]
    record, names = _record(request, match_id)
    logs = arena(request).store.match_logs(match_id)
    game = _game_number(request.path_params["game"], len(logs))
    seat_names = tuple(names.get(s.bot_id, s.bot_id) for s in sorted(record.seats, key=lambda s: s.seat))
    players = Ruleset.from_json(record.ruleset.json).players
    try:
        viewer = parse_view(request.query_params.get("view", "all"), players)
    except ValueError as error:
        raise HTTPException(400, f"unknown view {shown(request.query_params['view'])!r}: {error}") from None
    built = _replay(logs[game - 1], seat_names, viewer)
    step = query_number(request, "step", 0, len(built.steps) - 1)
    here = built.steps[step]
    return render(request, "replay.html", match_id=match_id, game=game, games=len(logs), replay=built, step=here,
                  last=len(built.steps) - 1, view=view_name(viewer), preset=record.ruleset.name,
                  bot_ids=[s.bot_id for s in sorted(record.seats, key=lambda s: s.seat)],
                  nav=_navigation(built, step), views=[view_name(FULL_VIEW)] + [view_name(s) for s in range(players)])


def _record(request: Request, match_id: str) -> tuple[bot_pb2.MatchResult, dict[str, str]]:
    """The match's stored result and the names of its bots; 404 for an unknown match."""
    web = arena(request)
    stored = web.store.match_result(match_id)
    if stored is None:
        raise not_found("match", match_id)
    record = json_format.ParseDict(stored, bot_pb2.MatchResult(), ignore_unknown_fields=True)
    return record, web.names(s.bot_id for s in record.seats)


def _game_number(text: str, games: int) -> int:
    """The game the path names, counted from 1; 404 when the match has no such game log
    (a number longer than :data:`NUMBER_DIGITS` is past any match's games, and never converted:
    Python refuses over 4,300 digits)."""
    if not (text.isascii() and text.isdigit()) or len(text) > NUMBER_DIGITS or not 1 <= int(text) <= games:
        raise HTTPException(404, f"no game {shown(text)!r}: this match has games 1 to {games}")
    return int(text)


@lru_cache(maxsize=CACHED_REPLAYS)
def _replay(raw_log: str, names: tuple[str, ...], viewer: int) -> Replay:
    """The game of a stored log for one viewer (a log that does not replay is reported, not raised)."""
    try:
        return game_replay(GameLog.from_dict(json.loads(raw_log)), names, viewer)
    except (RulesError, ValueError) as error:
        raise HTTPException(500, f"this game's log does not replay: {shown(str(error))}") from None


def _navigation(built: Replay, step: int) -> dict[str, int | None]:
    """The step each button goes to; ``None`` where it would not move."""
    targets = {"first": 0, "prev-hand": built.previous_hand(step), "prev": max(step - 1, 0),
               "next": min(step + 1, len(built.steps) - 1), "next-hand": built.next_hand(step),
               "last": len(built.steps) - 1}
    return {name: (target if target != step else None) for name, target in targets.items()}


routes: list[BaseRoute] = [
    Route("/matches/{match_id}", match, name="match"),
    Route("/matches/{match_id}/games/{game}", replay, name="replay"),
]
