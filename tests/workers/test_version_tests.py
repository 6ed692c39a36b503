"""The automatic SPRT of every new version against its predecessor.

First the sweep's choices on a real Redis (the fleet directory written as referees write
it, the runs' first matches queued on a real Celery broker, no worker): which version is
tested against which, one author's burst against another author's single version, and
what waits.  Then end to end: one bot's two versions connected to a real referee, a real
Celery worker whose supervisor starts the test by itself and plays it to its verdict."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from celery import Celery

from competitions.config import WorkerConfig
from competitions.queue import make_app
from competitions.sprt.store import SprtStore
from competitions.version_tests import control
from store.accounts import Accounts
from store.fleet import FleetDirectory
from store.redis_store import Store
from store.seat_keys import seat_key
from store.version_tests import VersionTestStore
from store.versions import BotVersions
from tests.workers.celery_harness import (
    ArenaThread,
    WorkerProcess,
    arena_per_test,  # noqa: F401 (the fixture "arena": a referee of each test's own)
    wait_until,
)
from tests.workers.test_tournament import wipe_broker, worker_config


class Arena:
    """A store, its versions and fleet directory, and a Celery app on the same Redis."""

    def __init__(self, redis_url: str) -> None:
        self.config = replace(worker_config(redis_url, f"vt-{uuid.uuid4().hex[:8]}:"), auto_sprt_per_author=1)
        self.store = Store.from_url(redis_url, self.config.store_prefix)
        self.versions = BotVersions(self.store)
        self.directory = FleetDirectory(self.store, self.config.fleet_ttl_s)
        self.directory.announce("referee", "127.0.0.1:1", 64, 0, [], [])
        self.tests = VersionTestStore(self.store)
        self.app: Celery = make_app(self.config)

    def bot(self, owner: str) -> str:
        """A registered bot of ``owner``: its id."""
        record, _ = self.store.register_bot(f"{owner}-{uuid.uuid4().hex[:6]}", owner=owner)
        return record.bot_id

    def authors_bot(self, presets: list[str]) -> str:
        """A bot of an account of its own (so its tests never wait for another's) whose
        owner chose ``presets``: its id."""
        accounts = Accounts(self.store)
        account = accounts.create(f"author-{uuid.uuid4().hex[:8]}", "author-password")
        record, _ = accounts.create_bot(account, f"{account.name}-bot", presets=presets)
        return record.bot_id

    def hello(self, bot_id: str, version: str, connected: bool = True) -> str:
        """The bot says hello with ``version`` (as the referee records it), listed connected
        in the directory unless not ``connected``: its seat key."""
        self.versions.connected(bot_id, version)
        if connected:
            self.directory.bot_connected("referee", seat_key(bot_id, version), 4)
        return seat_key(bot_id, version)

    def sweep(self) -> control.SweepOutcome:
        return control.sweep(self.app, self.tests, self.config)

    def close(self) -> None:
        for key in self.store.client.scan_iter(f"{self.store.prefix}*"):
            self.store.client.delete(key)


@pytest.fixture()
def world(redis_url: str) -> Iterator[Arena]:
    arena = Arena(redis_url)
    yield arena
    arena.close()


def test_a_new_version_is_tested_against_its_newest_connected_predecessor(world: Arena) -> None:
    """A bot's first version is not listed for a test; its second is tested, against the first, with the
    arena's preset, bounds and cap, and the run's first pair is queued; a third whose
    nearest predecessor is not connected is tested against the newest one that is."""
    bot = world.bot("alice")
    first = world.hello(bot, "1")
    assert world.sweep() == control.SweepOutcome([], [], 0)
    second = world.hello(bot, "2")
    (test,) = world.sweep().started
    assert (test.seat, test.predecessor, test.owner) == (second, first, "operator:alice")
    spec = SprtStore(world.store).spec(test.run_id)
    assert (spec.new, spec.old, spec.preset, spec.elo0, spec.elo1, spec.max_games) == (
        second, first, "partnership", 0.0, 10.0, 2000)
    assert SprtStore(world.store).released(test.run_id) == 1  # the first pair went to the workers
    world.directory.bot_disconnected("referee", second, last=False)
    third = world.hello(bot, "3")
    started = world.sweep().started  # alice's one test is running: the third waits its turn
    assert started == [] and world.tests.waiting() != []
    world.tests.close(test.run_id)
    (again,) = world.sweep().started
    assert (again.seat, again.predecessor) == (third, first)


def test_an_operators_bot_named_after_an_account_does_not_use_that_accounts_turn(world: Arena) -> None:
    """Tests count against a bot's account, by the account's own record: an operator's bot
    whose free-text owner is an account's name takes none of that account's share (with one
    test per author, the two start in one sweep)."""
    mine = world.authors_bot([])
    name = next(b.owner for b in world.store.bots() if b.bot_id == mine)
    theirs = world.bot(name)
    for bot in (mine, theirs):
        world.hello(bot, "1")
    seats = {world.hello(mine, "2"), world.hello(theirs, "2")}
    started = world.sweep().started
    assert {test.seat for test in started} == seats
    assert {test.owner for test in started} == {f"account:{name.lower()}", f"operator:{name}"}


def test_the_automatic_sprt_plays_the_first_two_sided_preset_the_author_chose(world: Arena) -> None:
    """"Starts an SPRT of the new version against it (the existing pentanomial SPRT, bounds
    and game cap from the arena's settings, per preset the author chose)": the run plays the
    first of the bot's chosen presets with two sides (cutthroat's three players alone
    cannot be swapped in duplicate pairs), else the arena's preset: for a bot whose
    choices are none of them two-sided, and for a bot that plays every preset."""
    bots = {"ten-point": world.authors_bot(["cutthroat", "ten-point", "partnership"]),
            "partnership": world.authors_bot(["cutthroat", "simple"])}
    plays_every_preset = world.authors_bot([])
    seats = {}
    for bot in [*bots.values(), plays_every_preset]:
        world.hello(bot, "1")
        seats[world.hello(bot, "2")] = bot
    started = world.sweep().started
    assert {test.seat for test in started} == set(seats)
    presets = {seats[test.seat]: SprtStore(world.store).spec(test.run_id).preset for test in started}
    assert presets == {bots["ten-point"]: "ten-point", bots["partnership"]: "partnership",
                       plays_every_preset: "partnership"}


def test_one_authors_burst_waits_its_turn_and_does_not_delay_another_author(world: Arena) -> None:
    """Ten new versions of ten bots of one author arrive before one of another author's:
    the sweep starts one test per author (the per-author bound), so the second author's
    test starts at once, not after the ten; the burst's others start one by one as their
    author's runs end.  A burst of versions of one bot tests only its newest."""
    burst = []
    for _ in range(10):
        bot = world.bot("busy")
        world.hello(bot, "1")
        burst.append(world.hello(bot, "2"))
    quiet_bot = world.bot("quiet")
    world.hello(quiet_bot, "1")
    quiet = world.hello(quiet_bot, "2")
    started = {test.seat: test for test in world.sweep().started}
    assert set(started) == {burst[0], quiet}
    assert len(world.tests.waiting()) == 9
    running = started[burst[0]].run_id
    for position in range(1, 4):  # each end of a busy run lets the next busy version in
        world.tests.close(running)
        (next_test,) = world.sweep().started
        assert next_test.seat == burst[position]
        running = next_test.run_id
    hasty = world.bot("hasty")
    world.hello(hasty, "1")
    for version in ("2", "3", "4"):
        world.hello(hasty, version)
    result = world.sweep()
    assert {t.seat for t in result.skipped} == {seat_key(hasty, "2"), seat_key(hasty, "3")}
    assert [t.seat for t in result.started] == [seat_key(hasty, "4")]


def test_a_version_whose_predecessor_is_not_connected_waits_and_the_switch_turns_it_off(world: Arena) -> None:
    """No earlier version connected: the new version waits (nothing is started, nothing
    recorded) until one is; with PITCH_AUTO_SPRT=0 the workers' supervisor starts nothing."""
    bot = world.bot("alice")
    world.hello(bot, "1", connected=False)
    world.hello(bot, "2")
    assert world.sweep().started == [] and world.tests.test_of(seat_key(bot, "2")) is None
    world.directory.bot_connected("referee", seat_key(bot, "1"), 4)
    assert [t.seat for t in world.sweep().started] == [seat_key(bot, "2")]
    assert WorkerConfig.from_env({"PITCH_AUTO_SPRT": "0"}).auto_sprt == 0


@pytest.mark.slow
def test_a_second_version_of_a_connected_bot_is_tested_by_the_workers_by_themselves(
        arena: ArenaThread, redis_url: str, tmp_path: Path) -> None:
    """One bot, its version 1 (the random bot) connected, then its version 2 (the
    heuristic bot) beside it: nobody asks, and the workers' supervisor starts an SPRT of 2
    against 1 and plays it to its verdict (H1, the heuristic bot being far stronger), each
    match seating each version where the plan says."""
    bot_id, token = arena.register()
    arena.connect_registered(token, "random", version="1")
    arena.connect_registered(token, "heuristic", version="2")
    config = replace(worker_config(redis_url, arena.prefix, f"127.0.0.1:{arena.arena.server.port}"),
                     auto_sprt_elo1=200.0, auto_sprt_max_games=40)
    tests = VersionTestStore(Store.from_url(redis_url, config.store_prefix))
    sprts = SprtStore(tests.store)
    wipe_broker(sprts.runs, config)
    worker = WorkerProcess(config, "auto-sprt", tmp_path)
    try:
        wait_until(lambda: (t := tests.test_of(seat_key(bot_id, "2"))) is not None and bool(t.run_id), 30,
                   "the automatic SPRT to start")
        test = tests.test_of(seat_key(bot_id, "2"))
        assert test is not None and test.predecessor == seat_key(bot_id, "1")
        wait_until(lambda: sprts.verdict(test.run_id) is not None, 120, "the automatic SPRT's verdict")
    finally:
        worker.stop()
        print(worker.log()[-3000:])
    verdict = sprts.verdict(test.run_id)
    assert verdict is not None and verdict["verdict"] == "H1", verdict
    assert "automatic SPRT" in worker.log()
