"""``--json`` output of ``pitch-arena``: the data of each table as JSON, for scripts.

The same numbers as :mod:`cli.views` (both read the same rows), as plain
objects with stable keys; bot names and other bot-supplied strings are data here, escaped
by JSON, not cut.  The shapes are documented in the README."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from cli.views import replayed_games
from competitions.ratings.model import RatingRow
from competitions.tournaments.schedule import Schedule
from competitions.tournaments.table import NOT_PLAYED, unrated_matches
from pitch_sdk.proto.pitch.v1 import arena_pb2


def dumps(data: Any) -> str:
    """The text printed: indented, keys in insertion order, non-ASCII kept (names, suits)."""
    return json.dumps(data, indent=2, ensure_ascii=False)


def bots(infos: Sequence[arena_pb2.BotInfo]) -> list[dict[str, Any]]:
    """Every registered bot, as ``pitch-arena bots`` lists them."""
    return [{"bot_id": bot.bot_id, "name": bot.name, "connected": bot.connected, "seats_in_use": bot.seats_in_use,
             "capacity": bot.capacity, "version": bot.bot_version, "owner": bot.owner} for bot in infos]


def _rating(row: RatingRow | None) -> dict[str, Any] | None:
    if row is None:
        return None
    return {"rating": row.rating, "lower": row.lower, "upper": row.upper, "los_next": row.los_next}


def leaderboard(board: str, fitted: Sequence[RatingRow], live: Mapping[str, RatingRow],
                names: Mapping[str, str]) -> dict[str, Any]:
    """A board's rows in the headline order (Bradley–Terry rank), each with its live Elo."""
    rows = []
    for row in fitted:
        elo = live.get(row.bot_id)
        rows.append({"rank": row.rank, "bot_id": row.bot_id, "name": names.get(row.bot_id, row.bot_id),
                     "bt": _rating(row),
                     "elo": None if elo is None else {**(_rating(elo) or {}), "provisional": elo.provisional},
                     "games": row.games, "wins": row.wins, "draws": row.draws, "win_rate": row.win_rate})
    return {"board": board, "rows": rows}


def tournament(table: Mapping[str, Any], fitted: Sequence[RatingRow], schedule: Schedule,
               outcomes: Mapping[int, Mapping[str, Any]], names: Mapping[str, str]) -> dict[str, Any]:
    """A finished tournament: its table rows (with names and this tournament's
    Bradley–Terry rating), every match not played and every match kept off the ratings,
    each with its reason."""
    by_bot = {row.bot_id: row for row in fitted}
    rows = [{**row, "forfeit_wins": row.get("forfeit_wins", 0), "name": names.get(row["bot_id"], row["bot_id"]),
             "bt": _rating(by_bot.get(row["bot_id"]))} for row in table["rows"]]
    not_played = [{"match_id": match.match_id, "seats": list(match.seats),
                   "reason": outcomes[match.index].get("reason", "")}
                  for match in schedule.matches
                  if match.index in outcomes and outcomes[match.index]["status"] == NOT_PLAYED]
    reasons = unrated_matches(outcomes)
    unrated = [{"match_id": match.match_id, "seats": list(match.seats), "reason": reasons[match.index]}
               for match in schedule.matches if match.index in reasons]
    return {"tournament_id": table["tournament_id"], "preset": table["preset"], "games": table["games"],
            "matches": table["matches"], "played": table["played"], "not_played": table["not_played"],
            "unrated": len(unrated), "rows": rows, "not_played_matches": not_played, "unrated_matches": unrated}


def match_log(result: Mapping[str, Any], game_logs: Sequence[str], names: Mapping[str, str],
              game: int | None = None, full: bool = False) -> dict[str, Any]:
    """A recorded match: the referee's result as stored, the bot in each seat, and each game
    (or only ``game``) as its scored hands replayed by the rules engine; with ``full``, each
    game's stored log too (every action)."""
    seats = [{"seat": seat.get("seat", 0), "bot_id": seat.get("bot_id", ""),
              "name": names.get(seat.get("bot_id", ""), seat.get("bot_id", ""))} for seat in result.get("seats", [])]
    games = []
    for number, state in replayed_games(game_logs, game):
        entry: dict[str, Any] = {"game": number, "hands": [hand.to_dict() for hand in state.results]}
        if full:
            entry["log"] = json.loads(game_logs[number - 1])
        games.append(entry)
    return {"match_id": result.get("match_id", ""), "seats": seats, "result": dict(result), "games": games}
