"""The arena's compliance check of hosted versions, as deployed: a ``pitch-arena bot-host``
process (checks on, the default), the module's real referee over loopback gRPC, Redis, and
every bot in its real sandbox.  The check's practice matches are played by the referee."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from pitch_sdk.proto.pitch.v1 import arena_pb2
from store.hosted import check_id
from tests.hosting.hosts import HEURISTIC, ILLEGAL, Arena, hosts_beside, statuses_until
from tests.workers.celery_harness import ArenaThread

pytestmark = pytest.mark.xdist_group("bot-hosts")

CHECK_S = 60
"""Long enough for a whole check (its practice matches) on a loaded machine."""


@pytest.fixture(scope="module")
def hosted(arena: ArenaThread, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    with hosts_beside(arena, redis_url, tmp_path_factory.mktemp("checking-hosts"), ("checker",)) as world:
        yield world


@pytest.fixture(autouse=True)
def stop_what_the_test_submitted(hosted: Arena) -> Iterator[None]:
    yield from hosted.each_test()


def test_a_version_that_plays_illegal_moves_is_rejected_and_never_plays_a_rated_match(hosted: Arena) -> None:
    bot_id = hosted.submit(ILLEGAL)
    seen, connected = statuses_until(hosted, bot_id, "rejected", CHECK_S)
    assert "checking" in seen and "running" not in seen and not connected, seen
    record = hosted.versions.get(bot_id, "v1")
    assert record is not None and not record.checked
    assert record.detail.startswith("compliance check failed:"), record.detail
    assert "problem: play: strike for illegal action" in record.report, record.report
    assert b"--- compliance check: compliance check failed" in hosted.versions.log(bot_id, "v1")
    time.sleep(1.5)  # three polls: no host starts it again
    assert hosted.status(bot_id) == "rejected" and hosted.versions.holder(bot_id, "v1") is None
    assert bot_id not in {version.bot_id for version in hosted.versions.wanted()}
    store, identity = hosted.store, check_id(bot_id, "v1")
    assert store.bot_match_count(bot_id) == 0 and store.bot_match_count(identity) == 0
    assert store.bot(identity) is None and identity not in store.house_bots()
    tokens = [key for key in store.client.scan_iter(f"{store.prefix}token:*")
              if store.client.get(key) in (bot_id, identity)]
    assert [store.client.pttl(key) for key in tokens] == [-1]  # the bot's own token only: the host's are revoked
    others = [hosted.referee.connect("random") for _ in range(2)]
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        hosted.referee.call(hosted.referee.arena.run_match("cutthroat", [bot_id, *others], seed=3, games=1))
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION


def test_a_good_version_passes_its_check_then_plays(hosted: Arena) -> None:
    bot_id = hosted.submit(HEURISTIC)
    seen, _ = statuses_until(hosted, bot_id, "running", CHECK_S)
    assert seen[-2:] == ["checking", "running"], seen
    hosted.wait(lambda: hosted.connected(bot_id), 30, "the checked bot to connect")
    record = hosted.versions.get(bot_id, "v1")
    assert record is not None and record.checked
    assert record.detail.startswith("compliance check passed:") and record.detail.endswith(" 0 problems")
    assert record.report.startswith("compliance check passed: 11 matches"), record.report
    others = [hosted.referee.connect("heuristic") for _ in range(2)]
    played: arena_pb2.RunMatchResponse = hosted.referee.call(hosted.referee.arena.run_match(
        "cutthroat", [bot_id, *others], seed=5, games=1), timeout=60)
    assert played.result.completed and played.seat_bot_versions[0] == "v1"
    assert hosted.store.bot_match_count(bot_id) == 1
    assert hosted.store.bot_match_count(check_id(bot_id, "v1")) == 0


def test_a_version_that_passed_is_not_checked_again_when_another_host_takes_it(hosted: Arena,
                                                                               tmp_path: Path) -> None:
    bot_id = hosted.submit(HEURISTIC)
    statuses_until(hosted, bot_id, "running", CHECK_S)
    hosted.wait(lambda: hosted.connected(bot_id), 30, "the checked bot to connect")
    assert hosted.hosts["checker"].stop() == 0  # hands the version back, queued
    assert hosted.status(bot_id) == "queued"
    hosted.start_host("checker-again", tmp_path)
    seen, _ = statuses_until(hosted, bot_id, "running", 30)
    assert "checking" not in seen, seen
    hosted.wait(lambda: hosted.connected(bot_id), 30, "the version to connect from the new host")
    assert hosted.versions.log(bot_id, "v1").count(b"--- compliance check:") == 1


def test_a_version_that_crashes_during_its_check_is_rejected_at_once_not_restarted(hosted: Arena) -> None:
    bot_id = hosted.submit("import sys\nprint('the marker of a crash', file=sys.stderr)\nsys.exit(3)\n")
    seen, connected = statuses_until(hosted, bot_id, "rejected", CHECK_S)
    assert seen[-2:] == ["checking", "rejected"] and not connected, seen
    record = hosted.versions.get(bot_id, "v1")
    assert record is not None and record.restarts == 0
    assert "problem: bot process (1x), first: exited during the check: exited with status 3" in record.report
    assert b"the marker of a crash" in hosted.versions.log(bot_id, "v1")
