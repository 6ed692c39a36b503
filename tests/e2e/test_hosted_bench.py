"""The hosted bots benchmark still runs and reports what the README quotes.

The smallest run of ``bench/hosted_bots.py`` (one round of one match, one idle hosted bot,
half-second windows, a fast host poll): Redis, a referee, the web service, a bot host with
real sandboxes and three remote bots.  The figures are machine-dependent and not asserted;
that every part reports, each ratio is its round's positive finite quotient and the whole
run stays short enough for CI is."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PARTS = ("upload_s", "claim_s", "start_s", "match_s", "total_s")
FIGURES = ("referee_ms_per_decision", "wall_s_per_match", "cpu_us_per_decision")


def test_hosted_bench_reports_every_part_with_finite_ratios() -> None:
    started = time.monotonic()
    run = subprocess.run([sys.executable, "bench/hosted_bots.py", "--rounds", "1", "--matches", "1", "--counts", "1",
                          "--seconds", "0.5", "--poll-s", "0.2", "--json"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    took = time.monotonic() - started
    assert run.returncode == 0, f"the bench failed; its stderr:\n{run.stderr[-4000:]}"
    assert took < 25, f"the smallest run took {took:.1f} s"
    report = json.loads(run.stdout)
    submission = report["submission"]
    assert len(submission["by_round"]) == 1
    for part in PARTS:
        assert submission[part]["median"] >= 0 and submission[part]["n"] == 1
    assert submission["total_s"]["median"] >= submission["start_s"]["median"] > 0
    cost = report["per_decision"]
    for figure in FIGURES:
        assert cost["hosted"][figure]["median"] > 0 and cost["remote"][figure]["median"] > 0
        ratio = cost["ratio_hosted_to_remote"][figure]
        assert len(ratio["by_round"]) == 1
        assert all(r > 0 and math.isfinite(r) for r in ratio["by_round"])
        assert ratio["range"][0] <= ratio["median"] <= ratio["range"][1]
    memory = cost["memory"]
    assert memory["hosted_sandbox_pss_mb"] > 0 and memory["hosted_sandbox_usage_mb"] > 0
    assert memory["remote_process_pss_mb"] > 0
    (row,) = report["capacity"]
    assert row["bots"] == 1 and row["pss_mb_per_bot"] > 0 and row["decisions_per_s"] > 0
    assert row["cores_used"]["total"] > 0
