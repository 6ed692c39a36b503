"""The referee memory benchmark still runs and reports what the README quotes: a short run
(a referee process, four SDK bots, a few dozen matches).  The figures are machine-dependent
and not asserted; the report's shape and its arithmetic are.  Slow, so marked ``slow``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_memory_bench_samples_the_referee_and_reports_its_growth() -> None:
    run = subprocess.run(
        [sys.executable, "bench/referee_memory.py", "--matches", "40", "--every", "10", "--warmup", "10",
         "--concurrency", "4", "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300, check=True)
    report = json.loads(run.stdout)
    assert [matches for matches, _ in report["samples_mb"]] == [0, 10, 20, 30, 40]
    assert all(mb > 10 for _, mb in report["samples_mb"])  # a real process's resident set
    assert report["warm_mb"] == report["samples_mb"][1][1] and report["final_mb"] == report["samples_mb"][-1][1]
    assert abs(report["final_over_warm"] - report["final_mb"] / report["warm_mb"]) < 0.01
    assert {"growth_mb_per_1000_first_third", "growth_mb_per_1000_last_third"} <= set(report)
