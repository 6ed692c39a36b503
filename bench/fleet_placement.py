"""Placement reads at 1, 10 and 100 referees: the per-referee scan against the bots' index.

What a worker pays per match to place it (:meth:`store.fleet.FleetDirectory.place`),
three ways, in interleaved rounds on one private Redis (loopback):

* ``scan`` - the read placement made before the bots' index (kept here as the baseline):
  the live entries (``ZRANGEBYSCORE`` + one ``HGETALL`` per referee), the claim's holder,
  and each seat's membership in every referee's set of bots (one ``SMISMEMBER`` per
  referee): 2R + 2 commands in 3 round trips;
* ``index`` - ``place`` reading the live list every call: the live entries, then one
  script over the seats' ``fleet:bot:{id}`` sets (R + 2 commands, 2 round trips);
* ``index+cache`` - ``place`` as the Celery worker runs it, with the live list cached for
  a sixth of the TTL: one script call per match.

Each fleet's referees all list the match's four bots among 100 others (every bot on every
referee, the arena's design (a)).  Per way and fleet size: median wall time of a call,
the worker's CPU per call (``time.process_time``), the commands Redis ran per call
(``INFO commandstats``: a script and each command it calls) and the Redis process's CPU
per call (``INFO cpu``); medians over the rounds, with their range, and the ratio of
``scan``'s wall time to each way's within each round.  Every way must give the same placement.

Run: ``.venv/bin/python bench/fleet_placement.py [--rounds 5] [--calls 200]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import redis

from store.fleet import FleetDirectory, RefereeEntry
from store.redis_server import RedisServer
from store.redis_store import Store

BOTS = [f"bot-{n}" for n in range(4)]
OTHERS = [f"other-{n}" for n in range(100)]
TTL_S = 10.0


def scan_place(fleet: FleetDirectory, match_id: str, bot_ids: Sequence[str]) -> list[RefereeEntry]:
    """The placement read before the bots' index: every referee's membership of every seat."""
    entries = fleet.live()
    holder = fleet.holder(match_id)
    wanted = sorted(set(bot_ids))
    pipe = fleet.client.pipeline(transaction=False)
    for entry in entries:
        pipe.smismember(fleet.key("bots", entry.referee_id), wanted)
    streams = {entry.referee_id: {b for b, here in zip(wanted, present, strict=True) if here}
               for entry, present in zip(entries, pipe.execute(), strict=True)}
    if not entries or set(bot_ids) - set[str]().union(*streams.values()):
        return []

    def rank(entry: RefereeEntry) -> tuple[int, int, int, str]:
        return (-sum(1 for b in bot_ids if b in streams[entry.referee_id]), entry.running, -entry.room,
                entry.referee_id)

    running = [entry for entry in entries if entry.referee_id == holder]
    return running + sorted((e for e in entries if e.room > 0 and e.referee_id != holder), key=rank)


def command_totals(client: redis.Redis) -> tuple[int, float]:
    """Redis's count of commands run (inside scripts too) and its process's CPU seconds."""
    stats = client.info("commandstats")
    cpu = client.info("cpu")
    return (sum(int(v["calls"]) for v in stats.values()),
            float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"]))


def measure(client: redis.Redis, place: Callable[[str], object], calls: int) -> dict[str, float]:
    """One way's figures over ``calls`` placements of new match ids."""
    place(uuid.uuid4().hex)  # load the script, fill the cache
    walls = []
    commands_before, redis_cpu_before = command_totals(client)
    cpu_before = time.process_time()
    for _ in range(calls):
        began = time.perf_counter()
        place(uuid.uuid4().hex)
        walls.append(time.perf_counter() - began)
    cpu = time.process_time() - cpu_before
    commands_after, redis_cpu_after = command_totals(client)
    return {"wall_us": statistics.median(walls) * 1e6, "cpu_us": cpu / calls * 1e6,
            "commands": (commands_after - commands_before - 2) / calls,  # less the two INFOs
            "redis_cpu_us": (redis_cpu_after - redis_cpu_before) / calls * 1e6}


def fleet_of(url: str, size: int) -> tuple[FleetDirectory, FleetDirectory]:
    """A fleet of ``size`` referees, every one listing every bot: its directory read every
    call, and one that caches the live list as a worker does."""
    store = Store.from_url(url, f"placement-{size}-{uuid.uuid4().hex[:6]}:")
    fleet = FleetDirectory(store, TTL_S)
    beat(fleet, size, BOTS + OTHERS)
    return fleet, FleetDirectory(store, TTL_S, live_cache_s=TTL_S / 6)


def beat(fleet: FleetDirectory, size: int, bots: list[str] | None = None) -> None:
    """Every referee's heartbeat (the fleet stays live however long the rounds take)."""
    for index in range(size):
        fleet.announce(f"referee-{index:03d}", f"10.0.{index // 250}.{index % 250}:50051", 256, index % 7, bots)


def spread(values: list[float], digits: int = 1) -> dict[str, float]:
    return {"median": round(statistics.median(values), digits), "min": round(min(values), digits),
            "max": round(max(values), digits)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds of the three ways")
    parser.add_argument("--calls", type=int, default=200, help="placements per way and round")
    parser.add_argument("--sizes", type=int, nargs="*", default=[1, 10, 100], help="fleet sizes (referees)")
    args = parser.parse_args()
    report: dict[str, Any] = {"cpus": os.cpu_count(), "load_average_1min_at_start": round(os.getloadavg()[0], 2)}
    with RedisServer() as server:
        client = redis.Redis.from_url(server.url, decode_responses=True)
        for size in args.sizes:
            fleet, cached = fleet_of(server.url, size)
            ways: dict[str, Callable[[str], object]] = {
                "scan": lambda match_id, f=fleet: scan_place(f, match_id, BOTS),
                "index": lambda match_id, f=fleet: f.place(match_id, BOTS),
                "index+cache": lambda match_id, f=cached: f.place(match_id, BOTS)}
            placed = {name: [e.referee_id for e in place("m-check")] for name, place in ways.items()}  # type: ignore[attr-defined]
            assert len({tuple(order) for order in placed.values()}) == 1, placed
            rounds: list[dict[str, dict[str, float]]] = []
            for index in range(args.rounds):
                names = list(ways) if index % 2 == 0 else list(reversed(ways))
                figures = {}
                for name in names:
                    beat(fleet, size)
                    figures[name] = measure(client, ways[name], args.calls)
                rounds.append(figures)
            report[f"referees_{size}"] = {
                name: {**{key: spread([r[name][key] for r in rounds]) for key in rounds[0][name]},
                       "scan_over_this_wall_per_round": [round(r["scan"]["wall_us"] / r[name]["wall_us"], 2)
                                                         for r in rounds]}
                for name in ways}
    report["load_average_1min_at_end"] = round(os.getloadavg()[0], 2)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
