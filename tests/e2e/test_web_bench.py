"""The web page benchmark still runs and reports what the README quotes.

A short run (``--short``: 12 bots, 60 matches, two rounds of five requests per page) of
``bench/web_pages.py``: a private Redis seeded through the bulk path (checked against the
real record path on a sample), ``pitch-arena web`` as a process, real HTTP over loopback.
Timings are machine-dependent and not asserted; the report's shape, that the bulk path
wrote what the real one does, and that every ratio is its round's quotient are.  Slow (a
server starts), so marked ``slow``."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PAGES = {"healthz", "leaderboard", "leaderboard_bt", "bot"}
FIGURES = {"p50_ms", "p95_ms", "ratio_p50", "ratio_p95"}


def test_web_bench_reports_every_page_against_the_baseline() -> None:
    run = subprocess.run([sys.executable, "bench/web_pages.py", "--short"], cwd=ROOT, capture_output=True,
                         text=True, timeout=180, check=True)
    report = json.loads(run.stdout)
    assert (report["bots"], report["matches"], report["rounds"], report["requests_per_round"]) == (12, 60, 2, 5)
    assert report["seed_path"] == "bulk" and report["bulk_matches_real_path"] is True
    assert report["target_p95_ms"] == 50.0 and isinstance(report["meets_target"], bool)
    assert min(report["refit_seconds"], report["fit_seconds"], report["seed_seconds"]) >= 0
    assert set(report["pages"]) == PAGES and len(report["per_round"]) == 2
    for page, figures in report["pages"].items():
        assert set(figures) == FIGURES
        for figure, spread in figures.items():
            values = [r[page][figure] for r in report["per_round"]]
            assert spread == {"median": statistics.median(values), "min": min(values), "max": max(values)}
    for figures in report["per_round"]:
        assert figures["healthz"]["ratio_p50"] == figures["healthz"]["ratio_p95"] == 1.0
        for page in PAGES:
            assert 0 < figures[page]["p50_ms"] <= figures[page]["p95_ms"]
            assert figures[page]["ratio_p95"] == pytest.approx(figures[page]["p95_ms"] / figures["healthz"]["p95_ms"])
