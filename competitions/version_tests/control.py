"""Start the automatic SPRT of each new version of a bot against its predecessor, fairly.

A bot that says hello with a version it never used (a remote bot's new release, a hosted
submission that passed its check) is listed as waiting by the referee
(:mod:`store.versions`).  Each sweep of the workers' supervisor (:mod:`workers.supervisor`)
reads the waiting versions, oldest first, and for each:

* a bot's newest waiting version is the one tested: its older waiting versions are
  recorded as skipped (a burst of releases tests its last one, as fishtest tests a
  branch's head);
* its predecessor is the bot's most recent earlier version connected now (a version plays
  only while its process is connected: a hosted bot's host keeps it, a remote author keeps
  both processes running); while none is, or the new version itself is not, it waits;
* while its owner already has ``auto_sprt_per_author`` tests running it waits, and the
  versions of other owners behind it go first: owners take turns on the fleet, so one
  author's burst never delays another's test by more than the runs already going;
* the test is an ordinary SPRT run (:mod:`competitions.sprt`: the pentanomial SPRT over
  duplicate pairs, each version partnering itself), with the arena's bounds and cap,
  visible wherever runs are (``/sprt``, ``pitch-arena sprt --resume``);
* it plays the first of the presets the bot's owner chose (:meth:`store.accounts.Accounts.set_presets`)
  that has two sides (a duplicate pair swaps two sides' cards), else the arena's
  ``auto_sprt_preset``: a version is tested where its author means it to play.

A bot's first version is never listed (it has nothing to be compared with).  A run that
stalls (a match not played: a version left) stops counting for its owner.
"""

from __future__ import annotations

import logging
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from celery import Celery

from competitions.config import WorkerConfig
from competitions.sprt import control as sprt_control
from competitions.sprt.plan import SprtSpec, two_sided
from competitions.sprt.store import SprtStore
from competitions.tournaments.schedule import ScheduleError
from store.accounts import Accounts
from store.fleet import FleetDirectory
from store.redis_store import BotRecord
from store.seat_keys import bot_of_seat, seat_key, version_of_seat
from store.version_tests import VersionTest, VersionTestStore
from store.versions import BotVersions

log = logging.getLogger("pitch.workers")


@dataclass(frozen=True)
class SweepOutcome:
    """What one sweep did."""

    started: list[VersionTest]
    skipped: list[VersionTest]
    waiting: int
    """Versions still waiting (a predecessor or the version not connected, or their owner's
    share of the fleet in use)."""


def sweep(app: Celery, tests: VersionTestStore, config: WorkerConfig) -> SweepOutcome:
    """Close the finished runs, then start the tests the waiting versions are due (see the
    module docstring)."""
    store = tests.store
    sprts = SprtStore(store)
    running: dict[str, int] = {}
    for test in tests.open_tests():
        progress = sprt_control.progress(sprts, test.run_id)
        if progress.finished or progress.stalled_reason is not None:
            tests.close(test.run_id)
        else:
            running[test.owner] = running.get(test.owner, 0) + 1
    waiting = tests.waiting()
    if not waiting:
        return SweepOutcome([], [], 0)
    newest: dict[str, str] = {}
    for seat, _ in waiting:  # oldest first: the last one seen per bot is its newest
        newest[bot_of_seat(seat)] = seat
    connected = FleetDirectory(store, config.fleet_ttl_s).connected_bots(versions=True)
    accounts = Accounts(store)
    chosen = accounts.presets_of(newest)  # one round trip for every waiting bot
    versions = BotVersions(store)
    started: list[VersionTest] = []
    skipped: list[VersionTest] = []
    left = 0
    for seat, _ in waiting:
        bot_id = bot_of_seat(seat)
        record = store.bot(bot_id)
        owner = "" if record is None else _owner(accounts, record)
        if record is None or newest[bot_id] != seat:
            why = "the bot is not registered" if record is None else f"a newer version came: {newest[bot_id]}"
            test = VersionTest(seat, "", "", owner, time.time(), skipped=why)
            if tests.record(test):
                skipped.append(test)
            continue
        predecessor = _predecessor(versions, seat, connected)
        if predecessor is None or seat not in connected or running.get(owner, 0) >= config.auto_sprt_per_author:
            left += 1
            continue
        spec = _spec(seat, predecessor, _sprt_preset(chosen[bot_id], config.auto_sprt_preset), config)
        try:
            sprt_control.create(sprts, spec)
        except ScheduleError as refused:  # the arena's settings cannot run: say so once, test nothing
            test = VersionTest(seat, "", predecessor, owner, time.time(), skipped=f"cannot test: {refused}")
            if tests.record(test):
                log.warning("automatic SPRT of %s: %s", seat, refused)
                skipped.append(test)
            continue
        test = VersionTest(seat, spec.run_id, predecessor, owner, time.time())
        if tests.record(test):
            sprt_control.launch(app, sprts, spec.run_id)
            running[owner] = running.get(owner, 0) + 1
            started.append(test)
            log.info("automatic SPRT %s: %s against its predecessor %s", spec.run_id, seat, predecessor)
    return SweepOutcome(started, skipped, left)


def _owner(accounts: Accounts, record: BotRecord) -> str:
    """Who a bot's tests count against: its account (by the account's own record, never the
    free-text owner an operator may give any bot), else its operator-given owner, apart from
    every account."""
    account = accounts.account_of(record.bot_id)
    return f"account:{account}" if account else f"operator:{record.owner}"


def _predecessor(versions: BotVersions, seat: str, connected: set[str]) -> str | None:
    """The seat of the bot's most recent version before ``seat``'s that is connected now."""
    bot_id, version = bot_of_seat(seat), version_of_seat(seat)
    ordered = versions.versions(bot_id)
    position = next((i for i, record in enumerate(ordered) if record.version == version), len(ordered))
    for record in reversed(ordered[:position]):
        earlier = seat_key(bot_id, record.version)
        if earlier in connected:
            return earlier
    return None


def _sprt_preset(chosen: Sequence[str], default: str) -> str:
    """The preset a version's automatic SPRT plays: the first of its bot's ``chosen``
    presets that has two sides, else the arena's ``default`` (also for a bot that plays
    every preset, or only presets of more than two parties)."""
    return next((name for name in chosen if two_sided(name)), default)


def _spec(seat: str, predecessor: str, preset: str, config: WorkerConfig) -> SprtSpec:
    """The run testing ``seat`` against ``predecessor`` at ``preset`` with the arena's
    bounds and cap (its deals seeded by the version, so a run is reproducible from its
    record)."""
    run_id = f"auto-{zlib.crc32(seat.encode()):08x}-{int(time.time() * 1000) % 100_000_000:08d}"
    return SprtSpec(run_id, preset, seat, predecessor, None, config.auto_sprt_elo0,
                    config.auto_sprt_elo1, config.auto_sprt_alpha, config.auto_sprt_beta,
                    config.auto_sprt_max_games, zlib.crc32(seat.encode()), {})
