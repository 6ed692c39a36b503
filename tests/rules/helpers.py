"""Scenario helpers for the rule tests: explicit deals, scripted play, result summaries.

A hand is most easily written *trick by trick*: each trick is a string of one card per
seat, in seat order (seat 0 first), e.g. ``"2C AH 3H 4H"``.  :func:`deal_by_tricks` turns
those tricks into the hands dealt (seat ``s`` holds column ``s`` of every trick) and
:func:`play_tricks` plays them: whoever the engine says is to move plays its card from
the current trick's column.  The engine itself decides who leads each trick (the pitcher,
then each trick's winner) and checks every play, so a scenario that breaks a rule fails
loudly with ``IllegalActionError``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from pitch_sdk.rules import (
    Deal,
    GameState,
    HandResult,
    IllegalActionError,
    Ruleset,
    parse_action,
    parse_cards,
)


def cards(text: str) -> tuple[Any, ...]:
    """``"AS 10H"`` -> a tuple of cards."""
    return tuple(parse_cards(text))


def deal(*hands: str, stock: str = "") -> Deal:
    """An explicit deal: one string of cards per seat (seat 0 first), then the stock."""
    return Deal(hands=tuple(cards(h) for h in hands), stock=cards(stock))


def _columns(tricks: Sequence[str]) -> list[list[str]]:
    rows = [t.split() for t in tricks]
    width = len(rows[0])
    assert all(len(r) == width for r in rows), "every trick needs one card per seat"
    return [[row[seat] for row in rows] for seat in range(width)]


def deal_by_tricks(*tricks: str, stock: str = "") -> Deal:
    """The deal in which seat ``s`` holds card ``s`` of every trick."""
    return deal(*(" ".join(col) for col in _columns(tricks)), stock=stock)


def game(rules: Ruleset, *deals: Deal, dealer: int = 0,
         scores: Sequence[int] | None = None) -> GameState:
    """A game that uses ``deals`` in order (then seeded deals).

    ``scores`` puts the game in a mid-game position (the scores before the first deal),
    so that a target such as 11 or 21 can be reached in one scripted hand."""
    state = GameState.from_deals(rules, list(deals), dealer=dealer)
    if scores is not None:
        assert len(scores) == state.parties
        state.scores = list(scores)
    return state


def act(state: GameState, *actions: str) -> GameState:
    """Apply actions given in text form (``"bid 2"``, ``"pass"``, ``"play AS"``)."""
    for text in actions:
        state.apply(parse_action(text))
    return state


def play_tricks(state: GameState, *tricks: str) -> GameState:
    """Play tricks written one card per seat (seat order); the engine picks who moves."""
    for trick in tricks:
        row = trick.split()
        assert len(row) == state.players
        for _ in range(state.players):
            state.apply(parse_action(f"play {row[state.to_move]}"))
    return state


def play_hand(rules: Ruleset, bids: Sequence[str], *tricks: str, dealer: int = 0,
              stock: str = "", scores: Sequence[int] | None = None) -> tuple[GameState, HandResult]:
    """Deal ``tricks`` as a single hand, make the ``bids`` (and any trump/exchange actions),
    play it out; return the state and its result."""
    state = game(rules, deal_by_tricks(*tricks, stock=stock), dealer=dealer, scores=scores)
    act(state, *bids)
    play_tricks(state, *tricks)
    assert state.results, "the hand did not finish"
    return state, state.results[-1]


def awards(result: HandResult) -> list[tuple[str, int, str | None]]:
    """The awards of a hand as ``(category, party, card name)`` in counting order."""
    return [(a.category.value, a.party, None if a.card is None else a.card.name)
            for a in result.awards]


def award_values(result: HandResult) -> dict[str, int]:
    """Category -> value awarded (summed if a category is awarded several times)."""
    out: dict[str, int] = {}
    for a in result.awards:
        out[a.category.value] = out.get(a.category.value, 0) + a.value
    return out


def fingerprint(state: GameState) -> tuple[Any, ...]:
    """Everything observable about a state, to check that a rejected action changed nothing."""
    return (
        state.phase, state.to_move, state.dealer, state.hand_number, state.deal_number,
        tuple(state.hands), tuple(state.stock), tuple(state.bids), state.high_bid,
        state.high_bidder, state.pitcher, state.contract, state.trump, tuple(state.trick),
        tuple(state.tricks), tuple(state.scores), len(state.moves), len(state.history),
        len(state.results), state.winner,
    )


def assert_illegal(state: GameState, action: str) -> IllegalActionError:
    """``action`` raises ``IllegalActionError``, is not listed as legal, and changes nothing."""
    parsed = parse_action(action)
    before = fingerprint(state)
    assert parsed not in state.legal_actions()
    assert not state.is_legal(parsed)
    with pytest.raises(IllegalActionError) as info:
        state.apply(parsed)
    assert fingerprint(state) == before
    return info.value


def legal(state: GameState) -> list[str]:
    """The legal actions of the player to move, as text."""
    return [str(a) for a in state.legal_actions()]


# --------------------------------------------------------------------------- stock hands
# Each is six tricks, one card per seat in seat order.  Unless noted, seat 0 deals, seat 1
# (eldest hand) wins the bid and pitches hearts with the first card of the first trick.
# Partnership parties: 0 = seats 0+2, 1 = seats 1+3.

#: Hands (not tricks) for the follow-suit tests: seat 1 bids 2 and pitches the AH; seat 2
#: must follow with a heart, then may follow clubs or trump the KC; seat 0 is void in all.
FOLLOW_DEAL_ROWS = ("AS 2S 3S 4S 5S 6S", "AH KC 7D 8D 9D 10D",
                    "3H 4H 2C 3C 4D 5D", "5H QC 6D 7S 8S JS")

#: Pitcher's side takes High (AH) and Low (2H, played by seat 2 into seat 1's trick); the
#: other side takes Jack (JH, seat 2 trumps a diamond) and Game.
#: Piles by seat: seat 0 16 pips, seat 1 4, seat 2 14, seat 3 0 (teams: 30 vs 4).
SPLIT = ("3C AH 2H 4C", "KD 5D JH 6D", "QC 7D 10C 2C",
         "AS 8D 2S 3S", "4S 9D 5S 6S", "8S 10D 9S 7S")

#: The only trump dealt is the 7H, led by the pitcher; the jack of trumps is not dealt.
#: Seats 0+2 win 20 pips (AD and the spade honours), seats 1+3 none.
LONE_TRUMP = ("2C 7H 3C 4C", "AD 2D 3D 4D", "5C 6C 7C 8C",
              "3S 4S 5S 2S", "7S 6S 8S 9S", "JS QS KS 10S")

#: As LONE_TRUMP, but the only trump dealt is the jack (JH).
LONE_JACK = tuple(t.replace("7H", "JH") for t in LONE_TRUMP)

#: One trump (7H) in play; seat 0 takes the 10D, seat 3 the 10C: 10 pips each team.
TIED_GAME = ("2C 7H 3C 4C", "10D 2D 3D 4D", "5C 6C 7C 10C",
             "3S 4S 5S 2S", "7S 6S 8S 9S", "8D 9D 5D 6D")

#: The pitcher (seat 1) takes Jack and Game (17 pips); the next seat (seat 2) takes High
#: (AH) and Low (3H; the 2H is not dealt) in the first trick.  Individually: seat 1 and
#: seat 2 both win 2 points, seat 1's coming from the later categories.
ORDER = ("2C 3H AH 4C", "7D JH 5D 6D", "QC AC 3C 10C",
         "3S 2S 4S 5S", "7S 8S 9S 6S", "9D 4D 8D 2D")

#: The pitcher (seat 1) wins every trick and all four points (AH, 2H, JH, Game).
SLAM = ("2C AH 2H 3C", "4C JH 5C 6C", "2D 10D 3D 4D",
        "5D KD 6D 7D", "2S AS 3S 4S", "5S KS 6S 7S")

#: As SLAM, but seat 2 wins the last trick (no points in it): all four points, five tricks.
SLAM_BUT_ONE_TRICK = ("2C AH 2H 3C", "4C JH 5C 6C", "2D 10D 3D 4D",
                      "5D KD 6D 7D", "8S AS 9S 4S", "5S 2S 6S 3S")

#: SPLIT with the 5H instead of the 2H in the first trick and the 2H trumping a spade in
#: the fifth: seats 1+3 take High (AH), Low (2H) and the Five (5H, played by seat 2);
#: seats 0+2 take Jack (JH) and Game (20 pips to 14).
FIVE = ("3C AH 5H 4C", "KD 5D JH 6D", "QC 7D 10C 2C",
        "AS 8D 2S 3S", "4S 2H 5S 6S", "8S 10D 9S 7S")

#: Three players (seat 0 deals, seat 1 bids and names hearts): seat 1 takes High and Low,
#: seat 2 Jack, seat 0 Game (16 pips to 4 and 4).
THREE_HANDED = ("3C AH 2H", "KD 5D JH", "QC 4D 10C", "AS 6D 2S", "3S 7D 4S", "6S 8D 5S")

#: Seat 1 pitches the 2H; its partner seat 3 captures it with the AH and takes the clubs;
#: the jack of trumps is not dealt.  Seats 1+3: High, Low, Game (15 pips to 7).
PARTNER_TAKES = ("4H 2H 3H AH", "2C 3C 4C AC", "5C 6C 7C KC",
                 "3D 4D AD 2D", "4S AS 2S 3S", "KS 5S 6S 7S")


_PADDING = cards("2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC 2S 3S 4S 5S 6S 7S 8S 9S "
                 "10S JS QS KS AS 2D 4D 5D 6D 7D 8D 9D")


def deal_first_trick(row: str, hand_size: int = 6) -> Deal:
    """A deal in which seat ``s`` holds card ``s`` of ``row`` plus non-heart filler (clubs,
    spades, low diamonds: never a trump when hearts are trump), for tests that only play
    the first trick with hearts as trump."""
    first = cards(row)
    spare = [c for c in _PADDING if c not in first]
    hands = []
    for card in first:
        hands.append((card, *spare[:hand_size - 1]))
        del spare[:hand_size - 1]
    return Deal(hands=tuple(hands))


def first_trick_winner(rules: Ruleset, row: str,
                       bids: Sequence[str] = ("bid 2", "pass", "pass", "pass")) -> int:
    """Deal ``row`` (one card per seat), let seat 1 win the bid, play the first trick (seat 1
    leads) and return the seat that won it."""
    state = game(rules, deal_first_trick(row))
    act(state, *bids)
    play_tricks(state, row)
    return state.tricks[0].winner

#: Seat 1 (eldest, dealer 0) bids 2 and every other seat passes.
PASS_ROUND = ["bid 2", "pass", "pass", "pass"]
