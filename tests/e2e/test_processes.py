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

from pitch_sdk.proto.pitch.v1 import arena_pb2, arena_pb2_grpc, game_pb2
from pitch_sdk.rules import GameLog, replay
from workers.services import free_port

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


def test_four_bot_processes_play_partnership_and_cutthroat(referee: tuple[str, subprocess.Popen[str]]) -> None:
    """Four `pitch-bot run` processes connect over loopback; a partnership match and a
    cutthroat match complete with every seat OK; each game's log replays locally to the
    same result; Ctrl-C stops a bot cleanly and SIGTERM stops the referee cleanly."""
    address, referee_process = referee
    with grpc.insecure_channel(address) as channel:
        admin = arena_pb2_grpc.ArenaServiceStub(channel)
        specs = ["heuristic", "random", "heuristic", "random"]
        bots, processes = [], []
        for i, spec in enumerate(specs):
            registered = admin.RegisterBot(arena_pb2.RegisterBotRequest(name=f"{spec}-{i}"), metadata=ADMIN)
            bots.append(registered.bot_id)
            processes.append(subprocess.Popen(
                [str(BIN / "pitch-bot"), "run", spec, "--referee", address, "--seed", str(i)],
                env={**os.environ, "PITCH_BOT_TOKEN": registered.token}, stderr=subprocess.PIPE, text=True))
        try:
            deadline = time.monotonic() + 30
            while not all(b.connected for b in admin.ListBots(arena_pb2.ListBotsRequest(), metadata=ADMIN).bots):
                assert time.monotonic() < deadline, "bots did not connect"
                time.sleep(0.1)
            results = [
                admin.RunMatch(arena_pb2.RunMatchRequest(preset="partnership", seat_bot_ids=bots, seed=21),
                               metadata=ADMIN, timeout=120).result,
                admin.RunMatch(arena_pb2.RunMatchRequest(preset="cutthroat", seat_bot_ids=bots[:3], seed=22),
                               metadata=ADMIN, timeout=120).result,
            ]
            for result in results:
                assert result.completed and not result.forfeited
                assert all(s.status == game_pb2.SEAT_STATUS_OK and s.decisions > 0 for s in result.seats)
                logs = admin.GetMatchLog(arena_pb2.GetMatchLogRequest(match_id=result.match_id), metadata=ADMIN)
                state = replay(GameLog.from_dict(json.loads(logs.game_logs_json[0])))
                assert state.is_over and list(state.scores) == list(result.games[0].scores)
                assert state.winner == result.games[0].winner and result.games[0].has_winner
                assert state.rules.name == result.ruleset.name
        finally:
            for process in processes:
                process.send_signal(signal.SIGINT)
            codes = [process.wait(timeout=20) for process in processes]
        assert codes == [0, 0, 0, 0], [p.stderr.read() if p.stderr else "" for p in processes]
    referee_process.send_signal(signal.SIGTERM)
    assert referee_process.wait(timeout=20) == 0
    assert referee_process.stderr is not None
    lines = [json.loads(line) for line in referee_process.stderr.read().splitlines() if line.startswith("{")]
    messages = [line["message"] for line in lines]
    assert any("match" in m and "started" in m for m in messages) and "referee stopped" in messages
