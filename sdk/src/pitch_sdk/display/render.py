"""Rich renderings shared by the CLI: cards, seats and sides, match tables, the presets.

Only presentation lives here; the numbers come from :mod:`pitch_sdk.harness.local` and the
engine, so what the tables say is exactly what the tests check.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from pitch_sdk.checks.compliance import ComplianceReport
from pitch_sdk.display.variants_doc import COLUMNS, NUMERIC_COLUMNS, variant_rows
from pitch_sdk.harness.local import MatchResult
from pitch_sdk.rules import Card, Ruleset, Suit

SUIT_SYMBOLS = {Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥", Suit.SPADES: "♠"}
#: Display order of suits in a hand: alternating colours, so neighbours are easy to tell.
_SUIT_ORDER = (Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS)


def card_text(card: int, style: str = "") -> Text:
    """A card as players write it (``A♠``, ``10♥``, ``BJ``), red suits in red."""
    card = Card(card)
    if card.suit is None:
        return Text(card.name, style=f"magenta {style}".strip())
    colour = "red" if card.suit.is_red else ""
    return Text(card.name[:-1] + SUIT_SYMBOLS[card.suit], style=f"{colour} {style}".strip())


def hand_text(cards: Iterable[int], trump: Suit | None = None) -> Text:
    """A hand sorted for reading: jokers, then trumps, then the other suits, high first."""
    order = ([trump] if trump is not None else []) + [s for s in _SUIT_ORDER if s != trump]

    def key(card: Card) -> tuple[int, int]:
        if card.suit is None:
            return -1, -card
        return order.index(card.suit), -(card.rank or 0)

    return Text(" ").join(card_text(c) for c in sorted((Card(c) for c in cards), key=key))


def party_labels(ruleset: Ruleset) -> list[str]:
    """What to call each party: ``seat 2`` when playing alone, ``team A`` in teams."""
    if ruleset.seating.team_size == 1:
        return [f"seat {party}" for party in range(ruleset.parties)]
    return [f"team {chr(ord('A') + party)}" for party in range(ruleset.parties)]


def seat_labels(names: Sequence[str]) -> list[str]:
    """``seat 0 (heuristic)`` for every seat."""
    return [f"seat {seat} ({name})" for seat, name in enumerate(names)]


def match_table(result: MatchResult) -> Table:
    """The results of :func:`pitch_sdk.harness.local.play_match`: sides first, then each bot."""
    table = Table(title=f"{result.ruleset}: {result.games} games, seed {result.seed}",
                  box=box.SIMPLE_HEAD, collapse_padding=True,
                  caption=f"{result.hands} hands, {result.draws} draws; seats rotate every game.\n"
                          "95% CI: Wilson interval of the win %; made / set: bids made / set back")
    table.add_column("side / bot", no_wrap=True)
    for column in ("games", "wins", "win %", "95% CI", "pts/hand", "made", "set"):
        table.add_column(column, justify="right", no_wrap=True)
    teams = any(len(side.members) > 1 for side in result.sides)
    rows = [(side, "bold") for side in result.sides]
    if teams:  # a side's row sums its bots' bids; show each bot too
        rows += [(bot, "") for bot in result.bots]
    for standing, style in rows:
        low, high = standing.interval
        table.add_row(
            Text(standing.label, style=style), str(standing.games), str(standing.wins),
            f"{100 * standing.win_rate:.1f}", f"{100 * low:.1f}–{100 * high:.1f}", f"{standing.points_per_hand:+.2f}",
            str(standing.bids_made), str(standing.bids_set))
    return table


def variants_table() -> Table:
    """Every preset, with the columns of ``docs/variants.md`` (the rows come from
    :func:`pitch_sdk.display.variants_doc.variant_rows`, so the command and the document agree)."""
    table = Table(title="Presets (pitch-bot play --ruleset NAME --option key=value)", box=box.SIMPLE_HEAD)
    for column in COLUMNS:
        table.add_column(column, justify="right" if column in NUMERIC_COLUMNS else "left",
                         no_wrap=column == "preset")
    for row in variant_rows():
        table.add_row(*row.cells())
    return table


def variants_list() -> Group:
    """Every preset as a short block of wrapped lines (name, then players, deck, cards
    dealt, points in play and target, then the bids, then the seed paragraph): what a
    terminal too narrow for :func:`variants_table` shows, where the table's eight columns
    would be cut to a few letters each."""
    blocks: list[Text] = [Text("Presets (pitch-bot play --ruleset NAME --option key=value)", style="bold")]
    for row in variant_rows():
        block = Text()
        block.append(row.preset, style="bold")
        block.append(f"  {row.players} · deck {row.deck} · {row.dealt} dealt · {row.points} points in play · "
                     f"to {row.target}\n")
        block.append(f"  bids: {row.bids}\n  seed {row.seed}\n")
        blocks.append(block)
    return Group(*blocks)


def compliance_table(report: ComplianceReport) -> Table:
    """One row per decision kind: how often it was asked, answered well, answered over the
    time per decision (from the bank), and the slowest answer."""
    table = Table(title=f"Compliance check ({report.matches} matches)", box=box.SIMPLE_HEAVY)
    for column in ("decision", "asked", "ok", "over time", "slowest ms"):
        table.add_column(column, justify="left" if column == "decision" else "right")
    for kind, entry in report.kinds.items():
        if entry.asked:
            style = "" if entry.ok == entry.asked else "red"
            table.add_row(kind.value, str(entry.asked), Text(str(entry.ok), style=style),
                          Text(str(entry.over_budget), style="yellow" if entry.over_budget else ""),
                          f"{entry.slowest_ms:.1f}")
        else:
            table.add_row(kind.value, Text("not asked by any preset yet", style="dim"), "", "", "")
    return table
