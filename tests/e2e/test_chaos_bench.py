"""The chaos benchmark still runs, and a tiny run keeps the invariants it measures.

``bench/chaos.py`` on four bots and 30 matches, with one SIGKILL of each kind (a worker, a
bot, the referee, Redis) in that order: every match ends recorded exactly once (no check
finds a double), none is lost, every played match was rated once and each board's Elo sums
to zero; the report has its shape and every kill was restarted.  Recovery times depend on
the machine and are not asserted beyond being measured or explained.  (A worker that
Celery gives up on after the Redis restart is restarted by the bench and allowed here; see
the assertion.)  Slow (a whole arena
starts), so marked ``slow``; the run itself stops within its time limit and leaves no
process behind."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
KINDS = ["worker", "bot", "referee", "redis"]


def test_a_tiny_chaos_run_records_every_match_once() -> None:
    run = subprocess.run([sys.executable, "bench/chaos.py", "--matches", "30", "--bots", "4", "--kinds",
                          ",".join(KINDS), "--interval", "2", "--time-limit", "75", "--json"],
                         cwd=ROOT, capture_output=True, text=True, timeout=150)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout)
    assert report["scheduled"] == 30 and report["tournaments"] == 3
    assert report["tables"] == report["tables_add_up"] == 3
    assert report["lost"] == 0 and report["recorded_twice"] == 0 and report["recorded_incomplete"] == 0
    assert report["recorded_once"] == report["played"] == 30 - report["not_played"]
    assert all(found == [] for found in report["recorded_twice_by_check"].values()), report["recorded_twice_by_check"]
    assert set(report["boards"]) == {"cutthroat", "partnership"}
    for board in report["boards"].values():
        assert board["rating_updates"] == board["played"] == board["applied_total"]
        assert abs(board["elo_sum"]) < 1e-6 and board["bots"] == 4
    assert report["rating_updates_equal_played"] is True
    assert [kill["kind"] for kill in report["kills"]] == KINDS
    assert all(kill["down_s"] is not None for kill in report["kills"])
    assert set(report["redis_lost_writes"]) == {"match_records", "outcomes", "rating_updates"}
    for kill in report["kills"]:  # recovered, or a reason why nothing could be measured
        assert kill["recovery_s"] is not None or kill["note"], kill
    assert set(report["recovery_s"]) == {*KINDS, "bot_reconnect"}
    # A Redis restart can make a Celery worker log "Unrecoverable error" (kombu's Redis transport,
    # restoring unacked messages on a closed connection) and exit or hang; the bench restarts it
    # and the matches are still recorded once.  Nothing else may go down by itself.
    redis_kill = next(kill["at_s"] for kill in report["kills"] if kill["kind"] == "redis")
    for exit_ in report["unexpected_exits"]:
        assert exit_["service"].startswith("worker-") and exit_["at_s"] >= redis_kill, exit_
    assert Path(report["logs"], "referee.1.log").exists()  # the killed referee's log is kept
