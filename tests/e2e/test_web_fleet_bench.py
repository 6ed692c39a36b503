"""The web's fleet-reads benchmark still runs: a short run of ``bench/web_fleet_reads.py``
(a Redis and two referee processes).  The figures are machine-dependent and are not
asserted; that every case and read is reported, each lone case as its own baseline, and
the directory read against every referee's ListBots per fleet case, is.
Slow (two referee processes start), so marked ``slow``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_web_fleet_bench_reports_each_read_with_a_lone_referee_two_and_a_silent_one() -> None:
    run = subprocess.run([sys.executable, "bench/web_fleet_reads.py", "--bots", "3", "--rounds", "1", "--calls", "3"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    rows = re.findall(r"^\s+(running|bots-asked|bots)\s+(lone|two\+silent|two)\s+([\d.]+) ms .*x([\d.]+)",
                      run.stdout, re.M)
    assert [(read, case) for read, case, _, _ in rows] == [
        (read, case) for read in ("running", "bots", "bots-asked") for case in ("lone", "two", "two+silent")]
    assert all(float(ms) > 0 for _, _, ms, _ in rows)
    assert [ratio for _, case, _, ratio in rows if case == "lone"] == ["1.00", "1.00", "1.00"]
    against_asked = re.findall(r"^\s+(two\+silent|two)\s+x([\d.]+) \[", run.stdout, re.M)
    assert [case for case, _ in against_asked] == ["two", "two+silent"]  # the directory read against ListBots
