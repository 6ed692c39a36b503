"""The fleet-wide seat ledger's cost per match start: what a referee pays in Redis to take
a match's seats before it starts and give them back when it ends
(:class:`store.seats.SeatLedger`), against the match claim and release it already
paid per match (:meth:`store.fleet.FleetDirectory.claim` and ``release``), in
the same run, interleaved call by call.

A private Redis; fleets of ``--sizes`` live referees; the match's four bots are connected
to every referee (the calling referee knows their capacity from its own streams) and
already play ``--running`` matches spread over the referees (each bot's seats hash holds
that many fields, on as many referees, whose liveness the take asks).  Per fleet size and round: the median
microseconds of ``--calls`` claim+release pairs and of as many take+release pairs,
alternated; the report gives the medians over the rounds with their range, the ratio
seats/claim per round, and, from Redis's ``INFO commandstats``, the client commands per
take+release (round trips: each script is one ``EVALSHA``), the commands the scripts run
inside Redis, and Redis's own time in both scripts per match start (``usec`` of
``EVALSHA`` over ``--calls`` more take+release: the server's CPU, without the network and
the client).

Run: ``.venv/bin/python bench/fleet_seats.py [--sizes 1 10 100] [--rounds 5] [--calls 200]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import uuid
from collections.abc import Callable
from typing import Any

from store.fleet import FleetDirectory
from store.redis_server import RedisServer
from store.redis_store import Store
from store.seats import SeatLedger, SeatNeed

BOTS = [f"bot-{n}" for n in range(4)]
CAPACITY = 256


def fleet_of(redis_url: str, size: int, running: int) -> tuple[FleetDirectory, SeatLedger]:
    """A directory of ``size`` live referees, every bot connected to each, the bots already
    seated in ``running`` matches spread over the referees."""
    directory = FleetDirectory(Store.from_url(redis_url, f"seats-bench-{size}-{uuid.uuid4().hex[:6]}:"))
    declared = dict.fromkeys(BOTS, CAPACITY)
    for index in range(size):
        directory.announce(f"referee-{index}", f"10.0.0.{index % 250}:50051", 256, 0, BOTS, [], declared)
    ledger = SeatLedger(directory)
    for match in range(running):
        refused = ledger.take(f"referee-{match % size}", f"running-{match}",
                              {bot: SeatNeed(1, CAPACITY) for bot in BOTS})
        assert refused is None, refused
    return directory, ledger


def alternated(first: Callable[[], object], second: Callable[[], object], calls: int) -> tuple[float, float]:
    """Median microseconds of ``calls`` calls of each, alternated call by call."""
    samples: tuple[list[float], list[float]] = ([], [])
    for _ in range(calls):
        for operation, kept in ((first, samples[0]), (second, samples[1])):
            began = time.perf_counter()
            operation()
            kept.append(time.perf_counter() - began)
    return statistics.median(samples[0]) * 1e6, statistics.median(samples[1]) * 1e6


def commands(directory: FleetDirectory, field: str = "calls") -> dict[str, int]:
    """Calls per command so far, or their microseconds in Redis (``INFO commandstats``)."""
    stats = directory.client.info("commandstats")
    return {name.removeprefix("cmdstat_"): int(values[field]) for name, values in stats.items()}


def spread(values: list[float], digits: int = 1) -> dict[str, float]:
    return {"median": round(statistics.median(values), digits), "min": round(min(values), digits),
            "max": round(max(values), digits)}


def measure(redis_url: str, size: int, running: int, rounds: int, calls: int) -> dict[str, Any]:
    directory, ledger = fleet_of(redis_url, size, running)
    needs = {bot: SeatNeed(1, CAPACITY) for bot in BOTS}

    def claim_and_release() -> None:
        match_id = uuid.uuid4().hex
        directory.release(match_id, directory.claim(match_id, "referee-0"))

    def take_and_release() -> None:
        match_id = uuid.uuid4().hex
        assert ledger.take("referee-0", match_id, needs) is None
        ledger.release("referee-0", match_id, BOTS)

    take_and_release()  # loads the scripts
    before = commands(directory)
    take_and_release()
    after = commands(directory)
    delta = {name: calls - before.get(name, 0) for name, calls in after.items() if calls != before.get(name, 0)}
    delta.pop("info", None)
    claims, seats, ratios = [], [], []
    for _ in range(rounds):
        claim_us, seats_us = alternated(claim_and_release, take_and_release, calls)
        claims.append(claim_us)
        seats.append(seats_us)
        ratios.append(round(seats_us / claim_us, 2))
    usec_before = commands(directory, "usec").get("evalsha", 0)
    for _ in range(calls):
        take_and_release()
    redis_us = (commands(directory, "usec").get("evalsha", 0) - usec_before) / calls
    return {"referees": size, "running_matches": running, "claim_release_us": spread(claims),
            "seats_take_release_us": spread(seats), "ratios_seats_to_claim": ratios,
            "round_trips_per_match": delta.get("evalsha", 0) + delta.get("eval", 0),
            "redis_us_per_match_start": round(redis_us, 1),
            "commands_inside_scripts": {k: v for k, v in sorted(delta.items()) if k not in ("evalsha", "eval")}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="*", default=[1, 10, 100], help="live referees in the fleet")
    parser.add_argument("--running", type=int, default=16, help="matches the bots already play")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=200, help="calls of each operation per round")
    args = parser.parse_args()
    with RedisServer() as redis_server:
        report = {"cpus": os.cpu_count(), "load_average_1min": round(os.getloadavg()[0], 2),
                  "fleets": [measure(redis_server.url, size, args.running, args.rounds, args.calls)
                             for size in args.sizes]}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
