"""The ``pitch-bot`` command line: play, watch, scenario, variants and their exit codes."""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from pitch_sdk.bots import load_bot
from pitch_sdk.cli import app
from pitch_sdk.display.story import game_story
from pitch_sdk.harness.local import play_game
from pitch_sdk.rules import PRESETS, GameState, parse_action, preset

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "docs" / "scenarios" / "single-trump-high-and-low.json"
runner = CliRunner(env={"COLUMNS": "120"})  # rich sizes its tables from COLUMNS


def test_variants_lists_every_preset_with_its_seed():
    result = runner.invoke(app, ["variants"], env={"COLUMNS": "240"})  # one table row per line
    assert result.exit_code == 0
    for name in PRESETS:
        assert name in result.output
    line = next(line for line in result.output.splitlines() if line.strip().startswith("partnership "))
    assert "4 (2 teams of 2)" in line and "001 · How to Play Pitch" in line


def test_variants_on_an_80_column_terminal_is_readable():
    """At 80 columns the eight-column table cut every cell to a few letters ("play…",
    "2-4,"); there each preset is a few wrapped lines, whole words, none wider than 80."""
    result = runner.invoke(app, ["variants"], env={"COLUMNS": "80"})
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert all(len(line) <= 80 for line in lines) and "…" not in result.output
    for name in PRESETS:
        assert any(line.startswith(f"{name}  ") for line in lines), name
    start = lines.index(next(line for line in lines if line.startswith("partnership  ")))
    block = "\n".join(lines[start:start + 3])
    assert "4 (2 teams of 2)" in block and "to 21" in block and "seed 001 · How to Play Pitch" in block


def row(output: str, label: str) -> list[str]:
    """The cells after ``label`` on the table row that starts with it."""
    line = next(line.strip() for line in output.splitlines() if line.strip().startswith(label))
    return line[len(label):].split()


def test_play_prints_the_results_table():
    result = runner.invoke(app, ["play", "heuristic", "random", "heuristic", "random", "--games", "6", "--seed", "2"])
    assert result.exit_code == 0, result.output
    assert "partnership: 6 games, seed 2" in result.output
    heuristic, random_side = row(result.output, "heuristic + heuristic"), row(result.output, "random + random")
    assert heuristic[0] == random_side[0] == "6"  # games
    assert int(heuristic[1]) + int(random_side[1]) <= 6  # wins (draws make up the rest)
    for label in ("heuristic (seat 0)", "random (seat 1)", "heuristic (seat 2)", "random (seat 3)"):
        assert row(result.output, label)[:2] == (heuristic if "heuristic" in label else random_side)[:2]


def test_play_takes_ruleset_options_and_bots_from_files(tmp_path: Path):
    source = tmp_path / "first.py"
    source.write_text("from pitch_sdk.bot import Bot\n"
                      "class First(Bot):\n"
                      "    name = 'first'\n"
                      "    def act(self, observation, legal_actions):\n"
                      "        return legal_actions[0]\n")
    result = runner.invoke(app, ["play", "--ruleset", "cutthroat", "--option", "target=5", "-o", "max_hands=30",
                                 "--games", "3", f"{source}:First", "random", "heuristic"], terminal_width=160)
    assert result.exit_code == 0, result.output
    assert "cutthroat: 3 games" in result.output and "first (seat 0)" in result.output


def test_play_input_errors_exit_2_with_the_reason():
    wrong_count = runner.invoke(app, ["play", "random", "random"])
    assert wrong_count.exit_code == 2
    assert "partnership is played by 4: give 4 bots, got 2" in wrong_count.output
    unknown = runner.invoke(app, ["play", "random", "random", "random", "genius"])
    assert unknown.exit_code == 2 and "use a built-in bot (heuristic, pimc, random)" in unknown.output
    bad_option = runner.invoke(app, ["play", "random", "random", "random", "random", "-o", "colour=blue"])
    assert bad_option.exit_code == 2 and "unknown ruleset option 'colour'" in bad_option.output
    bad_preset = runner.invoke(app, ["play", "-r", "bridge", "random", "random", "random", "random"])
    assert bad_preset.exit_code == 2 and "unknown preset 'bridge'" in bad_preset.output


def test_a_bot_that_plays_illegally_exits_1_naming_it(tmp_path: Path):
    source = tmp_path / "cheat.py"
    source.write_text("from pitch_sdk.bot import Bot\n"
                      "from pitch_sdk.rules import PlayCard\n"
                      "class Cheat(Bot):\n"
                      "    def bid(self, observation, legal_actions):\n"
                      "        return legal_actions[-1]\n"
                      "    def play(self, observation, legal_actions):\n"
                      "        if observation.current_trick:\n"
                      "            return PlayCard(observation.hand[-1])\n"
                      "        return legal_actions[0]\n")
    result = runner.invoke(app, ["play", "random", f"{source}:Cheat", "random", "random", "--games", "20"])
    assert result.exit_code == 1
    assert "bot 'Cheat' at seat" in result.output and "which is not legal in play" in result.output


def test_watch_tells_a_whole_game_hand_by_hand():
    specs = ["heuristic", "random", "heuristic", "random"]  # the README's `pitch-bot watch` example
    result = runner.invoke(app, ["watch", "--ruleset", "partnership", "--seed", "1", *specs])
    assert result.exit_code == 0, result.output
    out = result.output
    state = play_game(preset("partnership"), [load_bot(spec) for spec in specs], seed=1)  # the same game
    first, last = state.results[0], state.results[-1]
    assert "team A: seat 0 heuristic + seat 2 heuristic" in out
    assert "Hand 1 · seat 0 (heuristic) deals" in out and f"Hand {last.hand_number} · " in out
    assert out.count("Bids: ") == out.count("Points: ") == out.count("Scores: ") == len(state.results)
    suit = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}[first.trump.letter]
    assert f"seat {first.pitcher} ({specs[first.pitcher]}) pitches {suit} as trump" in out
    assert out.count("won by") == len(state.results)  # one trick table per hand
    verdict = "made it" if first.made else "set back"
    assert f"bid {first.bid}, took {first.points_won[first.pitcher % 2]}: {verdict}" in out
    reason = state.win_reason.value.replace("-", " ")
    headline = "Draw after" if state.winner is None else f"team {'AB'[state.winner]} wins after"
    assert f"{headline} {len(state.results)} hands ({reason}): " \
           f"team A {state.scores[0]} · team B {state.scores[1]}" in out


def test_watch_defaults_to_heuristic_bots_at_every_seat():
    result = runner.invoke(app, ["watch", "--ruleset", "cutthroat", "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert "seat 0: heuristic" in result.output and "seat 2: heuristic" in result.output
    assert "discards" in result.output  # cutthroat exchanges after trump is named


def test_scenario_prints_the_report_and_sets_the_exit_code(tmp_path: Path):
    ok = runner.invoke(app, ["scenario", str(EXAMPLE)])
    assert ok.exit_code == 0 and json.loads(ok.output)["scores"] == [0, 3]

    illegal = runner.invoke(app, ["scenario", str(ROOT / "docs" / "scenarios" / "illegal-renege.json")])
    assert illegal.exit_code == 1
    assert json.loads(illegal.output)["error"]["legal"] == ["play 2D", "play 10H"]

    broken = tmp_path / "broken.json"
    broken.write_text('{"preset": "partnership", "actions": [')
    malformed = runner.invoke(app, ["scenario", str(broken)])
    assert malformed.exit_code == 2
    error = json.loads(malformed.output)["error"]
    assert error["kind"] == "malformed-scenario" and error["message"].startswith("scenario is not valid JSON")

    missing = runner.invoke(app, ["scenario", str(tmp_path / "nope.json")])
    assert missing.exit_code == 2 and "cannot read" in json.loads(missing.output)["error"]["message"]


def test_scenario_reads_standard_input():
    result = runner.invoke(app, ["scenario", "-"], input=EXAMPLE.read_text())
    assert result.exit_code == 0 and json.loads(result.output)["hands"][0]["made"] is True


def test_the_installed_console_script_runs_a_scenario():
    script = Path(sys.executable).parent / "pitch-bot"
    done = subprocess.run([str(script), "scenario", str(EXAMPLE)], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [a["category"] for a in report["hands"][0]["awards"]] == ["high", "low", "game"]


def test_the_story_shows_a_redeal_when_everyone_passes():
    state = GameState.new(preset("auction", max_hands=2), seed=3)  # all pass -> same dealer re-deals
    rng = random.Random(1)
    for action in ["pass"] * 4:
        state.apply(parse_action(action))
    while not state.is_over:
        state.apply(rng.choice(state.legal_actions()))
    console = Console(record=True, width=120)
    for part in game_story(state, ["north", "east", "south", "west"]):
        console.print(part)
    text = console.export_text()
    assert "Bids: seat 1 passes · seat 2 passes · seat 3 passes · seat 0 passes · all passed: " \
           "the same dealer deals again" in text
    assert text.count("Hand 1 · seat 0 (north) deals") == 2
    assert "seat 0: north" in text and "Game not finished" not in text


def test_input_errors_are_printed_verbatim_not_as_markup():
    result = runner.invoke(app, ["play", "random", "random", "random", "random", "-o", 'points=["x"]'])
    assert result.exit_code == 2
    assert "error: bad value 'x' for points: expected one of high, low" in result.output


def test_check_fails_a_bot_that_answers_none(tmp_path: Path):
    """`pitch-bot check` fails (exit 1) a bot whose every answer is ``None``: no action is not
    a legal action (the check used ``None`` as its own "the bot raised" marker, and passed
    such a bot with 0 of 640 bids answered)."""
    source = tmp_path / "silent.py"
    source.write_text("from pitch_sdk.bot import Bot\n"
                      "class Silent(Bot):\n"
                      "    def act(self, observation, legal_actions):\n"
                      "        return None\n")
    result = runner.invoke(app, ["check", f"{source}:Silent"])
    assert result.exit_code == 1, result.output
    assert "illegal action" in result.output and "returned None" in result.output


def test_check_against_a_referee_that_is_down_fails_in_seconds_saying_so() -> None:
    """`pitch-bot check --referee` with no referee listening never ended (it was
    killed at 60 s); it now exits 2 after its connect timeout (5 s), naming the address."""
    with socket.socket() as probe:  # a free port that nothing listens on
        probe.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{probe.getsockname()[1]}"
    done = subprocess.run([str(Path(sys.executable).parent / "pitch-bot"), "check", "random", "--referee", address,
                           "--token", "t"], capture_output=True, text=True, timeout=40, check=False,
                          env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert f"no referee answered at {address} within 5 s" in done.stderr
