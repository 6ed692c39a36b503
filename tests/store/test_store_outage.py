"""A Redis that hangs (accepts a connection, never answers) fails a store call with a
timeout instead of blocking the caller's thread for ever."""

from __future__ import annotations

import socket
import threading
import time

import pytest
import redis

from store import redis_store as store_module
from store.redis_store import Store


def test_a_hanging_redis_fails_store_calls_with_a_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    accepted: list[socket.socket] = []
    threading.Thread(target=lambda: accepted.append(listener.accept()[0]), daemon=True).start()
    monkeypatch.setattr(store_module, "SOCKET_TIMEOUT_S", 0.5)
    store = Store.from_url(f"redis://127.0.0.1:{listener.getsockname()[1]}/0", "hang:")
    began = time.monotonic()
    with pytest.raises(redis.TimeoutError):
        store.bot("anyone")
    assert time.monotonic() - began < 10
    listener.close()
    for connection in accepted:
        connection.close()
