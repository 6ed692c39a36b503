"""Which version of a bot is its current one, and the store's side of the arena's check of a
new version, on real Redis.

The issue's words: "the bot's current version is the newest one that was not rejected (or
the one its owner pins)"."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from store.redis_store import Store
from store.seat_keys import seat_key
from store.version_checks import VersionChecks
from store.version_tests import VersionTestStore
from store.versions import BotVersions, CheckState, VersionError


@pytest.fixture()
def store(redis_url: str) -> Iterator[Store]:
    store = Store.from_url(redis_url, prefix=f"current-{uuid.uuid4().hex[:8]}:")
    yield store
    for key in store.client.scan_iter(f"{store.prefix}*"):
        store.client.delete(key)


def test_the_newest_version_that_may_play_is_current_and_an_older_one_connecting_again_is_not(
        store: Store) -> None:
    record, _ = store.register_bot("evolving")
    versions = BotVersions(store)
    bot = record.bot_id
    versions.connected(bot, "1")
    assert versions.current(bot) == bot
    versions.connected(bot, "2")
    assert versions.current(bot) == f"{bot}-v2"
    versions.connected(bot, "1")  # the predecessor an SPRT keeps beside the new one says hello again
    assert versions.current(bot) == f"{bot}-v2"
    assert versions.superseded() == {bot}


def test_a_version_being_checked_or_rejected_is_never_current_one_that_passed_is(store: Store) -> None:
    record, _ = store.register_bot("checked")
    versions, checks, tests = BotVersions(store), VersionChecks(BotVersions(store)), VersionTestStore(store)
    bot = record.bot_id
    assert versions.connected(bot, "1", check=True).check == CheckState.PENDING
    assert versions.current(bot) is None
    assert checks.settle(bot, "1", True, "compliance check passed", "report 1")
    assert versions.current(bot) == bot
    assert not tests.waits(seat_key(bot, "1"))  # a first version has nothing to be tested against

    assert versions.connected(bot, "2", check=True).check == CheckState.PENDING
    assert not tests.waits(seat_key(bot, "2"))  # not before it passed
    assert checks.settle(bot, "2", False, "compliance check failed", "problem: play: illegal action")
    assert not checks.settle(bot, "2", True, "too late", "")  # the first verdict stands
    found = checks.get(bot, "2")
    assert found is not None and found.state == CheckState.FAILED and "illegal action" in found.report
    assert versions.connected(bot, "2", check=True).check == CheckState.FAILED
    assert versions.current(bot) == bot and not tests.waits(seat_key(bot, "2"))

    versions.connected(bot, "3", check=True)
    assert checks.settle(bot, "3", True, "compliance check passed", "report 3")
    assert versions.current(bot) == f"{bot}-v3" and tests.waits(seat_key(bot, "3"))
    assert versions.connected(bot, "4").check is None  # allocated without a check: it plays at once
    assert versions.current(bot) == f"{bot}-v4"


def test_a_pinned_version_stays_current_until_unpinned(store: Store) -> None:
    record, _ = store.register_bot("pinned")
    versions, checks = BotVersions(store), VersionChecks(BotVersions(store))
    bot = record.bot_id
    for version in ("1", "2"):
        versions.connected(bot, version)
    assert versions.pin(bot, "1") == bot
    versions.connected(bot, "3")
    assert versions.current(bot) == bot and versions.pinned(bot) == bot
    versions.connected(bot, "4", check=True)
    checks.settle(bot, "4", True, "passed", "")
    assert versions.current(bot) == bot
    with pytest.raises(VersionError, match="no version"):
        versions.pin(bot, "9")
    versions.connected(bot, "5", check=True)
    with pytest.raises(VersionError, match="did not pass"):
        versions.pin(bot, "5")
    assert versions.pin(bot, None) == f"{bot}-v4"  # unpinned: the newest that may play
    assert versions.current(bot) == f"{bot}-v4" and versions.pinned(bot) is None


def test_one_referee_at_a_time_checks_a_version(store: Store) -> None:
    record, _ = store.register_bot("claimed")
    versions = BotVersions(store)
    checks = VersionChecks(versions)
    versions.connected(record.bot_id, "1", check=True)
    assert checks.claim(record.bot_id, "1", "referee-a", 30.0)
    assert not checks.claim(record.bot_id, "1", "referee-b", 30.0)
    assert checks.claim(record.bot_id, "1", "referee-a", 30.0)  # renewed by its holder
    checks.release(record.bot_id, "1", "referee-b")  # not the holder's: nothing happens
    assert not checks.claim(record.bot_id, "1", "referee-b", 30.0)
    checks.release(record.bot_id, "1", "referee-a")
    assert checks.claim(record.bot_id, "1", "referee-b", 30.0)
