"""Tournament throughput: matches per minute of a 6-bot round robin through Celery workers.

Every part is real and on loopback: a private redis-server, a referee process, six
(``--bots``) ``pitch-bot run`` bot processes and ``celery -A workers.app worker`` processes (one
pool process each).  For each worker count N, in the same run and on the same deals:

* ``direct`` - the baseline: the same schedule played by calling RunMatch from this
  process with N matches at a time, no Celery: what the referee and bots can do;
* ``celery`` - the tournament launched on N worker processes, timed from launch to the
  final table (workers are started and ready before).

The bots choose with seeded but running random generators, so the same deals do not give
games of the same length in both phases: ``ratio_to_direct`` compares hands per second.

Where the time goes, per phase: ``referee_s`` is the sum of the RunMatch calls (the
matches themselves, as the caller saw them); ``task_body_s`` the sum of the rest of each
task (Redis reads and writes around the match); ``dispatch_s`` = N x wall - sum of task
times: Celery's share (fetching, acknowledging, storing results, idle workers at the end);
and the CPU seconds the referee, the bots and the workers used during the phase.

With ``--referees N`` the arena runs N referee processes as one fleet (the bots connect to
all; ``direct`` places each match through the fleet directory as the workers do).

``--compare-referees`` compares one and two referees in one run instead: the same bot
processes and Celery workers (``--workers``, the first count) play the same schedule (same
seed, same deals) in ``--rounds`` rounds of two phases, ``one`` (the second referee
stopped: it leaves the directory and the bots close their streams to it) and ``two`` (it
is started again on the same address and the bots open streams to it), in alternating
order; each phase is a whole tournament through Celery, timed from launch to the final
table.  It reports per phase matches/min, hands/s and the CPU milliseconds per hand of
each referee, the bots and the workers (each referee's share shows where the matches
were placed), the ratios two/one within each round, and medians with ranges.  With
``--referee-cpu CORES`` each referee process is held to that CPU budget in both phases
(its own cgroup with a quota, :mod:`cpu_limits`; needs root): referee hosts of a fixed size.

Run: ``.venv/bin/python bench/tournament_throughput.py [--preset partnership] [--bot heuristic]
[--games 1] [--workers 1 2] [--referees 1]``, or
``... --compare-referees --rounds 3 --bots 4 --workers 4 [--options '{"target": 5}'] [--referee-cpu 0.5]``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from celery import Celery

from cli.local_arena import free_port
from competitions.config import WorkerConfig
from competitions.queue import make_app
from competitions.referee_client import FleetReferees
from competitions.tournaments import control as tournament
from competitions.tournaments.schedule import round_robin
from competitions.tournaments.store import TournamentStore
from pitch_sdk.proto.pitch.v1 import arena_pb2, arena_pb2_grpc
from store.fleet import FleetDirectory
from store.redis_server import RedisServer
from store.redis_store import Store

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cpu_limits import PERIOD_US, CpuBudgets  # bench/ is not a package: reuse by path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
ADMIN = "bench-admin"
PREFIX = "bench:"
FLEET_TTL_S = "3"
"""The directory's TTL with ``--compare-referees``: a heartbeat every second, so that the bots
hear within about a second that the second referee left or came back."""


def spawn(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    """A process in its own process group (so its CPU time, children included, can be read)."""
    return subprocess.Popen(args, env={**os.environ, **env}, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def cpu_seconds(groups: list[subprocess.Popen[bytes]]) -> float:
    """User + system CPU seconds of every live process in these processes' groups (Linux)."""
    pgids = {p.pid for p in groups}
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) in pgids:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM, then wait (SIGKILL the group after 30 s)."""
    for process in processes:
        process.send_signal(signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@dataclass
class Fleet:
    """The referee processes and the bot processes connected to all of them."""

    redis_url: str
    addresses: list[str]
    bots: list[str]
    referees: list[subprocess.Popen[bytes]]
    bot_processes: list[subprocess.Popen[bytes]]
    env: dict[str, str]

    @property
    def processes(self) -> list[subprocess.Popen[bytes]]:
        """The referees, then the bots (what :func:`direct` and :func:`through_celery` read)."""
        return self.referees + self.bot_processes

    def start_referee(self, address: str) -> subprocess.Popen[bytes]:
        """A referee process of the fleet listening on ``address``."""
        return spawn([sys.executable, "-m", "referee", "--address", address],
                     {"REDIS_URL": self.redis_url, "PITCH_ADMIN_TOKEN": ADMIN, "PITCH_STORE_PREFIX": PREFIX,
                      **self.env})

    def wait_connected(self, referees: int) -> None:
        """Until the directory lists exactly ``referees`` live referees with every bot on each."""
        directory = FleetDirectory(Store.from_url(self.redis_url, PREFIX))
        deadline = time.monotonic() + 60
        while len(directory.live()) != referees or len(directory.hosting(self.bots)) != referees:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the bots did not connect to {referees} live referee(s)")
            time.sleep(0.1)

    def scale(self, referees: int) -> bool:
        """Run the first ``referees`` referees: stop the last ones or start them again on
        their addresses (the bots follow through the directory); whether anything changed."""
        changed = False
        for index, address in enumerate(self.addresses):
            running = self.referees[index].poll() is None
            if index >= referees and running:
                stop([self.referees[index]])
                changed = True
            elif index < referees and not running:
                self.referees[index] = self.start_referee(address)
                changed = True
        self.wait_connected(referees)
        return changed


@contextmanager
def arena(redis_url: str, bot: str, referees: int = 1, count: int = 6, env: dict[str, str] | None = None
          ) -> Iterator[Fleet]:
    """``referees`` referee processes (one fleet) and ``count`` bot processes connected to
    every one of them."""
    fleet = Fleet(redis_url, [f"127.0.0.1:{free_port()}" for _ in range(referees)], [], [], [], env or {})
    fleet.referees = [fleet.start_referee(address) for address in fleet.addresses]
    address = fleet.addresses[0]
    try:
        with grpc.insecure_channel(address) as channel:
            grpc.channel_ready_future(channel).result(timeout=30)
            admin = arena_pb2_grpc.ArenaServiceStub(channel)
            metadata = (("authorization", f"Bearer {ADMIN}"),)
            for i in range(count):
                registered = admin.RegisterBot(arena_pb2.RegisterBotRequest(name=f"{bot}-{i}"), metadata=metadata)
                fleet.bots.append(registered.bot_id)
                fleet.bot_processes.append(spawn(
                    [str(BIN / "pitch-bot"), "run", bot, "--referee", address, "--seed", str(i)],
                    {"PITCH_BOT_TOKEN": registered.token}))
        fleet.wait_connected(referees)
        yield fleet
    finally:
        stop(fleet.bot_processes)
        stop([process for process in fleet.referees if process.poll() is None])


def hands(result: dict[str, Any]) -> int:
    """Hands played in a match (games' lengths vary with the bots' choices, so the figures
    are also given per hand)."""
    return sum(int(game.get("hands", 0)) for game in result.get("games", []))


def breakdown(workers: int, wall: float, referee_s: float, task_s: float, matches: int, played: int,
              cpu: dict[str, float]) -> dict[str, object]:
    """One phase's figures."""
    return {"workers": workers, "matches": matches, "hands": played, "wall_s": round(wall, 2),
            "matches_per_min": round(matches / wall * 60, 1), "hands_per_s": round(played / wall, 1),
            "referee_s": round(referee_s, 2),
            "task_body_s": round(task_s - referee_s, 2), "dispatch_s": round(workers * wall - task_s, 2),
            "cpu_s": {k: round(v, 2) for k, v in cpu.items()}}


def direct(address: str, bots: list[str], servers: list[subprocess.Popen[bytes]], args: argparse.Namespace,
           concurrency: int, redis_url: str) -> dict[str, object]:
    """The baseline: the schedule's matches through RunMatch, ``concurrency`` at a time."""
    schedule = round_robin(f"direct{concurrency}-{os.getpid()}", bots, args.preset, games=args.games, seed=args.seed,
                           options=args.options)
    client = FleetReferees(address, ADMIN, 3600, FleetDirectory(Store.from_url(redis_url, PREFIX)))

    def timed(index: int) -> tuple[float, int]:
        began = time.perf_counter()
        result = client.run_match(schedule, schedule.matches[index])
        return time.perf_counter() - began, hands(result)

    cpu = cpu_seconds(servers[:args.referees]), cpu_seconds(servers[args.referees:])
    began = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        calls = list(pool.map(timed, range(len(schedule.matches))))
    wall = time.perf_counter() - began
    used = {"referee": cpu_seconds(servers[:args.referees]) - cpu[0],
            "bots": cpu_seconds(servers[args.referees:]) - cpu[1]}
    seconds = sum(call for call, _ in calls)
    return {"mode": "direct", **breakdown(concurrency, wall, seconds, seconds, len(schedule.matches),
                                          sum(played for _, played in calls), used)}


@contextmanager
def celery_workers(config: WorkerConfig, count: int) -> Iterator[tuple[Celery, list[subprocess.Popen[bytes]]]]:
    """``count`` Celery worker processes (one pool process each), started and answering."""
    app = make_app(config)
    workers = [spawn([str(BIN / "celery"), "-A", "workers.app", "worker", "--pool=prefork", "--concurrency=1",
                      "--loglevel=WARNING", "-n", f"bench{i}@%h", "--without-gossip", "--without-mingle",
                      "--without-heartbeat"], config.to_env()) for i in range(count)]
    try:
        deadline = time.monotonic() + 60
        while len(app.control.ping(timeout=0.5)) < count:
            if time.monotonic() > deadline:
                raise RuntimeError("the workers did not start")
        yield app, workers
    finally:
        stop(workers)


def tournament_through(app: Celery, config: WorkerConfig, bots: list[str],
                       groups: dict[str, list[subprocess.Popen[bytes]]], args: argparse.Namespace
                       ) -> tuple[float, dict[str, float], list[dict[str, Any]]]:
    """One round robin through the workers, from launch to the final table: its wall time,
    the CPU seconds of each group of processes meanwhile, and its outcomes."""
    tournaments = TournamentStore(Store.from_url(config.redis_url, config.store_prefix))
    schedule = tournament.create(tournaments, args.preset, bots, games=args.games, seed=args.seed,
                                 options=args.options)
    cpu = {name: cpu_seconds(processes) for name, processes in groups.items()}
    began = time.perf_counter()
    tournament.launch(app, tournaments, schedule.tournament_id)
    while tournaments.table(schedule.tournament_id) is None:  # cheap: one GET (progress() parses all)
        time.sleep(0.02)
    wall = time.perf_counter() - began
    used = {name: cpu_seconds(processes) - cpu[name] for name, processes in groups.items()}
    return wall, used, list(tournaments.outcomes(schedule.tournament_id).values())


def through_celery(config: WorkerConfig, bots: list[str], servers: list[subprocess.Popen[bytes]],
                   args: argparse.Namespace, count: int) -> dict[str, object]:
    """The round robin on ``count`` worker processes, from launch to the final table."""
    with celery_workers(config, count) as (app, workers):
        wall, used, outcomes = tournament_through(app, config, bots, {
            "referee": servers[:args.referees], "bots": servers[args.referees:], "workers": workers}, args)
    return {"mode": "celery", **breakdown(count, wall, sum(o["timing"]["referee_s"] for o in outcomes),
                                          sum(o["timing"]["task_s"] for o in outcomes), len(outcomes),
                                          sum(hands(o["result"]) for o in outcomes), used)}


def compare_phase(name: str, fleet: Fleet, app: Celery, workers: list[subprocess.Popen[bytes]],
                  config: WorkerConfig, budgets: CpuBudgets | None, args: argparse.Namespace) -> dict[str, Any]:
    """One phase of ``--compare-referees``: the fleet at one or two referees, then the
    tournament through the workers."""
    referees = 1 if name == "one" else 2
    if fleet.scale(referees) and budgets is not None:
        for index, process in enumerate(fleet.referees[:referees]):
            budgets.place(f"referee{index}", process.pid)
    groups = {f"referee{index}": [process] for index, process in enumerate(fleet.referees[:referees])}
    wall, used, outcomes = tournament_through(app, config, fleet.bots, {
        **groups, "bots": fleet.bot_processes, "workers": workers}, args)
    played = sum(hands(o["result"]) for o in outcomes)
    row: dict[str, Any] = {"phase": name, "matches": len(outcomes), "hands": played, "wall_s": round(wall, 2),
                           "matches_per_min": round(len(outcomes) / wall * 60, 2),
                           "hands_per_s": round(played / wall, 2),
                           "matches_at_once": round(sum(o["timing"]["referee_s"] for o in outcomes) / wall, 2),
                           "cpu_ms_per_hand": {k: round(v / max(1, played) * 1000, 2) for k, v in used.items()}}
    print(f"{name}: {row['matches']} matches ({played} hands) in {row['wall_s']}s = {row['matches_per_min']} "
          f"matches/min, {row['hands_per_s']} hands/s, {row['matches_at_once']} at once; "
          f"cpu ms/hand {row['cpu_ms_per_hand']}", file=sys.stderr)
    return row


def compare_summary(rounds: list[dict[str, dict[str, Any]]]) -> dict[str, Any]:
    """Medians with ranges per phase, and each round's ratios two/one."""

    def spread(values: list[float]) -> dict[str, float]:
        return {"median": round(statistics.median(values), 2), "min": round(min(values), 2),
                "max": round(max(values), 2)}

    report: dict[str, Any] = {}
    for key in ("matches_per_min", "hands_per_s"):
        ratios = [round(r["two"][key] / r["one"][key], 3) for r in rounds]
        report[f"ratio_{key}"] = {**spread(ratios), "rounds": ratios}
    for name in ("one", "two"):
        report[name] = {key: spread([r[name][key] for r in rounds]) for key in ("matches_per_min", "hands_per_s")}
        report[name]["cpu_ms_per_hand"] = {
            group: spread([r[name]["cpu_ms_per_hand"][group] for r in rounds])
            for group in rounds[0][name]["cpu_ms_per_hand"]}
    return report


def compare_referees(redis_url: str, args: argparse.Namespace) -> dict[str, Any]:
    """``--compare-referees``: alternating phases with one and two referees, same bots,
    same workers, same schedule."""
    budgets_or_none = (CpuBudgets(args.referee_cpu, round(args.referee_cpu_period_ms * 1000))
                       if args.referee_cpu is not None else nullcontext())
    env = {"PITCH_FLEET_TTL_S": FLEET_TTL_S}
    with budgets_or_none as budgets, arena(redis_url, args.bot, 2, args.bots, env) as fleet:
        if budgets is not None:
            for index, process in enumerate(fleet.referees):
                budgets.place(f"referee{index}", process.pid)
            budgets.budget(True)
        config = WorkerConfig(redis_url=redis_url, store_prefix=PREFIX, referee=fleet.addresses[0],
                              admin_token=ADMIN, fleet_ttl_s=float(FLEET_TTL_S))
        load_at_start = round(os.getloadavg()[0], 2)
        rounds = []
        with celery_workers(config, args.workers[0]) as (app, workers):
            for index in range(args.rounds):
                order = ("one", "two") if index % 2 == 0 else ("two", "one")
                rounds.append({name: compare_phase(name, fleet, app, workers, config, budgets, args)
                               for name in order})
    return {"preset": args.preset, "options": args.options, "bot": args.bot, "bots": args.bots,
            "workers": args.workers[0], "matches": rounds[0]["one"]["matches"], "referee_cpu": args.referee_cpu,
            "cpus": os.cpu_count(), "load_average_1min_at_start": load_at_start,
            "load_average_1min_at_end": round(os.getloadavg()[0], 2), **compare_summary(rounds), "phases": rounds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="partnership")
    parser.add_argument("--options", type=json.loads, default=None, help="the preset's options, as JSON")
    parser.add_argument("--bot", default="heuristic", help="built-in bot every bot process runs")
    parser.add_argument("--games", type=int, default=1, help="games per match")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--bots", type=int, default=6, help="bot processes (round robin entrants)")
    parser.add_argument("--referees", type=int, default=1, help="referee processes (one fleet; bots on all)")
    parser.add_argument("--compare-referees", action="store_true",
                        help="alternate tournaments on one and two referees in one run (see above)")
    parser.add_argument("--rounds", type=int, default=3, help="with --compare-referees: rounds of both phases")
    parser.add_argument("--referee-cpu", type=float, metavar="CORES",
                        help="with --compare-referees: hold each referee process to this CPU budget (needs root)")
    parser.add_argument("--referee-cpu-period-ms", type=float, default=PERIOD_US / 1000,
                        help="the quota's period (see bench/cpu_limits.py)")
    args = parser.parse_args()
    if args.referee_cpu is not None and not args.compare_referees:
        parser.error("--referee-cpu needs --compare-referees")
    if args.compare_referees:
        with RedisServer() as redis_server:
            print(json.dumps(compare_referees(redis_server.url, args), indent=2))
        return
    report = []
    with RedisServer() as redis_server, arena(redis_server.url, args.bot, args.referees, args.bots) as fleet:
        address, bots, servers = fleet.addresses[0], fleet.bots, fleet.processes
        config = WorkerConfig(redis_url=redis_server.url, store_prefix=PREFIX, referee=address, admin_token=ADMIN)
        for count in args.workers:
            baseline = direct(address, bots, servers, args, count, redis_server.url)
            celery = through_celery(config, bots, servers, args, count)
            celery["ratio_to_direct"] = round(float(celery["hands_per_s"]) /  # type: ignore[arg-type]
                                              float(baseline["hands_per_s"]), 3)  # type: ignore[arg-type]
            report += [baseline, celery]
            for row in (baseline, celery):
                print(f"{row['mode']:>6} x{count}: {row['matches']} matches ({row['hands']} hands) in "
                      f"{row['wall_s']}s = {row['matches_per_min']} matches/min, {row['hands_per_s']} hands/s; "
                      f"referee {row['referee_s']}s, task body {row['task_body_s']}s, dispatch {row['dispatch_s']}s; "
                      f"cpu {row['cpu_s']}", file=sys.stderr)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
