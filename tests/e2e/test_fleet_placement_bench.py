"""The placement benchmark still runs and reports what docs/fleet.md quotes: a short run
(one round of a few calls, fleets of one and three referees).  The times are
machine-dependent and are not asserted; the commands per placement are (the bench itself
checks that the three ways place alike): the scan's grow with the fleet (2R + 2), the
index's with the seats only."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_fleet_placement_bench_compares_the_scan_with_the_bots_index() -> None:
    run = subprocess.run([sys.executable, "bench/fleet_placement.py", "--sizes", "1", "3", "--rounds", "1",
                          "--calls", "5"], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    report = json.loads(run.stdout)
    for size in (1, 3):
        ways = report[f"referees_{size}"]
        assert ways["scan"]["commands"]["median"] == 2 * size + 3  # the live list, the draining marks, the entries
        # the script: GET, 4 x SMEMBERS, ZRANGEBYSCORE, and the draining marks
        assert ways["index+cache"]["commands"]["median"] == 8
        assert ways["index"]["commands"]["median"] == 8 + 2 + size  # and the live list read
        assert all(way["wall_us"]["median"] > 0 for way in ways.values())
