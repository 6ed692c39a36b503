"""Mucked hands on the spectator's table and in the replay (seed 004: players "may lay
their cards face down and receive a new hand. The cards can be checked by the other
players after the hand has been played"; "A player who has received no point cards may ask
for a complete re-deal by the same dealer"): the reveal shows, to every view, at the step
that logged it, and the page renders it."""

from __future__ import annotations

import json
from functools import cache

import pytest
from starlette.testclient import TestClient

from cli.local_arena import free_port
from pitch_sdk.bots import HeuristicBot, RandomBot
from pitch_sdk.harness.local import play_game
from pitch_sdk.rules import FULL_VIEW, GameLog, preset, replay
from pitch_sdk.rules.cards import cards_of
from pitch_sdk.rules.events import MuckShown
from store.redis_store import Store
from store.results import result_to_dict
from tests.results import match_result
from tests.web.test_spectator_model import NAMES, spectator_stream
from web.app import create_app
from web.arena import WebArena
from web.config import WebConfig
from web.views.replay import game_replay
from web.views.spectator import SpectatorTable


@cache
def muck_log(option: str) -> GameLog:
    """A partnership game with the muck option in which hands were mucked (two heuristic
    bots, which muck a hand with no chance, and two random ones)."""
    rules = preset("partnership", muck=option)
    return GameLog.of(play_game(rules, [HeuristicBot(), RandomBot(), HeuristicBot(), RandomBot()], seed=1))


def shown_mucks(log: GameLog) -> list[MuckShown]:
    """The reveals the engine logged in the game."""
    return [e for e in replay(log).history if isinstance(e, MuckShown)]


@pytest.mark.parametrize("option", ["new-hand", "redeal"])
def test_the_spectator_table_shows_a_mucked_hand(option: str) -> None:
    log = muck_log(option)
    expected = shown_mucks(log)
    assert expected and all(e.redeal is (option == "redeal") for e in expected)
    table = SpectatorTable.of(log.ruleset, NAMES)
    seen = []
    previous = None
    for streamed in spectator_stream(log, 0):
        described = table.apply(streamed.event)
        if streamed.event.WhichOneof("event") == "muck_shown":
            muck = expected[len(seen)]
            cards = [c.name for c in cards_of(muck.cards)]
            assert described["seat"] == muck.seat and described["cards"] == cards
            assert table.to_dict()["shown"][muck.seat] == cards
            assert ("re-deal" in described["text"]) is muck.redeal
            if not muck.redeal:  # "after the hand has been played"
                assert previous in ("hand_result", "muck_shown", "all_passed_dealer")
            seen.append(muck)
        previous = streamed.event.WhichOneof("event")
    assert seen == expected


@pytest.mark.parametrize("option", ["new-hand", "redeal"])
def test_every_replay_view_shows_the_mucked_hands_where_they_were_shown(option: str) -> None:
    log = muck_log(option)
    expected = [(e.seat, tuple(c.name for c in cards_of(e.cards)), e.redeal) for e in shown_mucks(log)]
    for viewer in (FULL_VIEW, 0, 1):
        built = game_replay(log, NAMES, viewer)
        shown = [(m.seat, m.cards, m.redeal) for step in built.steps for m in step.mucks]
        assert shown == expected
        if option == "new-hand":
            assert all(step.ended is not None for step in built.steps if step.mucks)  # at the hand's end


def test_the_replay_page_renders_a_mucked_hand(store: Store, redis_url: str) -> None:
    log = muck_log("new-hand")
    ids = [store.register_bot(name)[0].bot_id for name in ("alpha", "bravo", "charlie", "delta")]
    result = match_result("muck-match", ids, [(0, [21, 4])])
    result.ruleset.json = log.ruleset.to_json()
    assert store.record_match("muck-match", result_to_dict(result), [json.dumps(log.to_dict())])
    step = next(s.index for s in game_replay(log, NAMES, FULL_VIEW).steps if s.mucks)
    muck = shown_mucks(log)[0]
    config = WebConfig(redis_url=redis_url, store_prefix=store.prefix, referee=f"127.0.0.1:{free_port()}",
                       admin_token="token")
    with TestClient(create_app(config, WebArena(config, store)), headers={"accept": "text/html"}) as client:
        for view in ("all", "seat-1"):
            page = client.get(f"/matches/muck-match/games/1?step={step}&view={view}")
            assert page.status_code == 200, page.text[:500]
            assert 'id="mucks-shown"' in page.text and f'data-seat="{muck.seat}"' in page.text
            assert "mucked" in page.text
        before = client.get(f"/matches/muck-match/games/1?step={step - 1}&view=seat-1")
        assert before.status_code == 200 and 'id="mucks-shown"' not in before.text
