"""Recording a match is one atomic step: the chaos benchmark saw a Redis kill keep a match's
result and lose its index entries (two separate writes), after which the match stayed out
of every index for good (its SET NX refused every later attempt)."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator

import pytest

from referee.match import result_to_dict
from tests.workers.results import match_result
from workers.processes.redis_server import RedisServer
from workers.storage.store import Store


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
