"""How long a SIGTERMed referee takes to exit, idle and under load.

An outside audit saw a referee exit 4-14 s after its ``referee stopped`` line under load
(1.3 s idle), past an orchestrator's 10 s grace.  This starts a private Redis, a real
referee process (``python -m referee --json-logs``) and ``--bots`` real bot processes
(``pitch-bot run``), keeps ``--matches`` long matches running through ArenaService.RunMatch,
sends SIGTERM, and reports, from the referee's own log lines and the process's exit:
SIGTERM to ``referee stopped``, ``referee stopped`` to exit, how many ``referee stopped``
lines, and any ERROR line or traceback.  With ``--matches 0`` the referee is idle.

Run: ``.venv/bin/python bench/referee_stop.py [--bots 4] [--matches 6] [--grace 2] [--runs 3]``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import grpc

from cli.local_arena import free_port
from pitch_sdk.proto.pitch.v1 import arena_pb2, arena_pb2_grpc
from store.redis_server import RedisServer

BIN = Path(sys.executable).parent
ADMIN_TOKEN = "stop-bench-admin"
ADMIN = (("authorization", f"Bearer {ADMIN_TOKEN}"),)


def one_stop(redis_url: str | None, bots: int, matches: int, grace_s: float, run: int) -> dict[str, Any]:
    """Start a referee and its bots, load it, SIGTERM it; the timings and log facts.  With
    no ``redis_url`` the referee runs its own embedded Redis (in a fresh data directory)."""
    address = f"127.0.0.1:{free_port()}"
    env = {**os.environ, "PITCH_ADMIN_TOKEN": ADMIN_TOKEN, "PITCH_STORE_PREFIX": f"stop-bench-{os.getpid()}-{run}:",
           "PITCH_SHUTDOWN_GRACE_S": str(grace_s)}
    if redis_url:
        env["REDIS_URL"] = redis_url
    else:
        env.pop("REDIS_URL", None)
        env["PITCH_DATA_DIR"] = tempfile.mkdtemp(prefix="stop-bench-data-")
    referee = subprocess.Popen([sys.executable, "-m", "referee", "--address", address, "--json-logs"], env=env,
                               stderr=subprocess.PIPE, text=True)
    lines: list[tuple[float, str]] = []

    def read_log() -> None:
        assert referee.stderr is not None
        for line in referee.stderr:
            lines.append((time.monotonic(), line.rstrip("\n")))

    reader = threading.Thread(target=read_log, daemon=True)
    reader.start()
    processes: list[subprocess.Popen[bytes]] = []
    channel = grpc.insecure_channel(address)
    try:
        grpc.channel_ready_future(channel).result(timeout=30)
        admin = arena_pb2_grpc.ArenaServiceStub(channel)
        ids = []
        for i in range(bots):
            registered = admin.RegisterBot(arena_pb2.RegisterBotRequest(name=f"stop-{run}-{i}"), metadata=ADMIN)
            ids.append(registered.bot_id)
            processes.append(subprocess.Popen(
                [str(BIN / "pitch-bot"), "run", "heuristic", "--referee", address, "--capacity", "16"],
                env={**os.environ, "PITCH_BOT_TOKEN": registered.token},
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 60
        while sum(b.connected for b in admin.ListBots(arena_pb2.ListBotsRequest(), metadata=ADMIN).bots) < bots:
            assert time.monotonic() < deadline, "the bots did not connect"
            time.sleep(0.1)
        calls = [admin.RunMatch.future(arena_pb2.RunMatchRequest(
            preset="partnership", seat_bot_ids=[ids[(m + s) % bots] for s in range(4)], seed=m, games=200),
            metadata=ADMIN) for m in range(matches)]
        while len(admin.ListMatches(arena_pb2.ListMatchesRequest(), metadata=ADMIN).matches) < matches:
            assert time.monotonic() < deadline, "the matches did not start"
            time.sleep(0.05)
        time.sleep(1.0)  # decisions flowing
        term = time.monotonic()
        referee.send_signal(signal.SIGTERM)
        code = referee.wait(timeout=120)
        exited = time.monotonic()
        reader.join(timeout=5)
        for call in calls:
            call.cancel()
    finally:
        channel.close()
        for process in processes:
            process.send_signal(signal.SIGINT)
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        if referee.poll() is None:
            referee.kill()
    messages = [(at, json.loads(line)) for at, line in lines if line.startswith("{")]
    stopped = [at for at, record in messages if record["message"] == "referee stopped"]
    return {
        "exit_code": code,
        "term_to_stopped_s": round(stopped[0] - term, 2) if stopped else None,
        "stopped_to_exit_s": round(exited - stopped[0], 2) if stopped else None,
        "term_to_exit_s": round(exited - term, 2),
        "stopped_lines": len(stopped),
        "errors": [record["message"][:120] for _, record in messages if record["level"] in ("ERROR", "CRITICAL")],
        "other_lines": [line[:160] for _, line in lines if not line.startswith("{")][:5],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=4)
    parser.add_argument("--matches", type=int, default=6)
    parser.add_argument("--grace", type=float, default=2.0, help="the referee's shutdown grace (s)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--embedded", action="store_true", help="the referee runs its own Redis (no REDIS_URL)")
    args = parser.parse_args()
    with RedisServer() as redis:
        for run in range(args.runs):
            result = one_stop(None if args.embedded else redis.url, args.bots, args.matches, args.grace, run)
            print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
