"""Hosted versions' records in a real Redis: versions and their names, statuses, what hosts
should run, output kept bounded, leases, host heartbeats and hosts' expiring bot tokens."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator

import pytest

from store.accounts import Accounts
from store.hosted import (
    MAX_LOG_BYTES,
    MAX_REPORT_CHARS,
    MAX_VERSIONS,
    HostedError,
    HostedVersions,
    Status,
    check_id,
)
from store.redis_store import Store, hash_token
from store.versions import BotVersions

SHA = "ab" * 32
MANIFEST = json.dumps({"bot": "bot.py:MyBot"})


@pytest.fixture()
def store(redis_url: str) -> Iterator[Store]:
    store = Store.from_url(redis_url, prefix=f"hosted-{uuid.uuid4().hex[:8]}:")
    yield store
    store.client.close()


@pytest.fixture()
def hosted(store: Store) -> HostedVersions:
    return HostedVersions(store)


def test_versions_are_named_in_order_and_unique_per_bot(store: Store, hosted: HostedVersions) -> None:
    bot, _ = store.register_bot("alpha", owner="ann")
    first = hosted.add(bot.bot_id, None, SHA, MANIFEST, "ann")
    assert (first.version, first.status, first.sha256, first.manifest_json) == ("v1", Status.QUEUED, SHA, MANIFEST)
    assert (first.submitted_by, first.restarts, first.host) == ("ann", 0, None)
    assert first.ref == f"{bot.bot_id}/v1"
    assert hosted.add(bot.bot_id, "2.0-beta+1", SHA, MANIFEST, "ann").version == "2.0-beta+1"
    hosted.add(bot.bot_id, "v4", SHA, MANIFEST, "ann")
    assert hosted.add(bot.bot_id, "", SHA, MANIFEST, "ann").version == "v5", "v<N> counts every submission"
    assert hosted.add(bot.bot_id, None, SHA, MANIFEST, "ann").version == "v6", "a taken v<N> is skipped"
    assert [v.version for v in hosted.versions_of(bot.bot_id)] == ["v1", "2.0-beta+1", "v4", "v5", "v6"]
    with pytest.raises(HostedError, match="already has a version 'v4'"):
        hosted.add(bot.bot_id, "v4", SHA, MANIFEST, "ann")
    other, _ = store.register_bot("beta")
    assert hosted.add(other.bot_id, "v4", SHA, MANIFEST, "bob").version == "v4", "names are per bot"
    assert hosted.get(bot.bot_id, "nope") is None and hosted.versions_of("unknown") == []


@pytest.mark.parametrize(("version", "sha256", "manifest", "submitter", "problem"), [
    ("../v1", SHA, MANIFEST, "ann", "bad version '../v1'"),
    ("a/b", SHA, MANIFEST, "ann", "bad version"),
    (".hidden", SHA, MANIFEST, "ann", "bad version"),
    ("v" * 65, SHA, MANIFEST, "ann", "bad version"),
    ("x" * 500, SHA, MANIFEST, "ann", "…'"),
    ("v1", "AB" * 32, MANIFEST, "ann", "bad package hash"),
    ("v1", SHA, "{" + " " * 5000 + "}", "ann", "more than 4096 characters"),
    ("v1", SHA, MANIFEST, "a\nb", "bad submitter"),
])
def test_bad_submissions_are_refused(hosted: HostedVersions, version: str, sha256: str, manifest: str,
                                     submitter: str, problem: str) -> None:
    with pytest.raises(HostedError, match=problem) as caught:
        hosted.add("somebot", version, sha256, manifest, submitter)
    assert len(str(caught.value)) < 160
    assert hosted.versions_of("somebot") == []


def test_a_bot_has_a_bounded_number_of_versions(store: Store, hosted: HostedVersions) -> None:
    bot, _ = store.register_bot("many")
    pipe = store.client.pipeline()
    pipe.zadd(store.prefix + f"hosted-versions:{bot.bot_id}", {f"old{i}": i for i in range(MAX_VERSIONS - 1)})
    pipe.execute()
    hosted.add(bot.bot_id, None, SHA, MANIFEST, "ann")
    with pytest.raises(HostedError, match=f"has {MAX_VERSIONS} versions, the most"):
        hosted.add(bot.bot_id, None, SHA, MANIFEST, "ann")


def test_statuses_and_what_hosts_should_run(store: Store, hosted: HostedVersions) -> None:
    bot, _ = store.register_bot("runner")
    for name in ("a", "b", "c", "d"):
        hosted.add(bot.bot_id, name, SHA, MANIFEST, "ann")
    assert [v.version for v in hosted.wanted()] == ["a", "b", "c", "d"]
    assert hosted.set_status(bot.bot_id, "a", "running", "connected")
    assert hosted.set_status(bot.bot_id, "b", Status.FAILING, "crashed 5 times: exited with status 1\n\x1b[31m")
    assert hosted.stop(bot.bot_id, "c")
    assert hosted.count_restart(bot.bot_id, "d") == 1 and hosted.count_restart(bot.bot_id, "d") == 2
    assert [v.version for v in hosted.wanted()] == ["a", "d"]
    failing = hosted.get(bot.bot_id, "b")
    assert failing is not None and failing.status == Status.FAILING
    assert failing.detail == "crashed 5 times: exited with status 1\\n\\x1b[31m", "control characters escaped"
    assert hosted.set_status(bot.bot_id, "b", Status.QUEUED, "x" * 1000), "failing is not final"
    revived = hosted.get(bot.bot_id, "b")
    assert revived is not None and len(revived.detail) == 300 and revived.detail.endswith("…")
    assert not hosted.set_status(bot.bot_id, "c", Status.RUNNING), "stopped is final"
    assert not hosted.stop(bot.bot_id, "c")
    stopped = hosted.get(bot.bot_id, "c")
    assert stopped is not None and (stopped.status, stopped.detail) == (Status.STOPPED, "stopped by its owner")
    assert not hosted.set_status(bot.bot_id, "missing", Status.RUNNING)
    assert hosted.get(bot.bot_id, "missing") is None, "a status never creates a version"
    with pytest.raises(ValueError, match="not a valid Status"):
        hosted.set_status(bot.bot_id, "a", "asleep")
    assert [(v.version, v.restarts) for v in hosted.wanted()] == [("a", 0), ("b", 0), ("d", 2)]


def test_versions_of_disabled_or_unregistered_bots_are_not_wanted(store: Store, hosted: HostedVersions) -> None:
    bot, _ = store.register_bot("switched")
    other, _ = store.register_bot("stays")
    hosted.add(bot.bot_id, None, SHA, MANIFEST, "ann")
    hosted.add(other.bot_id, None, SHA, MANIFEST, "bob")
    hosted.add("000000000000", None, SHA, MANIFEST, "ghost")
    assert {v.bot_id for v in hosted.wanted()} == {bot.bot_id, other.bot_id}
    Accounts(store).set_bot_disabled("switched", True)
    assert [v.bot_id for v in hosted.wanted()] == [other.bot_id]
    Accounts(store).set_bot_disabled("switched", False)
    owner = Accounts(store).create("owner", "owner-password")
    owned, _ = Accounts(store).create_bot(owner, "owned")
    hosted.add(owned.bot_id, None, SHA, MANIFEST, "owner")
    Accounts(store).set_disabled("owner", True)  # the account, not the bot
    assert {v.bot_id for v in hosted.wanted()} == {bot.bot_id, other.bot_id}


def test_output_keeps_the_last_64_kib(store: Store, hosted: HostedVersions) -> None:
    bot, _ = store.register_bot("noisy")
    hosted.add(bot.bot_id, "v1", SHA, MANIFEST, "ann")
    assert hosted.log(bot.bot_id, "v1") == b""
    hosted.write_log(bot.bot_id, "v1", b"\xff\x00 not UTF-8\n")
    hosted.write_log(bot.bot_id, "v1", b"restarted\n", append=True)
    assert hosted.log(bot.bot_id, "v1") == b"\xff\x00 not UTF-8\nrestarted\n"
    flood = bytes(range(256)) * 1024
    hosted.write_log(bot.bot_id, "v1", flood)
    assert hosted.log(bot.bot_id, "v1") == flood[-MAX_LOG_BYTES:]
    hosted.write_log(bot.bot_id, "v1", b"tail", append=True)
    assert hosted.log(bot.bot_id, "v1") == (flood + b"tail")[-MAX_LOG_BYTES:]
    hosted.write_log(bot.bot_id, "v1", b"fresh")
    assert hosted.log(bot.bot_id, "v1") == b"fresh"


def test_leases_belong_to_one_host_until_they_lapse(store: Store, hosted: HostedVersions) -> None:
    bot, _ = store.register_bot("leased")
    hosted.add(bot.bot_id, "v1", SHA, MANIFEST, "ann")
    assert hosted.claim(bot.bot_id, "v1", "host-a", 0.3)
    assert not hosted.claim(bot.bot_id, "v1", "host-b", 10)
    assert hosted.holder(bot.bot_id, "v1") == "host-a"
    assert hosted.get(bot.bot_id, "v1").host == "host-a"  # type: ignore[union-attr]
    assert not hosted.renew(bot.bot_id, "v1", "host-b", 10) and not hosted.release(bot.bot_id, "v1", "host-b")
    assert hosted.renew(bot.bot_id, "v1", "host-a", 0.3)
    time.sleep(0.4)
    assert hosted.holder(bot.bot_id, "v1") is None, "a lease not renewed lapses"
    assert not hosted.renew(bot.bot_id, "v1", "host-a", 10)
    assert hosted.claim(bot.bot_id, "v1", "host-b", 10)
    assert not hosted.renew(bot.bot_id, "v1", "host-a", 10), "a lapsed lease is not taken back"
    assert hosted.release(bot.bot_id, "v1", "host-b") and hosted.holder(bot.bot_id, "v1") is None


def test_hosts_are_live_while_they_beat(hosted: HostedVersions) -> None:
    hosted.beat("host-a", {"slots": 4, "running": ["x/v1"]}, ttl_s=10)
    hosted.beat("host-b", {"slots": 2}, ttl_s=0.3)
    live = hosted.live_hosts()
    assert [(h.host_id, h.info) for h in live] == [("host-a", {"slots": 4, "running": ["x/v1"]}),
                                                  ("host-b", {"slots": 2})]
    assert abs(live[0].heartbeat - time.time()) < 5
    time.sleep(0.4)
    assert [h.host_id for h in hosted.live_hosts()] == ["host-a"]
    hosted.leave("host-a")
    assert hosted.live_hosts() == []


def test_host_tokens_authenticate_as_the_bot_and_expire(store: Store, hosted: HostedVersions) -> None:
    bot, author_token = store.register_bot("tokened")
    token = hosted.issue_token(bot.bot_id, ttl_s=0.3)
    assert token != author_token and len(token) == 64
    assert store.bot_for_token(token) == bot
    assert hosted.renew_token(token, ttl_s=0.3)
    time.sleep(0.4)
    assert store.bot_for_token(token) is None and not hosted.renew_token(token, 10)
    second = hosted.issue_token(bot.bot_id, ttl_s=10)
    assert hosted.revoke_token(second) and store.bot_for_token(second) is None
    assert not hosted.revoke_token(second)
    assert not hosted.renew_token(author_token, 1) and not hosted.revoke_token(author_token)
    assert store.bot_for_token(author_token) == bot
    assert store.client.pttl(store.prefix + "token:" + hash_token(author_token)) == -1, "the author's never expires"


def test_a_rejected_version_keeps_its_bounded_report_and_rests(store: Store, hosted: HostedVersions) -> None:
    bot, _ = store.register_bot("checked", owner="ann")
    hosted.add(bot.bot_id, "v1", SHA, MANIFEST, "ann")
    assert hosted.set_status(bot.bot_id, "v1", Status.CHECKING, "compliance check")
    assert [v.version for v in hosted.wanted()] == ["v1"]  # a version being checked is still its host's
    hosted.record_check(bot.bot_id, "v1", "compliance check failed\nproblem: \x1b[31mred\x00" + "x" * 9000, False)
    assert hosted.set_status(bot.bot_id, "v1", Status.REJECTED, "compliance check failed: 1 problem")
    record = hosted.get(bot.bot_id, "v1")
    assert record is not None and record.status == Status.REJECTED and not record.checked
    assert record.report.startswith("compliance check failed\nproblem: \\x1b[31mred\\x00xxx")
    assert len(record.report) == MAX_REPORT_CHARS and record.report.endswith("…")
    assert hosted.wanted() == []  # rejected rests: no host runs it
    hosted.record_check(bot.bot_id, "v1", "compliance check passed", True)
    assert hosted.get(bot.bot_id, "v1").checked  # type: ignore[union-attr]


def test_a_check_identity_is_a_house_bot_with_an_expiring_token_that_ends_with_the_check(
        store: Store, hosted: HostedVersions) -> None:
    account = Accounts(store).create("ann", "ann-password-1")
    bot, bot_token = Accounts(store).create_bot(account, "ann-bot")
    assert hosted.open_check("nobody", "v1", 60) is None
    token = hosted.open_check(bot.bot_id, "v1", 60)
    assert token is not None
    identity = check_id(bot.bot_id, "v1")
    found = store.bot_for_token(token)
    assert found is not None and found.bot_id == identity and found.bot_id != bot.bot_id
    assert identity in store.house_bots() and identity not in {b.bot_id for b in store.bots()}
    assert 0 < store.client.pttl(store.prefix + f"bot:{identity}") <= 60_000
    assert Accounts(store).playable([identity]) == {identity: True}
    Accounts(store).set_disabled("ann", True)
    assert Accounts(store).playable([identity]) == {identity: False}  # the account's switch holds for its check
    BotVersions(store).connected(identity, "v1")  # as the referee notes the check's hello
    hosted.close_check(bot.bot_id, "v1", token)
    assert store.bot_for_token(token) is None and store.bot(identity) is None
    assert identity not in store.house_bots() and BotVersions(store).versions(identity) == []
    assert store.bot_for_token(bot_token) is not None  # the bot's own token is untouched
