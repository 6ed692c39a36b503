"""SPRT runs: the plan and the reading of its evidence (pure), then a real run between the
heuristic and the random bot on a real referee, a private redis-server and a real Celery
worker, resumed after its queue was lost, through ``pitch-arena sprt``."""

from __future__ import annotations

import io
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from cli.sprt import _display, verdict_line
from competitions.queue import make_app
from competitions.ratings.sprt import sprt_status
from competitions.sprt import control
from competitions.sprt.plan import SprtSpec, new_score, schedule, standing
from competitions.sprt.store import SprtStore
from competitions.tournaments.schedule import ScheduleError
from competitions.tournaments.table import NOT_PLAYED, PLAYED
from store.redis_store import BOT_VERSIONS, Store
from store.seat_keys import seat_key
from tests.cli.test_cli import invoke
from tests.workers.celery_harness import (
    ArenaThread,
    WorkerProcess,
    arena_per_test,  # noqa: F401 (the fixture "arena": a referee of each test's own)
)
from tests.workers.test_tournament import wipe_broker, worker_config


def spec(**fields: Any) -> SprtSpec:
    base: dict[str, Any] = {"run_id": "r", "preset": "partnership", "new": "n", "old": "o", "partner": None,
                            "elo0": 0.0, "elo1": 200.0, "alpha": 0.05, "beta": 0.05, "max_games": 12, "seed": 3,
                            "options": {}}
    return SprtSpec(**{**base, **fields})


def won(party: int) -> dict[str, Any]:
    """A played one-game match won by ``party`` (as stored: zero fields left out)."""
    game = {"has_winner": True, "scores": [11, 4]} | ({"winner": party} if party else {})
    return {"status": PLAYED, "result": {"games": [game]}}


def test_pairs_swap_the_sides_on_the_same_deals_with_a_fixed_partner_or_the_bot_itself() -> None:
    plan = schedule(spec())
    assert len(plan.matches) == 12 and plan.games == 1
    first, second = plan.matches[0], plan.matches[1]
    assert first.seats == ("n", "o", "n", "o") and second.seats == ("o", "n", "o", "n")
    assert first.seed == second.seed != plan.matches[2].seed and first.match_id == "r.0"
    partnered = schedule(spec(partner="p")).matches
    assert partnered[0].seats == ("n", "o", "p", "p") and partnered[1].seats == ("o", "n", "p", "p")
    assert schedule(spec()).matches == plan.matches  # the same inputs, the same matches and ids


@pytest.mark.parametrize(("fields", "says"), [
    ({"preset": "cutthroat"}, "compares two sides"),
    ({"old": "n"}, "two different bots"),
    ({"partner": "n"}, "third bot"),
    ({"elo0": 10.0, "elo1": 0.0}, "elo0 must be below elo1"),
    ({"elo1": 400.0}, "within ±200"),
    ({"alpha": 0.0}, "alpha and beta"),
    ({"max_games": 1}, "game cap"),
    ({"run_id": "a b"}, "bad run id"),
])
def test_a_spec_that_cannot_run_is_refused_naming_why(fields: dict[str, Any], says: str) -> None:
    with pytest.raises(ScheduleError, match=says):
        schedule(spec(**fields))


def test_scores_count_wins_ties_and_forfeits_for_the_new_side() -> None:
    assert new_score(won(0), 0) == 1.0 and new_score(won(0), 1) == 0.0 and new_score(won(1), 1) == 1.0
    assert new_score({"status": PLAYED, "result": {"games": [{"scores": [5, 5]}]}}, 0) == 0.5
    forfeit = {"status": PLAYED, "result": {"forfeited": True, "forfeiting_party": 1, "games": []}}
    assert new_score(forfeit, 1) == 0.0 and new_score(forfeit, 0) == 1.0
    assert new_score({"status": NOT_PLAYED, "reason": "offline"}, 0) is None


def test_evidence_is_read_pair_by_pair_from_the_first_and_stops_at_the_first_bound() -> None:
    """NEW wins every game: H1 at the seventh pair (at [0, 200] the LLR is 2.936 after six
    pairs, short of the bound 2.944, and 3.425 after seven), whatever
    finished after it; a pair finished ahead of an unfinished one does not count; a pair
    with a match not played stalls the run there."""
    run = spec(max_games=20)
    wins = {i: won(i % 2) for i in range(20)}
    done = standing(run, wins)
    assert done.stopped and done.counted == 7 and done.status.verdict == "H1"
    assert done.status == sprt_status([0, 0, 0, 0, 7], 0, 200)
    assert standing(run, {i: wins[i] for i in range(12)}).status.verdict is None  # six pairs: no verdict yet
    gap = {i: o for i, o in wins.items() if i != 3}
    ahead = standing(run, gap)
    assert ahead.counted == 1 and not ahead.stopped and ahead.finished_pairs == 9 and ahead.void_pair is None
    stalled = standing(run, {**gap, 3: {"status": NOT_PLAYED, "reason": "offline"}})
    assert stalled.void_pair == 1 and stalled.counted == 1 and not stalled.stopped
    capped = standing(spec(max_games=4), {0: won(0), 1: won(0), 2: won(1), 3: won(0)})
    assert capped.stopped and capped.counted == 2 and capped.status.verdict is None  # the cap, no verdict


def test_a_pair_with_an_unrated_match_is_read_past_but_left_out_of_the_llr() -> None:
    """A pair one of whose matches was unrated (a seat mostly played by fallbacks) does not
    count towards the LLR, and the run goes on with the next pairs: with NEW winning every
    rated game, H1 comes one pair later, and the cap leaves the test that pair short."""
    run = spec(max_games=20)
    wins = {i: won(i % 2) for i in range(20)}
    unrated = {**wins, 2: {"status": PLAYED, "result": {"games": [{"has_winner": True, "scores": [11, 4]}],
                                                         "unrated": True}}}
    now = standing(run, unrated)
    assert now.stopped and now.counted == 7 and now.read == 8 and now.excluded == 1
    assert now.status == sprt_status([0, 0, 0, 0, 7], 0, 200)
    partial = standing(run, {i: unrated[i] for i in range(6)})
    assert (partial.counted, partial.read, partial.excluded, partial.stopped) == (2, 3, 1, False)
    capped = standing(spec(max_games=4), {0: won(0), 1: won(0), 2: unrated[2], 3: won(0)})
    assert capped.stopped and capped.counted == 1 and capped.excluded == 1 and capped.status.verdict is None


def test_the_llr_path_and_the_game_counts_follow_the_counted_pairs() -> None:
    """What a run's page draws: the LLR after each counted pair (each equal to the test
    over the pairs up to it, computed on its own), NEW's games won, drawn and lost, and
    which pairs counted (an unrated one is left out)."""
    run = spec(max_games=20)
    tie = {"status": PLAYED, "result": {"games": [{"scores": [5, 5]}]}}
    unrated = {"status": PLAYED, "result": {"games": [{"has_winner": True, "scores": [11, 4]}], "unrated": True}}
    # pair 0: won both (2 points); pair 1: left out; pair 2: a tie and a loss (0.5); pair 3: won and tied (1.5)
    outcomes = {0: won(0), 1: won(1), 2: unrated, 3: won(0), 4: tie, 5: won(0), 6: won(0), 7: tie}
    now = standing(run, outcomes)
    assert now.counted_pairs == (0, 2, 3) and now.wdl == (3, 2, 1)
    pentanomials = ([0, 0, 0, 0, 1], [0, 1, 0, 0, 1], [0, 1, 0, 1, 1])
    assert now.llr_history == pytest.approx([sprt_status(c, 0, 200).llr for c in pentanomials], abs=1e-12)
    assert now.llr_history[-1] == pytest.approx(now.status.llr, abs=1e-12)
    assert standing(run, {}).llr_history == () and standing(run, {}).wdl == (0, 0, 0)




@pytest.mark.slow
def test_heuristic_against_random_reaches_a_verdict_after_a_resume(arena: ArenaThread, redis_url: str,
                                                                   tmp_path: Path) -> None:
    """A run is created and its first pairs sent with no worker up; the broker then loses
    its queue.  `pitch-arena sprt --resume` sends what is missing and follows the LLR until
    H1 (or the cap): every match is played by the referee once, the verdict is the one its
    recorded pairs give, and resuming a finished run only prints it."""
    heuristic, random_bot = arena.connect("heuristic"), arena.connect("random")
    config = worker_config(redis_url, arena.prefix, f"127.0.0.1:{arena.arena.server.port}")
    app = make_app(config)
    sprts = SprtStore(Store.from_url(redis_url, config.store_prefix))
    run = spec(run_id=f"sprt-{uuid.uuid4().hex[:6]}", new=heuristic, old=random_bot, max_games=16, seed=5,
               options={"target": 5}, parallel=2)  # 8 seats wanted of 4: some matches wait for seats
    control.create(sprts, run)
    assert control.launch(app, sprts, run.run_id) == 4  # two pairs in flight
    wipe_broker(sprts.runs, config)
    worker = WorkerProcess(config, "sprt", tmp_path)
    env = {"REDIS_URL": redis_url, "PITCH_STORE_PREFIX": arena.prefix, "PITCH_ADMIN_TOKEN": "test-admin",
           "PITCH_REFEREE": f"127.0.0.1:{arena.arena.server.port}", "COLUMNS": "200", **config.to_env()}
    try:
        code, out, err = invoke(env, "sprt", "--resume", run.run_id)
    finally:
        worker.stop()
        print(worker.log()[-3000:])
    assert code == 0, err + out
    assert f"SPRT {run.run_id}: 4 match(es) sent" in out
    verdict = sprts.verdict(run.run_id)
    assert verdict is not None and verdict["verdict"] in ("H1", None)
    outcomes = sprts.runs.outcomes(run.run_id)
    now = standing(run, outcomes)
    assert now.stopped and verdict["pairs"] == now.counted and verdict["counts"] == list(now.status.counts)
    assert verdict["verdict"] == now.status.verdict and (verdict["verdict"] == "H1" or now.counted == run.pairs)
    played = [outcomes[i]["match_id"] for i in sorted(outcomes)]
    assert all(arena.counter.starts[m] == 1 for m in played), "a match was played twice"
    assert len(played) <= 2 * min(run.pairs, now.counted + run.parallel)  # no pair sent past the window
    assert ("H1 accepted" if verdict["verdict"] else "game cap") in out
    code, again, _ = invoke(env, "sprt", "--resume", run.run_id)
    assert code == 0 and "0 match(es) sent" in again and again.splitlines()[-1] == out.splitlines()[-1]


def test_the_follower_shows_the_llr_between_its_bounds_on_a_terminal(redis_url: str) -> None:
    """The live display: the LLR bar's text names the LLR and its bounds, the games bar the
    games against the cap and the Elo estimate; the verdict line sums the run up."""
    sprts = SprtStore(Store.from_url(redis_url, f"test-{uuid.uuid4().hex[:8]}:"))
    run = spec(max_games=20)
    control.create(sprts, run)
    sprts.runs.record_outcome("r", 0, won(0))
    sprts.runs.record_outcome("r", 1, won(1))
    now = control.progress(sprts, "r")
    output = io.StringIO()
    with _display(Console(file=output, force_terminal=True, width=160), "n vs o", run.max_games) as show:
        show(now, None)
    shown = output.getvalue()
    status = now.standing.status
    assert f"LLR {status.llr:+.2f} in [-2.94, 2.94]" in shown and "2/20 games" in shown and "Elo +" in shown
    sprts.save_verdict("r", now.standing)
    verdict = sprts.verdict("r")
    assert verdict is not None
    assert verdict_line("r", verdict).startswith("SPRT r: no verdict: the game cap was reached (LLR ")


@pytest.mark.slow
def test_a_new_version_is_tested_against_the_old_one_of_the_same_bot(arena: ArenaThread, redis_url: str,
                                                                      tmp_path: Path) -> None:
    """`pitch-arena sprt NAME@2 NAME@1`: one registered bot, its version 1 (the random bot)
    and its version 2 (the heuristic bot) connected at once with its one token; the SPRT
    between them runs on a real Celery worker to its end, every match seating each version
    where the plan says (the recorded versions by seat), and the follower names both.
    Before, the second connection replaced the first, and `NAME@2` was "no registered bot"."""
    bot_id, token = arena.register()
    arena.connect_registered(token, "random", version="1")
    arena.connect_registered(token, "heuristic", version="2")
    config = replace(worker_config(redis_url, arena.prefix, f"127.0.0.1:{arena.arena.server.port}"),
                     auto_sprt=0)  # the run under test is the one asked for, not the automatic one
    sprts = SprtStore(Store.from_url(redis_url, config.store_prefix))
    name = sprts.store.bot_names([bot_id])[bot_id]
    worker = WorkerProcess(config, "versions", tmp_path)
    env = {"REDIS_URL": redis_url, "PITCH_STORE_PREFIX": arena.prefix, "PITCH_ADMIN_TOKEN": "test-admin",
           "PITCH_REFEREE": f"127.0.0.1:{arena.arena.server.port}", "COLUMNS": "200", **config.to_env()}
    try:
        code, out, err = invoke(env, "sprt", f"{name}@2", f"{name}@1", "--max-games", "4", "--elo1", "200",
                                "--options", '{"target": 5}', "--seed", "7")  # two pairs: the cap ends it
    finally:
        worker.stop()
        print(worker.log()[-3000:])
    assert code == 0, err + out
    (run_id,) = sprts.run_ids()
    run = sprts.spec(run_id)
    assert (run.new, run.old) == (seat_key(bot_id, "2"), seat_key(bot_id, "1"))
    assert f"{name}@2 vs {name}@1" in out
    verdict = sprts.verdict(run_id)
    assert verdict is not None and verdict["games"] >= 2
    for index, outcome in sprts.runs.outcomes(run_id).items():
        seats = schedule(run).matches[index].seats
        recorded = sprts.store.match_result(outcome["match_id"])
        assert recorded is not None
        assert recorded[BOT_VERSIONS] == [seat.rpartition("@")[2] for seat in seats]
