"""From a submission to its verdict: how long the arena takes, by itself, to say whether a
new version of a hosted bot beats the one before it, and what another author's burst of
submissions costs that answer.

Processes, all on loopback and all real: a private Redis, a referee, a bot host (every
version in its bubblewrap sandbox) and a Celery worker (``pitch-arena worker``, whose
supervisor starts the automatic SPRTs: :mod:`competitions.version_tests`), with the
arena's default SPRT settings (partnership, [0, 10] normalized Elo, 5%/5%, cap 2000).
Versions are submitted straight to Redis (the API's per-account submission limit would
refuse a burst; ``bench/hosted_bots.py`` times the upload itself).

1. *Alone* (``--rounds``): an author's bot runs a weak version (the random bot); the author
   submits a clearly stronger one (the heuristic bot).  Timed from the submission: the
   test's start (the host started the new version beside the old one, its hello listed it,
   the supervisor's next sweep started the run) and its verdict, with the games it took.
2. *Beside a burst* (``--burst N``): another author's N bots run their weak versions, and
   that author submits N stronger ones at once, just before the first author submits one.
   The first author's submission-to-verdict time against the alone rounds' median says
   what the burst cost it (the scheduler runs one test per author at a time, so the burst
   queues behind itself).

Run: ``.venv/bin/python bench/version_verdict.py [--rounds 3] [--burst 10] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli.local_arena import LocalArena, Service, wait_for
from competitions.config import WorkerConfig
from competitions.referee_client import RefereeClient
from competitions.sprt.store import SprtStore
from hosting.identity import DEFAULT_UID_BASE, SLOTS, UID_BASE_VARIABLE
from pitch_sdk.packages.archive import pack
from store.artifacts import FileArtifacts
from store.fleet import FleetDirectory
from store.hosted import HostedVersions
from store.redis_store import Store
from store.seat_keys import seat_key
from store.version_tests import VersionTestStore

PREFIX = "bench-verdict:"
ADMIN = "bench-verdict-admin"
WEAK = "from pitch_sdk.bots.random_bot import RandomBot as Bot\n"
STRONG = "from pitch_sdk.bots.heuristic import HeuristicBot as Bot\n"
MANIFEST = json.dumps({"bot": "bot.py:Bot"})
BIN = Path(sys.executable).parent
UID_BASE = DEFAULT_UID_BASE + 95 * SLOTS
"""The bench host's sandbox uids, apart from those of test runs sharing the machine."""


class Bench:
    """The arena's processes and the driver's clients."""

    def __init__(self, arena: LocalArena, work: Path, slots: int, sweep_s: float) -> None:
        self.arena = arena
        redis_url = arena.start_redis()
        self.store = Store.from_url(redis_url, PREFIX)
        self.versions = HostedVersions(self.store)
        self.tests = VersionTestStore(self.store)
        self.sprts = SprtStore(self.store)
        self.directory = FleetDirectory(self.store)
        artifacts_dir = work / "artifacts"
        self.artifacts = FileArtifacts(artifacts_dir)
        common = {"PITCH_ARTIFACTS_DIR": str(artifacts_dir), "PITCH_DATA_DIR": str(work / "data")}
        self.referee = arena.start_referee(redis_url, PREFIX, ADMIN, common)
        self.client = RefereeClient(self.referee, ADMIN, match_timeout_s=120)
        host_env = {**common, "REDIS_URL": redis_url, "PITCH_STORE_PREFIX": PREFIX, "PITCH_REFEREE": self.referee,
                    "PITCH_HOST_ID": "bench-host", "PITCH_HOST_DIR": str(work / "host"),
                    UID_BASE_VARIABLE: os.environ.get(UID_BASE_VARIABLE, str(UID_BASE))}
        arena.services.append(Service("bot-host", [str(BIN / "pitch-arena"), "bot-host", "--slots", str(slots)],
                                      host_env, arena.log_dir))
        config = WorkerConfig(redis_url=redis_url, store_prefix=PREFIX, referee=self.referee, admin_token=ADMIN,
                              requeue_interval_s=sweep_s)
        arena.start_worker(config, "worker", concurrency=2)
        self.packages = {"weak": self._package(work, "weak", WEAK), "strong": self._package(work, "strong", STRONG)}

    def _package(self, work: Path, name: str, source: str) -> str:
        folder = work / name
        folder.mkdir()
        (folder / "bot.py").write_text(source)
        (folder / "pitch-bot.json").write_text(MANIFEST)
        return self.artifacts.put(pack(folder))

    def bot(self, name: str, owner: str) -> str:
        """A new bot of ``owner`` running its weak version "1" (once connected): its id."""
        bot_id = self.client.register(name, owner=owner).bot_id
        self.versions.add(bot_id, "1", self.packages["weak"], MANIFEST, owner)
        return bot_id

    def submit_strong(self, bot_id: str) -> float:
        """Submit the stronger version "2" of ``bot_id``; when."""
        self.versions.add(bot_id, "2", self.packages["strong"], MANIFEST, "bench")
        return time.perf_counter()

    def connected(self, seats: list[str]) -> bool:
        """Whether each seat (a bot's version) has a stream to the referee."""
        return set(seats) <= self.directory.connected_bots(versions=True)

    def wait(self, condition: Callable[[], bool], timeout: float, what: str) -> float:
        wait_for(condition, timeout, what, self.arena.services)
        return time.perf_counter()

    def verdict(self, bot_id: str, submitted: float, timeout: float) -> dict[str, Any]:
        """Wait for the automatic test of ``bot_id``'s version 2 and its verdict; timed from
        ``submitted``."""
        seat = seat_key(bot_id, "2")
        started = self.wait(lambda: (t := self.tests.test_of(seat)) is not None and bool(t.run_id), timeout,
                            f"the test of {seat} to start")
        test = self.tests.test_of(seat)
        assert test is not None
        decided = self.wait(lambda: self.sprts.verdict(test.run_id) is not None, timeout,
                            f"the verdict of {test.run_id}")
        verdict = self.sprts.verdict(test.run_id) or {}
        return {"start_s": started - submitted, "verdict_s": decided - submitted, "games": verdict.get("games"),
                "verdict": verdict.get("verdict"), "llr": verdict.get("llr")}


def spread(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 2), "min": round(min(values), 2),
            "max": round(max(values), 2)}


def alone(bench: Bench, rounds: int, timeout: float) -> list[dict[str, Any]]:
    results = []
    for number in range(rounds):
        bot_id = bench.bot(f"alone-{number}", "author-a")
        bench.wait(lambda b=bot_id: bench.connected([seat_key(b, "1")]), timeout, "the weak version")
        submitted = bench.submit_strong(bot_id)
        results.append(bench.verdict(bot_id, submitted, timeout))
        print(f"alone {number}: {results[-1]}", file=sys.stderr)
    return results


def beside_burst(bench: Bench, burst: int, timeout: float) -> dict[str, Any]:
    others = [bench.bot(f"burst-{number}", "author-b") for number in range(burst)]
    mine = bench.bot("beside-burst", "author-a")
    bench.wait(lambda: bench.connected([seat_key(b, "1") for b in [*others, mine]]), timeout, "the weak versions")
    for bot_id in others:
        bench.submit_strong(bot_id)
    submitted = bench.submit_strong(mine)
    result = bench.verdict(mine, submitted, timeout)
    running = sum(1 for test in bench.tests.open_tests() if test.owner == "operator:author-b")
    print(f"beside a burst of {burst}: {result}, author-b tests running at the verdict: {running}", file=sys.stderr)
    return result | {"burst": burst, "burst_tests_running": running}


def run(rounds: int, burst: int, timeout: float, sweep_s: float) -> dict[str, Any]:
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-verdict-") as folder, LocalArena(Path(folder)) as arena:
        bench = Bench(arena, Path(folder), slots=2 * (rounds + burst + 1) + 2, sweep_s=sweep_s)
        solo = alone(bench, rounds, timeout)
        report: dict[str, Any] = {"alone": solo, "alone_verdict_s": spread([r["verdict_s"] for r in solo]),
                                  "alone_games": spread([float(r["games"]) for r in solo])}
        if burst:
            crowded = beside_burst(bench, burst, timeout)
            report["beside_burst"] = crowded
            report["burst_cost"] = round(crowded["verdict_s"] / report["alone_verdict_s"]["median"], 2)
    return report | {"cores": os.cpu_count(), "load_average": [round(load_before, 1), round(os.getloadavg()[0], 1)],
                     "sweep_s": sweep_s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="submissions timed alone")
    parser.add_argument("--burst", type=int, default=10, help="the other author's burst (0: none)")
    parser.add_argument("--timeout", type=float, default=900.0, help="the longest wait for one verdict")
    parser.add_argument("--sweep-s", type=float, default=10.0,
                        help="the workers' sweep interval (PITCH_REQUEUE_INTERVAL_S, default 10 s)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args()
    report = run(args.rounds, args.burst, args.timeout, args.sweep_s)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    alone_s = report["alone_verdict_s"]
    print(f"alone: submission to verdict {alone_s['median']} s (range {alone_s['min']}-{alone_s['max']}), "
          f"games {report['alone_games']['median']:.0f} (range {report['alone_games']['min']:.0f}-"
          f"{report['alone_games']['max']:.0f}), verdicts {[r['verdict'] for r in report['alone']]}")
    if "beside_burst" in report:
        crowded = report["beside_burst"]
        print(f"beside a burst of {crowded['burst']} from another author: {crowded['verdict_s']:.1f} s "
              f"({report['burst_cost']}x the median alone), {crowded['games']} games")


if __name__ == "__main__":
    main()
