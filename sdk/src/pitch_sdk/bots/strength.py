"""Hand strength: how many points a hand can expect to take with a given trump suit.

The estimate counts the categories a bidder can see coming: High (no opponent holds a
higher trump), Low (no opponent holds a lower one, and the trick carrying it is won),
the jack and other point cards (held and guarded), and Game (trump length and the tens
and aces that collect pips).  Probabilities treat the opponents' cards as a random draw
from the cards the bidder cannot see, which is exact before any card is played.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

from pitch_sdk.bots.cardsense import RulesSense, TrumpSense
from pitch_sdk.rules import Card, PointCategory, Ruleset, Suit
from pitch_sdk.rules.cards import ACE, TEN
from pitch_sdk.rules.ruleset import LowGoesTo

#: Chance of winning the trick that carries our own low trump (or a held point card
#: with higher trumps still out): good players find a safe moment, not always.
CAPTURE_OWN = 0.7
#: Share of ``CAPTURE_OWN`` left for a held point card that an opponent's trump can beat.
UNGUARDED = 0.6
#: Chance of picking up a point card an opponent holds when we hold trumps above it.
CAPTURE_THEIRS = 0.3
#: Points a partner adds, on average, to what the bidder's own cards promise.
PARTNER_BONUS = 0.5


def expected_points(rules: RulesSense, hand: Sequence[int], trump: Suit) -> float:
    """Points the bidder's party can expect with ``trump``."""
    ruleset, partners, info = rules.ruleset, rules.partners, rules[trump]
    trumps = [c for c in info.table.order if c in hand]  # highest first
    if not trumps:
        return 0.0
    unknown = ruleset.deck_size - len(hand)
    opponents_cards = (ruleset.players - 1 - partners) * ruleset.deal.hand_size
    in_play = (ruleset.players - 1) * ruleset.deal.hand_size / unknown

    def none_held(count: int) -> float:
        """Chance that the opponents hold none of ``count`` given unseen cards."""
        return comb(unknown - count, opponents_cards) / comb(unknown, opponents_cards)

    order = info.table.order
    total = info.high_value * none_held(order.index(trumps[0]))
    lows = [c for c in trumps if c in info.low_candidates]
    if info.low_value and lows:
        capture = 1.0 if ruleset.scoring.low_goes_to is LowGoesTo.PLAYER else CAPTURE_OWN
        if lows[-1] == trumps[0]:
            capture = max(capture, none_held(order.index(trumps[0])))  # a lone trump wins itself
        total += info.low_value * none_held(info.low_candidates.index(lows[-1])) * capture
    for card, value in info.fixed_points.items():
        above = order.index(card)
        if card in hand:  # safe if no opponent holds a trump above it, else saved now and then
            safe = none_held(sum(1 for c in order[:above] if c not in hand))
            total += value * (safe + (1 - safe) * CAPTURE_OWN * UNGUARDED)
        elif order.index(trumps[0]) < above:
            total += value * in_play * CAPTURE_THEIRS
    total += _game_share(ruleset, hand, info, len(trumps), partners)
    return total + PARTNER_BONUS * partners


def best_suit(rules: RulesSense, hand: Sequence[int]) -> tuple[Suit, float]:
    """The trump suit that promises the most points, and that estimate."""
    estimates = [(expected_points(rules, hand, suit), suit) for suit in Suit]
    points, suit = max(estimates, key=lambda item: item[0])
    return suit, points


def _game_share(ruleset: Ruleset, hand: Sequence[int], info: TrumpSense, trumps: int,
                partners: int) -> float:
    """Chance of the Game point times its value: trump length wins tricks, tens and aces
    bring pips."""
    game = next((r.value for r in ruleset.scoring.points if r.category is PointCategory.GAME), 0)
    if not game:
        return 0.0
    fair = (1 + partners) / ruleset.players
    tens = sum(1 for c in hand if Card(c).rank == TEN)
    aces = sum(1 for c in hand if Card(c).rank == ACE and not info.is_trump(c))
    share = fair + 0.07 * (trumps - 1.5) + 0.08 * tens + 0.04 * aces
    return game * min(0.9, max(0.05, share))
