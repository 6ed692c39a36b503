"""A person's seat in headless Chromium against the real arena: a whole game played by
clicking legal cards and bids to the match result, which is recorded and rated by nobody;
and the refusals of the decision endpoint and of the form."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from competitions.ratings.leaderboard import Leaderboard, boards
from competitions.tournaments.control import default_entrants
from tests.web.harness import WebArena, wait_in_page

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("web-arena")]  # one worker builds the arena, once

#: Seconds a whole short game may take (house bots answer in milliseconds).
GAME_DEADLINE_S = 180


def start_game(arena: WebArena, page: Any, target: int = 3) -> str:
    """Start a partnership game to ``target`` points from the form; the match id."""
    page.goto(f"{arena.url}/play")
    page.select_option("#play-preset", "partnership")
    page.fill("#play-target", str(target))
    page.locator("#play-opponents select").nth(1).select_option("house:random")
    page.click("#play-start")
    page.wait_for_url(re.compile(r"/play/web-[0-9a-f]+$"))
    return str(page.url.rsplit("/", 1)[1])


def test_a_persons_whole_game_is_played_by_clicking_legal_cards(arena: WebArena, page: Any, browser: Any,
                                                                screenshots: Path) -> None:
    """From the form to the result: only ``.legal`` elements are clickable, a click on
    another card sends nothing, the clock runs, a viewer without the game's secret sees no
    hand, and the stored match is recorded but on no leaderboard."""
    page.goto(f"{arena.url}/play")
    page.screenshot(path=str(screenshots / "play-form.png"), full_page=True)
    assert page.locator("#play-opponents .opponent:visible").count() == 3  # partnership: three other seats
    match_id = start_game(arena, page)
    answers: list[str] = []
    page.on("request", lambda request: answers.append(request.url) if request.url.endswith("/decision") else None)

    spectator = browser.new_context().new_page()
    spectator.goto(f"{arena.url}/play/{match_id}")
    assert spectator.locator("#play-spectator").is_visible()

    checked_non_legal = shot = False
    deadline = time.monotonic() + GAME_DEADLINE_S
    while page.locator("#play[data-state=finished]").count() == 0:
        assert time.monotonic() < deadline, "the game did not finish in time"
        legal = page.locator("#play .legal:not([disabled])")
        try:
            legal.first.wait_for(timeout=2000)
        except Exception:  # Playwright's timeout: the bots are playing, or the game ended
            continue
        decision = page.locator("#play").get_attribute("data-decision-id")
        if not decision:
            continue
        assert page.locator("#time-budget").inner_text().endswith(" s")
        others = page.locator("#play-hand span.card")  # cards that are not legal now are not buttons
        if not checked_non_legal and others.count():
            before = len(answers)
            others.first.click()
            page.wait_for_timeout(300)
            assert len(answers) == before, "a click on a card that is not legal sent an answer"
            assert page.locator("#play").get_attribute("data-decision-id") == decision
            assert spectator.locator("#play-hand .card").count() == 0  # the spectator never sees the hand
            checked_non_legal = True
        if not shot and page.locator("#play-hand .card.legal").count():
            page.screenshot(path=str(screenshots / "play-table.png"), full_page=True)
            shot = True
        target = page.locator("#play-hand .card.legal")
        if target.count():
            target.first.click()
        elif page.locator("#play-choose").count():  # a card-set decision: pick sets until one is admitted
            page.locator("#play-hand .card.legal").first.click()
            page.locator("#play-choose:not([disabled])").click()
        else:
            page.locator("#play-actions .legal").first.click()
        wait_in_page(page, "([id]) => document.getElementById('play').dataset.decisionId !== id", arg=[decision])
    assert checked_non_legal, "no decision had a card that was not legal to click"
    assert shot, "the person never played a card"
    page.screenshot(path=str(screenshots / "play-result.png"), full_page=True)
    assert page.locator("#play-outcome").inner_text() in ("You won", "You lost", "A draw")
    assert page.locator("#play-replay").get_attribute("href") == f"/matches/{match_id}"
    assert answers, "no answer was sent"
    spectator.context.close()

    result = arena.store.match_result(match_id)
    assert result is not None and result["completed"]
    for board in {*boards(arena.store), "partnership"}:
        assert not Leaderboard(arena.store, board).applied(match_id)
    seated = {seat["bot_id"] for seat in result["seats"]}
    assert seated <= arena.store.house_bots()  # the person and house bots: never in "every connected bot"
    assert default_entrants(arena.store, [*seated, *arena.names]) == list(arena.names)


def test_a_person_plays_from_the_keyboard(arena: WebArena, page: Any) -> None:
    """A skip link is the first stop of the Tab key; a legal card or action reached with Tab
    has a focus ring apart from the legal elements' gold, Enter answers with it, and the
    focus comes back to the hand at the person's next decision (before: no skip link, the
    gold outline hid the focus, and the focus fell to the page after each answer)."""
    page.goto(f"{arena.url}/play")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to content"
    start_game(arena, page, target=5)
    page.locator("#play .legal").first.wait_for(timeout=30_000)
    for _ in range(80):  # Tab through the page to the first legal card or action
        if page.evaluate("document.activeElement.classList.contains('legal')"):
            break
        page.keyboard.press("Tab")
    focused = "(() => { const a = document.activeElement; return a.classList.contains('legal') && " \
              "(a.closest('#play-hand') !== null || a.closest('#play-actions') !== null); })()"
    for answered in range(3):
        assert page.evaluate(focused), f"the focus is not on a legal card or action at decision {answered}"
        assert page.evaluate("getComputedStyle(document.activeElement).outlineColor") == "rgb(29, 78, 216)"
        decision = page.locator("#play").get_attribute("data-decision-id")
        page.keyboard.press("Enter")
        wait_in_page(page, "([id]) => { const d = document.getElementById('play').dataset.decisionId; "
                           "return d && d !== id; }", timeout_ms=30_000, arg=[decision])
        wait_in_page(page, focused, timeout_ms=5_000)


def test_the_decision_endpoint_refuses_clearly(arena: WebArena, page: Any) -> None:
    """Unknown game 404, not the game's owner 403, index out of range 400 (the decision
    stays pending), a stale decision id 409; each with a JSON ``error``."""
    assert page.request.post(f"{arena.url}/play/web-nothing/decision", form={"decision_id": "x", "index": "0"}
                             ).status == 404
    match_id = start_game(arena, page, target=1)
    url = f"{arena.url}/play/{match_id}/decision"
    wait_in_page(page, "document.getElementById('play').dataset.decisionId")
    decision = page.locator("#play").get_attribute("data-decision-id")
    out_of_range = page.request.post(url, form={"decision_id": decision, "index": "999"})
    assert out_of_range.status == 400 and "out of range" in out_of_range.json()["error"]
    assert page.request.post(url, form={"decision_id": "stale:1", "index": "0"}).status == 409
    assert page.request.post(url, form={"decision_id": decision, "index": "zero"}).status == 400
    stranger = page.context.browser.new_context()
    assert stranger.request.post(url, form={"decision_id": decision, "index": "0"}).status == 403
    stranger.close()
    assert page.locator("#play").get_attribute("data-decision-id") == decision
    page.locator("#play .legal").first.click()  # the decision is still there to answer


def test_the_form_refuses_a_connected_bot_without_the_admin_token(arena: WebArena, page: Any) -> None:
    """Seating someone else's bot needs the admin token; an unknown preset is a 400."""
    bot = arena.bot_id("heuristic-1")
    seats = {"preset": "partnership", "opponent": f"bot:{bot}"}
    assert page.request.post(f"{arena.url}/play", form=seats, max_redirects=0).status == 403
    assert page.request.post(f"{arena.url}/play", form={"preset": "nope"}, max_redirects=0).status == 400


@pytest.mark.parametrize("depth", [3_000, 100_000])
def test_options_nested_deep_are_a_400_not_a_traceback(arena: WebArena, page: Any, depth: int) -> None:
    """Options nested thousands deep (the JSON parser's recursion runs out: a 500 with a
    traceback before) or longer than the form allows are refused with a 400 saying why."""
    options = "[" * depth + "]" * depth
    response = page.request.post(f"{arena.url}/play", form={"preset": "partnership", "options": options},
                                 max_redirects=0)
    assert response.status == 400, response.text()[:300]
    assert "options" in response.text() and "Traceback" not in response.text()


@pytest.mark.parametrize("field, value", [("target", "\u00b2"), ("target", "9" * 5000), ("target", "0"),
                                          ("seat", "\u0663"), ("seat", "9" * 5000), ("seat", "-1"), ("seat", "4")])
def test_numbers_the_form_sends_are_bounded_and_a_bad_one_is_a_400(arena: WebArena, page: Any, field: str,
                                                                  value: str) -> None:
    """A superscript two or an Arabic-Indic digit passes ``str.isdigit`` but not ``int`` (a
    500 before, for the points to win); thousands of digits and seats off the table are
    refused too, naming the field, never repeating the value."""
    response = page.request.post(f"{arena.url}/play", form={"preset": "partnership", field: value},
                                 max_redirects=0)
    assert response.status == 400, response.text()[:300]
    assert ("points to win" if field == "target" else "the seat") in response.text()
    assert "9" * 100 not in response.text() and "Traceback" not in response.text()
