"""A game log carries every hand as dealt (``dealt``), so a reader without the engine sees
the hands, and replay checks them: the log of a seeded game lists each deal's hands and
stock exactly as the engine dealt them, a log whose ``dealt`` disagrees with its seed does
not replay, and logs written before ``dealt`` existed replay as they always did."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from pitch_sdk.rules import CARDS, Card, Deal, GameLog, GameState, RulesError, preset, replay
from pitch_sdk.rules.cards import cards_of
from pitch_sdk.rules.events import Dealt
from pitch_sdk.rules.tables import deck_cards


def _played(name: str, seed: int, deals: tuple[Deal, ...] = ()) -> GameState:
    state = GameState.from_deals(preset(name), deals, seed=seed)
    state.playout(random.Random(seed))
    return state


def _names(cards: str) -> list[str]:
    return cards.split()


@pytest.mark.parametrize(("name", "seed"), [("partnership", 11), ("cutthroat", 11), ("man-o-war", 11), ("abacos", 11),
                                            ("scranton", 0)])
def test_the_json_lists_every_deal_with_each_seats_hand_and_the_stock(name: str, seed: int) -> None:
    """Read as plain JSON (as a client in another language reads GetMatchLog): one entry per
    deal in the game's history, redeals included, each with its hand number, dealer, every
    seat's hand (by seat, from 0) and the stock in draw order, together the whole deck once."""
    state = _played(name, seed)
    data = json.loads(GameLog.of(state).to_json())
    deals = [event for event in state.history if isinstance(event, Dealt)]
    assert len(data["dealt"]) == len(deals) > 1
    if name == "scranton":  # this game has hands dealt again after everybody passed: each deal is there
        assert len({event.hand_number for event in deals}) < len(deals)
    rules = state.rules
    deck = sorted(str(CARDS[c]) for c in deck_cards(rules.deck))
    for entry, event in zip(data["dealt"], deals, strict=True):
        assert entry["hand_number"] == event.hand_number and entry["dealer"] == event.dealer
        assert len(entry["hands"]) == rules.players
        for seat, hand in enumerate(entry["hands"]):
            assert _names(hand) == [str(c) for c in cards_of(event.hands[seat])]
            assert len(_names(hand)) == rules.deal.hand_size
        assert _names(entry["stock"]) == [str(CARDS[c]) for c in event.stock]
        assert sorted([c for hand in entry["hands"] for c in _names(hand)] + _names(entry["stock"])) == deck


def test_the_first_hand_is_what_each_seat_is_shown() -> None:
    """The first deal's hands are the hands the seats hold before anyone moves."""
    state = GameState.new(preset("partnership"), seed=3)
    hands = [state.hand(seat) for seat in range(4)]
    entry = GameLog.of(state).to_dict()["dealt"][0]
    assert [[Card.parse(c) for c in _names(hand)] for hand in entry["hands"]] == [list(h) for h in hands]


def test_the_json_lists_deals_once() -> None:
    """GetMatchLog's JSON "carries both an empty `deals` and a filled `dealt`: keep one": a
    seeded game's log has `dealt` only; a game given explicit deals (a scenario) keeps
    them in `deals`, which it needs to replay, and round-trips."""
    seeded = json.loads(GameLog.of(_played("cutthroat", seed=6)).to_json())
    assert "deals" not in seeded and seeded["dealt"]
    scripted = GameState.new(preset("cutthroat"), seed=2)
    deal = Deal(tuple(tuple(scripted.hand(seat)) for seat in range(3)))
    state = _played("cutthroat", seed=4, deals=(deal,))
    log = GameLog.of(state, (deal,))
    data = json.loads(log.to_json())
    assert len(data["deals"]) == 1 and data["dealt"]
    assert GameLog.from_dict(data) == log and replay(log).history == state.history


def test_a_log_round_trips_and_replays_with_its_deals_checked() -> None:
    """JSON and back gives the same log, and its replay is the same game."""
    state = _played("partnership", seed=5)
    log = GameLog.of(state)
    back = GameLog.from_dict(json.loads(log.to_json()))
    assert back == log and back.dealt
    assert replay(back).history == state.history


def _tampered(data: dict[str, Any]) -> dict[str, Any]:
    """The log with two cards swapped between seat 0 and seat 1 of its second deal."""
    entry = data["dealt"][1]
    first, second = _names(entry["hands"][0]), _names(entry["hands"][1])
    first[0], second[0] = second[0], first[0]
    entry["hands"][0], entry["hands"][1] = " ".join(first), " ".join(second)
    return data


def test_a_log_whose_dealt_disagrees_with_the_game_does_not_replay() -> None:
    """The hands a reader sees must be the hands the moves were played with: a doctored
    `dealt` (or one from another game) is refused, naming the deal."""
    data = json.loads(GameLog.of(_played("cutthroat", seed=8)).to_json())
    with pytest.raises(RulesError, match=r"dealt\[1\] \(hand 2\) is not what the replay dealt"):
        replay(GameLog.from_dict(_tampered(data)))
    shorter = json.loads(GameLog.of(_played("cutthroat", seed=8)).to_json())
    shorter["dealt"].pop()
    with pytest.raises(RulesError, match="dealt lists"):
        replay(GameLog.from_dict(shorter))


def test_old_logs_without_dealt_still_replay() -> None:
    """Logs stored before `dealt` existed (ruleset, seed, moves; `deals` for scenarios)."""
    state = _played("partnership", seed=9)
    data = json.loads(GameLog.of(state).to_json())
    del data["dealt"]
    old = GameLog.from_dict(data)
    assert old.dealt == () and replay(old).history == state.history
    scripted = GameState.new(preset("cutthroat"), seed=2)
    deal = Deal(tuple(tuple(scripted.hand(seat)) for seat in range(3)))
    from_deals = _played("cutthroat", seed=4, deals=(deal,))
    data = json.loads(GameLog.of(from_deals, (deal,)).to_json())
    del data["dealt"]
    assert replay(GameLog.from_dict(data)).history == from_deals.history
