"""Rich renderings for ``pitch-arena``: bots, leaderboards, tournament tables, match logs.

Presentation only: the numbers come from :mod:`workers.ratings.leaderboard`, :mod:`workers.tournaments.table`
and the referee's records, so a table says exactly what the tests check.  Bots are shown
by name (ids are for commands; ``names`` maps one to the other).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from rich import box
from rich.console import RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from pitch_sdk import wire
from pitch_sdk.display import party_labels
from pitch_sdk.proto.pitch.v1 import arena_pb2, bot_pb2, game_pb2
from pitch_sdk.rules import GameLog, replay
from pitch_sdk.story import game_story
from referee.match import result_from_dict
from workers.ratings.model import RatingRow

PROVISIONAL = "?"


def _interval(row: RatingRow | None) -> str:
    if row is None or row.lower is None or row.upper is None:
        return "—"
    return f"{row.lower:.0f}–{row.upper:.0f}"


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.0f}%"


def shown(value: str, limit: int = 64) -> Text:
    """A string a bot or its owner chose, safe to print: control characters (terminal
    escapes, NUL, ...) shown escaped, rich markup not interpreted (a ``Text`` is never
    parsed for markup), and at most ``limit`` characters, an ellipsis marking a cut."""
    safe = "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in value)
    return Text(safe if len(safe) <= limit else safe[:limit] + "…")


def bots_table(bots: Sequence[arena_pb2.BotInfo]) -> Table:
    """Every registered bot and whether it is connected now (from the referee).  Names,
    ids, versions and owners are bot-supplied: each goes through :func:`shown`."""
    table = Table(title="registered bots", box=box.SIMPLE_HEAD)
    for column in ("bot", "id", "connected", "seats in use", "version", "owner"):
        table.add_column(column, justify="right" if column == "seats in use" else "left")
    for bot in bots:
        connected = Text("yes", style="green") if bot.connected else Text("no", style="dim")
        seats = f"{bot.seats_in_use}/{bot.capacity}" if bot.connected else ""
        table.add_row(shown(bot.name), shown(bot.bot_id), connected, seats, shown(bot.bot_version), shown(bot.owner))
    return table


def leaderboard_table(board: str, live: Sequence[RatingRow], fitted: Sequence[RatingRow],
                      names: Mapping[str, str]) -> Table:
    """One preset's leaderboard: live Elo with its 95% interval, provisional mark, games,
    win rate and likelihood of superiority over the next row; beside it the
    order-independent Bradley–Terry rating of the same matches with its interval."""
    by_bot = {row.bot_id: row for row in fitted}
    table = Table(title=f"{board} leaderboard", box=box.SIMPLE_HEAD,
                  caption=f"Elo: live rating, updated match by match; {PROVISIONAL} provisional (few games).  "
                          "LOS: likelihood of being stronger than the next bot.  "
                          "BT: Bradley–Terry fit of all the board's matches, the same whatever order they "
                          "finished in.  Intervals: 95%.")
    for column, justify in (("#", "right"), ("bot", "left"), ("Elo", "right"), ("95%", "center"),
                            ("games", "right"), ("win %", "right"), ("LOS", "right"), ("BT", "right"),
                            ("BT 95%", "center")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for row in live:
        bt = by_bot.get(row.bot_id)
        table.add_row(str(row.rank), shown(names.get(row.bot_id, row.bot_id)),
                      f"{row.rating:.0f}{PROVISIONAL if row.provisional else ' '}", _interval(row), str(row.games),
                      _percent(row.win_rate if row.games else None), _percent(row.los_next),
                      "—" if bt is None else f"{bt.rating:.0f}", _interval(bt))
    return table


def results_table(table: Mapping[str, Any], fitted: Sequence[RatingRow], names: Mapping[str, str]) -> Table:
    """A finished tournament's table (games won, drawn, lost per bot) with the
    tournament's own Bradley–Terry rating and interval."""
    by_bot = {row.bot_id: row for row in fitted}
    played = f"{table['played']} of {table['matches']} matches played"
    if table["not_played"]:
        played += f", {table['not_played']} not played"
    view = Table(title=f"tournament {table['tournament_id']}: {table['preset']}, {played}", box=box.SIMPLE_HEAD,
                 caption="score: wins plus half the draws, per game.  BT: this tournament's Bradley–Terry "
                         "rating, 95% interval.")
    for column in ("bot", "matches", "games", "won", "drawn", "lost", "score", "forfeits", "not played", "BT",
                   "BT 95%"):
        view.add_column(column, justify="left" if column == "bot" else "right")
    for row in table["rows"]:
        bt = by_bot.get(row["bot_id"])
        view.add_row(names.get(row["bot_id"], row["bot_id"]), str(row["matches"]), str(row["games"]),
                     str(row["wins"]), str(row["draws"]), str(row["losses"]), f"{100 * row['score']:.1f}%",
                     str(row["forfeits"]), str(row["not_played"]), "—" if bt is None else f"{bt.rating:.0f}",
                     _interval(bt))
    return view


def match_log(result: Mapping[str, Any], game_logs: Sequence[str], names: Mapping[str, str],
              game: int | None = None) -> Iterator[RenderableType]:
    """A recorded match: who sat where and how each game ended, then each game (or only
    game number ``game``) hand by hand, replayed from its log with the rules engine, so
    what is shown is what the referee's engine did."""
    record = result_from_dict(dict(result))
    seats = [names.get(s.bot_id, s.bot_id) for s in sorted(record.seats, key=lambda s: s.seat)]
    yield _match_summary(record, seats)
    for number, raw in enumerate(game_logs, 1):
        if game is None or game == number:
            state = replay(GameLog.from_dict(json.loads(raw)))
            yield Text(f"Game {number}", style="bold reverse")
            yield from game_story(state, seats)


def _match_summary(record: bot_pb2.MatchResult, seats: Sequence[str]) -> Panel:
    lines = [f"{record.ruleset.name}, seed {record.seed}, {len(record.games)} game(s)"]
    for seat in sorted(record.seats, key=lambda s: s.seat):
        status = game_pb2.SeatStatus.Name(seat.status).removeprefix("SEAT_STATUS_").lower()
        lines.append(f"seat {seat.seat}: {seats[seat.seat]} ({status}, {seat.decisions} decisions, "
                     f"{seat.strikes} strikes)")
    parties = party_labels(wire.ruleset_from_pb(record.ruleset))
    for number, outcome in enumerate(record.games, 1):
        scores = " – ".join(str(s) for s in outcome.scores)
        verdict = f"{parties[outcome.winner]} wins" if outcome.has_winner else "draw"
        lines.append(f"game {number}: {verdict} {scores} after {outcome.hands} hands ({outcome.win_reason})")
    if record.forfeited:
        lines.append(f"{parties[record.forfeiting_party]} forfeited")
    if not record.completed:
        lines.append("aborted: not played out")
    return Panel("\n".join(lines), title=f"match {record.match_id}", expand=False)
