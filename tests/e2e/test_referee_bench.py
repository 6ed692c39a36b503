"""The referee throughput benchmark still runs and reports what the README quotes.

A short run (one round of half-second phases at 1 and 4 matches) of
``bench/referee_throughput.py`` as the README gives it: a referee and an echo server as
processes, real bots over loopback.  The figures themselves are machine-dependent and are
not asserted; that every phase made progress and every ratio is its round's quotient is.
Slow (two servers start), so marked ``slow``; CI runs it.  A failed run shows the bench's
own error text (the servers' included), not just its exit status."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def run_bench(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the bench; a run that does not end in time fails with what it wrote so far."""
    try:
        return subprocess.run([sys.executable, "bench/referee_throughput.py", *args], cwd=ROOT, capture_output=True,
                              text=True, timeout=120, check=False, env={**os.environ, **(env or {})})
    except subprocess.TimeoutExpired as expired:
        written = expired.stderr.decode(errors="replace") if isinstance(expired.stderr, bytes) else expired.stderr
        pytest.fail(f"the bench did not end in 120 s; its stderr:\n{(written or '')[-4000:]}")


def test_referee_bench_reports_both_echo_layouts_and_every_phase() -> None:
    run = run_bench("--concurrency", "1", "4", "--rounds", "1", "--seconds", "0.5")
    assert run.returncode == 0, f"the bench failed; its stderr:\n{run.stderr[-4000:]}"
    report = json.loads(run.stdout)
    assert [entry["concurrency"] for entry in report] == [1, 4]
    for entry in report:
        assert entry["payload_bytes"] > 100  # requests carry an observation and legal actions
        assert entry["echo_layout"] == f"4 streams taking turns, {entry['concurrency']} message(s) in flight in all"
        rates = [entry["echo_round_trips_per_s"], entry["referee_decisions_per_s"],
                 entry["referee_batching_decisions_per_s"], entry["echo_per_match"]["round_trips_per_s"]]
        assert all(rate > 0 for rate in rates)
        assert entry["ratios"] == [pytest.approx(entry["ratio"], abs=1e-9)]
        assert entry["ratio"] == pytest.approx(entry["referee_decisions_per_s"] / entry["echo_round_trips_per_s"],
                                               rel=0.01, abs=0.002)
        assert all(cpu > 0 for cpu in entry["cpu_us_per_decision"].values())


def test_a_server_that_fails_to_start_is_reported_with_its_own_error() -> None:
    """A referee that exits at start (here refusing a negative time per decision) makes the
    bench fail naming the referee's own error: the bench used to discard the servers'
    stderr and say only that the process "exited at start"."""
    run = run_bench("--concurrency", "1", "--rounds", "1", "--seconds", "0.5", env={"PITCH_PER_DECISION_MS": "-5"})
    assert run.returncode != 0
    assert "exited at start" in run.stderr
    assert "per_decision_ms must not be negative, got -5" in run.stderr
