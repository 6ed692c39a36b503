"""The SDK overhead benchmark still runs and reports what the README quotes.

A short run (two rounds of half-second phases) of ``bench/sdk_overhead.py``: a referee and
three bot processes (the SDK's, the SDK's reading every field with ``--reading``, and one on
the raw stubs) over loopback.  The figures are
machine-dependent and not asserted; that both bots answered and each ratio is its round's
quotient is.  Slow (three processes start), so marked ``slow``; CI runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_sdk_overhead_bench_reports_every_bot_and_each_rounds_ratio() -> None:
    run = subprocess.run([sys.executable, "bench/sdk_overhead.py", "--rounds", "2", "--seconds", "0.5", "--reading"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, f"the bench failed; its stderr:\n{run.stderr[-4000:]}"
    report = json.loads(run.stdout)
    cpu = report["cpu_us_per_decision"]
    assert cpu["raw"]["median"] > 0 and cpu["sdk"]["median"] > 0 and cpu["sdk-reading"]["median"] > 0
    for key in ("ratio_sdk_to_raw", "ratio_sdk_reading_to_raw"):
        ratios = report[key]
        assert len(ratios["by_round"]) == 2
        assert ratios["range"] == [min(ratios["by_round"]), max(ratios["by_round"])]
        assert ratios["median"] == pytest.approx(sum(ratios["by_round"]) / 2, abs=0.01)
