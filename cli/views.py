"""Rich renderings for ``pitch-arena``: bots, leaderboards, tournament tables, match logs.

Presentation only: the numbers come from :mod:`competitions.ratings.leaderboard`, :mod:`competitions.tournaments.table`
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

from competitions.ratings.model import RatingRow
from competitions.tournaments.schedule import Schedule
from competitions.tournaments.table import NOT_PLAYED, unrated_matches
from pitch_sdk.display.render import SUIT_SYMBOLS, party_labels
from pitch_sdk.display.story import game_story
from pitch_sdk.proto.pitch.v1 import arena_pb2, bot_pb2, game_pb2
from pitch_sdk.protocol import wire
from pitch_sdk.rules import GameLog, GameState, replay
from store.results import result_from_dict

PROVISIONAL = "?"
#: Longest bot name a table shows (an ellipsis marks a cut): with it every table fits 80 columns.
NAME_CHARS = 20
#: Longest reason for a match not played that is shown (it comes from the referee's error).
REASON_CHARS = 300


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
    table = Table(title="registered bots", box=box.SIMPLE_HEAD, collapse_padding=True, show_edge=False,
                  caption="seats: in use / declared capacity, while connected")
    for column in ("bot", "id", "connected", "seats", "version", "owner"):
        table.add_column(column, justify="right" if column == "seats" else "left",
                         no_wrap=column in ("id", "connected", "seats"))
    for bot in bots:
        connected = Text("yes", style="green") if bot.connected else Text("no", style="dim")
        seats = f"{bot.seats_in_use}/{bot.capacity}" if bot.connected else ""
        table.add_row(shown(bot.name), shown(bot.bot_id), connected, seats, shown(bot.bot_version), shown(bot.owner))
    return table


def leaderboard_table(board: str, fitted: Sequence[RatingRow], live: Mapping[str, RatingRow],
                      names: Mapping[str, str]) -> Table:
    """One preset's leaderboard, ranked by the order-independent Bradley–Terry rating (the
    same whatever order the matches finished in) with its 95% interval and likelihood of
    superiority over the next row; beside it the live Elo (updated match by match, so it
    depends on that order) with its provisional mark, games and win rate."""
    table = Table(title=f"{board} leaderboard", box=box.SIMPLE_HEAD,
                  caption="Ranked by BT: Bradley–Terry fit of all the board's matches, the same whatever order "
                          "they finished in; 95% interval; LOS: likelihood of being stronger than the next bot.  "
                          f"Elo: live rating, updated match by match; {PROVISIONAL} provisional (few games).")
    for column, justify in (("#", "right"), ("bot", "left"), ("BT", "right"), ("95%", "center"), ("LOS", "right"),
                            ("Elo", "right"), ("games", "right"), ("win %", "right")):
        table.add_column(column, justify=justify, no_wrap=column != "bot")  # type: ignore[arg-type]
    for row in fitted:
        elo = live.get(row.bot_id)
        table.add_row(str(row.rank), shown(names.get(row.bot_id, row.bot_id), NAME_CHARS), f"{row.rating:.0f}",
                      _interval(row), _percent(row.los_next),
                      "—" if elo is None else f"{elo.rating:.0f}{PROVISIONAL if elo.provisional else ' '}",
                      str(row.games), _percent(row.win_rate if row.games else None))
    return table


def results_table(table: Mapping[str, Any], fitted: Sequence[RatingRow], names: Mapping[str, str]) -> Table:
    """A finished tournament's table (games won, with those won by an opponent's forfeit,
    drawn, lost: together the bot's games; forfeits and matches not played per bot) with the tournament's own
    Bradley–Terry rating and interval.  Narrow headers and collapsed padding: it fits 80
    columns with names of up to :data:`NAME_CHARS` characters."""
    by_bot = {row.bot_id: row for row in fitted}
    played = f"{table['played']} of {table['matches']} matches played"
    if table["not_played"]:
        played += f", {table['not_played']} not played"
    if table.get("unrated"):  # tables written before unrated matches were counted lack it
        played += f", {table['unrated']} unrated (not in the table)"
    view = Table(title=f"tournament {table['tournament_id']}: {table['preset']}, {played}", box=box.SIMPLE_HEAD,
                 collapse_padding=True, show_edge=False,
                 caption="won, drawn, lost: games (in brackets: won because an opponent forfeited); score: "
                         "wins plus half the draws, per game; forfeits: matches the bot's side forfeited.  BT: this "
                         "tournament's Bradley–Terry rating, 95% interval.")
    for column in ("bot", "won", "drawn", "lost", "score", "for-\nfeits", "not\nplayed", "BT", "BT 95%"):
        view.add_column(column, justify="left" if column == "bot" else "right", no_wrap=column != "bot")
    for row in table["rows"]:
        bt = by_bot.get(row["bot_id"])
        by_forfeit = row.get("forfeit_wins", 0)  # tables written before it was counted lack it
        view.add_row(shown(names.get(row["bot_id"], row["bot_id"]), NAME_CHARS),
                     f"{row['wins']} ({by_forfeit})" if by_forfeit else str(row["wins"]), str(row["draws"]),
                     str(row["losses"]), f"{100 * row['score']:.1f}%", str(row["forfeits"]), str(row["not_played"]),
                     "—" if bt is None else f"{bt.rating:.0f}", _interval(bt))
    return view


def not_played_table(schedule: Schedule, outcomes: Mapping[int, Mapping[str, Any]],
                     names: Mapping[str, str]) -> Table:
    """Each match recorded as not played: its seats and why (the referee's refusal after
    the last retry, e.g. a bot not connected)."""
    view = Table(title="not played", box=box.SIMPLE_HEAD, show_edge=False, collapse_padding=True)
    for column in ("match", "seats", "why"):
        view.add_column(column)
    for match in schedule.matches:
        outcome = outcomes.get(match.index)
        if outcome is None or outcome["status"] != NOT_PLAYED:
            continue
        seats = ", ".join(str(shown(names.get(bot, bot), NAME_CHARS)) for bot in match.seats)
        view.add_row(match.match_id, seats, shown(str(outcome.get("reason", "no reason recorded")), REASON_CHARS))
    return view


def unrated_table(schedule: Schedule, outcomes: Mapping[int, Mapping[str, Any]],
                  names: Mapping[str, str]) -> Table:
    """Each match played but kept off the ratings (and the table): its seats and the
    referee's reason (a seat mostly played by fallbacks)."""
    view = Table(title="kept off the ratings", box=box.SIMPLE_HEAD, show_edge=False, collapse_padding=True)
    for column in ("match", "seats", "why"):
        view.add_column(column)
    reasons = unrated_matches(outcomes)
    for match in schedule.matches:
        if match.index in reasons:
            seats = ", ".join(str(shown(names.get(bot, bot), NAME_CHARS)) for bot in match.seats)
            view.add_row(match.match_id, seats, shown(reasons[match.index], REASON_CHARS))
    return view


def match_log(result: Mapping[str, Any], game_logs: Sequence[str], names: Mapping[str, str],
              game: int | None = None, full: bool = False) -> Iterator[RenderableType]:
    """A recorded match: who sat where and how each game ended, then each game (or only
    game number ``game``) replayed from its log with the rules engine, so what is shown is
    what the referee's engine did: one line per hand (:func:`hand_lines`), or with
    ``full`` every deal, bid, trick and point."""
    record = result_from_dict(dict(result))
    seats = [names.get(s.bot_id, s.bot_id) for s in sorted(record.seats, key=lambda s: s.seat)]
    yield _match_summary(record, seats)
    for number, state in replayed_games(game_logs, game):
        yield Text(f"Game {number}", style="bold reverse")
        if full:
            yield from game_story(state, seats)
        else:
            yield hand_lines(state)


def replayed_games(game_logs: Sequence[str], game: int | None = None) -> Iterator[tuple[int, GameState]]:
    """Each game (or only game number ``game``, from 1) replayed from its stored log."""
    for number, raw in enumerate(game_logs, 1):
        if game is None or game == number:
            yield number, replay(GameLog.from_dict(json.loads(raw)))


def hand_lines(state: GameState) -> Text:
    """One line per scored hand: the bid (seat, amount, trump), whether it was made, the
    score changes, the scores after it and where each point went.  A game of a hundred
    hands is a hundred lines, where the full story is thousands; plain fixed-width text,
    not a rich table, which takes seconds to lay out a few hundred rows."""
    labels = party_labels(state.rules)
    parties = [label.removeprefix("team ").replace("seat ", "s") for label in labels]
    lines = [f"{'hand':>4}  {'bid':<10} {'made':<4} {'change':>9}  {'score':>9}  points"]
    for hand in state.results:
        trump = SUIT_SYMBOLS[hand.trump] if hand.trump is not None else ""
        bid = "—" if hand.bid is None or hand.pitcher is None else (
            f"s{hand.pitcher} {hand.bid}{' moon' if hand.moon else ''} {trump}".strip())
        made = "—" if hand.made is None else "yes" if hand.made else "set"
        changes = " ".join(f"{change:+d}" for change in hand.score_changes)
        scores = " / ".join(str(score) for score in hand.scores)
        points = " ".join(f"{award.category.value}→{parties[award.party]}" for award in hand.awards) or "—"
        lines.append(f"{hand.hand_number:>4}  {bid:<10} {made:<4} {changes:>9}  {scores:>9}  {points}")
    legend = ", ".join(f"{short} = {label}" for short, label in zip(parties, labels, strict=True) if short != label)
    lines.append(f"bid: seat, amount, trump; points: category → side{'; ' + legend if legend else ''}")
    return Text("\n".join(lines))


def _match_summary(record: bot_pb2.MatchResult, seats: Sequence[str]) -> Panel:
    lines = [f"{record.ruleset.name}, seed {record.seed}, {len(record.games)} game(s)"]
    for seat in sorted(record.seats, key=lambda s: s.seat):
        status = game_pb2.SeatStatus.Name(seat.status).removeprefix("SEAT_STATUS_").lower()
        strays = f", {seat.ignored_answers} ignored answers" if seat.ignored_answers else ""
        if seat.impersonation_attempts:
            strays += f" ({seat.impersonation_attempts} naming another seat's decision)"
        lines.append(f"seat {seat.seat}: {seats[seat.seat]} ({status}, {seat.decisions} decisions, "
                     f"{seat.strikes} strikes{strays})")
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
