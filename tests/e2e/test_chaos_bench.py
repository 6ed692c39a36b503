"""The chaos benchmark still runs, and a tiny run on a fleet keeps every invariant it checks.

``bench/chaos.py`` on two referees, two SDK bots and two single-stream Node kit bots (one
stream each, to different referees: a match seating both relays a seat, which is how a
relay gets exercised), 18 matches of 2 games (a cutthroat and a partnership round robin),
with one fault of each kind in a fixed order (a worker's main process, a pool process, an
SDK bot, a kit bot, a referee SIGKILLed and one SIGTERMed, Redis, beat, a relay forged
with the admin token, a bot's and a random one), faults 1.5 s apart
and each process down 2 s, so they overlap; all along, one more bot token floods the first
referee with practice requests (``--practice-flood``).
Short settings (``--fast-recovery``): the defaults' recovery takes tens of seconds a fault.

Every check of the report passes (no match lost, none with two outcomes or results, no
"not played" with a stored result, every stored log replays to its result, ratings
applied once and zero-sum, no bot over its capacity in the seat ledger, no match id on two
referees at once, never more practice matches of the flooding bot at once than the
referee's bound), seats were relayed, every fault fired, some while another was still
down, and every match in flight at a fault recovered.  Recovery times depend on the
machine and are not asserted.  Slow (a whole fleet starts), so marked ``slow``; the run
stops within its time limit and leaves no process behind.  The report's checks are also
tried on their own against results written to a real Redis."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import uuid
from collections import defaultdict
from pathlib import Path

import pytest

from store.redis_store import Store

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from chaos_parts import checks, flood, forged  # noqa: E402  (bench/ is not a package)
from chaos_parts.faults import Fault  # noqa: E402
from chaos_parts.watch import Snapshot  # noqa: E402

KINDS = ["worker", "pool-child", "bot", "kit-bot", "referee", "referee-term", "redis", "beat", "forged-relay"]
CHECKS = {"lost", "not_played_with_result", "played_without_its_record", "outcome_result_differs_from_record",
          "replay_differs", "rated_twice", "conduct_counts_differ", "table_does_not_add_up", "over_capacity",
          "ran_on_two_referees_at_once", "started_twice_in_one_process", "started_after_recorded",
          "rated_with_fallback_heavy_seat", "practice_over_bound", "forged_relay_admitted"}


def test_the_fallback_check_reads_seats_stored_without_a_count_and_fails_a_rated_fallback_heavy_match(
        redis_url: str) -> None:
    """A stored result leaves out a seat's ``fallbacks`` when it is zero (proto3 JSON), which
    the 1,000-match run's report once crashed on; a rated match with a seat over the arena's
    fallback bound is a failure, an unrated one is reported, one within the bound is neither."""
    store = Store.from_url(redis_url, prefix=f"test-{uuid.uuid4().hex[:8]}:")
    results = {"rated": ([{"bot_id": "a", "decisions": 40, "fallbacks": 10},
                          {"seat": 1, "bot_id": "b", "decisions": 50}], {}),
               "kept-off": ([{"bot_id": "a", "decisions": 40, "fallbacks": 10}, {"seat": 1, "bot_id": "b"}],
                            {"unrated": True, "unrated_reason": "fallback-heavy: seat 1 10 of 50"}),
               "forfeited": ([{"bot_id": "a", "decisions": 4, "fallbacks": 30}, {"seat": 1, "bot_id": "b"}],
                             {"forfeited": True}),
               "within": ([{"bot_id": "a", "decisions": 48, "fallbacks": 2}, {"seat": 1, "bot_id": "b", "decisions": 9,
                                                                               "fallbacks": 1}], {})}
    try:
        for match_id, (seats, marks) in results.items():
            store.record_match(match_id, {"match_id": match_id, "seats": seats, "completed": True, **marks}, [])
        found: dict[str, list[str]] = defaultdict(list)
        unrated = checks.fallback_check(store, list(results), found)
        assert dict(found) == {"rated_with_fallback_heavy_seat": ["rated: seat 1 10 of 50 by fallback"]}
        assert unrated == {"count": 1, "examples": ["kept-off: fallback-heavy: seat 1 10 of 50"]}
    finally:
        for key in store.client.scan_iter(f"{store.prefix}*"):
            store.client.delete(key)


def test_the_practice_flood_check_reads_the_last_counts_and_fails_a_peak_over_the_bound(tmp_path: Path) -> None:
    """``practice_over_bound`` reads the flood process's last ``flood {json}`` line: a peak of
    practice matches at once over the bound its welcome stated fails, as does a flood that
    never got a welcome (nothing was checked); a peak within the bound passes."""
    log = tmp_path / "practice-flood.log"
    log.write_text('flood {"welcomes": 1, "bound": 2, "peak": 1}\nnoise\n'
                   'flood {"welcomes": 1, "bound": 2, "peak": 3}\n')
    assert flood.over_bound(flood.summary(log)) == ["3 practice matches of one bot at once, over the bound of 2"]
    log.write_text('flood {"welcomes": 1, "bound": 2, "peak": 2}\n')
    assert flood.over_bound(flood.summary(log)) == []
    log.write_text("")
    assert flood.over_bound(flood.summary(log)) == ["the flood never got a welcome: nothing was checked"]


def test_a_forged_relay_on_a_referee_not_listening_yet_is_not_counted_as_admitted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A referee restarted by an overlapping fault may not listen yet: a connection refused
    (UNAVAILABLE) is no answer from the referee, so the forgery is skipped, not counted as
    admitted (it counted three admissions before, failing a run on a referee that refused
    nothing)."""
    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{probe.getsockname()[1]}"
    monkeypatch.setattr(forged, "READY_WAIT_S", 0.5)
    with pytest.raises(forged.RefereeUnreachable, match="not listening"):
        forged.forge_relays(address, {"a random token": "x"}, "bot")


@pytest.mark.slow
def test_a_tiny_chaos_run_on_a_fleet_passes_every_check() -> None:
    run = subprocess.run([sys.executable, "bench/chaos.py", "--matches", "18", "--games", "2", "--referees", "2",
                          "--bots", "2", "--single-stream-bots", "2", "--workers", "2", "--kinds", ",".join(KINDS),
                          "--interval", "1.5", "--down", "2", "--fast-recovery", "--practice-flood",
                          "--time-limit", "90", "--json"],
                         cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr[-4000:]
    report = json.loads(run.stdout)
    assert report["scheduled"] == 18 and report["tournaments"] == report["tables"] == 2
    assert set(report["checks"]) == CHECKS
    assert report["checks_pass"] is True, {k: v for k, v in report["checks"].items() if v["count"]}
    assert report["lost"] == 0 and report["played"] == 18 - report["not_played"] > 0
    assert report["replayed_results"] == report["played"]  # none "not played" has a result
    assert report["relayed_starts"] > 0 and report["referee_starts"] >= report["played"]
    assert set(report["boards"]) == {"cutthroat", "partnership"} and report["rating_updates_equal_played"]
    for board in report["boards"].values():
        assert abs(board["elo_sum"]) < 1e-6 and board["bots"] == 4
    capacity = report["capacity"]
    assert capacity["samples"] > 0 and len(capacity["declared"]) == 4
    assert all(capacity["peak"][bot] <= capacity["declared"][bot] for bot in capacity["declared"])
    assert isinstance(report["unrated"]["count"], int)
    faults = report["faults"]
    assert [fault["kind"] for fault in faults] == KINDS and report["faults_not_fired"] == 0
    assert all(fault["down_s"] is not None for fault in faults)
    forged = next(fault for fault in faults if fault["kind"] == "forged-relay")
    assert forged["admitted"] == [] and "0 of 3 admitted" in forged["note"]
    assert any(fault["overlapped"] for fault in faults)
    assert sum(len(fault["in_flight"]) for fault in faults) > 0
    assert all(row["unrecovered"] == 0 for row in report["recovery_s"].values()), report["recovery_s"]
    for row in report["recovery_s"].values():  # back in play never later than recovered
        assert row["back_in_play"]["n"] == row["n"] and (row["n"] == 0 or row["back_in_play"]["max"] <= row["max"])
    assert set(report["redis_lost_writes"]) == {"match_records", "outcomes", "rating_updates"}
    # A Redis restart can make a Celery worker log "Unrecoverable error" (kombu's Redis transport,
    # restoring unacknowledged messages on a closed connection) and exit or hang; the bench restarts it
    # and the matches are still recorded once.  Nothing else may go down by itself.
    redis_kill = next(fault["at_s"] for fault in faults if fault["kind"] == "redis")
    for exit_ in report["unexpected_exits"]:
        assert exit_["service"].startswith("worker-") and exit_["at_s"] >= redis_kill, exit_
    flood = report["practice_flood"]  # a referee's own bound: checked by practice_over_bound
    assert flood["bound"] == 2 and flood["started"] > 0 and flood["refused"]["PITCH_PRACTICE_PER_MINUTE"] > 0, flood
    assert Path(report["logs"], "referee-1.1.log").exists() or Path(report["logs"], "referee-2.1.log").exists()


def test_a_match_is_back_in_play_when_a_live_process_holds_it_and_recovered_when_it_starts() -> None:
    """A worker killed while it held one match running and another waiting for a retry:
    the running one is back in play when its lease changes hands (the sweep sent it again
    and a worker took it) and recovered when it starts; the waiting one is back in play
    when a live worker holds its retry, however long its absent bot then keeps it from
    starting; a match that kept the killed worker's lease is neither."""
    fault = Fault("worker", "worker-1", at=100.0, in_flight=dict.fromkeys(["t:0", "t:1", "t:2"]))
    fault.note_leases(Snapshot(leases={"t:0": "worker-1@h#1", "t:1": "worker-1@h#retry", "t:2": "worker-1@h#1"}))
    fault.track(Snapshot(at=120.0, leases={"t:0": "worker-2@h#2", "t:1": "worker-2@h#retry",
                                           "t:2": "worker-1@h#1"}), {}, worker_kind=True)
    assert fault.back_in_play == {"t:0": 20.0, "t:1": 20.0, "t:2": None}
    assert fault.in_flight == {"t:0": None, "t:1": None, "t:2": None}
    fault.track(Snapshot(at=125.0, started={"t:0": 121.0}), {"t:2": 130.0}, worker_kind=True)
    assert fault.in_flight == {"t:0": 21.0, "t:1": None, "t:2": 30.0}
    assert fault.back_in_play == {"t:0": 20.0, "t:1": 20.0, "t:2": 30.0}
