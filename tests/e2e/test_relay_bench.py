"""The relay benchmark still runs and reports what docs/fleet.md quotes.

A short run of ``bench/relay_cost.py`` (one round of half-second phases, two matches at
once): a Redis, two referee processes and a bot host as processes.  The figures are
machine-dependent and are not asserted; that both phases made progress, that the relayed
phase made the second referee work (the host) while the local one did not, and that the
ratio is the round's quotient are.  Slow (four processes start), so marked ``slow``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_relay_bench_reports_local_and_relayed_decisions() -> None:
    run = subprocess.run(
        [sys.executable, "bench/relay_cost.py", "--rounds", "1", "--seconds", "0.5", "--concurrency", "2"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    report = json.loads(run.stdout)
    local, relayed = report["local"], report["relayed"]
    assert local["matches"] > 0 and relayed["matches"] > 0
    assert report["rate_ratios"] == [pytest.approx(
        relayed["decisions_per_s"]["median"] / local["decisions_per_s"]["median"], rel=0.01)]
    for phase in (local, relayed):
        assert 0 < phase["latency_p50_ms"]["median"] <= phase["latency_p99_ms"]["median"]
        assert phase["cpu_us_per_decision"]["runner"]["median"] > 0
    assert relayed["cpu_us_per_decision"]["host"]["median"] > 10 * local["cpu_us_per_decision"]["host"]["median"]
