"""Fleet throughput: decisions per second through the arena with one and with two referee
processes, same bots, same concurrency, same run, interleaved rounds.

Processes, all on loopback: a private Redis, two referees on one key prefix (one fleet),
one bot-host process with four trivial bots on the raw generated stubs (every request is
answered with legal action 0 at once, batches with one batch), each bot with a stream to
both referees, and this driver, which keeps ``--concurrency`` ``partnership`` matches
running.  The driver places every match as the Celery task does
(:meth:`store.fleet.FleetDirectory.place`: a Redis read of the directory per
match), then calls ``RunMatch`` on the referee placed:

* ``one`` - placement restricted to the first referee (the second stays up, idle);
* ``two`` - placement over the whole fleet (the least busy referee with every seat).

Each round runs both phases (their order alternates from round to round); the report
gives medians over the rounds with their range, and the ratio two/one taken within each
round (the machine's speed drifts between rounds much more than within one).  Per phase:
decisions/s; per-decision latency p50/p99, measured in the bot host as the time between
two consecutive decision requests of one match (one decision's whole cycle: referee, both
transports, the bot); CPU microseconds per decision of the referees (both processes
summed), the bot host and the driver, from ``/proc``; and the driver's time per placement.

Referee hosts of a fixed size (``--referee-cpu 0.5``): each referee process gets its own
cgroup with a CPU quota (:mod:`cpu_limits`; needs root and a writable cgroup cpu
controller), and every round also runs both phases with the quota on (``budget``; the
plain phases, ``shared``, run with it off), so the referee tier is the bottleneck as when
referees run on hosts of their own, and the ratio shows how the tier scales (docs/fleet.md
says why 0.5).  Per referee, the share of quota periods in which it was throttled and the
share of its budget it used say whether the budget was what bound: a referee that waits
for a core on a loaded machine uses less than its budget.
``--pin-referees`` adds phases with referee ``i`` pinned to core ``i`` (``pinned``).

Run: ``.venv/bin/python bench/fleet_throughput.py [--concurrency 8] [--seconds 5] [--rounds 3]
[--referee-cpu 0.5] [--pin-referees]``.
Target: two/one >= 1.6 on two cores.  A fleet cannot make more CPU: on a
2-core machine where the bots and the driver share the cores with the referees, the
ceiling is the cores' total over the CPU per decision of all processes (see docs/fleet.md).
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
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import grpc
import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cpu_limits import PERIOD_US, CpuBudgets, pin  # bench/ is not a package: reuse by path
from referee_throughput import answer_first_legal, cpu_seconds, spawn

from cli.local_arena import free_port
from pitch_sdk.proto.pitch.v1 import arena_pb2, arena_pb2_grpc, bot_pb2, bot_pb2_grpc
from store.fleet import FleetDirectory, RefereeEntry
from store.redis_server import RedisServer
from store.redis_store import Store

ADMIN = "bench-admin"
PREFIX = "fleet-bench:"
BOTS = 4
OPTIONS = '{"target": 11}'


# ----------------------------------------------------------------------------- bot host
class Cycles:
    """Per-decision cycle times in the bot host: between two consecutive requests of a match."""

    def __init__(self) -> None:
        self.last: dict[str, float] = {}
        self.samples: list[float] = []

    def request(self, match_id: str) -> None:
        now = time.perf_counter()
        previous = self.last.get(match_id)
        if previous is not None and len(self.samples) < 200_000:
            self.samples.append(now - previous)
        self.last[match_id] = now

    def report(self) -> dict[str, float]:
        ordered = sorted(self.samples)
        self.samples.clear()
        self.last.clear()
        if not ordered:
            return {"p50_ms": 0.0, "p99_ms": 0.0}
        return {"p50_ms": round(ordered[len(ordered) // 2] * 1000, 3),
                "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000, 3)}


async def trivial_stream(address: str, token: str, cycles: Cycles, ready: asyncio.Event) -> None:
    """One bot's stream to one referee: answer every request with legal action 0."""
    async with grpc.aio.insecure_channel(address) as channel:
        call = bot_pb2_grpc.BotServiceStub(channel).Connect(metadata=(("authorization", f"Bearer {token}"),))
        await call.write(bot_pb2.BotMessage(hello=bot_pb2.Hello(
            bot_name="trivial", protocol_versions=["pitch.v1"], capacity=256, batching=True, skip_events=True)))
        await answer_first_legal(call, ready, lambda request: cycles.request(request.match_id))


async def host_bots(addresses: list[str], tokens: list[str]) -> None:
    """The bot host: every bot on every referee (see :func:`host_streams`)."""
    await host_streams([(address, token) for token in tokens for address in addresses])


async def host_streams(streams_to_open: list[tuple[str, str]]) -> None:
    """A bot host with one trivial stream per (referee address, bot token); on each line
    read from stdin, print the cycle percentiles since the last line (and reset them)."""
    cycles = Cycles()
    streams = []
    for address, token in streams_to_open:
        ready = asyncio.Event()
        streams.append(asyncio.create_task(trivial_stream(address, token, cycles, ready)))
        await asyncio.wait_for(ready.wait(), 30)
    print("ready", flush=True)
    loop = asyncio.get_running_loop()
    while await loop.run_in_executor(None, sys.stdin.readline):
        print(json.dumps(cycles.report()), flush=True)
    for stream in streams:
        stream.cancel()


# ----------------------------------------------------------------------------- driver
async def phase(directory: FleetDirectory, stubs: dict[str, arena_pb2_grpc.ArenaServiceStub], only: str | None,
                bots: list[str], concurrency: int, seconds: float) -> dict[str, float]:
    """Keep ``concurrency`` matches running for ``seconds`` (those running at the deadline
    finish); each placed through the directory, on ``only`` if given."""
    metadata = (("authorization", f"Bearer {ADMIN}"),)
    decisions = matches = 0
    placing_s = 0.0
    deadline = time.perf_counter() + seconds

    async def loop() -> None:
        nonlocal decisions, matches, placing_s
        while time.perf_counter() < deadline:
            match_id = uuid.uuid4().hex
            began = time.perf_counter()
            placed: list[RefereeEntry] = await asyncio.to_thread(directory.place, match_id, bots)
            placing_s += time.perf_counter() - began
            address = next(e.address for e in placed if only is None or e.address == only)
            result = (await stubs[address].RunMatch(arena_pb2.RunMatchRequest(
                preset="partnership", seat_bot_ids=bots, seed=matches + 1, options_json=OPTIONS, match_id=match_id),
                metadata=metadata)).result
            decisions += sum(s.decisions for s in result.seats)
            matches += 1

    start = time.perf_counter()
    await asyncio.gather(*(loop() for _ in range(concurrency)))
    elapsed = time.perf_counter() - start
    return {"decisions": decisions, "elapsed": elapsed, "matches": matches,
            "placement_us": placing_s / max(1, matches) * 1e6}



def cycle_report(host: subprocess.Popen[str]) -> dict[str, float]:
    """The bot host's decision-cycle percentiles since its last report (see :func:`host_streams`)."""
    assert host.stdin is not None and host.stdout is not None
    host.stdin.write("report\n")
    host.stdin.flush()
    report: dict[str, float] = json.loads(host.stdout.readline())
    return report


def stop_processes(host: subprocess.Popen[str] | None, referees: list[subprocess.Popen[bytes]]) -> None:
    """Kill the bot host (it keeps no state) and stop the referees as an operator would."""
    if host is not None:
        host.kill()
        host.wait()
    for process in referees:
        process.terminate()
        process.wait(timeout=15)


SETTINGS = ("shared", "budget", "pinned")
"""How the referees' CPU is limited in a phase: not at all; each at ``--referee-cpu``
cores (:class:`cpu_limits.CpuBudgets`); referee ``i`` pinned to core ``i``."""


def limit(setting: str, referees: list[subprocess.Popen[bytes]], budgets: CpuBudgets | None) -> None:
    """Put the referees' CPU limits in place for a phase of ``setting`` (and lift the others)."""
    if budgets is not None:
        budgets.budget(setting == "budget")
    cores = sorted(os.sched_getaffinity(0))
    for index, process in enumerate(referees):
        pin(process.pid, [cores[index % len(cores)]] if setting == "pinned" else None)


def measure(name: str, setting: str, directory: FleetDirectory, addresses: list[str],
            referees: list[subprocess.Popen[bytes]], host: subprocess.Popen[str], bots: list[str],
            args: argparse.Namespace, budgets: CpuBudgets | None) -> dict[str, Any]:
    """One phase with its CPU and latency figures (and, under a budget, for each referee the
    share of quota periods in which it was throttled and the share of its budget it used)."""
    limit(setting, referees, budgets)
    throttled = budgets.throttling() if budgets is not None else {}
    before = [cpu_seconds(p.pid) for p in referees], cpu_seconds(host.pid), time.process_time()

    async def run() -> dict[str, float]:
        channels = {a: grpc.aio.insecure_channel(a) for a in addresses}
        try:
            stubs = {a: arena_pb2_grpc.ArenaServiceStub(c) for a, c in channels.items()}
            return await phase(directory, stubs, addresses[0] if name == "one" else None, bots,
                               args.concurrency, args.seconds)
        finally:
            for channel in channels.values():
                await channel.close()

    figures = asyncio.run(run())
    latency = cycle_report(host)
    decisions = figures["decisions"]
    referee_cpu = sum(cpu_seconds(p.pid) for p in referees) - sum(before[0])
    result: dict[str, Any] = {"rate": decisions / figures["elapsed"], **latency,
                              "referee_us": referee_cpu / decisions * 1e6,
                              "bots_us": (cpu_seconds(host.pid) - before[1]) / decisions * 1e6,
                              "driver_us": (time.process_time() - before[2]) / decisions * 1e6,
                              "placement_us": figures["placement_us"], "matches": figures["matches"]}
    if setting == "budget" and budgets is not None:
        now = budgets.throttling()
        result["throttled"] = [now[slot].since(throttled[slot]) for slot in sorted(now)]
        result["budget_used"] = [(cpu_seconds(p.pid) - used) / (budgets.cpus * figures["elapsed"])
                                 for p, used in zip(referees, before[0], strict=True)]
    return result


def summary(rounds: list[dict[str, dict[str, Any]]]) -> dict[str, Any]:
    """Medians with their ranges, and the ratio two/one within each round."""

    def spread(phase_name: str, key: str, digits: int = 0) -> dict[str, float]:
        values = [r[phase_name][key] for r in rounds]
        return {"median": round(statistics.median(values), digits), "min": round(min(values), digits),
                "max": round(max(values), digits)}

    ratios = [round(r["two"]["rate"] / r["one"]["rate"], 3) for r in rounds]
    report: dict[str, Any] = {"rounds": len(rounds), "ratio_two_over_one": statistics.median(ratios),
                              "ratios": ratios}
    for phase_name in ("one", "two"):
        report[phase_name] = {
            "decisions_per_s": spread(phase_name, "rate"), "latency_p50_ms": spread(phase_name, "p50_ms", 3),
            "latency_p99_ms": spread(phase_name, "p99_ms", 3),
            "cpu_us_per_decision": {"referees": spread(phase_name, "referee_us"), "bots": spread(phase_name, "bots_us"),
                                    "driver": spread(phase_name, "driver_us")},
            "placement_us_per_match": spread(phase_name, "placement_us"),
            "matches": sum(int(r[phase_name]["matches"]) for r in rounds)}
        for key in ("throttled", "budget_used"):
            if key in rounds[0][phase_name]:
                report[phase_name][f"{key}_per_referee"] = [
                    round(statistics.median(r[phase_name][key][i] for r in rounds), 3)
                    for i in range(len(rounds[0][phase_name][key]))]
    return report


def round_order(index: int, settings: list[str]) -> list[tuple[str, str]]:
    """Round ``index``'s phases, (setting, referees): the settings' order is reversed and
    the one/two order alternated from round to round, so that no phase always runs first."""
    ordered = settings if index % 2 == 0 else settings[::-1]
    phases = []
    for position, setting in enumerate(ordered):
        names = ("one", "two") if (index + position) % 2 == 0 else ("two", "one")
        phases += [(setting, name) for name in names]
    return phases


def timed(operation: Any, calls: int) -> float:
    """Median microseconds of ``calls`` calls of ``operation``."""
    samples = []
    for _ in range(calls):
        began = time.perf_counter()
        operation()
        samples.append(time.perf_counter() - began)
    return round(statistics.median(samples) * 1e6, 1)


def directory_costs(redis_url: str, sizes: list[int], calls: int = 200) -> list[dict[str, float]]:
    """Median microseconds of the directory's operations (one client, no other load on
    Redis than the machine's) with fleets of ``sizes`` referees, each listing the match's
    four bots among 100 others: a placement read (what a worker pays per match), a
    heartbeat (what each referee pays every third of the TTL) and a claim plus release
    (what a referee pays per match)."""
    bots = [f"bot-{n}" for n in range(BOTS)]
    others = [f"other-{n}" for n in range(100)]
    costs = []
    for size in sizes:
        directory = FleetDirectory(Store.from_url(redis_url, f"fleet-costs-{size}:"))
        for index in range(size):
            directory.announce(f"referee-{index}", f"10.0.0.{index % 250}:50051", 256, index % 7, bots + others)

        def claim_and_release(fleet: FleetDirectory = directory) -> None:
            match_id = uuid.uuid4().hex
            fleet.release(match_id, fleet.claim(match_id, "referee-0"))

        costs.append({
            "referees": size,
            "place_us": timed(lambda fleet=directory: fleet.place(uuid.uuid4().hex, bots), calls),
            "heartbeat_us": timed(lambda fleet=directory: fleet.announce(
                "referee-0", "10.0.0.0:50051", 256, 3, None, []), calls),
            "claim_release_us": timed(claim_and_release, calls)})
    return costs


def resident_kb(pid: int) -> int:
    """A process's resident memory (``VmRSS``), in kB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


async def idle_streams(address: str, count: int, referee: subprocess.Popen[bytes]) -> dict[str, float]:
    """The referee's resident memory per idle bot stream: ``count`` registered bots each
    open a stream (hello, welcome, then nothing), and the growth is divided among them:
    what a referee pays per connected bot when every bot keeps a stream on every referee."""
    metadata = (("authorization", f"Bearer {ADMIN}"),)
    async with grpc.aio.insecure_channel(address) as channel:
        admin = arena_pb2_grpc.ArenaServiceStub(channel)
        tokens = [(await admin.RegisterBot(arena_pb2.RegisterBotRequest(name=f"idle-{uuid.uuid4().hex[:10]}"),
                                           metadata=metadata)).token for _ in range(count)]
        before = resident_kb(referee.pid)
        bots = grpc.aio.insecure_channel(address)
        calls = []
        for token in tokens:
            call = bot_pb2_grpc.BotServiceStub(bots).Connect(metadata=(("authorization", f"Bearer {token}"),))
            await call.write(bot_pb2.BotMessage(hello=bot_pb2.Hello(
                bot_name="idle", protocol_versions=["pitch.v1"], capacity=4, batching=True, fleet_updates=True)))
            await call.read()  # the welcome
            calls.append(call)
        await asyncio.sleep(1.0)
        after = resident_kb(referee.pid)
        for call in calls:
            call.cancel()
        await bots.close()
    return {"streams": count, "referee_rss_before_mb": round(before / 1024, 1),
            "referee_rss_after_mb": round(after / 1024, 1), "kb_per_stream": round((after - before) / count, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--concurrency", type=int, default=8, help="matches kept running")
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each phase")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the two phases")
    parser.add_argument("--directory-sizes", type=int, nargs="*", default=[1, 10, 100],
                        help="fleet sizes at which to time the directory's operations")
    parser.add_argument("--idle-streams", type=int, default=500,
                        help="idle bot streams opened at the end to measure the referee's memory per stream")
    parser.add_argument("--referee-cpu", type=float, metavar="CORES",
                        help="also run every round with each referee process held to this CPU budget "
                             "(its own cgroup with a quota; needs root): referee hosts of a fixed size")
    parser.add_argument("--referee-cpu-period-ms", type=float, default=PERIOD_US / 1000,
                        help="the quota's period (see bench/cpu_limits.py)")
    parser.add_argument("--pin-referees", action="store_true",
                        help="also run every round with referee i pinned to core i")
    parser.add_argument("--host-bots", nargs=2, metavar=("ADDRESSES", "TOKENS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.host_bots:
        uvloop.run(host_bots(args.host_bots[0].split(","), args.host_bots[1].split(",")))
        return
    settings = [s for s in SETTINGS if s == "shared" or (s == "budget" and args.referee_cpu is not None)
                or (s == "pinned" and args.pin_referees)]
    budgets_or_none = (CpuBudgets(args.referee_cpu, round(args.referee_cpu_period_ms * 1000))
                       if args.referee_cpu is not None else nullcontext())
    with budgets_or_none as budgets, RedisServer() as redis_server:
        env = {"REDIS_URL": redis_server.url, "PITCH_ADMIN_TOKEN": ADMIN, "PITCH_RELAY_TOKEN": f"relay-{ADMIN}",
               "PITCH_STORE_PREFIX": PREFIX}
        ports = [free_port(), free_port()]
        referees = [spawn(["-m", "referee", "--address", f"127.0.0.1:{port}"], env, port) for port in ports]
        for index, process in enumerate(referees):
            if budgets is not None:
                budgets.place(f"referee{index}", process.pid)
        addresses = [f"127.0.0.1:{port}" for port in ports]
        store = Store.from_url(redis_server.url, PREFIX)
        directory = FleetDirectory(store)
        host = None
        try:
            with grpc.insecure_channel(addresses[0]) as channel:
                admin = arena_pb2_grpc.ArenaServiceStub(channel)
                registered = [admin.RegisterBot(arena_pb2.RegisterBotRequest(name=f"trivial-{n}"),
                                                metadata=(("authorization", f"Bearer {ADMIN}"),)) for n in range(BOTS)]
            bots = [r.bot_id for r in registered]
            host = subprocess.Popen([sys.executable, __file__, "--host-bots", ",".join(addresses),
                                     ",".join(r.token for r in registered)], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, text=True)
            assert host.stdout is not None
            if host.stdout.readline().strip() != "ready":
                raise RuntimeError("the bot host did not connect its bots")
            deadline = time.monotonic() + 30
            while len(directory.hosting(bots)) < 2:
                if time.monotonic() > deadline:
                    raise RuntimeError("the directory never listed the bots on both referees")
                time.sleep(0.1)
            rounds: dict[str, list[dict[str, dict[str, Any]]]] = {setting: [] for setting in settings}
            load_at_start = round(os.getloadavg()[0], 2)
            for index in range(args.rounds):
                measured = {(setting, name): measure(name, setting, directory, addresses, referees, host, bots,
                                                     args, budgets)
                            for setting, name in round_order(index, settings)}
                for setting in settings:
                    rounds[setting].append({name: measured[setting, name] for name in ("one", "two")})
            limit("shared", referees, budgets)
            report = {"concurrency": args.concurrency, "seconds": args.seconds, "cpus": os.cpu_count(),
                      "load_average_1min_at_start": load_at_start,
                      "load_average_1min_at_end": round(os.getloadavg()[0], 2), **summary(rounds["shared"]),
                      **({"budget": {"referee_cpu": args.referee_cpu, "period_ms": args.referee_cpu_period_ms,
                                     **summary(rounds["budget"])}}
                         if "budget" in rounds else {}),
                      **({"pinned": summary(rounds["pinned"])} if "pinned" in rounds else {}),
                      "directory_costs": directory_costs(redis_server.url, args.directory_sizes),
                      "idle_streams": asyncio.run(idle_streams(addresses[1], args.idle_streams, referees[1]))}
        finally:
            stop_processes(host, referees)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
