"""``bench/tournament_throughput.py --compare-referees`` still runs and reports what
docs/fleet.md quotes: one round of the same six-match schedule through the same Celery
workers on one referee and then on two (the second started again), with the ratios taken
within the round.  Figures are machine-dependent and not asserted.  Slow (a Redis, two
referees, four bots and two workers as processes), so marked ``slow``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_tournament_bench_compares_one_and_two_referees_on_the_same_schedule_in_one_run() -> None:
    run = subprocess.run(
        [sys.executable, "bench/tournament_throughput.py", "--compare-referees", "--rounds", "1", "--bot", "heuristic",
         "--bots", "4", "--workers", "2", "--options", '{"target": 5}'],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]  # what the bench said when it failed (it failed once in a full run)
    report = json.loads(run.stdout)
    (played,) = report["phases"]
    one, two = played["one"], played["two"]
    assert one["matches"] == two["matches"] == report["matches"] == 6  # 4 bots in partnership: 3 pairings x 2
    assert one["hands"] == two["hands"] > 0  # heuristic bots on the same deals play the same games
    assert set(one["cpu_ms_per_hand"]) == {"referee0", "bots", "workers"}
    assert set(two["cpu_ms_per_hand"]) == {"referee0", "referee1", "bots", "workers"}
    for key in ("matches_per_min", "hands_per_s"):
        assert report[f"ratio_{key}"]["rounds"] == [pytest.approx(two[key] / one[key], rel=0.01)]
        assert report["one"][key]["median"] == one[key]
