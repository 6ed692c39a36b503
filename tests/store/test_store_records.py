"""Recording a match is one atomic step: the chaos benchmark saw a Redis kill keep a match's
result and lose its index entries (two separate writes), after which the match stayed out
of every index for good (its SET NX refused every later attempt).  The same step indexes
the match and counts its conduct per version of each bot."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator

import pytest

from pitch_sdk.protocol.decision_times import add_time
from store.redis_server import RedisServer
from store.redis_store import Store
from store.results import result_to_dict
from store.versions import stamp_fields
from tests.results import match_result


@pytest.fixture()
def server() -> Iterator[RedisServer]:
    with RedisServer() as redis_server:
        yield redis_server


def test_a_match_is_recorded_by_one_atomic_command_with_every_index(server: RedisServer) -> None:
    store = Store.from_url(server.url, f"atomic-{uuid.uuid4().hex[:6]}:")
    result = result_to_dict(match_result("m1", ["a", "b", "c", "d"], [(0, [11, 4])]))
    store.bot("warm-up")  # the connection exists before the monitor starts
    commands: list[str] = []
    ready = threading.Event()

    def watch() -> None:
        with server.client().monitor() as monitor:
            ready.set()
            for seen in monitor.listen():
                commands.append(seen["command"].split()[0].upper())
                if commands[-1] in ("EVALSHA", "EVAL") or len(commands) > 50:
                    return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    ready.wait(5)
    time.sleep(0.1)
    assert store.record_match("m1", result, ['{"moves": []}'])
    watcher.join(5)
    writes = [c for c in commands if c not in ("SCRIPT", "PING", "CLIENT", "MONITOR")]
    assert writes[-1] in ("EVALSHA", "EVAL") and not {"SET", "ZADD", "RPUSH", "HINCRBY", "MULTI"} & set(writes)
    assert [m for m, _ in store.bot_matches("a", 5)] == ["m1"] and store.match_logs("m1") == ['{"moves": []}']
    assert store.client.zscore(f"{store.prefix}matches", "m1") is not None
    assert store.bot_conduct("d").matches == 1
    # no rated ids in the result: the first versions', rated under the bots' ids, in the same call
    assert store.version_conduct("d").matches == 1 and [m for m, _ in store.version_matches("a", 5)] == ["m1"]
    assert not store.record_match("m1", result, [])  # once only: nothing counted twice
    assert store.bot_conduct("d").matches == 1 and store.match_logs("m1") == ['{"moves": []}']
    assert store.version_conduct("d").matches == 1


def test_each_version_keeps_its_own_matches_and_conduct_and_the_bot_their_sum(redis_url: str) -> None:
    """Two versions of one bot play (the second in two matches, with a strike, a timeout and
    slow answers; the first in one, holding two seats): each version's index and totals are
    its own, and the bot's are their sum."""
    store = Store.from_url(redis_url, f"versions-{uuid.uuid4().hex[:8]}:")
    bot, later = "b0", "b0-v2"

    def play(match_id: str, rated: list[str], slow: bool = False) -> None:
        result = match_result(match_id, [bot if r.startswith(bot) else r for r in rated], [(0, [11, 4])])
        for seat in result.seats:
            seat.decisions = 10
            histogram: list[int] = []
            for _ in range(10):
                add_time(histogram, 400 if slow and seat.bot_id == bot else 3)
            seat.decision_time_histogram[:] = histogram
        if slow:
            result.seats[0].strikes, result.seats[0].timeouts = 1, 1
        stored = result_to_dict(result) | stamp_fields([(s.bot_id, "v", r) for s, r in zip(result.seats, rated,
                                                                                           strict=True)])
        assert store.record_match(match_id, stored, [])

    try:
        play("first", [bot, "x", bot, "y"])
        play("second-1", [later, "x", "y", "z"], slow=True)
        play("second-2", ["x", later, "y", "z"], slow=True)
        first, second, whole = store.version_conduct(bot), store.version_conduct(later), store.bot_conduct(bot)
        assert (first.matches, first.seats, first.decisions, first.strikes) == (1, 2, 20, 0)
        assert (second.matches, second.seats, second.decisions, second.strikes, second.timeouts) == (2, 2, 20, 1, 1)
        assert first.p95_ms is not None and second.median_ms is not None and second.median_ms > first.p95_ms
        assert (whole.matches, whole.seats, whole.decisions) == (3, 4, 40)
        width = len(whole.decision_time_histogram)
        first_h, second_h = (c.decision_time_histogram + (0,) * (width - len(c.decision_time_histogram))
                             for c in (first, second))
        assert whole.decision_time_histogram == tuple(a + b for a, b in zip(first_h, second_h, strict=True))
        assert [m for m, _ in store.version_matches(later, 5)] == ["second-2", "second-1"]
        assert [m for m, _ in store.version_matches(later, 1, offset=1)] == ["second-1"]
        assert [m for m, _ in store.version_matches(bot, 5)] == ["first"]
        assert store.version_match_count(later) == 2 and store.bot_match_count(bot) == 3
        assert store.version_conduct("x").matches == 3  # another bot's first version: under its id
    finally:
        for key in store.client.scan_iter(f"{store.prefix}*"):
            store.client.delete(key)


def test_registered_tokens_are_hex_so_no_command_line_takes_one_for_an_option(redis_url: str) -> None:
    """A token went into ``--token TOKEN`` on every bot's command line; urlsafe base64 tokens
    start with "-" one time in 64, and argparse (the SDK bench's child bots) and Node's
    parseArgs (the Node kit) then read them as an option and fail.  Tokens are hex now, and
    still authenticate their bot."""
    store = Store.from_url(redis_url, f"tokens-{uuid.uuid4().hex[:8]}:")
    try:
        for number in range(20):
            record, token = store.register_bot(f"bot-{number}")
            assert len(token) == 64 and set(token) <= set("0123456789abcdef"), token
            found = store.bot_for_token(token)
            assert found is not None and found.bot_id == record.bot_id
    finally:
        for key in store.client.scan_iter(f"{store.prefix}*"):
            store.client.delete(key)
