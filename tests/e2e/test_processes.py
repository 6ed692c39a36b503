"""End to end: a referee process and four bot processes (`pitch-bot run`) on loopback.

Slow (several processes start), so marked ``slow``; CI runs it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from cli.local_arena import free_port
from pitch_sdk.proto.pitch.v1 import arena_pb2, arena_pb2_grpc, bot_pb2, game_pb2
from pitch_sdk.rules import GameLog, replay

pytestmark = pytest.mark.slow
BIN = Path(sys.executable).parent
ADMIN = (("authorization", "Bearer e2e-admin"),)



@pytest.fixture()
def referee(redis_url: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """A referee process on a free loopback port, with its own key prefix."""
    address = f"127.0.0.1:{free_port()}"
    env = {**os.environ, "REDIS_URL": redis_url, "PITCH_ADMIN_TOKEN": "e2e-admin",
           "PITCH_STORE_PREFIX": f"e2e-{os.getpid()}-{time.monotonic_ns()}:", "PITCH_RECONNECT_GRACE_S": "5"}
    process = subprocess.Popen([sys.executable, "-m", "referee", "--address", address, "--json-logs"], env=env,
                               stderr=subprocess.PIPE, text=True)
    channel = grpc.insecure_channel(address)
    try:
        grpc.channel_ready_future(channel).result(timeout=20)
        yield address, process
    finally:
        channel.close()
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=20)


def _start_bots(admin: arena_pb2_grpc.ArenaServiceStub, address: str, specs: list[str]
                ) -> tuple[list[str], list[subprocess.Popen[str]]]:
    """Register one bot per spec and start a `pitch-bot run` process for each; wait until
    all are connected."""
    bots, processes = [], []
    for i, spec in enumerate(specs):
        registered = admin.RegisterBot(arena_pb2.RegisterBotRequest(name=f"{spec}-{i}"), metadata=ADMIN)
        bots.append(registered.bot_id)
        processes.append(subprocess.Popen(
            [str(BIN / "pitch-bot"), "run", spec, "--referee", address, "--seed", str(i)],
            env={**os.environ, "PITCH_BOT_TOKEN": registered.token}, stderr=subprocess.PIPE, text=True))
    deadline = time.monotonic() + 30
    while not all(b.connected for b in admin.ListBots(arena_pb2.ListBotsRequest(), metadata=ADMIN).bots):
        assert time.monotonic() < deadline, "bots did not connect"
        time.sleep(0.1)
    return bots, processes


def _stop_bots(processes: list[subprocess.Popen[str]]) -> None:
    """Ctrl-C every bot process; each must exit cleanly."""
    for process in processes:
        process.send_signal(signal.SIGINT)
    codes = [process.wait(timeout=20) for process in processes]
    assert codes == [0] * len(processes), [p.stderr.read() if p.stderr else "" for p in processes]


def _replays_to_the_result(admin: arena_pb2_grpc.ArenaServiceStub, result: bot_pb2.MatchResult) -> None:
    """The match completed with every seat OK, and its log replays locally to the same game."""
    assert result.completed and not result.forfeited
    assert all(s.status == game_pb2.SEAT_STATUS_OK and s.decisions > 0 for s in result.seats)
    logs = admin.GetMatchLog(arena_pb2.GetMatchLogRequest(match_id=result.match_id), metadata=ADMIN)
    state = replay(GameLog.from_dict(json.loads(logs.game_logs_json[0])))
    assert state.is_over and list(state.scores) == list(result.games[0].scores)
    assert state.winner == (result.games[0].winner if result.games[0].has_winner else None)
    assert state.rules.name == result.ruleset.name


def test_bot_processes_play_ten_point_five_handed_and_two_trump(
        referee: tuple[str, subprocess.Popen[str]]) -> None:
    """The variants through the referee with remote bot processes: a
    ten-point match (leftovers, burning, trump-only play), a five-handed match (five
    bots, a called partner, the blind) and a two-trump match (a sub-trump, suitless
    jokers); every decision kind they ask crosses the protocol, and each log replays
    locally to the referee's result."""
    address, _ = referee
    with grpc.insecure_channel(address) as channel:
        admin = arena_pb2_grpc.ArenaServiceStub(channel)
        bots, processes = _start_bots(admin, address, ["heuristic", "random", "heuristic", "random", "heuristic"])
        try:
            for preset, seats, seed in (("ten-point", bots[:4], 31), ("five-handed", bots, 32),
                                        ("two-trump", bots[:4], 33)):
                result = admin.RunMatch(arena_pb2.RunMatchRequest(
                    preset=preset, options_json='{"max_hands": 12}', seat_bot_ids=seats, seed=seed),
                    metadata=ADMIN, timeout=120).result
                _replays_to_the_result(admin, result)
        finally:
            _stop_bots(processes)


def test_four_bot_processes_play_partnership_and_cutthroat(referee: tuple[str, subprocess.Popen[str]]) -> None:
    """Four `pitch-bot run` processes connect over loopback; a partnership match and a
    cutthroat match complete with every seat OK; each game's log replays locally to the
    same result; Ctrl-C stops a bot cleanly and SIGTERM stops the referee cleanly."""
    address, referee_process = referee
    with grpc.insecure_channel(address) as channel:
        admin = arena_pb2_grpc.ArenaServiceStub(channel)
        bots, processes = _start_bots(admin, address, ["heuristic", "random", "heuristic", "random"])
        try:
            for preset, seats, seed in (("partnership", bots, 21), ("cutthroat", bots[:3], 22)):
                result = admin.RunMatch(arena_pb2.RunMatchRequest(preset=preset, seat_bot_ids=seats, seed=seed),
                                        metadata=ADMIN, timeout=120).result
                _replays_to_the_result(admin, result)
                assert result.games[0].has_winner
        finally:
            _stop_bots(processes)
    referee_process.send_signal(signal.SIGTERM)
    assert referee_process.wait(timeout=20) == 0
    assert referee_process.stderr is not None
    lines = [json.loads(line) for line in referee_process.stderr.read().splitlines() if line.startswith("{")]
    messages = [line["message"] for line in lines]
    assert any("match" in m and "started" in m for m in messages) and "referee stopped" in messages
