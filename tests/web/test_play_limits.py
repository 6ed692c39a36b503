"""``/play`` cannot be locked by one visitor: a client plays at most a few games at once
(the next is refused with 429 naming the limit), and a game whose person has gone (no page
of it open, no answer) is played out by the first legal action within moments of the
abandonment time, so its table is free again (before, eight anonymous POSTs held every table
for 661 s each).  A game whose page stays open is not touched.  A real ``pitch-arena web``
process of its own (short settings) beside the shared arena's referee and house bots."""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import time
import urllib.parse
from collections.abc import Iterator

import pytest

from tests.web.harness import WebArena

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("web-arena")]  # the shared arena's referee

ABANDON_S = 1.0
PER_CLIENT = 2
FORM = urllib.parse.urlencode([("preset", "partnership"), ("seat", "0"), ("opponent", "house:heuristic"),
                               ("opponent", "house:heuristic"), ("opponent", "house:heuristic"),
                               ("options", '{"target": 5}')])


@pytest.fixture(scope="module")
def strict_web(arena: WebArena) -> Iterator[str]:
    """A second web service on the arena: two games per client, a game abandoned after 1 s."""
    env = {**arena.web.to_env(), "PITCH_WEB_HUMAN_ABANDON_S": str(ABANDON_S),
           "PITCH_WEB_HUMAN_TABLES_PER_CLIENT": str(PER_CLIENT)}
    yield arena.local.start_web(env)


def _send(url: str, method: str, path: str, body: str = "", cookie: str = "") -> http.client.HTTPConnection:
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=30)
    headers = {"Content-Type": "application/x-www-form-urlencoded"} if body else {}
    if cookie:
        headers["Cookie"] = cookie
    connection.request(method, path, body=body or None, headers=headers)
    return connection


def _request(url: str, method: str, path: str, body: str = "", cookie: str = "") -> http.client.HTTPResponse:
    return _send(url, method, path, body, cookie).getresponse()


def _start(url: str) -> tuple[int, str, str]:
    """POST /play: the status, the game's match id (from the redirect) and its owner cookie (or
    the refusal's text)."""
    answer = _request(url, "POST", "/play", FORM)
    if answer.status != 303:
        return answer.status, answer.read().decode(), ""
    match_id = answer.getheader("Location", "").rstrip("/").rpartition("/")[2]
    cookie = answer.getheader("Set-Cookie", "").partition(";")[0]
    return answer.status, match_id, cookie


def _recorded(arena: WebArena, match_id: str, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while arena.store.match_result(match_id) is None:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def test_a_visitor_plays_a_few_games_at_once_and_a_left_game_is_played_out(arena: WebArena, strict_web: str) -> None:
    started = [_start(strict_web) for _ in range(PER_CLIENT)]
    assert [status for status, _, _ in started] == [303] * PER_CLIENT, started
    status, text, _ = _start(strict_web)
    assert status == 429 and f"PITCH_WEB_HUMAN_TABLES_PER_CLIENT={PER_CLIENT}" in text, text
    assert "You may play 2 games at once" in _request(strict_web, "GET", "/play").read().decode()
    for _, match_id, _ in started:  # nobody opened their pages: played out, recorded
        assert _recorded(arena, match_id, 60), f"the left game {match_id} still holds its table"
    status, match_id, cookie = _start(strict_web)  # the tables are free again
    assert status == 303
    watched: list[str] = []
    connection = _send(strict_web, "GET", f"/play/{match_id}/events", cookie=cookie)  # the person's page, open
    stream = connection.getresponse()

    def watch() -> None:
        with contextlib.suppress(OSError, ValueError):  # until the page is closed
            while line := stream.fp.readline():
                watched.append(line.decode())

    page = threading.Thread(target=watch, daemon=True)
    page.start()
    time.sleep(2.5 * ABANDON_S)
    assert arena.store.match_result(match_id) is None, "a game whose page is open was played out"
    assert not any("left the game" in line for line in watched) and any("deciding" in line for line in watched)
    assert connection.sock is not None
    connection.sock.shutdown(socket.SHUT_RDWR)  # the page is closed (a reader's close would wait for its read)
    assert _recorded(arena, match_id, 60), "the game was not played out once its page closed"
