"""The variants table: one row per preset, built from the preset registry.

``docs/variants.md`` and ``pitch-bot variants`` both show these rows, so the documented
table and the command cannot disagree with each other or with the engine: every cell is
read from the ruleset a preset builds, never typed by hand.  Regenerate the document with
``.venv/bin/python scripts/gen_variants_doc.py`` (``--check`` reports a stale table).

Only long-standing ruleset fields are read (seating, deck size and its extra cards, hand
size, points in play, bidding, the moon bid, the target), so presets that add new rule
pieces still render; a new field shows up here only once someone chooses to describe it.
Every option, new ones included, is listed in a second generated table (the one between
the options markers), read from the ruleset's fields and their defaults; the readings the
presets take where a seed is silent are a third generated part (between the readings
markers), from :data:`pitch_sdk.rules.readings.READINGS`.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass, fields
from enum import StrEnum
from typing import Any

from pitch_sdk.rules import PRESETS, Preset, Ruleset
from pitch_sdk.rules.readings import READINGS
from pitch_sdk.rules.ruleset import OPTION_PIECE, AllPass, MoonRules, PointRule

#: Column headings, shared by the Markdown table and the ``pitch-bot variants`` table.
COLUMNS: tuple[str, ...] = ("preset", "players", "deck", "dealt", "points in play", "bids", "target",
                            "seed · paragraph")
#: Columns holding a number: right-aligned in both tables.
NUMERIC_COLUMNS: frozenset[str] = frozenset({"dealt", "points in play", "target"})
#: Markers around the generated table in ``docs/variants.md``; the text between them is rewritten.
START_MARKER = "<!-- variants:start -->"
END_MARKER = "<!-- variants:end -->"

#: Markers around the generated options table in ``docs/variants.md``.
OPTIONS_START_MARKER = "<!-- options:start -->"
OPTIONS_END_MARKER = "<!-- options:end -->"
OPTION_COLUMNS: tuple[str, ...] = ("option", "rule piece", "default", "values")

#: Markers around the generated readings list in ``docs/variants.md``.
READINGS_START_MARKER = "<!-- readings:start -->"
READINGS_END_MARKER = "<!-- readings:end -->"

_RANK_NAMES = {10: "10s", 12: "Qs", 13: "Ks"}


@dataclass(frozen=True)
class VariantRow:
    """One preset described in words, a cell per entry of :data:`COLUMNS`.

    Plain text without Markdown, so the terminal table can show it as is."""

    preset: str
    players: str
    deck: str
    dealt: str
    points: str
    bids: str
    target: str
    seed: str

    def cells(self) -> tuple[str, ...]:
        """The cells in :data:`COLUMNS` order."""
        return astuple(self)


def players_text(rules: Ruleset) -> str:
    """``3 alone`` or ``4 (2 teams of 2)``: who sits down and who plays with whom."""
    seating = rules.seating
    if seating.team_size == 1:
        return f"{seating.players} alone"
    return f"{seating.players} ({seating.parties} teams of {seating.team_size})"


def _rank_ranges(ranks: tuple[int, ...]) -> list[str]:
    """Removed ranks as runs (``2s-6s``, ``10s``): shorter than listing each rank."""
    runs: list[list[int]] = []
    for rank in sorted(set(ranks)):
        if runs and rank == runs[-1][-1] + 1:
            runs[-1].append(rank)
        else:
            runs.append([rank])
    names = [[_RANK_NAMES.get(r, f"{r}s") for r in (run[0], run[-1])] for run in runs]
    return [first if first == last else f"{first}-{last}" for first, last in names]


def deck_text(rules: Ruleset) -> str:
    """The pack size, then how it differs from 52 cards: ``34 (2s-6s removed, 2 jokers)``.

    Off-cards are listed because they change which cards are trumps."""
    deck = rules.deck
    notes: list[str] = []
    if deck.removed_ranks:
        notes.append(", ".join(_rank_ranges(deck.removed_ranks)) + " removed")
    if deck.jokers:
        notes.append(f"{deck.jokers} joker{'s' if deck.jokers > 1 else ''}")
    offs = [name for name, used in (("ace", deck.off_ace), ("jack", deck.off_jack), ("ten", deck.off_ten),
                                    ("three", deck.off_three), ("two", deck.off_two)) if used]
    if offs:
        notes.append("off-" + "/".join(offs))
    return f"{rules.deck_size} ({', '.join(notes)})" if notes else str(rules.deck_size)


_ALL_PASS_TEXT = {AllPass.FORCE_DEALER: "forced dealer", AllPass.REDEAL: "all pass re-deals",
                  AllPass.PASS_DEAL: "all pass: deal passes left"}


def bids_text(rules: Ruleset) -> str:
    """The bid range and the auction's special cases: ``1-4, moon 4, all pass re-deals``."""
    bidding = rules.bidding
    if not bidding.auction:
        return "none (eldest pitches)"
    low, high = bidding.minimum_bid, bidding.maximum_bid
    parts = [str(low) if low == high else f"{low}-{high}"]
    if rules.moon is not None:
        parts.append(f"moon {rules.moon.moon_bid}")
    if bidding.dealer_steal:
        parts.append("dealer steals")
    parts.append(_ALL_PASS_TEXT[bidding.all_pass])
    return ", ".join(parts)


def variant_row(entry: Preset) -> VariantRow:
    """Describe one registered preset from the ruleset it builds."""
    rules = entry.build()
    return VariantRow(
        preset=entry.name,
        players=players_text(rules),
        deck=deck_text(rules),
        dealt=str(rules.deal.hand_size),
        points=str(rules.points_in_play),
        bids=bids_text(rules),
        target=str(rules.win.target),
        seed=f"{entry.seed} · {entry.paragraph}",
    )


def variant_rows() -> list[VariantRow]:
    """Every preset, in registry order (the order ``pitch-bot variants`` lists them)."""
    return [variant_row(entry) for entry in PRESETS.values()]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown_table(rows: list[VariantRow] | None = None) -> str:
    """The GitHub-flavoured Markdown table of ``rows`` (default: every preset), preset
    names in backticks so they read as the values to pass to ``--ruleset``."""
    rows = variant_rows() if rows is None else rows
    lines = ["| " + " | ".join(COLUMNS) + " |",
             "|" + "|".join("---:" if c in NUMERIC_COLUMNS else "---" for c in COLUMNS) + "|"]
    for row in rows:
        cells = [f"`{row.preset}`", *row.cells()[1:]]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def _option_text(value: Any) -> str:
    """A default value as ``-o key=value`` would spell it."""
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, tuple):
        return ", ".join(v.category.value if isinstance(v, PointRule) else str(v) for v in value) or "none"
    return str(value)


def _option_values(value: Any) -> str:
    """The values an option accepts, from the type of its default."""
    if isinstance(value, StrEnum):
        return ", ".join(member.value for member in type(value))
    if isinstance(value, bool):
        return "true, false"
    if isinstance(value, tuple):
        return "list"
    return "integer"


def options_table() -> str:
    """Every ruleset option (``-o key=value``) with the piece that owns it, its default in
    a default ruleset (a preset may change it) and the values it accepts."""
    defaults = Ruleset()
    lines = ["| " + " | ".join(OPTION_COLUMNS) + " |", "|" + "|".join("---" for _ in OPTION_COLUMNS) + "|"]
    for piece_name in dict.fromkeys(OPTION_PIECE.values()):
        piece = getattr(defaults, piece_name) or MoonRules()
        for field in fields(piece):
            value = getattr(piece, field.name)
            cells = (f"`{field.name}`", piece_name, _option_text(value), _option_values(value))
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def readings_list() -> str:
    """The readings of every preset that has some, in registry order: one Markdown item per
    reading, led by the preset's name and seed."""
    lines = [f"- `{name}` (seed {entry.seed}): {reading}"
             for name, entry in PRESETS.items() for reading in READINGS.get(name, ())]
    return "\n".join(lines) + "\n"


_PRESETS_SPAN = (START_MARKER, END_MARKER)
_OPTIONS_SPAN = (OPTIONS_START_MARKER, OPTIONS_END_MARKER)
_READINGS_SPAN = (READINGS_START_MARKER, READINGS_END_MARKER)


def _marker_span(document: str, markers: tuple[str, str]) -> tuple[int, int]:
    start_marker, end_marker = markers
    start = document.find(start_marker)
    end = document.find(end_marker)
    if start < 0 or end < start:
        raise ValueError(f"the document needs {start_marker} followed by {end_marker}")
    return start + len(start_marker), end


def _between(document: str, markers: tuple[str, str]) -> str:
    """The text between ``markers`` in ``document``, blank lines trimmed."""
    start, end = _marker_span(document, markers)
    return document[start:end].strip("\n") + "\n"


def _replaced(document: str, markers: tuple[str, str], text: str) -> str:
    """``document`` with the text between ``markers`` replaced by ``text``."""
    start, end = _marker_span(document, markers)
    return document[:start] + "\n" + text + document[end:]


def table_in(document: str) -> str:
    """The generated part of ``document``: the text between the markers, blank lines trimmed."""
    return _between(document, _PRESETS_SPAN)


def options_in(document: str) -> str:
    """The generated options table of ``document``, blank lines trimmed."""
    return _between(document, _OPTIONS_SPAN)


def readings_in(document: str) -> str:
    """The generated readings list of ``document``, blank lines trimmed."""
    return _between(document, _READINGS_SPAN)


def with_table(document: str, table: str | None = None) -> str:
    """``document`` with the text between the markers replaced by ``table`` (default: fresh),
    and its options table and readings list, where it has their markers, regenerated."""
    document = _replaced(document, _PRESETS_SPAN, markdown_table() if table is None else table)
    if OPTIONS_START_MARKER in document:
        document = _replaced(document, _OPTIONS_SPAN, options_table())
    if READINGS_START_MARKER in document:
        document = _replaced(document, _READINGS_SPAN, readings_list())
    return document
