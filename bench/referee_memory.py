"""Referee memory over thousands of matches: does it level off?

An outside audit saw a referee's resident memory grow by about 0.3 MB a match (64 -> 139 MB
over 228 matches).  This runs a real referee process (a private Redis, ``pitch-arena
referee``) and plays ``--matches`` short matches through ArenaService.RunMatch,
``--concurrency`` at a time, between four SDK bot clients (the built-in ``heuristic`` bot,
in this process: random bots play games of hundreds of hands), and samples the referee's
resident set size (``VmRSS`` in ``/proc/PID/status``) every ``--every`` matches.

The baseline is the referee's own memory once warm, measured in the same run: the sample
after the first ``--warmup`` matches (by then the referee's bounded keeps, such as the last
``finished_matches_kept`` finished matches for spectators, are full).  It reports every
sample, the growth per 1,000 matches over the first and the last third of the samples after
warm-up, and the final RSS as a ratio of the warm one: a referee that keeps something per
match grows linearly (the last third as steep as the first); one whose keeps are bounded
levels off (the last third flat).

Run: ``.venv/bin/python bench/referee_memory.py [--matches 3000] [--concurrency 8]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc

from cli.local_arena import LocalArena
from competitions.referee_client import RefereeClient
from pitch_sdk.bots import load_bot
from pitch_sdk.proto.pitch.v1 import arena_pb2, arena_pb2_grpc
from pitch_sdk.remote.client import BotClient

ADMIN = "memory-bench-admin"
SEATS = 4


def rss_mb(pid: int) -> float:
    """Resident set size of process ``pid`` in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def slope_per_1000(samples: list[tuple[int, float]]) -> float:
    """Least-squares growth in MB per 1,000 matches of ``(matches, MB)`` samples."""
    if len(samples) < 2:
        return 0.0
    xs, ys = [m for m, _ in samples], [mb for _, mb in samples]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    spread = sum((x - mx) ** 2 for x in xs)
    return 1000 * sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / spread if spread else 0.0


async def _play(address: str, bots: list[str], matches: int, concurrency: int, every: int,
                sample: Any) -> None:
    channel = grpc.aio.insecure_channel(address)
    stub = arena_pb2_grpc.ArenaServiceStub(channel)
    metadata = (("authorization", f"Bearer {ADMIN}"),)
    queue: asyncio.Queue[int] = asyncio.Queue()
    for number in range(matches):
        queue.put_nowait(number)
    done = 0

    async def runner() -> None:
        nonlocal done
        while not queue.empty():
            number = queue.get_nowait()
            await stub.RunMatch(arena_pb2.RunMatchRequest(  # type: ignore[misc]
                preset="partnership", options_json='{"target": 1}', seat_bot_ids=bots, seed=number, games=1,
                match_id=f"memory-{number}"), metadata=metadata, timeout=120)
            done += 1
            if done % every == 0:
                sample(done)

    await asyncio.gather(*(runner() for _ in range(concurrency)))
    await channel.close()


async def _bench(address: str, bots: list[tuple[str, str]], args: argparse.Namespace, sample: Any) -> None:
    """Connect the bots (SDK clients on this loop), play every match, disconnect."""
    stop = asyncio.Event()
    clients = [BotClient(lambda: load_bot("heuristic"), address, token, capacity=args.concurrency, seed=i)
               for i, (_, token) in enumerate(bots)]
    tasks = [asyncio.create_task(client.run(stop)) for client in clients]
    await asyncio.wait_for(asyncio.gather(*(client.connected.wait() for client in clients)), timeout=30)
    await _play(address, [bot_id for bot_id, _ in bots], args.matches, args.concurrency, args.every, sample)
    stop.set()
    await asyncio.wait(tasks, timeout=15)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=3000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--every", type=int, default=250, help="matches between two samples")
    parser.add_argument("--warmup", type=int, default=500, help="matches before the warm baseline")
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pitch-memory-bench-") as logs, LocalArena(Path(logs)) as arena:
        redis_url = arena.start_redis()
        address = arena.start_referee(redis_url, "memory:", ADMIN, {"PITCH_SHUTDOWN_GRACE_S": "1"})
        referee_pid = arena.services[-1].process.pid
        admin = RefereeClient(address, ADMIN, match_timeout_s=60)
        tokens = [admin.register(f"heuristic-{seat}") for seat in range(SEATS)]
        samples: list[tuple[int, float]] = [(0, rss_mb(referee_pid))]
        began = time.monotonic()
        asyncio.run(_bench(address, [(t.bot_id, t.token) for t in tokens], args,
                           lambda done: samples.append((done, rss_mb(referee_pid)))))
        seconds = time.monotonic() - began
    warm = [s for s in samples if s[0] >= args.warmup]
    third = max(2, len(warm) // 3)
    report = {
        "matches": args.matches, "concurrency": args.concurrency, "seconds": round(seconds, 1),
        "samples_mb": [[m, round(mb, 1)] for m, mb in samples],
        "warm_mb": round(warm[0][1], 1) if warm else None, "final_mb": round(samples[-1][1], 1),
        "final_over_warm": round(samples[-1][1] / warm[0][1], 3) if warm else None,
        "growth_mb_per_1000_first_third": round(slope_per_1000(warm[:third]), 2),
        "growth_mb_per_1000_last_third": round(slope_per_1000(warm[-third:]), 2),
    }
    if args.json:
        print(json.dumps(report))
        return
    print(f"{args.matches} matches in {seconds:.0f}s, {args.concurrency} at a time; "
          "referee RSS (MB) by matches played:")
    for matches, mb in samples:
        print(f"  {matches:>6}  {mb:7.1f}")
    print(f"warm (after {args.warmup}): {report['warm_mb']} MB; final {report['final_mb']} MB "
          f"({report['final_over_warm']}x warm); growth per 1,000 matches: first third "
          f"{report['growth_mb_per_1000_first_third']} MB, last third {report['growth_mb_per_1000_last_third']} MB")


if __name__ == "__main__":
    main()
