"""Live matches in headless Chromium on a real arena: the list of running matches, and a
spectator page following a long match as it is played, checked against the match's own
game logs afterwards: while it runs, nothing the browser got (the page's HTML, every
server-sent event) names a card that no public event had shown."""

from __future__ import annotations

import contextlib
import json
import re
import secrets
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from pitch_sdk.proto.pitch.v1 import arena_pb2
from pitch_sdk.rules import GameLog
from tests.web.harness import HOSTILE_NAME, WebArena, read_sse, wait_in_page
from tests.web.test_spectator_model import Streamed, data_cards, public_cards, spectator_stream

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("web-arena")]  # one worker builds the arena, once

#: Games of the watched match: enough that it runs while the pages are opened and read.
GAMES = 16
#: Seconds the watched match may take.
MATCH_TIMEOUT_S = 240.0


@dataclass
class LongMatch:
    """A match run through the referee in a background thread."""

    match_id: str
    thread: threading.Thread
    outcome: dict[str, Any] = field(default_factory=dict)

    def finish(self, arena: WebArena) -> list[Streamed]:
        """Wait for the match to end; the events a spectator got, rebuilt from its game logs."""
        self.thread.join(MATCH_TIMEOUT_S)
        assert not self.thread.is_alive(), "the watched match did not end in time"
        assert "error" not in self.outcome, self.outcome.get("error")
        logs = arena.referee.stub.GetMatchLog(arena_pb2.GetMatchLogRequest(match_id=self.match_id),
                                              metadata=arena.referee.metadata, timeout=10).game_logs_json
        assert len(logs) == GAMES
        return [streamed for game, text in enumerate(logs)
                for streamed in spectator_stream(GameLog.from_dict(json.loads(text)), game)]


@pytest.fixture()
def long_match(arena: WebArena) -> Iterator[LongMatch]:
    """A partnership match of the arena's two heuristic bots, each in two seats (random bots
    bid and are set, so their games take many hands), listed as running before the test
    starts; the thread is joined (with a timeout) when the test ends."""
    match = LongMatch(f"live-{secrets.token_hex(4)}", threading.Thread(target=lambda: None))

    def run() -> None:
        try:
            match.outcome["response"] = arena.referee.stub.RunMatch(arena_pb2.RunMatchRequest(
                preset="partnership", seat_bot_ids=watched_seats(arena), seed=4242, games=GAMES,
                match_id=match.match_id), metadata=arena.referee.metadata, timeout=MATCH_TIMEOUT_S)
        except grpc.RpcError as error:
            match.outcome["error"] = error

    match.thread = threading.Thread(target=run, name=f"match {match.match_id}", daemon=True)
    match.thread.start()
    deadline = time.monotonic() + 20
    while not any(m.match_id == match.match_id for m in _running(arena)):
        assert time.monotonic() < deadline, "the match was never listed as running"
        time.sleep(0.05)
    try:
        yield match
    finally:
        match.thread.join(MATCH_TIMEOUT_S)


def watched_seats(arena: WebArena) -> list[str]:
    """The watched match's seats: the heuristic bots, one of them the hostile name."""
    heuristic, hostile = arena.bot_id("heuristic-1"), arena.bot_id(HOSTILE_NAME)
    return [heuristic, hostile, heuristic, hostile]


def _running(arena: WebArena) -> list[arena_pb2.RunningMatch]:
    return list(arena.referee.stub.ListMatches(arena_pb2.ListMatchesRequest(), metadata=arena.referee.metadata,
                                               timeout=5).matches)


SNAPSHOT = """() => ({
  events: Number(document.getElementById("table").dataset.events),
  cards: Array.from(document.querySelectorAll("[data-card]")).map(n => n.dataset.card),
  trick: Array.from(document.querySelectorAll("#trick [data-card]")).map(n => n.dataset.card),
  backs: Array.from(document.querySelectorAll(".seat .hand")).map(n => n.querySelectorAll(".card.back").length),
  foreign: Array.from(document.querySelectorAll(".seat .hand .card:not(.back)")).length,
  html: document.documentElement.outerHTML,
})"""


def test_running_matches_are_listed_and_follow_the_referee(arena: WebArena, long_match: LongMatch, page: Any,
                                                           screenshots: Path) -> None:
    """/live lists the running match (preset, seats linked to their bots, game k of n,
    start, what kind of match it is) and drops it, without a reload, once it has ended."""
    page.goto(f"{arena.url}/live")
    row = page.locator(f"#live-matches tr[data-match-id='{long_match.match_id}']")
    row.wait_for()
    page.screenshot(path=str(screenshots / "live.png"), full_page=True)
    cells = row.locator("td")
    assert cells.nth(1).inner_text() == "partnership"
    links = row.locator("a.bot")
    assert links.all_inner_texts() == [arena.names[bot_id] for bot_id in watched_seats(arena)]
    hrefs = [link.get_attribute("href") for link in links.all()]
    assert hrefs == [f"/bots/{bot_id}" for bot_id in watched_seats(arena)]
    assert page.get_by_text(HOSTILE_NAME, exact=True).count() == 2
    assert re.fullmatch(rf"\d+ of {GAMES}", row.locator(".game").inner_text())
    assert cells.nth(5).inner_text() == "one-off, not rated"  # a RunMatch of no tournament
    assert row.locator("a").first.get_attribute("href") == f"/live/{long_match.match_id}"
    long_match.finish(arena)
    row.wait_for(state="detached", timeout=15_000)
    assert page.locator("#live-status").inner_text().endswith("without a reload.")


def test_a_spectator_page_of_a_running_match_shows_no_hidden_card(arena: WebArena, long_match: LongMatch,
                                                                  page: Any, screenshots: Path) -> None:
    """The spectator page receives the match's events as it is played; every card in its
    DOM had been shown by a public event by then, no card still held by a seat is in its
    HTML, hidden hands are card backs, as many as the seat holds; the raw event stream
    names no hidden card either; once the match ends the page shows the result and links
    to the replay."""
    page.goto(f"{arena.url}/live/{long_match.match_id}")
    wait_in_page(page, "Number(document.getElementById('table').dataset.events) >= 60", timeout_ms=20_000)
    snapshot = page.evaluate(SNAPSHOT)
    assert page.locator("#table").get_attribute("data-state") == "live"
    page.screenshot(path=str(screenshots / "spectate.png"), full_page=True)
    streamed = read_sse(f"{arena.url}/live/{long_match.match_id}/events", 400)
    ended_early = long_match.thread.is_alive() is False
    stream = long_match.finish(arena)

    revealed = [set[str]()]  # revealed[i]: every card the first i events showed
    before_hand = [set[str]()]  # cards shown before the hand event i belongs to began
    for item in stream:
        starts_hand = item.event.WhichOneof("event") == "hand_dealt"
        before_hand.append(set(revealed[-1]) if starts_hand else before_hand[-1])
        revealed.append(revealed[-1] | public_cards(item.event))

    count = snapshot["events"]
    assert 60 <= count < len(stream), "the page was read while the match ran"
    assert not ended_early, "the match ended before the stream was read: make it longer"
    held_now = stream[count - 1].held
    shown = {card for card in snapshot["cards"] if card != "hidden"}
    assert shown <= revealed[count]
    still_held = frozenset().union(*held_now) - before_hand[count]
    assert not {card for card in shown if card in still_held}
    assert not [card for card in still_held if f'data-card="{card}"' in snapshot["html"]]
    assert set(snapshot["trick"]) <= revealed[count]
    assert snapshot["backs"] == [len(cards) for cards in held_now] and snapshot["foreign"] == 0

    assert streamed and all(name == "match-events" for name, _ in streamed)
    index = 0
    for _, data in streamed:  # the stream's events, in batches with the table after each batch's last
        for shown_event in data["events"]:
            item = stream[index]
            assert shown_event["kind"] == item.event.WhichOneof("event")
            index += 1
        assert data["count"] == index
        assert data["table"]["held"] == [len(cards) for cards in stream[index - 1].held]
        assert data_cards(data) <= revealed[index]  # every card it names, some public event had shown
    assert index >= 400

    with contextlib.suppress(PlaywrightTimeout):  # the assertion below says how far the page got
        wait_in_page(page, "!['connecting', 'live'].includes(document.getElementById('table').dataset.state)",
                     timeout_ms=120_000)
    state = page.locator("#table").get_attribute("data-state")
    assert state == "ended", (state, page.locator("#table").get_attribute("data-events"), len(stream),
                              page.locator("#log li").first.inner_text())
    assert page.locator("#table").get_attribute("data-events") == str(len(stream))
    assert page.locator("#result").is_visible() and page.locator("#result-text").inner_text().endswith(
        ("won the match", "was drawn"))
    page.goto(f"{arena.url}/live/{long_match.match_id}")
    assert page.locator("#match-state").inner_text() == "ended"
    assert page.locator("#replay-link").get_attribute("href") == f"/matches/{long_match.match_id}"
    assert page.locator("#table").count() == 0
    page.screenshot(path=str(screenshots / "spectate-ended.png"), full_page=True)


def test_an_unknown_match_is_a_clear_404(arena: WebArena, page: Any) -> None:
    """An unknown match id answers 404 on the page and on its event stream."""
    response = page.goto(f"{arena.url}/live/no-such-match")
    assert response.status == 404
    assert page.locator("#error-detail").inner_text() == "no match 'no-such-match'"
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{arena.url}/live/no-such-match/events", timeout=10)
    assert refused.value.code == 404 and "no match" in refused.value.read().decode()
