"""The variants table: docs/variants.md is fresh, and it and `pitch-bot variants` list every preset once."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from collections import Counter
from pathlib import Path

from typer.testing import CliRunner

from pitch_sdk.cli import app
from pitch_sdk.display.variants_doc import (
    COLUMNS,
    markdown_table,
    readings_in,
    readings_list,
    table_in,
    variant_row,
    with_table,
)
from pitch_sdk.rules import PRESETS, preset
from pitch_sdk.rules.readings import READINGS

ROOT = Path(__file__).parents[2]
DOC = ROOT / "docs" / "variants.md"
runner = CliRunner(env={"COLUMNS": "120"})  # rich sizes its tables from COLUMNS


def test_docs_variants_table_is_fresh():
    """Fails when a preset changed without `.venv/bin/python scripts/gen_variants_doc.py`."""
    assert table_in(DOC.read_text()) == markdown_table(), (
        "docs/variants.md is stale: run .venv/bin/python scripts/gen_variants_doc.py")


def test_the_script_check_agrees():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_variants_doc.py"), "--check"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "up to date" in done.stdout


def test_every_preset_appears_once_in_the_markdown_table():
    lines = markdown_table().splitlines()
    assert lines[0] == "| " + " | ".join(COLUMNS) + " |"
    names = [line.split("|")[1].strip() for line in lines[2:]]
    assert names == [f"`{name}`" for name in PRESETS]  # registry order, each once
    assert all(line.count(" | ") == len(COLUMNS) - 1 for line in lines[2:])


def test_every_preset_appears_once_in_pitch_bot_variants():
    # A terminal wide enough for the table (narrower ones get wrapped lines: test_cli checks those).
    result = runner.invoke(app, ["variants"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    header = next(line for line in lines if "preset" in line and "players" in line)
    column = header.index("preset")  # rows start their preset cell here; wrapped lines leave it blank
    starts = Counter(line[column:].split()[0] for line in lines if line[column:column + 1].strip()
                     and line is not header and not line.strip().startswith(("Presets", "─")))
    for name in PRESETS:
        assert starts[name] == 1, (name, result.output)


def test_rows_describe_the_ruleset_a_preset_builds():
    partnership = variant_row(PRESETS["partnership"])
    assert partnership.cells() == ("partnership", "4 (2 teams of 2)", "52", "6", "4",
                                   "2-4, dealer steals, forced dealer", "21", "001 · How to Play Pitch")
    assert variant_row(PRESETS["cutthroat"]).players == "3 alone"
    assert variant_row(PRESETS["simple"]).bids == "none (eldest pitches)"
    assert variant_row(PRESETS["auction"]).bids == "1-4, moon 4, all pass re-deals"
    assert variant_row(PRESETS["hotshot"]).bids == "9-18, moon 18, all pass: deal passes left"


def test_deck_and_moon_options_are_described():
    def row_of(**options: object) -> tuple[str, ...]:
        entry = dataclasses.replace(PRESETS["partnership"], build=lambda: preset("partnership", options))
        return variant_row(entry).cells()

    assert row_of(jokers=2, off_jack=True)[2] == "54 (2 jokers, off-jack)"
    assert row_of(jokers=2, removed_ranks=(2, 3, 4, 5, 6))[2] == "34 (2s-6s removed, 2 jokers)"
    assert row_of(removed_ranks=(2, 10, 12, 13))[2] == "36 (2s, 10s, Qs-Ks removed)"
    assert row_of(moon_bid=5, dealer_steal=False)[5] == "2-4, moon 5, forced dealer"


def test_regenerating_rewrites_only_between_the_markers():
    document = "intro\n<!-- variants:start -->\nold table\n<!-- variants:end -->\noutro\n"
    fresh = with_table(document)
    assert fresh.startswith("intro\n<!-- variants:start -->\n| preset |")
    assert fresh.endswith("|\n<!-- variants:end -->\noutro\n")
    assert table_in(fresh) == markdown_table()


def test_docs_readings_are_fresh_and_name_presets():
    """The "Readings" section is generated from ``pitch_sdk.rules.readings``: fresh, every
    reading there, each keyed by a real preset and listed in registry order."""
    assert readings_in(DOC.read_text()) == readings_list(), (
        "docs/variants.md is stale: run .venv/bin/python scripts/gen_variants_doc.py")
    assert set(READINGS) <= set(PRESETS)
    listed = [line.split("`")[1] for line in readings_list().splitlines()]
    assert listed == [name for name in PRESETS for _ in READINGS.get(name, ())]


def test_the_check_sees_a_stale_readings_list():
    document = "<!-- variants:start -->\n<!-- variants:end -->\n<!-- readings:start -->\n- old\n<!-- readings:end -->\n"
    fresh = with_table(document)
    assert readings_in(fresh) == readings_list() and "- old" not in fresh
