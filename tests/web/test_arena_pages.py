"""The leaderboard, bot and tournament pages in headless Chromium after a real round robin
(real Redis, referee, bot processes and Celery worker), checked against the store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.web.harness import HOSTILE_NAME, WebArena
from workers.ratings.leaderboard import Leaderboard

pytestmark = pytest.mark.slow


def test_leaderboard_rows_match_the_stores_table(arena: WebArena, page: Any, screenshots: Path) -> None:
    """Each row shows the store's live Elo row (rank, rating, interval, games, win rate, LOS)
    and the Bradley–Terry row of the same bot, in the store's order."""
    board = Leaderboard(arena.store, arena.preset)
    live = board.top(10)
    fitted = {row.bot_id: row for row in board.fitted()}
    page.goto(f"{arena.url}/leaderboards/{arena.preset}")
    page.screenshot(path=str(screenshots / "leaderboard.png"), full_page=True)
    rows = page.locator("#leaderboard tbody tr")
    assert rows.count() == len(live) == 4
    for index, row in enumerate(live):
        cells = rows.nth(index)
        assert cells.get_attribute("data-bot-id") == row.bot_id
        assert cells.locator(".rank").inner_text() == str(row.rank)
        assert cells.locator(".name").inner_text() == arena.names[row.bot_id]
        assert cells.locator(".elo").inner_text().split()[0] == f"{row.rating:.0f}"
        assert cells.locator(".elo-interval").inner_text() == f"{row.lower:.0f}–{row.upper:.0f}"
        assert cells.locator(".games").inner_text() == str(row.games)
        assert cells.locator(".bt").inner_text() == f"{fitted[row.bot_id].rating:.0f}"
    assert page.locator("#rating-history path[data-series]").count() == 4


def test_leaderboard_sorts_by_any_column_through_its_url(arena: WebArena, page: Any) -> None:
    """``?sort=bt`` orders the rows by the Bradley–Terry rating, ``?sort=name`` by name."""
    fitted = Leaderboard(arena.store, arena.preset).fitted()
    page.goto(f"{arena.url}/leaderboards/{arena.preset}?sort=bt")
    shown = page.locator("#leaderboard tbody tr").evaluate_all("rows => rows.map(r => r.dataset.botId)")
    assert shown == [row.bot_id for row in fitted]
    page.click("th[data-sort=name] a")
    names = page.locator("#leaderboard tbody td.name").all_inner_texts()
    assert names == sorted(names, key=str.casefold)


def test_a_hostile_bot_name_is_text_on_every_page(arena: WebArena, page: Any) -> None:
    """A bot named ``<script>alert(1)</script>`` shows as those characters and never runs
    (the page fixture fails on any dialog)."""
    hostile = arena.bot_id(HOSTILE_NAME)
    for path in (f"/leaderboards/{arena.preset}", "/bots", f"/bots/{hostile}", f"/tournaments/{arena.tournament_id}"):
        page.goto(arena.url + path)
        assert page.get_by_text(HOSTILE_NAME, exact=True).count() >= 1, path
        assert page.locator("script:not([src])").count() == 0, path


def test_unknown_board_and_bot_are_clear_404s(arena: WebArena, page: Any) -> None:
    """An unknown leaderboard or bot answers 404 naming it, cut short if it is long."""
    response = page.goto(f"{arena.url}/leaderboards/{'x' * 500}")
    assert response.status == 404
    detail = page.locator("#error-detail").inner_text()
    assert detail.startswith("no leaderboard 'xxx") and len(detail) < 100
    assert page.goto(f"{arena.url}/bots/nobody").status == 404
