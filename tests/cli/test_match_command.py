"""``pitch-arena match``: one match through a real referee (in-process, SDK bots over
loopback gRPC) and a private redis-server, driven like test_cli.py drives the other commands."""

from __future__ import annotations

import uuid

import pytest
from rich.console import Console

from cli import views
from cli.local_arena import free_port
from pitch_sdk.proto.pitch.v1 import bot_pb2, game_pb2
from pitch_sdk.protocol import wire
from pitch_sdk.rules import preset
from store.redis_store import Store
from tests.cli.test_cli import invoke
from tests.workers.celery_harness import ArenaThread

OK = game_pb2.SEAT_STATUS_OK


@pytest.fixture(scope="module")
def players(arena: ArenaThread) -> tuple[str, str]:
    """A connected heuristic and a connected random bot: their ids."""
    return arena.connect("heuristic"), arena.connect("random")


def _names(env: dict[str, str]) -> dict[str, str]:
    store = Store.from_url(env["REDIS_URL"], env["PITCH_STORE_PREFIX"])
    return {bot.bot_id: bot.name for bot in store.bots()}


def test_match_runs_one_recorded_match_and_prints_its_result(env: dict[str, str], players: tuple[str, str]) -> None:
    """Bots by name or id, one per seat (a bot may fill several): the match is played by the
    referee and recorded, and the panel shows every seat, each game's winner and scores and
    the strikes; running the same --match-id again prints the recorded result."""
    heuristic, random_bot = players
    names = _names(env)
    match_id = f"cli-{uuid.uuid4().hex[:8]}"
    args = ["match", "cutthroat", names[heuristic], random_bot, names[random_bot], "--seed", "5", "--games", "2",
            "--options", '{"target": 5}', "--match-id", match_id]
    code, out, err = invoke(env, *args)
    assert code == 0, err
    store = Store.from_url(env["REDIS_URL"], env["PITCH_STORE_PREFIX"])
    record = store.match_result(match_id)
    assert record is not None and len(record["games"]) == 2 and record["seed"] == "5"
    assert [s["bot_id"] for s in record["seats"]] == [heuristic, random_bot, random_bot]
    assert f"match {match_id}" in out and "cutthroat, seed 5, 2 game(s)" in out
    for seat, bot in enumerate([heuristic, random_bot, random_bot]):
        assert f"seat {seat}: {names[bot]} (ok, " in out and " 0 strikes)" in out
    for number, game in enumerate(record["games"], 1):
        scores = " – ".join(str(s) for s in game["scores"])
        assert f"game {number}: " in out and scores in out
    assert f"pitch-arena match-log {match_id}" in out
    again = invoke(env, *args)
    assert again[0] == 0 and again[1] == out


@pytest.mark.parametrize(("args", "says"), [
    (["match", "cutthroat", "nobody-here", "x", "y"], "no registered bot named nobody-here"),
    (["match", "cutthroat", "BOT", "BOT"], "cutthroat has 3 seats: give 3 bots, not 2"),
    (["match", "no-such-preset", "BOT"], "bad ruleset"),
    (["match", "cutthroat", "BOT", "BOT", "BOT", "--options", "[1]"], "must be a JSON object"),
    (["match", "cutthroat", "BOT", "BOT", "BOT", "--options", "{not json"], "bad ruleset"),
    (["match", "cutthroat", "BOT", "BOT", "BOT", "--games", "5000"], "games must be at most"),
])
def test_bad_input_exits_2_naming_it(env: dict[str, str], players: tuple[str, str], args: list[str],
                                     says: str) -> None:
    """Unknown bots, a wrong number of bots, a bad preset or options, input the referee
    refuses (INVALID_ARGUMENT): exit 2 with the reason, and no match is played."""
    bot = _names(env)[players[0]]
    code, out, err = invoke(env, *[bot if arg == "BOT" else arg for arg in args])
    assert code == 2 and says in err and "match " not in out


def test_offline_bot_or_unreachable_referee_exits_1(arena: ArenaThread, env: dict[str, str],
                                                   players: tuple[str, str]) -> None:
    """A registered bot that is not connected: the referee refuses at once (exit 1, its
    reason shown); a referee nobody answers at: exit 1 naming PITCH_REFEREE."""
    offline, _ = arena.register()
    code, _, err = invoke(env, "match", "cutthroat", players[0], players[1], offline)
    assert code == 1 and "FAILED_PRECONDITION" in err and "not connected" in err
    code, _, err = invoke({**env, "PITCH_REFEREE": "127.0.0.1:9", "PITCH_MATCH_TIMEOUT_S": "5"},
                          "match", "cutthroat", "a", "b", "c")
    assert code == 1 and "PITCH_REFEREE" in err and "UNAVAILABLE" in err


def test_ready_waits_for_the_referee_and_a_connected_bot(env: dict[str, str], players: tuple[str, str]) -> None:
    """`pitch-arena ready` exits 0 once the referee serves (and the bot --bot names is
    connected); a bot that is only registered, or a referee that does not answer, is not
    ready: exit 1 after --timeout, saying what was missing."""
    names = _names(env)
    code, out, err = invoke(env, "ready", "--bot", names[players[0]], "--timeout", "20")
    assert code == 0 and "serving" in out and f"bot {names[players[0]]} connected" in out, err
    idle = f"idle-{uuid.uuid4().hex[:6]}"
    assert invoke(env, "register", idle)[0] == 0
    code, _, err = invoke(env, "ready", "--bot", idle, "--timeout", "0.5")
    assert code == 1 and "not ready after 0.5 s" in err and "registered but not connected" in err
    down = {**env, "PITCH_REFEREE": f"127.0.0.1:{free_port()}"}
    code, _, err = invoke(down, "ready", "--timeout", "0.5")
    assert code == 1 and "not ready after 0.5 s" in err and "UNAVAILABLE" in err
    code, _, err = invoke({**env, "PITCH_ADMIN_TOKEN": "wrong"}, "ready", "--bot", idle, "--timeout", "20")
    assert code == 1 and "refused the admin token" in err


def test_the_match_summary_shows_ignored_answers_and_impersonation_attempts() -> None:
    """A seat's line counts the answers the referee ignored, and among them those naming
    another seat's decision; a seat with none keeps its short line."""
    result = bot_pb2.MatchResult(match_id="m", ruleset=wire.ruleset_to_pb(preset("cutthroat")), seats=[
        bot_pb2.SeatOutcome(seat=0, status=OK, decisions=9, ignored_answers=3, impersonation_attempts=1),
        bot_pb2.SeatOutcome(seat=1, status=OK, decisions=9), bot_pb2.SeatOutcome(seat=2, status=OK, decisions=9)])
    console = Console(width=200, record=True)
    console.print(views._match_summary(result, ["cheat", "b", "c"]))
    text = console.export_text()
    assert "seat 0: cheat (ok, 9 decisions, 0 strikes, 3 ignored answers (1 naming another seat's decision))" in text
    assert "seat 1: b (ok, 9 decisions, 0 strikes)" in text


def test_a_seat_may_name_one_version_of_a_bot(arena: ArenaThread, env: dict[str, str]) -> None:
    """`NAME@VERSION` seats that version of a bot whose two versions are connected at once
    (the referee records each seat's version); the bot's name alone seats its newest
    connection.  Before, `NAME@VERSION` was "no registered bot named"."""
    bot_id, token = arena.register()
    arena.connect_registered(token, "random", version="old")
    arena.connect_registered(token, "heuristic", version="new")
    name = _names(env)[bot_id]
    store = Store.from_url(env["REDIS_URL"], env["PITCH_STORE_PREFIX"])
    for seats, versions in (([f"{name}@old", f"{name}@new", f"{name}@old"], ["old", "new", "old"]),
                            ([name, name, f"{name}@old"], ["new", "new", "old"])):
        match_id = f"cli-{uuid.uuid4().hex[:8]}"
        code, out, err = invoke(env, "match", "cutthroat", *seats, "--options", '{"target": 3}',
                                "--match-id", match_id)
        assert code == 0, err + out
        record = store.match_result(match_id)
        assert record is not None and record["bot_versions"] == versions
    code, _, err = invoke(env, "match", "cutthroat", f"{name}@gone", name, name)
    assert code == 1 and "not connected" in err, err
