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
    Phase,
    Ruleset,
    Trick,
    parse_action,
    parse_cards,
    preset,
)
from pitch_sdk.rules.events import HandScored


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


def play_out(state: GameState) -> GameState:
    """Finish the current hand with the first legal action each time (deterministic)."""
    hands = len(state.results)
    while len(state.results) == hands:
        state.apply(state.legal_actions()[0])
    return state


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


# ------------------------------------------------------------------ ten-point family (seed 003)
#: Cards that are never trumps when hearts are trump, whatever off-cards a deck uses (the
#: JD, the off-jack, is left out).
_NON_HEART_FILLER = cards("2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS "
                          "4D 5D 6D 7D 8D 9D QD KD")
#: The diamonds that are off-cards of hearts in the 13- to 16-point decks (off-ace,
#: off-ten, off-three, off-two): plain cards otherwise.
OFF_DIAMONDS = cards("AD 10D 3D 2D")


def padded_deal(*hands: str, stock: str, size: int = 9, off_cards: bool = False) -> Deal:
    """An explicit deal in which seat ``s`` holds the cards named in ``hands[s]`` and is
    padded to ``size`` cards with filler that is not a heart trump (so it is thrown away
    when hearts are trump and only trumps are played); with ``off_cards`` (a deck with
    off-aces, -tens, -threes or -twos) the AD, 10D, 3D and 2D are never filler.
    ``stock`` is drawn in order; it must be given, since an empty stock means "the rest
    of the pack"."""
    named = set(cards(" ".join(hands) + " " + stock))
    filler = _NON_HEART_FILLER if off_cards else _NON_HEART_FILLER + OFF_DIAMONDS
    pool = [c for c in filler if c not in named]
    out = []
    for hand in hands:
        own = cards(hand)
        need = size - len(own)
        assert 0 <= need <= len(pool), "not enough filler for this deal"
        out.append(own + tuple(pool[:need]))
        del pool[:need]
    return Deal(hands=tuple(out), stock=cards(stock))


def play_cards(state: GameState, text: str) -> GameState:
    """Play the cards of ``text`` in order, each by whoever the engine says is to move
    (with players out, tricks have fewer cards than seats)."""
    for name in text.split():
        state.apply(parse_action(f"play {name}"))
    return state


def names(hand: Sequence[Any]) -> list[str]:
    """Card names of a hand, sorted, for order-free comparisons."""
    return sorted(str(c) for c in hand)


def hand_tricks(state: GameState, hand: int = -1) -> list[Trick]:
    """The tricks of a scored hand (the last by default), from the history: once a hand is
    scored the state moves on to the next deal and ``state.tricks`` starts afresh."""
    hands: list[list[Trick]] = []
    current: list[Trick] = []
    for event in state.history:
        if isinstance(event, Trick):
            current.append(event)
        elif isinstance(event, HandScored):
            hands.append(current)
            current = []
    return hands[hand]


#: The usual ten-point auction: seat 1 (eldest) bids 4, everyone passes, hearts are trump.
TEN_BIDS = ("bid 4", "pass", "pass", "pass", "trump H")

#: Refill scenario (hearts trump, seat 1 bids): trumps dealt per seat and the stock in
#: drawing order.  Eldest (seat 1) draws 3: 2S 7H 9D; seat 2 draws 4: 2C 3C 10H JH; seat 3
#: draws 6: BJ LJ JD 2H 4C 5C; the dealer draws 3: 6C 7C 8C; left over: 8H KD.
REFILL_HANDS = ("KH 9H 6H", "AH 3H 4H", "QH 5H", "")
REFILL_STOCK = "2S 7H 9D 2C 3C 10H JH BJ LJ JD 2H 4C 5C 6C 7C 8C 8H KD"

#: Trumps dealt per seat for a ten-point scoring hand (hearts trump, seat 1 bids): trick 1
#: AH (seat 1) 2H 10H BJ; trick 2 3H KH 4H JH, won by seat 2's KH; seats 2 and 3 are then
#: out, so seat 0 leads the JD and takes seat 1's 9H.  Party 0 (seats 0+2): jack,
#: off-jack, two (played by seat 2), three = 6; party 1: ace, joker, ten = 3.
SCORING_HANDS = ("JH JD BJ", "AH 3H 9H", "KH 2H", "10H 4H")
SCORING_PLAY = "AH 2H 10H BJ  3H KH 4H JH  JD 9H"

#: The bidder (seat 1) takes A, J, off-jack, 10, two and three (8 points) in four tricks;
#: the others are out after the second, so it leads its last two trumps alone.
MADE_HANDS = ("10H 7H", "AH KH 3H 2H", "JH 5H", "JD 6H")
MADE_PLAY = "AH 5H 6H 7H  KH JH JD 10H  3H  2H"

#: Shoot the moon: seat 1 and its partner seat 3 hold every point card of the ten-point
#: deck (seat 1 plays the two); all ten points go to party 1.
MOON_HANDS = ("8H", "AH KH QH JH 3H 2H", "9H", "JD BJ LJ 10H")
MOON_PLAY = "AH 9H JD 8H  KH BJ  QH LJ  JH 10H  3H  2H"


def one_trick(rules_name: str, row: str, bids: Sequence[str] = TEN_BIDS, **options: Any) -> GameState:
    """A ten-point-family hand of one trick: seat ``s`` is dealt the single trump
    ``row.split()[s]`` (``-``: none); the bidder names hearts and everyone plays its only
    trump.  The hand is scored; see :func:`winner_of_trick`."""
    hands = ["" if c == "-" else c for c in row.split()]
    rules = preset(rules_name, **options)
    deck = rules.deck
    off_cards = deck.off_ace or deck.off_ten or deck.off_three or deck.off_two
    state = game(rules, padded_deal(*hands, stock="2S", off_cards=off_cards))
    act(state, *bids)
    assert state.phase is Phase.PLAY
    while not state.results:
        moves = legal(state)
        assert len(moves) == 1, moves
        act(state, moves[0])
    return state


def winner_of_trick(state: GameState) -> int:
    """The winner of the last trick of the last hand scored."""
    return hand_tricks(state)[-1].winner


#: Seed 004's common variation, Low to the trick's winner ("The point for low is often
#: awarded to the player who won the trick containing the lowest trump"): scenarios written
#: for it, testing rules that do not depend on who scores Low, pin it (seed 004's presets
#: give Low to its original holder by default).
CAPTURED_LOW: dict[str, str] = {"low_goes_to": "capturer"}
