"""Tournaments with real parts: a private redis-server, a real referee with SDK bots over
loopback gRPC, and real ``celery worker`` processes (killed with SIGKILL in one test).

The promise under test: every scheduled match ends with exactly one outcome, a played
match is played by the referee exactly once (retries, re-deliveries and resumes join or
reuse it), and a match that cannot be played is recorded as not played, never dropped.
"""

from __future__ import annotations

import base64
import json
import re
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import psutil
import pytest
from celery import Celery

from competitions.broker import NEW_MATCH_PRIORITY
from competitions.config import WorkerConfig
from competitions.queue import AUTO_ROUND_ROBIN, make_app
from competitions.ratings.leaderboard import Leaderboard
from competitions.tournaments import control as tournament
from competitions.tournaments.schedule import Schedule, round_robin
from competitions.tournaments.store import TournamentError, TournamentStore
from competitions.tournaments.table import NOT_PLAYED, PLAYED, compute_table
from store.accounts import Accounts
from store.redis_store import Store
from tests.referee.bots import GatedBot
from tests.workers.celery_harness import (
    ArenaThread,
    WorkerProcess,
    arena_per_test,  # noqa: F401 (the fixture "arena": a referee of each test's own)
    wait_until,
)

SPECS = ("heuristic",) * 4  # random bots make games of hundreds of hands


def worker_config(redis_url: str, prefix: str, referee: str = "127.0.0.1:1") -> WorkerConfig:
    """Settings for quick tests: short timeouts, fast retries, dead workers noticed in ~5 s."""
    return WorkerConfig(redis_url=redis_url, store_prefix=prefix, referee=referee, admin_token="test-admin",
                        match_timeout_s=4, match_retries=2, retry_backoff_s=0.2, retry_backoff_max_s=0.5,
                        visibility_timeout_s=5, restore_interval_s=0.5, requeue_interval_s=1)


#: The broker's list of new matches (queued behind every other task) and of resent ones (ahead).
NEW_MATCHES = f"celery\x06\x16{NEW_MATCH_PRIORITY}"
RESENT_MATCHES = "celery"


def queued(app: Celery, key: str | None = None) -> int:
    """Tasks waiting in the broker's default queue (at every priority, or in list ``key``)."""
    with app.connection_for_write() as connection:
        client = connection.default_channel.client
        return int(client.llen(key)) if key else sum(int(client.llen(k)) for k in (NEW_MATCHES, RESENT_MATCHES))


def resent_at(worker_log: str, tournament_id: str, index: int) -> float:
    """When a worker's log says the supervisor sent match ``index`` again (seconds since the epoch)."""
    for line in worker_log.splitlines():
        found = re.match(r"\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}): WARNING/MainProcess\] tournament (\S+): "
                         r"matches \[([\d, ]+)\] have no live task", line)
        if found and found[3] == tournament_id and index in map(int, found[4].split(",")):
            return time.mktime(time.strptime(found[1], "%Y-%m-%d %H:%M:%S")) + int(found[2]) / 1000
    raise AssertionError(f"no worker sent match {index} of {tournament_id} again:\n{worker_log[-3000:]}")


def wipe_broker(tournaments: TournamentStore, config: WorkerConfig) -> None:
    """Delete every Celery key (queue, unacked tasks): a broker that lost its data."""
    for key in tournaments.client.scan_iter(f"{config.celery_prefix}*"):
        tournaments.client.delete(key)


# --------------------------------------------------------------------------- without workers
def test_table_credits_parties_draws_forfeits_and_not_played() -> None:
    """The table credits each bot once per party (a bot partnering itself counts once),
    counts draws as half, charges a forfeiting party the games it did not play and credits
    them to the other party as wins by forfeit (they were not credited at all: a bot whose
    opponents crashed every match showed 0 wins), and lists matches not played; totals add up."""
    schedule = round_robin("t", "abc", "partnership", games=2, teams=[("a", "a"), ("b", "c")])
    game = {"has_winner": True, "winner": 0}
    outcomes = {
        0: {"status": PLAYED, "result": {"games": [game, {"scores": [3, 3]}]}},      # a wins one, one draw
        1: {"status": PLAYED, "result": {"games": [game], "forfeited": True, "forfeiting_party": 1}},
    }
    rows = {row["bot_id"]: row for row in compute_table(schedule, outcomes)}
    assert (rows["a"]["games"], rows["a"]["wins"], rows["a"]["draws"], rows["a"]["losses"]) == (4, 1, 1, 2)
    assert rows["a"]["forfeits"] == 1 and rows["a"]["score"] == 0.375
    assert (rows["b"]["games"], rows["b"]["wins"], rows["b"]["draws"], rows["b"]["losses"]) == (4, 2, 1, 1)
    assert rows["b"]["forfeit_wins"] == 1 and rows["a"]["forfeit_wins"] == 0 and rows["b"]["forfeits"] == 0
    assert [row["bot_id"] for row in compute_table(schedule, outcomes)] == ["b", "c", "a"]
    assert all(row["not_played"] == 1 for row in compute_table(schedule, {0: {"status": NOT_PLAYED}}))


def test_config_from_environment_and_celery_urls() -> None:
    """Settings come from PITCH_* variables; a unix socket URL becomes Celery's spelling;
    a visibility timeout shorter than a match is refused."""
    config = WorkerConfig.from_env({"REDIS_URL": "unix:///tmp/r.sock?db=3", "PITCH_MATCH_RETRIES": "7",
                                    "PITCH_AUTO_PRESETS": "partnership, cutthroat"})
    assert config.celery_url == "redis+socket:///tmp/r.sock?virtual_host=3" and config.match_retries == 7
    assert config.presets == ("partnership", "cutthroat")
    assert WorkerConfig.from_env(config.to_env()) == config
    assert [config.retry_delay(n) for n in range(8)] == [5, 10, 20, 40, 80, 160, 300, 300]
    with pytest.raises(ValueError, match="visibility_timeout_s"):
        WorkerConfig(match_timeout_s=3600)
    with pytest.raises(ValueError, match="PITCH_MATCH_RETRIES"):
        WorkerConfig.from_env({"PITCH_MATCH_RETRIES": "many"})
    beat = make_app(WorkerConfig(auto_presets="cutthroat", auto_interval_s=60)).conf.beat_schedule
    assert beat == {"round-robin-cutthroat": {"task": "pitch.auto_round_robin", "schedule": 60.0,
                                              "args": ("cutthroat",), "options": {"expires": 60.0}}}
    # the sweep for lost matches is no task in the queue but the workers' supervisor


def test_launch_sends_only_matches_without_outcome(redis_url: str) -> None:
    """Launching sends one task per match; launching again (a resume) sends only the matches
    without an outcome, never a recorded one; with none left it sends the final step;
    progress is readable throughout; a tournament id is used once; an automated round robin
    is skipped with too few bots or while the previous one runs."""
    config = worker_config(redis_url, f"test-{uuid.uuid4().hex[:8]}:")
    tournaments = TournamentStore(Store.from_url(redis_url, config.store_prefix))
    app = make_app(config)
    try:
        schedule = tournament.create(tournaments, "cutthroat", ["a", "b", "c", "d"], tournament_id="resume")
        with pytest.raises(TournamentError, match="already exists"):
            tournament.create(tournaments, "cutthroat", ["a", "b", "c", "d"], tournament_id="resume")
        assert tournament.launch(app, tournaments, "resume") == 12 and queued(app) == 12
        wipe_broker(tournaments, config)
        for index in (0, 5, 11):
            assert tournaments.record_outcome("resume", index, {"status": PLAYED, "result": {}})
        assert not tournaments.record_outcome("resume", 5, {"status": NOT_PLAYED})
        tournaments.record_outcome("resume", 7, {"status": NOT_PLAYED, "reason": "offline"})
        tournaments.mark_started("resume", 3)
        now = tournament.progress(tournaments, "resume")
        assert (now.total, now.played, now.not_played, now.in_progress, now.pending, now.finished) == (
            12, 3, 1, 1, 8, False)
        assert tournament.launch(app, tournaments, "resume") == 8 and queued(app) == 8
        assert tournament.launch(app, tournaments, "resume", retry_not_played=True) == 9
        for match in schedule.matches:
            tournaments.record_outcome("resume", match.index, {"status": PLAYED, "result": {}})
        wipe_broker(tournaments, config)
        assert tournament.ready_to_finish(tournaments, "resume")
        assert tournament.launch(app, tournaments, "resume") == 0 and queued(app) == 1
        assert tournament.finish(tournaments, "resume") and not tournament.finish(tournaments, "resume")
        assert tournament.progress(tournaments, "resume").finished
        assert tournaments.tournament_ids() == ["resume"]
        assert tournament.start_automatic(app, tournaments, "cutthroat", ["a", "b"], games=1) is None
        automatic = tournament.start_automatic(app, tournaments, "cutthroat", ["a", "b", "c"], games=1)
        assert automatic is not None and tournaments.latest_automatic("cutthroat") == automatic.tournament_id
        assert tournament.start_automatic(app, tournaments, "cutthroat", ["a", "b", "c"], games=1) is None, (
            "a new automated round robin waits for the previous one to finish")
    finally:
        for key in tournaments.client.scan_iter(f"{config.store_prefix}*"):
            tournaments.client.delete(key)


def test_every_connected_bot_at_a_preset_means_those_that_play_it(redis_url: str) -> None:
    """The automatic round robins ("every connected bot", as beat's task, `pitch-arena
    tournament` and the web form read it) enter a bot only at "the presets the author
    chose", or at every preset when it chose none (every bot the operator registered),
    never the arena's house bots."""
    store = Store.from_url(redis_url, f"entrants-{uuid.uuid4().hex[:8]}:")
    try:
        accounts = Accounts(store)
        author = accounts.create(f"author-{uuid.uuid4().hex[:6]}", "author-password")
        chooser = accounts.create_bot(author, "cutthroat-only", presets=["cutthroat"])[0].bot_id
        plain = accounts.create_bot(author, "plain")[0].bot_id
        operators = store.register_bot("operators")[0].bot_id
        house = store.register_bot("house")[0].bot_id
        store.mark_house(house)
        connected = [chooser, plain, operators, house]
        assert tournament.default_entrants(store, connected, "partnership") == [plain, operators]
        assert tournament.default_entrants(store, connected, "cutthroat") == [chooser, plain, operators]
        assert tournament.default_entrants(store, connected) == [chooser, plain, operators]  # a ladder's pool
    finally:
        for key in store.client.scan_iter(f"{store.prefix}*"):
            store.client.delete(key)


def test_requeue_lost_sends_again_only_what_the_broker_lost(redis_url: str) -> None:
    """A task a worker took and lost before marking it taken (kombu's window between BRPOP
    and its unacked record) is sent again, ahead of the queued matches; a queued task, a
    task just taken, and a match with an outcome are not.  A task taken and never started
    (its worker died before the match took its lease) is sent again once the start grace
    has passed, as is a started match whose lease lapsed; a live lease keeps it.  A
    tournament whose every match has an outcome gets its table even when its final task was
    lost."""
    config = worker_config(redis_url, f"test-{uuid.uuid4().hex[:8]}:")
    tournaments = TournamentStore(Store.from_url(redis_url, config.store_prefix))
    app = make_app(config)

    def sweep() -> dict[str, list[int]]:
        return tournament.requeue_lost(app, tournaments, start_grace_s=0.3, confirm_after_s=0)

    try:
        schedule = tournament.create(tournaments, "cutthroat", ["a", "b", "c", "d"], tournament_id="lossy")
        assert tournament.launch(app, tournaments, "lossy") == 12
        assert queued(app, NEW_MATCHES) == 12 and sweep() == {}
        with app.connection_for_write() as connection:
            client = connection.default_channel.client
            taken = json.loads(client.rpop(NEW_MATCHES))       # taken, then marked taken (unacked)
            client.hset("unacked", "tag-1", json.dumps([taken, "", "celery"]))
            client.zadd("unacked_index", {"tag-1": time.time() + 3600})  # delivered just now, whatever the load
            lost = broker_args(client.rpop(NEW_MATCHES))        # taken, and the worker died
            finished = broker_args(client.rpop(NEW_MATCHES))    # played: outcome recorded, acknowledged
        tournaments.record_outcome("lossy", finished[1], {"status": PLAYED, "result": {}})
        assert queued(app) == 9
        assert sweep() == {"lossy": [lost[1]]}
        assert queued(app, RESENT_MATCHES) == 1 and queued(app, NEW_MATCHES) == 9  # resent ahead of the queue
        assert sweep() == {}
        tournaments.record_outcome("lossy", lost[1], {"status": PLAYED, "result": {}})  # the resent one was played
        # taken and never started: resent once the start grace has passed
        with app.connection_for_write() as connection:
            connection.default_channel.client.zadd("unacked_index", {"tag-1": time.time() - 10})
        assert sweep() == {"lossy": [taken_index(taken)]}
        # started: kept while its lease lives, resent once it lapses
        tournaments.hold("lossy", taken_index(taken), "worker-1#1", seconds=60)
        with app.connection_for_write() as connection:  # the resent copy was taken too
            connection.default_channel.client.delete(RESENT_MATCHES)
        assert sweep() == {}
        tournaments.release("lossy", taken_index(taken))  # as a lease that lapsed
        assert sweep() == {"lossy": [taken_index(taken)]}
        for match in schedule.matches:
            tournaments.record_outcome("lossy", match.index, {"status": PLAYED, "result": {}})
        wipe_broker(tournaments, config)  # the final task is lost too
        assert sweep() == {}
        assert tournament.progress(tournaments, "lossy").finished
    finally:
        for key in tournaments.client.scan_iter(f"{config.store_prefix}*"):
            tournaments.client.delete(key)


def taken_index(message: dict[str, Any]) -> int:
    """The match index of a decoded play_match message."""
    args, _kwargs, _embed = json.loads(base64.b64decode(message["body"]))
    return int(args[1])


def broker_args(raw: bytes) -> tuple[str, int]:
    """The (tournament id, match index) of a raw play_match message from the queue."""
    message = json.loads(raw)
    args, _kwargs, _embed = json.loads(base64.b64decode(message["body"]))
    return args[0], args[1]


# --------------------------------------------------------------------------- with workers


@dataclass
class Rig:
    """What a test drives the arena with; worker processes appended to ``workers`` are
    stopped afterwards (their logs are printed, so a failure shows them)."""

    config: WorkerConfig
    tournaments: TournamentStore
    app: Celery
    workers: list[WorkerProcess] = field(default_factory=list)


@pytest.fixture()
def rig(arena: ArenaThread, redis_url: str) -> Iterator[Rig]:
    """Settings, store and Celery app for the arena (same key prefix as its referee)."""
    config = worker_config(redis_url, arena.prefix, f"127.0.0.1:{arena.arena.server.port}")
    rig = Rig(config, TournamentStore(Store.from_url(redis_url, config.store_prefix)), make_app(config))
    yield rig
    for worker in rig.workers:
        worker.stop()
        print(f"---- {worker.log_path.name}\n{worker.log()[-4000:]}")


def assert_each_match_once(arena: ArenaThread, tournaments: TournamentStore, schedule: Schedule) -> None:
    """Every match has one played outcome, is in the referee's record, was started by the
    referee exactly once, and the table adds up."""
    tid = schedule.tournament_id
    outcomes = tournaments.outcomes(tid)
    assert sorted(outcomes) == [m.index for m in schedule.matches]
    assert all(outcomes[m.index]["status"] == PLAYED and outcomes[m.index]["match_id"] == m.match_id
               for m in schedule.matches), outcomes
    assert all(outcomes[m.index]["result"]["completed"] for m in schedule.matches)
    store = tournaments.store
    assert all(store.client.zscore(f"{store.prefix}matches", m.match_id) is not None for m in schedule.matches)
    ids = [m.match_id for m in schedule.matches]
    assert {i: arena.counter.starts[i] for i in ids} == dict.fromkeys(ids, 1), "a match was played twice"
    table = tournaments.table(tid)
    assert table is not None and table["played"] == len(schedule.matches) and table["not_played"] == 0
    seats_per_match = len(schedule.matches[0].seats)
    assert sum(r["games"] for r in table["rows"]) == seats_per_match * schedule.games * len(schedule.matches)
    assert all(r["wins"] + r["draws"] + r["losses"] == r["games"] for r in table["rows"])


@pytest.mark.slow
def test_full_tournaments_record_every_match_once(arena: ArenaThread, rig: Rig, tmp_path: Path) -> None:
    """A partnership round robin of four bots (duplicate deals), and at the same time a
    cutthroat one started the way beat starts it (the task lists the connected bots through
    the referee), on one worker process with two pool processes: both end with every match
    recorded exactly once and a final table; progress was readable while they ran."""
    config, tournaments, app, workers = rig.config, rig.tournaments, rig.app, rig.workers
    bots = [arena.connect(spec) for spec in SPECS]
    partnership = tournament.create(tournaments, "partnership", bots, games=2, seed=1)
    assert tournament.launch(app, tournaments, partnership.tournament_id) == 6
    app.signature(AUTO_ROUND_ROBIN, ("cutthroat",)).apply_async()
    workers.append(WorkerProcess(config, "full", tmp_path))
    seen: set[int] = set()

    def finished() -> bool:
        seen.add(tournament.progress(tournaments, partnership.tournament_id).played)
        automatic = tournaments.latest_automatic("cutthroat")
        return automatic is not None and all(
            tournament.progress(tournaments, tid).finished for tid in (partnership.tournament_id, automatic))

    wait_until(finished, 60, "both tournaments to finish")
    cutthroat = tournaments.plan(str(tournaments.latest_automatic("cutthroat")))
    assert cutthroat.entrants == tuple(sorted(bots)) and len(cutthroat.matches) == 12
    assert len(seen) > 2, "progress moved while the tournament ran"
    for schedule in (partnership, cutthroat):
        assert_each_match_once(arena, tournaments, schedule)
    assert "raised unexpected" not in workers[0].log()
    for preset_name, schedule in (("partnership", partnership), ("cutthroat", cutthroat)):
        board = Leaderboard(tournaments.store, preset_name)  # the live Elo, one update per match
        assert all(board.applied(m.match_id) for m in schedule.matches)
        rows = board.top(10)
        assert sorted(r.bot_id for r in rows) == sorted(bots)
        assert abs(sum(r.rating - board.config.initial for r in rows)) < 1e-6  # Elo is zero-sum


@pytest.mark.slow
def test_killed_worker_loses_no_match_and_plays_none_twice(arena: ArenaThread, rig: Rig,
                                                           tmp_path: Path) -> None:
    """SIGKILL a worker (and its pool) while it runs matches; a new worker gets the killed
    worker's tasks back after the visibility timeout and the tournament ends with every
    match recorded exactly once: the matches that were running were finished by the
    referee and reused, not played again.  The new worker's supervisor sends again a task
    the kill caught between the broker's BRPOP and its unacked record (the task is then
    lost to Redis: CI once saw a tournament hang on that)."""
    config, tournaments, app, workers = rig.config, rig.tournaments, rig.app, rig.workers
    bots = [arena.connect(spec) for spec in SPECS]
    schedule = tournament.create(tournaments, "partnership", bots, games=3, seed=3)
    tournament.launch(app, tournaments, schedule.tournament_id)
    workers.append(WorkerProcess(config, "doomed", tmp_path))
    tid = schedule.tournament_id

    def running_and_recorded() -> bool:  # both pool processes busy, so one is still running after the kill
        now = tournament.progress(tournaments, tid)
        return now.played >= 1 and now.in_progress >= 2

    wait_until(running_and_recorded, 30, "a recorded match and two running ones")
    workers[0].kill()
    interrupted = set(tournaments.started(tid)) - set(tournaments.outcomes(tid))
    assert interrupted
    workers.append(WorkerProcess(config, "survivor", tmp_path))
    wait_until(lambda: tournament.progress(tournaments, tid).finished, 60, "the tournament to finish")
    assert_each_match_once(arena, tournaments, schedule)
    outcomes = tournaments.outcomes(tid)
    assert {outcomes[i]["worker"].split("@")[0] for i in interrupted} == {"survivor"}


@pytest.mark.slow
def test_killed_workers_matches_are_sent_again_when_their_lease_lapses(arena: ArenaThread, rig: Rig,
                                                                        tmp_path: Path) -> None:
    """With the broker's visibility timeout at its 40-minute default, a SIGKILLed worker's
    running matches are picked up when their leases lapse (the worker renewed them while it
    waited on the referee): the survivor's supervisor sends them again within seconds, the
    retries join or reuse the referee's matches, and every match is recorded exactly once."""
    config = replace(rig.config, visibility_timeout_s=2400, lease_s=2, requeue_interval_s=1)
    tournaments, app, workers = rig.tournaments, make_app(config), rig.workers
    bots = [arena.connect(spec) for spec in SPECS]
    schedule = tournament.create(tournaments, "partnership", bots, games=3, seed=5)
    tournament.launch(app, tournaments, schedule.tournament_id)
    workers.append(WorkerProcess(config, "doomed", tmp_path))
    tid = schedule.tournament_id
    wait_until(lambda: tournament.progress(tournaments, tid).in_progress >= 2, 30, "two running matches")
    assert tournaments.leased(tid, list(range(len(schedule.matches))))  # the running matches are leased
    workers[0].kill()
    killed = time.monotonic()
    interrupted = set(tournaments.started(tid)) - set(tournaments.outcomes(tid))
    assert interrupted
    workers.append(WorkerProcess(config, "survivor", tmp_path))
    wait_until(lambda: interrupted <= set(tournaments.outcomes(tid)), 60, "the killed worker's matches")
    recovered = time.monotonic() - killed
    wait_until(lambda: tournament.progress(tournaments, tid).finished, 60, "the tournament to finish")
    assert_each_match_once(arena, tournaments, schedule)
    outcomes = tournaments.outcomes(tid)
    assert {outcomes[i]["worker"].split("@")[0] for i in interrupted} == {"survivor"}
    print(f"the killed worker's {len(interrupted)} match(es) recorded {recovered:.1f}s after the kill")


@pytest.mark.slow
def test_a_match_taken_by_a_worker_killed_before_starting_it_is_sent_again_ahead_of_the_queue(
        arena: ArenaThread, rig: Rig, tmp_path: Path) -> None:
    """A worker killed the moment it receives a match, before starting it, leaves the
    message in the broker's unacked set with no lease: with the visibility timeout at its
    40-minute default the match is still sent again once the start grace (the lease) has
    passed, by the supervisor of another worker (no beat runs), and ahead of the matches
    queued meanwhile: it is played while most of a 24-match backlog still waits."""
    config = replace(rig.config, visibility_timeout_s=2400, lease_s=2, requeue_interval_s=1)
    tournaments, app, workers = rig.tournaments, make_app(config), rig.workers
    bots = [arena.connect(spec) for spec in SPECS]
    first = tournament.create(tournaments, "cutthroat", bots, seed=11)
    tournament.launch(app, tournaments, first.tournament_id)
    workers.append(WorkerProcess(config, "doomed", tmp_path, concurrency=1, include=["tests.workers.dying_on_receipt"]))
    assert workers[0].process.wait(timeout=30) == -9
    backlog = tournament.create(tournaments, "cutthroat", bots, games=4, seed=12)
    tournament.launch(app, tournaments, backlog.tournament_id)
    killed = time.monotonic()
    workers.append(WorkerProcess(config, "survivor", tmp_path, concurrency=1))
    wait_until(lambda: 0 in tournaments.outcomes(first.tournament_id), 60, "the match the dead worker had taken")
    recovered = time.monotonic() - killed
    resent = resent_at(workers[1].log(), first.tournament_id, 0)
    restarted = tournaments.started(first.tournament_id)[0]
    # the survivor runs one match at a time: the lost match was the next it took after the resend (or the
    # one after, when it took a queued match while the sweep was sending: the log line comes first)
    overtaking = [i for schedule in (first, backlog) for i, at in tournaments.started(schedule.tournament_id).items()
                  if resent < at < restarted]
    assert len(overtaking) <= 1, f"queued matches {overtaking} were played before the match sent again"
    assert len(tournaments.outcomes(backlog.tournament_id)) < len(backlog.matches)  # the backlog was still there
    assert tournaments.outcomes(first.tournament_id)[0]["worker"].startswith("survivor@")
    for schedule in (first, backlog):
        wait_until(lambda s=schedule: tournament.progress(tournaments, s.tournament_id).finished, 90,
                   "the tournaments to finish")
        assert_each_match_once(arena, tournaments, schedule)
    print(f"the match taken by the killed worker was recorded {recovered:.1f}s after the kill")


@pytest.mark.slow
def test_offline_bot_is_retried_then_not_played_then_played(arena: ArenaThread, rig: Rig,
                                                            tmp_path: Path) -> None:
    """A match with an offline bot is retried with backoff, then recorded as not played
    with the reason (the tournament still finishes); once the bot connects, relaunching the
    matches not played plays them and rewrites the table."""
    config, tournaments, app, workers = rig.config, rig.tournaments, rig.app, rig.workers
    a, b, c = (arena.connect(spec) for spec in SPECS[:3])
    offline, token = arena.register()
    schedule = tournament.create(tournaments, "partnership", [a, b, c, offline], teams=[(a, b), (c, offline)])
    tid = schedule.tournament_id
    tournament.launch(app, tournaments, tid)
    workers.append(WorkerProcess(config, "retrier", tmp_path))
    wait_until(lambda: tournament.progress(tournaments, tid).finished, 30, "the tournament to finish")
    outcomes = tournaments.outcomes(tid)
    assert [o["status"] for o in outcomes.values()] == [NOT_PLAYED, NOT_PLAYED]
    assert all(o["attempts"] == config.match_retries + 1 for o in outcomes.values())
    assert all(o["reason"].startswith("FAILED_PRECONDITION") and "is not connected" in o["reason"]
               for o in outcomes.values())
    table = tournaments.table(tid)
    assert table is not None and table["not_played"] == 2 and all(r["not_played"] == 2 for r in table["rows"])
    arena.connect_registered(token, "random")
    assert tournament.launch(app, tournaments, tid, retry_not_played=True) == 2
    wait_until(lambda: tournament.progress(tournaments, tid).finished, 30, "the matches to be played")
    assert_each_match_once(arena, tournaments, schedule)


@pytest.mark.slow
def test_a_match_whose_pool_process_died_goes_back_to_the_front_of_the_queue(arena: ArenaThread, rig: Rig,
                                                                              tmp_path: Path) -> None:
    """A pool process killed while it plays a match makes Celery put the message back on
    the queue, where kombu pushes it behind every queued match; the sweep moves it to the
    front, so it is played again while most of a 24-match backlog still waits (it waited
    for the whole backlog before)."""
    tournaments, app, workers = rig.tournaments, rig.app, rig.workers
    bots = [arena.connect(spec) for spec in SPECS]
    first = tournament.create(tournaments, "cutthroat", bots[:3], games=30, seed=14)
    tournament.launch(app, tournaments, first.tournament_id)
    backlog = tournament.create(tournaments, "cutthroat", bots, games=3, seed=15)  # a sweep interval outlasts a match
    tournament.launch(app, tournaments, backlog.tournament_id)
    # the broker's own restore of unacked messages (at the queue's front) must not race the sweep
    config = replace(rig.config, visibility_timeout_s=2400)
    workers.append(WorkerProcess(config, "one-at-a-time", tmp_path, concurrency=1))
    wait_until(lambda: 0 in tournaments.leased(first.tournament_id, [0]), 30, "the first match to start")
    killed = time.time()
    (pool,) = psutil.Process(workers[0].process.pid).children()
    pool.kill()
    wait_until(lambda: 0 in tournaments.outcomes(first.tournament_id), 90, "the match of the killed pool process")
    restarted = tournaments.started(first.tournament_id)[0]
    assert restarted > killed
    overtaking = [i for i, at in tournaments.started(backlog.tournament_id).items() if at < restarted]
    assert len(overtaking) <= 4, f"{len(overtaking)} queued matches were started before the match put back"
    assert "moved to its front" in workers[0].log()


@pytest.mark.slow
def test_a_deferred_match_is_retried_ahead_of_the_queued_matches(arena: ArenaThread, rig: Rig,
                                                                   tmp_path: Path) -> None:
    """A match the referee turned away (a bot not connected yet) is retried when its
    countdown ends, not behind the matches queued after it: once the bot connects, both
    deferred matches are played while the 24-match backlog queued behind them still waits
    (their retries went to the back of the queue before, and ran after the backlog)."""
    config, tournaments, app, workers = rig.config, rig.tournaments, rig.app, rig.workers
    config = replace(config, match_retries=50)  # the absent bot's budget outlasts the backlog either way
    a, b, c = (arena.connect(spec) for spec in SPECS[:3])
    late, token = arena.register()
    first = tournament.create(tournaments, "partnership", [a, b, c, late], teams=[(a, b), (c, late)])
    tournament.launch(app, tournaments, first.tournament_id)
    backlog = tournament.create(tournaments, "cutthroat", [a, b, c, arena.connect("heuristic")], games=1, seed=13)
    tournament.launch(app, tournaments, backlog.tournament_id)
    workers.append(WorkerProcess(config, "one-at-a-time", tmp_path, concurrency=1))
    wait_until(lambda: workers[0].log().count(" deferred ") >= 2, 30, "both matches turned away")
    arena.connect_registered(token, "heuristic")
    wait_until(lambda: len(tournaments.outcomes(first.tournament_id)) == 2, 60, "the deferred matches")
    started = tournaments.started(first.tournament_id)
    overtaking = [i for i, at in tournaments.started(backlog.tournament_id).items() if at < max(started.values())]
    assert len(overtaking) <= 4, f"{len(overtaking)} queued matches were started before the retried ones"
    assert [o["status"] for o in tournaments.outcomes(first.tournament_id).values()] == [PLAYED, PLAYED]


@pytest.mark.slow
def test_a_busy_bot_does_not_spend_an_absent_bots_retries(arena: ArenaThread, rig: Rig, tmp_path: Path) -> None:
    """A bot of capacity 1 busy in one match turns the tournament's next matches away
    (RESOURCE_EXHAUSTED, "plays 1 of its 1 seats") for longer than the retries of an absent
    bot last (2 retries, 0.7 s): those matches wait for the busy fleet and are played once
    the bot is free, none recorded as not played."""
    config, tournaments, app, workers = rig.config, rig.tournaments, rig.app, rig.workers
    gate = threading.Event()
    busy, _ = arena.call(arena.arena.connect(lambda: GatedBot(gate), capacity=1))
    others = [arena.connect("heuristic") for _ in range(2)]
    schedule = tournament.create(tournaments, "cutthroat", [str(busy), *others], seed=21)
    tid = schedule.tournament_id
    tournament.launch(app, tournaments, tid)
    workers.append(WorkerProcess(config, "patient", tmp_path, concurrency=3))
    time.sleep(3)  # several times the absent bot's retries: the other matches are refused again and again
    assert tournaments.outcomes(tid) == {}, "a match gave up on a busy bot"
    gate.set()
    wait_until(lambda: tournament.progress(tournaments, tid).finished, 60, "the tournament to finish")
    outcomes = tournaments.outcomes(tid)
    assert [o["status"] for o in outcomes.values()] == [PLAYED] * len(schedule.matches)
    assert max(o["attempts"] for o in outcomes.values()) > config.match_retries + 1  # it waited past the retries


@pytest.mark.slow
def test_resume_after_losing_the_queue(arena: ArenaThread, rig: Rig, tmp_path: Path) -> None:
    """Stop the worker halfway and lose the broker's queue (a Redis without persistence, a
    purge): launching again sends exactly the matches without an outcome, and a new worker
    finishes the tournament with every match recorded exactly once."""
    config, tournaments, app, workers = rig.config, rig.tournaments, rig.app, rig.workers
    bots = [arena.connect(spec) for spec in SPECS]
    schedule = tournament.create(tournaments, "cutthroat", bots, games=2, seed=4)
    tid = schedule.tournament_id
    tournament.launch(app, tournaments, tid)
    workers.append(WorkerProcess(config, "first", tmp_path))
    wait_until(lambda: tournament.progress(tournaments, tid).played >= 3, 30, "three recorded matches")
    workers[0].stop()
    wipe_broker(tournaments, config)
    pending = tournament.progress(tournaments, tid).pending
    assert 0 < pending < len(schedule.matches)
    assert tournament.launch(app, tournaments, tid) == pending
    workers.append(WorkerProcess(config, "second", tmp_path))
    wait_until(lambda: tournament.progress(tournaments, tid).finished, 60, "the tournament to finish")
    assert_each_match_once(arena, tournaments, schedule)


def test_every_connected_bot_means_all_but_the_arenas_house_bots(redis_url: str) -> None:
    """A round robin of "every connected bot" (the CLI's default, the web form's, beat's)
    leaves out the arena's own bots: the web arena's seat for people would play first legal
    moves in it, and its house bots are there to play people."""
    store = Store.from_url(redis_url, f"house-{uuid.uuid4().hex[:8]}:")
    try:
        store.mark_house("person")
        assert store.house_bots() == {"person"}
        assert tournament.default_entrants(store, ["a", "person", "b"]) == ["a", "b"]
    finally:
        for key in store.client.scan_iter(f"{store.prefix}*"):
            store.client.delete(key)


@pytest.mark.slow
def test_the_same_seed_and_entrants_replay_the_same_games(arena: ArenaThread, rig: Rig, tmp_path: Path) -> None:
    """Two tournaments of the same random bots with the same base seed play the same games,
    decision for decision (the bots' own randomness was seeded from the match id, which
    holds the tournament's random id: 0 of the matches were equal); another seed does not."""
    bots = [arena.connect("random") for _ in range(3)]
    short = {"max_hands": 6}  # random bots' games run long; the same cap for every tournament
    schedules = [tournament.create(rig.tournaments, "cutthroat", bots, games=2, seed=seed, options=short)
                 for seed in (7, 7, 8)]
    for schedule in schedules:
        tournament.launch(rig.app, rig.tournaments, schedule.tournament_id)
    rig.workers.append(WorkerProcess(rig.config, "seeded", tmp_path))
    wait_until(lambda: all(tournament.progress(rig.tournaments, s.tournament_id).finished for s in schedules), 90,
               "the tournaments to finish")
    store = rig.tournaments.store

    def games(schedule: Schedule) -> list[list[dict[str, Any]]]:
        """Each match's game logs without ``decision_ms``, the time each answer took (the
        games are the same; the clock is not)."""
        logs = [[json.loads(raw) for raw in store.match_logs(m.match_id)] for m in schedule.matches]
        for match in logs:
            for log in match:
                assert len(log.pop("decision_ms")) > 0
        return logs

    first, again, other = (games(s) for s in schedules)
    assert all(len(match) == 2 for match in first)
    assert first == again
    assert first != other
