"""The cost of a relayed decision: the same matches played with every seat local to the
referee that runs them, and with every seat relayed from another referee, same run,
interleaved rounds.

Processes, all on loopback: a private Redis, two referees on one key prefix (one fleet),
one bot-host process and this driver.  The bot host keeps eight trivial bots on the raw
generated stubs (every request answered with legal action 0 at once, batches with one
batch), each with ONE stream, as a third-party bot has: four (``local``) to the first
referee, four (``relayed``) to the second.  The driver keeps ``--concurrency``
``partnership`` matches running, every one of them on the first referee:

* ``local`` - the four bots connected to it: every decision on its own streams;
* ``relayed`` - the four bots connected to the second referee only: the first referee
  opens a relay per match and bot there, and every decision goes runner -> host -> bot
  and back (two more messages and a second referee's work per decision).

Each round runs both phases (their order alternates); the report gives medians over the
rounds with their range and the ratio relayed/local within each round.  Per phase:
decisions/s; per-decision latency p50/p99 (in the bot host: the time between two
consecutive requests of one match, one decision's whole cycle); CPU microseconds per
decision of the runner, the host and both referees summed, and of the bot host, from
``/proc``.  What one relayed decision costs the referees is the difference of the summed
figures (all seats relayed here; a match with one relayed seat pays it on that seat's
decisions only).

Run: ``.venv/bin/python bench/relay_cost.py [--concurrency 8] [--seconds 5] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import grpc
import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fleet_throughput import (  # bench/ is not a package: reuse by path
    OPTIONS,
    cycle_report,
    host_streams,
    stop_processes,
)
from referee_throughput import cpu_seconds, spawn

from cli.local_arena import free_port
from pitch_sdk.proto.pitch.v1 import arena_pb2, arena_pb2_grpc
from store.fleet import FleetDirectory
from store.redis_server import RedisServer
from store.redis_store import Store

ADMIN = "bench-admin"
PREFIX = "relay-bench:"
SEATS = 4
PHASES = ("local", "relayed")


async def phase(stub: arena_pb2_grpc.ArenaServiceStub, bots: list[str], concurrency: int,
                seconds: float) -> dict[str, float]:
    """Keep ``concurrency`` matches of ``bots`` running on one referee for ``seconds``
    (those running at the deadline finish)."""
    metadata = (("authorization", f"Bearer {ADMIN}"),)
    decisions = matches = 0
    deadline = time.perf_counter() + seconds

    async def loop() -> None:
        nonlocal decisions, matches
        while time.perf_counter() < deadline:
            result = (await stub.RunMatch(arena_pb2.RunMatchRequest(
                preset="partnership", seat_bot_ids=bots, seed=matches + 1, options_json=OPTIONS,
                match_id=uuid.uuid4().hex), metadata=metadata)).result
            if not result.completed or result.forfeited or any(s.strikes for s in result.seats):
                raise RuntimeError(f"a match went wrong: {result}")
            decisions += sum(s.decisions for s in result.seats)
            matches += 1

    start = time.perf_counter()
    await asyncio.gather(*(loop() for _ in range(concurrency)))
    return {"decisions": decisions, "elapsed": time.perf_counter() - start, "matches": matches}


def measure(address: str, referees: list[subprocess.Popen[bytes]], host: subprocess.Popen[str],
            bots: list[str], args: argparse.Namespace) -> dict[str, float]:
    """One phase with its CPU and latency figures."""
    before = [cpu_seconds(p.pid) for p in referees], cpu_seconds(host.pid)

    async def run() -> dict[str, float]:
        async with grpc.aio.insecure_channel(address) as channel:
            return await phase(arena_pb2_grpc.ArenaServiceStub(channel), bots, args.concurrency, args.seconds)

    figures = asyncio.run(run())
    latency = cycle_report(host)
    decisions = figures["decisions"]
    runner, hosting = (cpu_seconds(p.pid) - b for p, b in zip(referees, before[0], strict=True))
    return {"rate": decisions / figures["elapsed"], **latency, "runner_us": runner / decisions * 1e6,
            "host_us": hosting / decisions * 1e6, "referees_us": (runner + hosting) / decisions * 1e6,
            "bots_us": (cpu_seconds(host.pid) - before[1]) / decisions * 1e6, "matches": figures["matches"]}


def summary(rounds: list[dict[str, dict[str, float]]]) -> dict[str, Any]:
    """Medians with their ranges, the ratio relayed/local within each round, and the
    referees' extra CPU per relayed decision within each round."""

    def spread(phase_name: str, key: str, digits: int = 0) -> dict[str, float]:
        values = [r[phase_name][key] for r in rounds]
        return {"median": round(statistics.median(values), digits), "min": round(min(values), digits),
                "max": round(max(values), digits)}

    ratios = [round(r["relayed"]["rate"] / r["local"]["rate"], 3) for r in rounds]
    extra = [round(r["relayed"]["referees_us"] - r["local"]["referees_us"]) for r in rounds]
    report: dict[str, Any] = {"rounds": len(rounds), "rate_ratio_relayed_over_local": statistics.median(ratios),
                              "rate_ratios": ratios,
                              "referees_extra_cpu_us_per_relayed_decision": statistics.median(extra),
                              "referees_extra_cpu_us_per_round": extra}
    for phase_name in PHASES:
        report[phase_name] = {
            "decisions_per_s": spread(phase_name, "rate"), "latency_p50_ms": spread(phase_name, "p50_ms", 3),
            "latency_p99_ms": spread(phase_name, "p99_ms", 3),
            "cpu_us_per_decision": {key: spread(phase_name, f"{key}_us")
                                    for key in ("runner", "host", "referees", "bots")},
            "matches": sum(int(r[phase_name]["matches"]) for r in rounds)}
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--concurrency", type=int, default=8, help="matches kept running")
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each phase")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the two phases")
    parser.add_argument("--host-streams", metavar="ADDRESS=TOKEN,...", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.host_streams:
        uvloop.run(host_streams([tuple(pair.split("=", 1)) for pair in args.host_streams.split(",")]))  # type: ignore[misc]
        return
    with RedisServer() as redis_server:
        env = {"REDIS_URL": redis_server.url, "PITCH_ADMIN_TOKEN": ADMIN, "PITCH_RELAY_TOKEN": f"relay-{ADMIN}",
               "PITCH_STORE_PREFIX": PREFIX}
        ports = [free_port(), free_port()]
        referees = [spawn(["-m", "referee", "--address", f"127.0.0.1:{port}"], env, port) for port in ports]
        runner, hosting = (f"127.0.0.1:{port}" for port in ports)
        directory = FleetDirectory(Store.from_url(redis_server.url, PREFIX))
        host = None
        try:
            with grpc.insecure_channel(runner) as channel:
                admin = arena_pb2_grpc.ArenaServiceStub(channel)
                registered = [admin.RegisterBot(arena_pb2.RegisterBotRequest(name=f"single-{n}"),
                                                metadata=(("authorization", f"Bearer {ADMIN}"),))
                              for n in range(2 * SEATS)]
            local, relayed = registered[:SEATS], registered[SEATS:]
            pairs = [f"{runner}={r.token}" for r in local] + [f"{hosting}={r.token}" for r in relayed]
            host = subprocess.Popen([sys.executable, __file__, "--host-streams", ",".join(pairs)],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            assert host.stdout is not None
            if host.stdout.readline().strip() != "ready":
                raise RuntimeError("the bot host did not connect its bots")
            deadline = time.monotonic() + 30
            while ([e.address for e in directory.hosting([r.bot_id for r in relayed])] != [hosting]
                   or [e.address for e in directory.hosting([r.bot_id for r in local])] != [runner]):
                if time.monotonic() > deadline:
                    raise RuntimeError("the directory never listed each bot on its one referee")
                time.sleep(0.1)
            seats = {"local": [r.bot_id for r in local], "relayed": [r.bot_id for r in relayed]}
            rounds = []
            for index in range(args.rounds):
                order = PHASES if index % 2 == 0 else PHASES[::-1]
                rounds.append({name: measure(runner, referees, host, seats[name], args) for name in order})
            report = {"concurrency": args.concurrency, "seconds": args.seconds, "cpus": os.cpu_count(),
                      "load_average_1min_at_end": round(os.getloadavg()[0], 2), **summary(rounds)}
        finally:
            stop_processes(host, referees)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
