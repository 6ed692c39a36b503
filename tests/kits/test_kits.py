"""The starter kits (kits/node, kits/go) against a real referee: each installs or builds
from its pinned inputs, plays recorded matches (beside the Python reference bots, and alone at
a table whose card-set choices are too many to list), reconnects when its stream is replaced,
stops cleanly on SIGTERM, and passes `pitch-bot check`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pitch_sdk.cli import app
from pitch_sdk.proto.pitch.v1 import bot_pb2, game_pb2
from tests.kits.kit_process import KIT_COMMANDS, KITS, ROOT, KitBot, moves, play, tool
from tests.workers.celery_harness import ArenaThread

PITCH_BOT = str(Path(sys.executable).parent / "pitch-bot")
#: The check's environment: none of the caller's PITCH_* settings (the check sets the bot's).
CHECK_ENV = {**{k: v for k, v in os.environ.items() if not k.startswith("PITCH_")}, "COLUMNS": "200"}


def assert_clean(result: bot_pb2.MatchResult, kit_seats: list[int]) -> None:
    """A complete match in which the kit's seats answered everything themselves."""
    assert result.completed and not result.forfeited and len(result.games) == 1
    for seat in kit_seats:
        outcome = result.seats[seat]
        assert outcome.status == game_pb2.SEAT_STATUS_OK and outcome.strikes == 0 and outcome.ignored_answers == 0
        assert outcome.decisions > 0


@pytest.mark.slow
@pytest.mark.parametrize("kit", sorted(KIT_COMMANDS))
def test_kit_plays_recorded_matches_reconnects_and_stops_cleanly(kit: str, arena: ArenaThread,
                                                                 tmp_path: Path) -> None:
    """Partnership with the kit's bot partnering itself against two heuristic bots; its stream
    is then replaced (it reconnects); then ipitch with the widow, the kit in every seat: the
    maker's discard of six from twelve comes as a CardSetRule only (924 sets), which the
    kit answers with a set it builds."""
    bot = KitBot(arena, KIT_COMMANDS[kit](), tmp_path / f"{kit}-bot.log")
    heuristic = arena.connect("heuristic")
    mixed = play(arena, "partnership", [bot.bot_id, heuristic, bot.bot_id, heuristic], seed=3).result
    assert_clean(mixed, [0, 2])
    bot.drop_stream()
    assert "replaced by a newer connection" in bot.log() and "reconnecting in" in bot.log()
    widow = play(arena, "ipitch", [bot.bot_id] * 4, options_json='{"widow": true, "max_hands": 8}', seed=5).result
    assert_clean(widow, [0, 1, 2, 3])
    widow_discards = [text for _, text in moves(arena, widow.match_id) if len(text.split()) == 7]
    assert widow_discards and all(text.startswith("cards ") for text in widow_discards)
    assert bot.stop() == 0
    assert "stopped after 2 matches, " in bot.log() and " 0 strikes" in bot.log() and "strike 1" not in bot.log()


@pytest.mark.slow
@pytest.mark.parametrize("kit", sorted(KIT_COMMANDS))
def test_pitch_bot_check_drives_a_kit_through_every_decision_kind(kit: str, arena: ArenaThread) -> None:
    """`pitch-bot check --command` starts the kit's bot, relays its stream to the referee with
    the coverage presets' practice matches, and reports it as it reports a Python bot."""
    _, token = arena.register()
    command = " ".join(KIT_COMMANDS[kit]())
    check = subprocess.run([PITCH_BOT, "check", "--command", command, "--referee", arena.arena.address,
                            "--token", token, "--games", "1"], cwd=ROOT, capture_output=True, text=True,
                           timeout=300, env=CHECK_ENV, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "PASS" in check.stdout and "not asked" not in check.stdout and "problem" not in check.stdout


@pytest.mark.slow
def test_pitch_bot_check_of_a_process_reports_its_strikes(arena: ArenaThread) -> None:
    """The relay sees the referee's strikes: a bot process that plays cards it does not hold
    (the Python IllegalBot, run by `pitch-bot run`) fails the check with them."""
    _, token = arena.register()
    command = f"{PITCH_BOT} run tests/referee/bots.py:IllegalBot"
    check = subprocess.run([PITCH_BOT, "check", "--command", command, "--referee", arena.arena.address,
                            "--token", token, "--games", "1", "--ruleset", "cutthroat"], cwd=ROOT,
                           capture_output=True, text=True, timeout=300, env=CHECK_ENV,
                           check=False)
    assert check.returncode == 1, check.stdout + check.stderr
    assert "play: strike for illegal action" in check.stdout and "FAIL" in check.stdout


def test_node_kit_card_set_helpers() -> None:
    """kits/node/test (node --test): sets built from a CardSetRule, and sets checked against
    it. (The Go kit's tests of the same helpers run in its build: `build.sh test`.)"""
    run = subprocess.run([tool("node"), "--test", "test/cards.test.js"], cwd=KITS / "node", capture_output=True,
                         text=True, timeout=60, check=False)
    assert run.returncode == 0 and "# fail 0" in run.stdout, run.stdout + run.stderr


@pytest.mark.slow
def test_check_of_a_kit_with_a_wrong_token_says_so(arena: ArenaThread) -> None:
    """The referee's UNAUTHENTICATED reaches the kit through the relay: the kit exits with
    status 2 naming it, and the check fails quoting that, not a timeout."""
    check = subprocess.run([PITCH_BOT, "check", "--command", " ".join(KIT_COMMANDS["node"]()), "--referee",
                            arena.arena.address, "--token", "not-a-token", "--ruleset", "cutthroat"], cwd=ROOT,
                           capture_output=True, text=True, timeout=60, env=CHECK_ENV, check=False)
    assert check.returncode == 1, check.stdout + check.stderr
    assert "exited with status 2" in check.stdout and "rejected the token" in check.stdout
    assert "before the bot process exited" in check.stdout


def test_check_command_needs_a_referee_and_no_bot() -> None:
    """--command runs over the protocol only, and replaces the bot argument."""
    alone = CliRunner().invoke(app, ["check", "--command", "node kits/node/bot.js"])
    both = CliRunner().invoke(app, ["check", "random", "--command", "node kits/node/bot.js", "--referee", "x:1"])
    assert alone.exit_code == 2 and "--command needs --referee" in alone.output
    assert both.exit_code == 2 and "either a bot or --command" in both.output
