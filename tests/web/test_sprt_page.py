"""An SPRT run's own page, on the web app over real HTTP with real Redis and, for the live
updates, Debian's Chromium.

The issue's words: "An SPRT run's own page, as fishtest has it: the LLR over time between its
bounds, the pentanomial and W/D/L counts, the Elo estimate with its interval, links to the
bots and games; updated by server-sent events rather than reloads."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from competitions.sprt import control
from competitions.sprt.plan import SprtSpec, standing
from competitions.sprt.store import SprtStore
from competitions.tournaments.table import PLAYED
from store.redis_store import Store
from store.seat_keys import seat_key
from tests.web.harness import read_sse, wait_in_page

TIE = {"status": PLAYED, "result": {"games": [{"scores": [5, 5]}]}}


def _won(party: int) -> dict[str, Any]:
    game = {"has_winner": True, "scores": [11, 4]} | ({"winner": party} if party else {})
    return {"status": PLAYED, "result": {"games": [game]}}


def _run(store: Store) -> tuple[SprtStore, SprtSpec, str, str]:
    """A run of version 2 of a bot against another bot, with no outcome yet."""
    new, _ = store.register_bot(f"new{uuid.uuid4().hex[:6]}")
    old, _ = store.register_bot(f"old{uuid.uuid4().hex[:6]}")
    spec = SprtSpec(f"run-{uuid.uuid4().hex[:8]}", "partnership", seat_key(new.bot_id, "2"), old.bot_id, None,
                    0.0, 200.0, 0.05, 0.05, 40, 5, {})
    sprts = SprtStore(store)
    control.create(sprts, spec)
    return sprts, spec, new.bot_id, old.bot_id


def _record(sprts: SprtStore, spec: SprtSpec, outcomes: dict[int, dict[str, Any]]) -> None:
    """Record outcomes as the workers do, and the verdict once the test stopped."""
    for index, outcome in outcomes.items():
        sprts.runs.record_outcome(spec.run_id, index, outcome)
    now = standing(spec, sprts.runs.outcomes(spec.run_id))
    if now.stopped:
        sprts.save_verdict(spec.run_id, now)


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"accept": "text/html"}),
                                    timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode()


def _text(page: str, element_id: str) -> str:
    found = re.search(rf'id="{element_id}"[^>]*>([^<]*)<', page)
    assert found, element_id
    return found.group(1)


def test_a_runs_page_shows_its_llr_path_counts_elo_and_games(arena_url: tuple[str, Store]) -> None:
    """Three pairs (won both, a tie and a loss, won and tied): the page's LLR, bounds,
    pentanomial and W/D/L counts and Elo are the run's own, its path has a point per pair
    (from zero), the sides link to the version's and the bot's pages, the pairs to their
    games, and the first server-sent event carries the same standing."""
    url, store = arena_url
    sprts, spec, new, old = _run(store)
    _record(sprts, spec, {0: _won(0), 1: _won(1), 2: TIE, 3: _won(0), 4: _won(0), 5: TIE})
    status, page = _get(f"{url}/sprt/{spec.run_id}")
    assert status == 200
    now = control.progress(sprts, spec.run_id).standing
    assert _text(page, "sprt-llr") == f"{now.status.llr:.2f}" and _text(page, "sprt-upper") == "2.94"
    assert _text(page, "sprt-state") == "running" and _text(page, "sprt-games") == "6"
    assert re.findall(r'data-count="\d">(\d+)<', page) == ["0", "1", "0", "1", "1"]
    assert re.findall(r'data-wdl="\d">(\d+)<', page) == ["3", "2", "1"]
    assert _text(page, "sprt-elo") == f"{now.status.elo.elo:+.1f}"
    assert _text(page, "sprt-nelo-lower") == f"{now.status.elo.normalized_lower:+.1f}"
    points = re.search(r'id="llr-path" points="([^"]*)"', page)
    assert points and len(points.group(1).split()) == 4  # zero, then one per counted pair
    assert f'href="/bots/{new}/versions/2"' in page and f'href="/bots/{old}"' in page
    assert f'href="/matches/{spec.run_id}.5"' in page and f'href="/matches/{spec.run_id}.0"' in page
    ((name, live),) = read_sse(f"{url}/sprt/{spec.run_id}/events", messages=1)
    assert name == "standing" and live["counts"] == [0, 1, 0, 1, 1] and live["wdl"] == [3, 2, 1]
    assert live["chart"]["points"] == points.group(1) and not live["finished"]
    assert f'href="/sprt/{spec.run_id}"' in _get(f"{url}/sprt")[1]


def test_an_unknown_or_malformed_run_is_a_404_that_repeats_little(arena_url: tuple[str, Store]) -> None:
    """A run id that is not one (too long, markup) or names no run: 404, its HTML page
    repeating at most a short, escaped part of it."""
    url, _ = arena_url
    for run_id, status in (("no-such-run", 404), ("x" * 300, 404), ("%3Cb%3Ebold", 404)):
        code, text = _get(f"{url}/sprt/{run_id}")
        assert code == status, run_id
        assert "x" * 100 not in text and "<b>bold" not in text
        assert _get(f"{url}/sprt/{run_id}/events")[0] == 404


def test_the_page_follows_the_run_to_its_verdict_without_a_reload(arena_url: tuple[str, Store], page: Any,
                                                                  screenshots: Path) -> None:
    """In Chromium: the page is open while pairs come in; the counters and the LLR's path
    move, and the verdict shows, in the same document (no reload); at 390 px wide (a phone)
    and at 1280 px the page does not scroll sideways."""
    url, store = arena_url
    sprts, spec, _, _ = _run(store)
    _record(sprts, spec, {0: _won(0), 1: _won(1)})
    page.goto(f"{url}/sprt/{spec.run_id}")
    page.evaluate("window.marker = 'no reload'")
    assert page.locator("#sprt-pairs").inner_text() == "1"
    _record(sprts, spec, {i: _won(i % 2) for i in range(2, 14)})  # NEW wins every pair: H1 at the seventh
    wait_in_page(page, "() => document.getElementById('sprt-state').textContent === 'H1' && window.marker")
    assert page.locator("#sprt-pairs").inner_text() == "7"
    assert page.locator("[data-count='4']").inner_text() == "7"
    assert len(str(page.locator("#llr-path").get_attribute("points")).split()) == 8
    assert page.locator("#sprt-recent li").count() == 7
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth"), width
    page.screenshot(path=str(screenshots / "sprt-run-390.png"), full_page=True)
