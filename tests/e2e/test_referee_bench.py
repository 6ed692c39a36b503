"""The referee throughput benchmark still runs and reports what the README quotes.

A short run (one round of half-second phases at 1 and 4 matches) of
``bench/referee_throughput.py`` as the README gives it: a referee and an echo server as
processes, real bots over loopback.  The figures themselves are machine-dependent and are
not asserted; that every phase made progress and every ratio is its round's quotient is.
Slow (two servers start), so marked ``slow``; CI runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_referee_bench_reports_both_echo_layouts_and_every_phase() -> None:
    run = subprocess.run(
        [sys.executable, "bench/referee_throughput.py", "--concurrency", "1", "4", "--rounds", "1",
         "--seconds", "0.5"], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    report = json.loads(run.stdout)
    assert [entry["concurrency"] for entry in report] == [1, 4]
    for entry in report:
        assert entry["payload_bytes"] > 100  # requests carry an observation and legal actions
        assert entry["echo_layout"] == f"4 streams taking turns, {entry['concurrency']} message(s) in flight in all"
        rates = [entry["echo_round_trips_per_s"], entry["referee_decisions_per_s"],
                 entry["referee_batching_decisions_per_s"], entry["echo_per_match"]["round_trips_per_s"]]
        assert all(rate > 0 for rate in rates)
        assert entry["ratios"] == [pytest.approx(entry["ratio"], abs=1e-9)]
        assert entry["ratio"] == pytest.approx(entry["referee_decisions_per_s"] / entry["echo_round_trips_per_s"],
                                               rel=0.01, abs=0.002)
        assert all(cpu > 0 for cpu in entry["cpu_us_per_decision"].values())
