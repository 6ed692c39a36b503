"""The leaderboard, bot and tournament pages in headless Chromium after a real round robin
(real Redis, referee, bot processes and Celery worker), checked against the store."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from competitions.ratings.leaderboard import Leaderboard, record_match
from store.results import result_to_dict
from store.versions import BotVersions
from tests.results import duel
from tests.web.harness import HOSTILE_NAME, WebArena, wait_in_page
from web.templating import milliseconds

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("web-arena")]  # one worker builds the arena, once


def test_leaderboard_rows_match_the_stores_table(arena: WebArena, page: Any, screenshots: Path) -> None:
    """Each row shows the store's Bradley–Terry row (rank, rating, interval, LOS) in its
    order, and the live Elo row of the same bot (rating, interval, games)."""
    board = Leaderboard(arena.store, arena.preset)
    fitted = board.fitted()
    live = {row.bot_id: row for row in board.top(10)}
    page.goto(f"{arena.url}/leaderboards/{arena.preset}")
    page.screenshot(path=str(screenshots / "leaderboard.png"), full_page=True)
    rows = page.locator("#leaderboard tbody tr")
    assert rows.count() == len(fitted) == 4
    for index, bt in enumerate(fitted):
        cells, row = rows.nth(index), live[bt.bot_id]
        assert cells.get_attribute("data-bot-id") == bt.bot_id
        assert cells.locator(".rank").inner_text() == str(bt.rank)
        assert cells.locator(".name").inner_text() == arena.names[bt.bot_id]
        assert cells.locator(".bt").inner_text() == f"{bt.rating:.0f}"
        assert cells.locator(".bt-interval").inner_text() == f"{bt.lower:.0f}–{bt.upper:.0f}"
        assert cells.locator(".elo").inner_text().split()[0] == f"{row.rating:.0f}"
        assert cells.locator(".elo-interval").inner_text() == f"{row.lower:.0f}–{row.upper:.0f}"
        assert cells.locator(".games").inner_text() == str(row.games)
    assert page.locator("#rating-history path[data-series]").count() == 4


def test_leaderboard_leads_with_the_order_independent_rating(arena: WebArena, page: Any) -> None:
    """On a board whose live Elo order is not the Bradley–Terry order (the later winner leads
    the live Elo), the page ranks by Bradley–Terry with its LOS (it ranked by the live Elo)."""
    board = f"order{uuid.uuid4().hex[:6]}"
    # bots of this test's own: the arena's are shared by the module's tests (its bot page
    # test counts their recorded matches)
    early, late = f"{board}-early", f"{board}-late"
    for i, outcome in enumerate("wwwwwwlllll"):  # 6 to 5 for early, who won first
        result = duel(f"{board}-{i}", early, late, outcome, preset=board)
        arena.store.record_match(result.match_id, result_to_dict(result), [])
        record_match(arena.store, result)
    assert [row.bot_id for row in Leaderboard(arena.store, board).top(2)] == [late, early]
    fitted = Leaderboard(arena.store, board).fitted()
    page.goto(f"{arena.url}/leaderboards/{board}")
    shown = page.locator("#leaderboard tbody tr").evaluate_all("rows => rows.map(r => r.dataset.botId)")
    assert shown == [early, late] == [row.bot_id for row in fitted]
    assert page.locator("#leaderboard tbody tr .rank").all_inner_texts() == ["1", "2"]
    assert page.locator("#leaderboard tbody tr .bt-los").first.inner_text() == f"{100 * fitted[0].los_next:.0f}%"  # type: ignore[operator]


def test_leaderboard_sorts_by_any_column_through_its_url(arena: WebArena, page: Any) -> None:
    """``?sort=elo`` orders the rows by the live Elo, ``?sort=name`` by name."""
    live = Leaderboard(arena.store, arena.preset).top(10)
    page.goto(f"{arena.url}/leaderboards/{arena.preset}?sort=elo")
    shown = page.locator("#leaderboard tbody tr").evaluate_all("rows => rows.map(r => r.dataset.botId)")
    assert shown == [row.bot_id for row in live]
    page.click("th[data-sort=name] a")
    page.wait_for_url("**?sort=name")  # the click returns once the sorted page starts loading
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


def test_bot_page_shows_the_referees_facts_ratings_head_to_head_and_matches(arena: WebArena, page: Any,
                                                                           screenshots: Path) -> None:
    """A bot's page: connected, its hello's version and declared capacity (from the
    referee), its row on the leaderboard, a head-to-head row per opponent, and its recorded
    matches, as the store has them."""
    bot_id = arena.bot_id("heuristic-1")
    info = {bot.bot_id: bot for bot in arena.referee.bots()}[bot_id]
    page.goto(f"{arena.url}/bots/{bot_id}")
    page.screenshot(path=str(screenshots / "bot.png"), full_page=True)
    assert page.locator("#bot-name").inner_text() == "heuristic-1"
    assert page.locator("#bot-status").inner_text() == "connected"
    assert page.locator("#bot-version").inner_text() == (info.bot_version or "—")
    assert page.locator("#bot-capacity").inner_text().startswith(f"{info.capacity} seats")
    board = Leaderboard(arena.store, arena.preset)
    row = board.row(bot_id)
    assert row is not None
    assert page.locator(f"#ratings tr[data-board={arena.preset}] .elo").inner_text().split()[0] == f"{row.rating:.0f}"
    # the rank is the leaderboard's: by the order-independent Bradley-Terry rating, not the live Elo
    bt_row = next(r for r in board.shown(board.fitted()) if r.bot_id == bot_id)
    assert page.locator(f"#ratings tr[data-board={arena.preset}] .rank").inner_text() == str(bt_row.rank)
    assert page.locator(f"#ratings tr[data-board={arena.preset}] .bt").inner_text() == f"{bt_row.rating:.0f}"
    opponents = page.locator(f"table.h2h[data-board={arena.preset}] tbody tr")
    assert opponents.evaluate_all("rows => rows.map(r => r.dataset.opponent)") == [
        o.opponent for o in board.opponents(bot_id)]
    listed = page.locator("#recent-matches tbody tr").evaluate_all("rows => rows.map(r => r.dataset.matchId)")
    assert listed == [match_id for match_id, _ in arena.store.bot_matches(bot_id, 20)]
    assert len(listed) == 6  # partnership round robin of four: every pairing, both rotations
    conduct = arena.store.bot_conduct(bot_id)
    assert page.locator("#conduct-strikes").inner_text() == str(conduct.strikes)
    assert conduct.decisions > 0 and page.locator("#conduct-median").inner_text().startswith("≤")


def test_a_versions_page_shows_what_the_referee_recorded_for_it_and_fits_a_phone(arena: WebArena, page: Any,
                                                                                 screenshots: Path) -> None:
    """A bot's version page after the round robin, reached from the bot page: its place in
    the loop (the bot's first version: undecided), its rating row, and the conduct and
    matches the referee recorded for that version; at 390 px wide the page does not scroll
    sideways (its tables scroll in their boxes), at 1280 px neither."""
    bot_id = arena.bot_id("heuristic-1")
    first = BotVersions(arena.store).versions(bot_id)[0]
    page.goto(f"{arena.url}/bots/{bot_id}")
    page.click(f"#versions tr[data-rated-id='{first.rated_id}'] a")
    page.wait_for_url(f"**/bots/{bot_id}/versions/*")
    page.screenshot(path=str(screenshots / "version.png"), full_page=True)
    assert page.locator("#version-name").inner_text() == f"heuristic-1@{first.version}"
    assert page.locator("#version-state").get_attribute("data-state") == "undecided"
    conduct = arena.store.version_conduct(first.rated_id)
    assert conduct.matches == 6 and conduct.decisions > 0  # every match of the round robin, this version's
    assert page.locator("#conduct-matches").inner_text() == "6"
    assert page.locator("#conduct-decisions").inner_text() == str(conduct.decisions)
    assert page.locator("#conduct-median").inner_text() == milliseconds(conduct.median_ms)
    listed = page.locator("#version-matches tbody tr").evaluate_all("rows => rows.map(r => r.dataset.matchId)")
    assert listed == [match_id for match_id, _ in arena.store.version_matches(first.rated_id, 20)]
    row = Leaderboard(arena.store, arena.preset).rows_for([first.rated_id])[first.rated_id]
    assert page.locator(f"#version-ratings tr[data-board={arena.preset}] .elo").inner_text().split()[0] == \
        f"{row.rating:.0f}"
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth"), width
    page.screenshot(path=str(screenshots / "version-390.png"), full_page=True)


def test_a_tournament_started_from_the_page_shows_live_progress_then_its_table(arena: WebArena, page: Any,
                                                                              screenshots: Path) -> None:
    """The form (with the admin token) starts a round robin of the connected bots; its page
    follows the progress without a reload and shows the final table when it is written."""
    page.goto(f"{arena.url}/tournaments")
    page.fill("#start-tournament input[name=preset]", "cutthroat")
    page.fill("#start-tournament input[name=admin_token]", arena.web.admin_token)
    page.click("#start-tournament button[type=submit]")
    page.wait_for_url("**/tournaments/*")
    tournament_id = page.url.rsplit("/", 1)[1]
    page.evaluate("window.marker = 'no reload yet'")
    total = int(page.locator("#count-total").inner_text())
    assert total == len(arena.tournaments.plan(tournament_id).matches) == 12
    first = int(page.locator("#count-played").inner_text())
    assert first < total, "the tournament finished before its page could follow it"
    wait_in_page(page,  # the counter moves while the page stays the same document
                 f"() => Number(document.getElementById('count-played').textContent) > {first} && window.marker",
                 timeout_ms=60_000)
    page.screenshot(path=str(screenshots / "tournament-running.png"), full_page=True)
    page.wait_for_selector("#final-table", timeout=120_000)
    page.screenshot(path=str(screenshots / "tournament.png"), full_page=True)
    table = arena.tournaments.table(tournament_id)
    assert table is not None
    shown = page.locator("#final-table tbody tr").evaluate_all("rows => rows.map(r => r.dataset.botId)")
    assert shown == [row["bot_id"] for row in table["rows"]]
    assert page.locator("#state").inner_text() == "finished"
    assert page.locator("#matches tr[data-status=played]").count() == 12


def test_registering_from_the_page_shows_the_token_once(arena: WebArena, page: Any) -> None:
    """The bots page's form (admin token) registers through the referee; the next page shows
    the token (a page no cache may keep), which the store knows only by its hash; a second
    bot of that name is refused."""
    page.goto(f"{arena.url}/bots")
    page.fill("#register-bot input[name=name]", "from-the-web")
    page.fill("#register-bot input[name=admin_token]", arena.web.admin_token)
    with page.expect_response(lambda response: response.request.method == "POST") as shown_once:
        page.click("#register-bot button[type=submit]")
    assert shown_once.value.headers.get("cache-control") == "no-store"
    token = page.locator("#bot-token").inner_text()
    record = arena.store.bot_for_token(token)
    assert record is not None and record.name == "from-the-web"
    page.goto(f"{arena.url}/bots")
    page.fill("#register-bot input[name=name]", "from-the-web")
    page.fill("#register-bot input[name=admin_token]", arena.web.admin_token)
    with page.expect_response(lambda response: response.request.method == "POST") as refused:
        page.click("#register-bot button[type=submit]")
    assert refused.value.status == 409
    assert "already registered" in page.locator("#error-detail").inner_text()
