"""Tournament throughput: matches per minute of a 6-bot round robin through Celery workers.

Every part is real and on loopback: a private redis-server, a referee process, six
(``--bots``) ``pitch-bot run`` bot processes and ``celery -A workers.celery.app worker`` processes (one
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
all; ``direct`` places each match through the fleet directory as the workers do), so runs
with ``--referees 1`` and ``--referees 2`` compare matches per minute with one and two
referees (separate runs: alternate them).

Run: ``.venv/bin/python bench/tournament_throughput.py [--preset partnership] [--bot heuristic]
[--games 1] [--workers 1 2] [--referees 1]``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc

from pitch_sdk.proto.pitch.v1 import arena_pb2, arena_pb2_grpc
from workers.celery.app import make_app
from workers.config import WorkerConfig
from workers.processes.redis_server import RedisServer
from workers.processes.services import free_port
from workers.referee_client import FleetReferees
from workers.storage.fleet import FleetDirectory
from workers.storage.store import Store
from workers.tournaments import control as tournament
from workers.tournaments.schedule import round_robin
from workers.tournaments.store import TournamentStore

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
ADMIN = "bench-admin"
PREFIX = "bench:"



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


@contextmanager
def arena(redis_url: str, bot: str, referees: int = 1, count: int = 6
          ) -> Iterator[tuple[str, list[str], list[subprocess.Popen[bytes]]]]:
    """``referees`` referee processes (one fleet) and ``count`` bot processes connected to
    every one of them; the first referee's address, bot ids, processes (the referees first)."""
    addresses = [f"127.0.0.1:{free_port()}" for _ in range(referees)]
    address = addresses[0]
    processes = [spawn([sys.executable, "-m", "referee", "--address", each],
                       {"REDIS_URL": redis_url, "PITCH_ADMIN_TOKEN": ADMIN, "PITCH_STORE_PREFIX": PREFIX})
                 for each in addresses]
    directory = FleetDirectory(Store.from_url(redis_url, PREFIX))
    try:
        with grpc.insecure_channel(address) as channel:
            grpc.channel_ready_future(channel).result(timeout=30)
            admin = arena_pb2_grpc.ArenaServiceStub(channel)
            metadata = (("authorization", f"Bearer {ADMIN}"),)
            bots = []
            for i in range(count):
                registered = admin.RegisterBot(arena_pb2.RegisterBotRequest(name=f"{bot}-{i}"), metadata=metadata)
                bots.append(registered.bot_id)
                processes.append(spawn([str(BIN / "pitch-bot"), "run", bot, "--referee", address, "--seed", str(i)],
                                       {"PITCH_BOT_TOKEN": registered.token}))
            deadline = time.monotonic() + 60
            while len(directory.hosting(bots)) < referees:
                if time.monotonic() > deadline:
                    raise RuntimeError("the bots did not connect to every referee")
                time.sleep(0.1)
        yield address, bots, processes
    finally:
        stop(processes[referees:])
        stop(processes[:referees])


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
    schedule = round_robin(f"direct{concurrency}-{os.getpid()}", bots, args.preset, games=args.games, seed=args.seed)
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


def through_celery(config: WorkerConfig, bots: list[str], servers: list[subprocess.Popen[bytes]],
                   args: argparse.Namespace, count: int) -> dict[str, object]:
    """The round robin on ``count`` worker processes, from launch to the final table."""
    tournaments = TournamentStore(Store.from_url(config.redis_url, config.store_prefix))
    app = make_app(config)
    workers = [spawn([str(BIN / "celery"), "-A", "workers.celery.app", "worker", "--pool=prefork", "--concurrency=1",
                      "--loglevel=WARNING", "-n", f"bench{i}@%h", "--without-gossip", "--without-mingle",
                      "--without-heartbeat"], config.to_env()) for i in range(count)]
    try:
        deadline = time.monotonic() + 60
        while len(app.control.ping(timeout=0.5)) < count:
            if time.monotonic() > deadline:
                raise RuntimeError("the workers did not start")
        schedule = tournament.create(tournaments, args.preset, bots, games=args.games, seed=args.seed)
        cpu = cpu_seconds(servers[:args.referees]), cpu_seconds(servers[args.referees:]), cpu_seconds(workers)
        began = time.perf_counter()
        tournament.launch(app, tournaments, schedule.tournament_id)
        while tournaments.table(schedule.tournament_id) is None:  # cheap: one GET (progress() parses all)
            time.sleep(0.02)
        wall = time.perf_counter() - began
        used = {"referee": cpu_seconds(servers[:args.referees]) - cpu[0],
                "bots": cpu_seconds(servers[args.referees:]) - cpu[1], "workers": cpu_seconds(workers) - cpu[2]}
    finally:
        stop(workers)
    outcomes = list(tournaments.outcomes(schedule.tournament_id).values())
    return {"mode": "celery", **breakdown(count, wall, sum(o["timing"]["referee_s"] for o in outcomes),
                                          sum(o["timing"]["task_s"] for o in outcomes), len(schedule.matches),
                                          sum(hands(o["result"]) for o in outcomes), used)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="partnership")
    parser.add_argument("--bot", default="heuristic", help="built-in bot every bot process runs")
    parser.add_argument("--games", type=int, default=1, help="games per match")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--bots", type=int, default=6, help="bot processes (round robin entrants)")
    parser.add_argument("--referees", type=int, default=1, help="referee processes (one fleet; bots on all)")
    args = parser.parse_args()
    report = []
    with RedisServer() as redis_server, arena(redis_server.url, args.bot, args.referees, args.bots) as (
            address, bots, servers):
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
