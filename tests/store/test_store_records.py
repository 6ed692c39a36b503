"""Recording a match is one atomic step: the chaos benchmark saw a Redis kill keep a match's
result and lose its index entries (two separate writes), after which the match stayed out
of every index for good (its SET NX refused every later attempt)."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator

import pytest

from store.redis_server import RedisServer
from store.redis_store import Store
from store.results import result_to_dict
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
    assert not store.record_match("m1", result, [])  # once only: nothing counted twice
    assert store.bot_conduct("d").matches == 1 and store.match_logs("m1") == ['{"moves": []}']


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
