"""Hand strength: how many points a hand can expect to take with a given trump suit.

The estimate counts the categories a bidder can see coming: High (no opponent holds a
higher trump), Low (no opponent holds a lower one, and the trick carrying it is won),
the jack and other point cards (held and guarded), and Game (trump length and the tens
and aces that collect pips).  Probabilities treat the opponents' cards as a random draw
from the cards the bidder cannot see, which is exact before any card is played.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import comb

from pitch_sdk.bots.cardsense import RulesSense, TrumpSense
from pitch_sdk.rules import Card, PointCategory, Ruleset, Suit
from pitch_sdk.rules.cards import ACE, LITTLE_JOKER_ID, TEN
from pitch_sdk.rules.ruleset import Exchange, JokerRank, PartnerCall

#: Chance of winning the trick that carries our own low trump (or a held point card
#: with higher trumps still out): good players find a safe moment, not always.
CAPTURE_OWN = 0.7
#: Share of ``CAPTURE_OWN`` left for a held point card that an opponent's trump can beat.
UNGUARDED = 0.6
#: Chance of picking up a point card an opponent holds when we hold trumps above it.
CAPTURE_THEIRS = 0.3
#: Points a partner adds, on average, to what the bidder's own cards promise.
PARTNER_BONUS = 0.5
#: Share of the unseen trumps that end with the bidder (refills and leftovers) when every
#: trump is dealt out (the ten-point family).
BIDDER_EXTRA = 0.1
#: Share of a sub-trump point (two-trump pitch) the bidder keeps when its cards of the
#: sub-trump suit would win it: the trumps rank above them and can still take them.
SUB_TRUMP_SHARE = 0.8


def expected_points(rules: RulesSense, hand: Sequence[int], trump: Suit) -> float:
    """Points the bidder's party can expect with ``trump``.

    Trick-taking is judged by power, so the estimate reads ``lowest_wins`` rulesets the
    right way round; cards whose point goes to their player (the ten-point family's two)
    count in full when held and nothing when not; with a called partner (five-handed) the
    highest trump the bidder lacks counts as held, since its holder will be the partner."""
    ruleset, partners, info = rules.ruleset, rules.partners, rules[trump]
    trumps = [c for c in info.table.order if c in hand]  # highest rank first
    if not trumps:
        return 0.0
    held = set(hand)
    order, power = info.table.order, info.table.power
    called = ruleset.seating.partner_call is not PartnerCall.NONE
    if called:
        lacking = [c for c in info.by_power() if c not in held]
        if lacking:
            held.add(lacking[0])
    unknown = ruleset.deck_size - len(hand)
    opponents = ruleset.players - 1 - partners - called
    mine = partner = 0.0  # chance an unseen card ends in the bidder's / a partner's hand
    if _dealt_out(ruleset):
        # Every trump reaches a hand: the others keep what they were dealt and draw their
        # refills, and the rest of the stock goes to the bidder.
        others = ruleset.players - 1
        dealt = others * ruleset.deal.hand_size / unknown
        trumps_dealt = ruleset.deal.hand_size * len(order) / ruleset.deck_size
        refills = others * max(0.0, ruleset.deal.refill_to - trumps_dealt)
        stock = ruleset.deck_size - ruleset.players * ruleset.deal.hand_size
        elsewhere = dealt + (1 - dealt) * (min(1.0, refills / stock) if stock else 1.0)
        share = elsewhere * opponents / others
        mine, partner = 1 - elsewhere, elsewhere * (partners + called) / others
        in_play = 1.0

        def none_held(count: int) -> float:
            return float((1 - share) ** count)
    else:
        opponents_cards = opponents * ruleset.deal.hand_size
        in_play = (ruleset.players - 1) * ruleset.deal.hand_size / unknown

        def none_held(count: int) -> float:
            """Chance that the opponents hold none of ``count`` given unseen cards."""
            return comb(unknown - count, opponents_cards) / comb(unknown, opponents_cards)

    strongest = max(trumps, key=lambda c: power[c])

    def guarded(card: int) -> float:
        """Chance that no opponent holds a trump that beats ``card``."""
        return none_held(sum(1 for c in order if power[c] > power[card] and c not in held))

    def kept(card: int) -> float:
        """Chance of winning the trick our own point card is played to."""
        safe = guarded(card)
        return safe + (1 - safe) * CAPTURE_OWN * UNGUARDED

    total = info.high_value * none_held(order.index(trumps[0]))
    if ruleset.play.lowest_wins:  # the highest trump is the weakest: it must be saved
        total *= kept(trumps[0])
    lows = [c for c in trumps if c in info.low_candidates]
    if info.low_value and lows:
        capture = 1.0 if info.low_to_player else CAPTURE_OWN
        if lows[-1] == strongest:
            capture = max(capture, guarded(strongest))  # a lone trump wins itself
        total += info.low_value * none_held(info.low_candidates.index(lows[-1])) * capture
    for card, value in info.fixed_points.items():
        if card in held:  # safe if no opponent holds a trump above it, else saved now and then
            total += value * kept(card)
            continue
        if mine:  # dealt out: it may still come to the bidder or the partner
            total += value * (mine * kept(card) + partner * CAPTURE_OWN)
        if power[strongest] > power[card]:
            total += value * (1 - mine - partner) * in_play * CAPTURE_THEIRS
    for card, value in info.player_points.items():
        total += value * (1.0 if card in held else mine + partner)
    total += _game_share(rules, hand, info, len(trumps), partners)
    total += _sub_trump_points(rules, hand, trump, none_held)
    total += _unranked_joker_points(rules, partners, in_play)
    if mine:
        return total  # the partner's cards are counted above
    return total + PARTNER_BONUS * (partners + called)


def _sub_trump_points(rules: RulesSense, hand: Sequence[int], trump: Suit,
                      none_held: Callable[[int], float]) -> float:
    """Two-trump pitch: the bidder also names the sub-trump, its best other suit, whose
    sub-high, sub-low and sub-jack it counts as it counts a trump suit's (High when no
    opponent holds a higher card of the suit, Low when none holds a lower one and its
    trick is won, the jack when its trick is won), at ``SUB_TRUMP_SHARE``."""
    ruleset = rules.ruleset
    if not ruleset.trump.sub_trump:
        return 0.0
    values = rules.point_values
    high, low, jack = (values.get(c, 0) for c in (PointCategory.SUB_HIGH, PointCategory.SUB_LOW,
                                                  PointCategory.SUB_JACK))
    if not high + low + jack:
        return 0.0
    best = 0.0
    for suit in Suit:
        if suit is trump:
            continue
        ranks = sorted(card.rank for card in map(Card, hand) if card.suit is suit and card.rank)
        if not ranks:
            continue
        in_deck = [r for r in range(2, 15) if r not in ruleset.deck.removed_ranks]
        points = high * none_held(sum(1 for r in in_deck if r > ranks[-1] and r not in ranks))
        points += low * none_held(sum(1 for r in in_deck if r < ranks[0])) * CAPTURE_OWN
        points += jack * CAPTURE_OWN if 11 in ranks else 0.0
        best = max(best, points)
    return best * SUB_TRUMP_SHARE


def _unranked_joker_points(rules: RulesSense, partners: int, in_play: float) -> float:
    """Unranked jokers (two-trump pitch) capture nothing and go with the trick they fall
    in: the bidder's side can expect its fair share of their points, as of Game's."""
    ruleset, values = rules.ruleset, rules.point_values
    if ruleset.deck.joker_rank is not JokerRank.UNRANKED or PointCategory.JOKER not in values:
        return 0.0
    return values[PointCategory.JOKER] * ruleset.deck.jokers * in_play * (1 + partners) / ruleset.players


def _dealt_out(ruleset: Ruleset) -> bool:
    """Whether every trump ends in some hand before play (seed 003's discard, refill and
    leftovers to the bidder), rather than partly staying in an undealt stock."""
    return ruleset.trump.exchange is Exchange.DISCARD_NON_TRUMPS and ruleset.trump.leftovers_to_bidder


def best_suit(rules: RulesSense, hand: Sequence[int]) -> tuple[Suit, float]:
    """The trump suit that promises the most points, and that estimate."""
    estimates = [(expected_points(rules, hand, suit), suit) for suit in Suit]
    points, suit = max(estimates, key=lambda item: item[0])
    return suit, points


def _game_share(rules: RulesSense, hand: Sequence[int], info: TrumpSense, trumps: int,
                partners: int) -> float:
    """Chance of the Game point times its value: trump length wins tricks, tens and aces
    bring pips."""
    game = rules.game_value
    if not game:
        return 0.0
    fair = (1 + partners) / rules.ruleset.players
    tens = aces = 0
    for card in hand:  # suited cards by their rank: ``Card(card).rank``, without building a Card
        if card < LITTLE_JOKER_ID:
            rank = card % 13 + 2
            if rank == TEN:
                tens += 1
            elif rank == ACE and not info.is_trump(card):
                aces += 1
    share = fair + 0.07 * (trumps - 1.5) + 0.08 * tens + 0.04 * aces
    return game * min(0.9, max(0.05, share))
