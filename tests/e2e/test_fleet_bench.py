"""The fleet benchmark still runs and reports what docs/fleet.md quotes.

A short run of ``bench/fleet_throughput.py`` (one round of half-second phases, two
matches at once, directories of one and two referees): a Redis, two referee processes and
a bot host as processes.  The figures are machine-dependent and are not asserted; that
both phases made progress and the ratio is the round's quotient is; with referee budgets
(skipped where no cgroup CPU controller is writable), that each setting is reported, the
quota binds, and no group is left behind.  Slow (four processes
start), so marked ``slow``; CI runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from cpu_limits import GROUP_PREFIX, CpuLimitError, Hierarchy  # bench/ is not a package: by path

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_fleet_bench_reports_one_and_two_referees_the_directory_costs_and_stream_memory() -> None:
    run = subprocess.run(
        [sys.executable, "bench/fleet_throughput.py", "--rounds", "1", "--seconds", "0.5", "--concurrency", "2",
         "--directory-sizes", "1", "2", "--idle-streams", "20"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    report = json.loads(run.stdout)
    one, two = report["one"], report["two"]
    assert one["matches"] > 0 and two["matches"] > 0
    assert report["ratios"] == [pytest.approx(two["decisions_per_s"]["median"] / one["decisions_per_s"]["median"],
                                              rel=0.01)]
    for phase in (one, two):
        assert 0 < phase["latency_p50_ms"]["median"] <= phase["latency_p99_ms"]["median"]
        assert all(cpu["median"] > 0 for cpu in phase["cpu_us_per_decision"].values())
    assert [cost["referees"] for cost in report["directory_costs"]] == [1, 2]
    assert all(cost["place_us"] > 0 and cost["claim_release_us"] > 0 for cost in report["directory_costs"])
    assert report["idle_streams"]["streams"] == 20 and report["idle_streams"]["referee_rss_after_mb"] > 0


def test_fleet_bench_with_referee_budgets_and_pins_reports_each_setting_and_removes_its_groups() -> None:
    try:
        hierarchy = Hierarchy.find()
    except CpuLimitError as error:
        pytest.skip(str(error))
    bench = subprocess.Popen(
        [sys.executable, "bench/fleet_throughput.py", "--rounds", "2", "--seconds", "0.5", "--concurrency", "2",
         "--directory-sizes", "1", "--idle-streams", "2", "--referee-cpu", "0.1", "--pin-referees"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        stdout, stderr = bench.communicate(timeout=180)
    finally:
        bench.kill()
    assert bench.returncode == 0, stderr[-2000:]
    report = json.loads(stdout)
    budget = report["budget"]
    assert budget["referee_cpu"] == 0.1 and len(budget["ratios"]) == len(report["pinned"]["ratios"]) == 2
    for phase in ("one", "two"):
        assert budget[phase]["matches"] > 0 and report["pinned"][phase]["matches"] > 0
        assert len(budget[phase]["throttled_per_referee"]) == len(budget[phase]["budget_used_per_referee"]) == 2
        assert "throttled_per_referee" not in report[phase]  # the shared phases run without the quota
    assert budget["one"]["throttled_per_referee"][0] > 0  # a tenth of a core binds the referee playing
    # its own groups, named by its pid (another test's bench may be running meanwhile)
    assert list(hierarchy.parent.glob(f"{GROUP_PREFIX}{bench.pid}-*")) == []
