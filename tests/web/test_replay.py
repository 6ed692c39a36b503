"""The match page and the replay viewer in headless Chromium after a real round robin (real
Redis, referee, bot processes and Celery worker).

The table is checked against the engine itself: the test replays the store's game log on
its own :class:`GameState`, move by move, independently of ``web.views.replay``, and at
every step of a whole game compares what the page shows. The page is read through its
``data-card`` attributes: ``#seat-K .hand [data-card]`` is seat K's hand (a face-down card
reads ``hidden``), ``#trick [data-card]`` the trick in play in playing order, and
``#scores tr[data-party] .score`` each party's score."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from competitions.tournaments.table import PLAYED
from pitch_sdk.rules import GameLog, GameState
from pitch_sdk.rules.cards import CARDS
from tests.web.harness import HOSTILE_NAME, WebArena

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("web-arena")]  # one worker builds the arena, once

#: Reads the table of a document as the test compares it (see the module's docstring).
READ_DOCUMENT = """doc => ({
  step: Number(doc.getElementById("position").dataset.step),
  hands: Object.fromEntries([...doc.querySelectorAll("#table .seat")].map(seat => [seat.dataset.seat,
    [...seat.querySelectorAll(".hand [data-card]")].map(card => card.dataset.card)])),
  trick: [...doc.querySelectorAll("#trick [data-card]")].map(card => card.dataset.card),
  scores: [...doc.querySelectorAll("#scores tr[data-party] .score")].map(cell => Number(cell.textContent)),
})"""
#: Reads the page's own table.
READ_TABLE = f"() => ({READ_DOCUMENT})(document)"
#: Fetches the pages at the given URLs and reads each one's table, parsed as the browser
#: parses the page (the table is rendered by the server; the page's script only adds keys).
READ_PAGES = f"""async urls => {{
  const read = {READ_DOCUMENT};
  return Promise.all(urls.map(async url => {{
    const html = await (await fetch(url)).text();
    return read(new DOMParser().parseFromString(html, "text/html"));
  }}));
}}"""


def _played_matches(arena: WebArena) -> list[str]:
    outcomes = arena.tournaments.outcomes(arena.tournament_id).values()
    return [o["result"]["match_id"] for o in outcomes if o["status"] == PLAYED]


def _shortest_game(arena: WebArena) -> tuple[str, GameLog]:
    """The played match whose first game has the fewest moves (to step through it all quickly)."""
    logs = {match_id: GameLog.from_dict(json.loads(arena.store.match_logs(match_id)[0]))
            for match_id in _played_matches(arena)}
    match_id = min(logs, key=lambda m: len(logs[m].moves))
    return match_id, logs[match_id]


def _engine_tables(log: GameLog) -> list[dict[str, Any]]:
    """What the engine's own replay holds at each step: every hand, the trick, the scores."""
    state = GameState(log.ruleset, seed=log.seed, dealer=log.dealer, deals=log.deals)
    tables = [_table(state)]
    for _, action in log.moves:
        state.apply(action)
        tables.append(_table(state))
    return tables


def _table(state: GameState) -> dict[str, Any]:
    return {"hands": {str(seat): sorted(c.name for c in state.hand(seat)) for seat in range(state.players)},
            "trick": [CARDS[card].name for _, card in state.trick], "scores": list(state.scores),
            "hand_number": state.hand_number, "results": len(state.results)}


def _url(arena: WebArena, match_id: str, step: int, view: str = "all") -> str:
    return f"{arena.url}/matches/{match_id}/games/1?step={step}&view={view}"


def test_stepping_a_whole_game_shows_the_engines_cards_and_scores(arena: WebArena, page: Any,
                                                                   screenshots: Path) -> None:
    """Every step of a whole game, face up: each hand, the trick in play and the scores are
    the engine's (each step's page read in the browser); ArrowRight goes one step on and the
    URL names it, through the first tricks and over the game's last step."""
    match_id, log = _shortest_game(arena)
    expected = _engine_tables(log)
    page.goto(_url(arena, match_id, 0))
    shown_pages = page.evaluate(READ_PAGES, [_url(arena, match_id, step) for step in range(len(expected))])
    for step, (shown, table) in enumerate(zip(shown_pages, expected, strict=True)):
        assert shown["step"] == step
        assert {seat: sorted(cards) for seat, cards in shown["hands"].items()} == table["hands"], step
        assert shown["trick"] == table["trick"], step
        assert shown["scores"] == table["scores"], step
    last = len(expected) - 1
    for start, steps in ((0, 12), (last - 3, 3)):
        if start:
            page.goto(_url(arena, match_id, start))
        for step in range(start, start + steps):
            with page.expect_navigation(wait_until="domcontentloaded"):  # replay.js runs before it
                page.keyboard.press("ArrowRight")
            assert page.url.endswith(f"step={step + 1}&view=all")
            assert page.evaluate(READ_TABLE) == shown_pages[step + 1]
        if not start:
            page.screenshot(path=str(screenshots / "replay.png"), full_page=True)
    assert page.locator("#game-over").count() == 1
    assert page.locator("#nav-next").get_attribute("href") is None


def test_buttons_and_hand_keys_step_by_decision_and_by_hand(arena: WebArena, page: Any) -> None:
    """The next button adds one decision; PageDown and Shift+ArrowRight go to the first step
    of the next hand, whose scoring panel shows the engine's points; PageUp comes back."""
    match_id, log = _shortest_game(arena)
    expected = _engine_tables(log)
    second_hand = next(step for step, table in enumerate(expected) if table["hand_number"] > 1)
    page.goto(_url(arena, match_id, 0))
    page.click("#nav-next")
    page.wait_for_url("**step=1&view=all")  # loaded, replay.js listening, before the keys
    with page.expect_navigation():
        page.keyboard.press("PageDown")
    assert page.evaluate(READ_TABLE)["step"] == second_hand
    assert page.locator("#hand-number").inner_text() == "2"
    state = GameState(log.ruleset, seed=log.seed, dealer=log.dealer, deals=log.deals)
    for _, action in log.moves[:second_hand]:
        state.apply(action)
    if len(state.results) == 1:  # the first hand was scored (not thrown in)
        awards = state.results[0].awards
        shown = page.locator("#hand-points [data-card]").evaluate_all("cards => cards.map(c => c.dataset.card)")
        assert sorted(shown) == sorted(a.card.name for a in awards if a.card is not None)
        changes = page.locator("#score-changes").inner_text()
        assert all(f"{change:+d}" in changes for change in state.results[0].score_changes)
    with page.expect_navigation():
        page.keyboard.press("PageUp")
    assert page.evaluate(READ_TABLE)["step"] == 0
    with page.expect_navigation():
        page.keyboard.press("Shift+ArrowRight")
    assert page.evaluate(READ_TABLE)["step"] == second_hand


def test_a_seat_view_shows_only_that_seats_cards(arena: WebArena, page: Any, screenshots: Path) -> None:
    """From seat 1, mid-hand: its own hand face up, every other hand as backs only (as many
    as the engine's hand holds), and no card of another hand anywhere on the page."""
    match_id, log = _shortest_game(arena)
    expected = _engine_tables(log)
    step = next(s for s, table in enumerate(expected) if table["trick"] and s > 6)
    page.goto(_url(arena, match_id, step, "seat-1"))
    page.screenshot(path=str(screenshots / "replay-seat.png"), full_page=True)
    shown = page.evaluate(READ_TABLE)
    hands = expected[step]["hands"]
    assert sorted(shown["hands"]["1"]) == hands["1"]
    everywhere = set(page.locator("[data-card]").evaluate_all("cards => cards.map(c => c.dataset.card)"))
    for seat, cards in hands.items():
        if seat != "1":
            assert shown["hands"][seat] == ["hidden"] * len(cards)
            assert not everywhere & set(cards), seat
    assert shown["trick"] == expected[step]["trick"]
    assert shown["scores"] == expected[step]["scores"]
    assert page.locator("#views .current").get_attribute("data-view") == "seat-1"


def test_the_match_page_links_bots_and_replays(arena: WebArena, page: Any, screenshots: Path) -> None:
    """The match page shows the store's seats (bots linked to their pages, the answers the
    referee ignored and the impersonation attempts among them) and games, and a
    game's replay link opens its table at step 0; a hostile bot name is only text."""
    match_id = _played_matches(arena)[0]
    result = arena.store.match_result(match_id)
    assert result is not None
    page.goto(f"{arena.url}/matches/{match_id}")
    page.screenshot(path=str(screenshots / "match.png"), full_page=True)
    rows = page.locator("#match-seats tbody tr")
    assert rows.count() == len(result["seats"])
    for seat in result["seats"]:
        row = page.locator(f"#match-seats tr[data-seat='{seat.get('seat', 0)}']")
        assert row.locator("a.bot").inner_text() == arena.names[seat["bot_id"]]
        assert row.locator("a.bot").get_attribute("href").endswith(f"/bots/{seat['bot_id']}")
        assert row.locator("td.ignored").inner_text() == str(seat.get("ignored_answers", 0))
        assert row.locator("td.impersonations").inner_text() == str(seat.get("impersonation_attempts", 0))
    assert page.locator("#match-games tbody tr").count() == len(result["games"])
    for path in (f"/matches/{match_id}", f"/matches/{match_id}/games/1?step=3&view=seat-0"):
        page.goto(arena.url + path)
        assert page.get_by_text(HOSTILE_NAME, exact=True).count() >= 1, path
        assert page.locator("script:not([src])").count() == 0, path
    page.goto(f"{arena.url}/matches/{match_id}")
    page.click("#match-games a.replay-link >> nth=0")
    page.wait_for_url(f"**/matches/{match_id}/games/1")  # the click returns once the replay starts loading
    assert page.evaluate(READ_TABLE)["step"] == 0


@pytest.mark.parametrize(("path", "status"), [
    ("/matches/no-such-match", 404),
    ("/matches/{m}/games/0", 404),
    ("/matches/{m}/games/99", 404),
    ("/matches/{m}/games/one", 404),
    ("/matches/{m}/games/1?step=x", 400),
    ("/matches/{m}/games/1?step=-1", 400),
    ("/matches/{m}/games/1?step=%D9%A3", 400),  # an Arabic-Indic digit: not ASCII digits
    pytest.param("/matches/{m}/games/" + "9" * 5000, 404,  # past Python's 4,300-digit limit (500 before)
                 id="game-of-5000-digits"),
    ("/matches/{m}/games/1?view=seat-9", 400),
    ("/matches/{m}/games/1?view=" + "y" * 300, 400),
])
def test_bad_input_is_a_clear_error(arena: WebArena, page: Any, path: str, status: int) -> None:
    """Unknown matches, games, steps and views answer 404 or 400 with a short message."""
    response = page.goto(arena.url + path.format(m=_played_matches(arena)[0]))
    assert response.status == status
    detail = page.locator("#error-detail").inner_text()
    assert detail and len(detail) < 160
