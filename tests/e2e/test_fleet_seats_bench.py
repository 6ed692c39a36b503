"""The seat-ledger benchmark still runs and reports what docs/fleet.md quotes: a short run
(one round of a few calls, fleets of one and three referees).  The times are
machine-dependent and are not asserted; the round trips per match start (one script to
take the seats, one to give them back) and the ratio being the round's quotient are."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_fleet_seats_bench_reports_the_ledger_cost_per_match_start() -> None:
    run = subprocess.run([sys.executable, "bench/fleet_seats.py", "--sizes", "1", "3", "--rounds", "1",
                          "--calls", "5"], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    fleets = json.loads(run.stdout)["fleets"]
    assert [fleet["referees"] for fleet in fleets] == [1, 3]
    for fleet in fleets:
        assert fleet["round_trips_per_match"] == 2 and fleet["redis_us_per_match_start"] > 0
        claim, seats = fleet["claim_release_us"]["median"], fleet["seats_take_release_us"]["median"]
        assert fleet["ratios_seats_to_claim"] == [pytest.approx(seats / claim, abs=0.01)]
    assert fleets[1]["commands_inside_scripts"]["zscore"] == 2  # the other referees, each asked once
