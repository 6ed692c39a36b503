"""The ranking benchmarks still run and report what the README quotes: short runs (engine
only, no servers).  The figures are machine- and seed-dependent and not asserted; the
report's shape and its arithmetic are.  Slow, so marked ``slow``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300, check=True)
    report: dict[str, object] = json.loads(done.stdout)
    return report


def test_ladder_bench_measures_a_curve_and_compares_three_methods() -> None:
    report = _run("bench/ladder_convergence.py", "--seeds", "1", "--calibration-pairs", "2", "--cap", "6000")
    curve = report["strength_curve_elo_vs_noise_0.3"]
    assert isinstance(curve, dict) and curve["0.3"] == 0.0 and len(curve) == 7
    methods = {name: report[name] for name in ("ladder", "round-robin", "random")}
    for name, result in methods.items():
        assert isinstance(result, dict)
        matches = result["matches"]
        assert isinstance(matches, list) and len(matches) == 1, name
        if matches[0] is not None:
            assert 32 <= matches[0] <= 6000 and result["median"] == matches[0]
    ladder, rr = methods["ladder"], methods["round-robin"]
    assert isinstance(ladder, dict) and isinstance(rr, dict)
    if ladder["median"] and rr["median"]:
        assert rr["ratio_to_ladder"] == round(rr["median"] / ladder["median"], 2)


def test_duplicate_deals_bench_plays_both_modes() -> None:
    report = _run("bench/duplicate_deals.py", "--pairs", "3", "--sprt-runs", "10")
    comparisons = {k: v for k, v in report.items() if isinstance(v, dict)}
    assert len(comparisons) == 4
    for result in comparisons.values():
        for mode in ("pair_scores_duplicate", "pair_scores_independent"):
            assert sum(result[mode].values()) == 3
        assert set(result["sprt_median_games"]) == {"duplicate", "independent"}
