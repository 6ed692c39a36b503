"""Hand scoring: which party earned each point category, and what the bid does to scores.

Pure functions over the completed tricks, so they can be tested on hand-made tricks and
reused by bots that want to evaluate an imagined end of hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from pitch_sdk.rules.cards import BIG_JOKER_ID, CARDS, LITTLE_JOKER_ID
from pitch_sdk.rules.records import PointAward, Trick
from pitch_sdk.rules.ruleset import (
    JokerRank,
    LowGoesTo,
    MoonMade,
    MoonSet,
    PointCategory,
    Ruleset,
)
from pitch_sdk.rules.tables import JOKER_MASK, TrumpTable, pips2_of


class PileSummary(NamedTuple):
    """What the tricks of a hand put in each party's pile."""

    awards: tuple[PointAward, ...]
    pips2: tuple[int, ...]
    """Doubled pips per party (so a joker's half pip is an integer)."""
    tricks_won: tuple[int, ...]


def award_points(rules: Ruleset, table: TrumpTable, piles: Sequence[int], tricks_won: Sequence[int],
                 played: Sequence[int] | None = None) -> PileSummary:
    """Award every point category of ``rules`` for a finished hand, in counting order.

    ``piles`` holds each party's scoring pile (the cards of the tricks it won) as a bit
    mask; ``played`` the cards each party played, needed only when Low goes to the player
    who held it (:func:`played_by_party`).  A card is *in play* when it was played to a
    trick; it belongs to the party that won that trick, except Low under
    ``low_goes_to=player``.
    """
    in_play = 0
    for pile in piles:
        in_play |= pile
    awards: list[PointAward] = []
    pips2 = [pips2_of(pile) for pile in piles]
    for rule in rules.scoring.points:
        category, value = rule.category, rule.value
        owners = piles
        if category is PointCategory.HIGH:
            card = table.highest(in_play)
        elif category is PointCategory.LOW:
            candidates = in_play & ~JOKER_MASK if rules.deck.joker_rank is JokerRank.BELOW_TWO else in_play
            card = table.lowest(candidates)
            if rules.scoring.low_goes_to is LowGoesTo.PLAYER:
                if played is None:
                    raise ValueError("Low goes to the player who held it: award_points needs `played`")
                owners = played
        elif category is PointCategory.GAME:
            best = max(pips2)
            if pips2.count(best) == 1:
                awards.append(PointAward(category, value, pips2.index(best), None))
            continue
        elif category is PointCategory.JOKER:
            for joker in (BIG_JOKER_ID, LITTLE_JOKER_ID):
                if in_play >> joker & 1:
                    awards.append(PointAward(category, value, _owner(joker, piles), CARDS[joker]))
            continue
        else:
            card = table.point_cards[category]
            if card < 0 or not in_play >> card & 1:
                continue
        if card >= 0:
            awards.append(PointAward(category, value, _owner(card, owners), CARDS[card]))
    return PileSummary(tuple(awards), tuple(pips2), tuple(tricks_won))


def played_by_party(tricks: Sequence[Trick], parties: int) -> list[int]:
    """The cards each party played to ``tricks``, as bit masks (for Low to the holder)."""
    played = [0] * parties
    for trick in tricks:
        for seat, card in trick.plays:
            played[seat % parties] |= 1 << card
    return played


def _owner(card: int, masks: Sequence[int]) -> int:
    """The party whose mask holds ``card``."""
    for party, mask in enumerate(masks):
        if mask >> card & 1:
            return party
    raise AssertionError(f"card {card} is in no pile")


class Settlement(NamedTuple):
    """What a hand does to the scores."""

    points_won: tuple[int, ...]
    made: bool | None
    moon: bool
    score_changes: tuple[int, ...]
    moon_decides: bool
    """The moon bid ends the game by itself (made and winning, or failed and losing)."""
    awards: tuple[PointAward, ...]
    """The point awards in counting order (they decide who reaches the target first)."""


def settle_hand(rules: Ruleset, pile: PileSummary, pitching_party: int | None,
                contract: int | None, scores_before: Sequence[int]) -> Settlement:
    """Apply the bid: the pitching party scores its points if made, else is set back."""
    parties = rules.parties
    points_won = [0] * parties
    for award in pile.awards:
        points_won[award.party] += award.value
    changes = list(points_won)
    made: bool | None = None
    moon = False
    moon_decides = False
    if pitching_party is not None and contract is not None:
        rules_moon = rules.moon
        moon = rules_moon is not None and contract == rules_moon.moon_bid
        # A moon bid above the points in play (partnership smudge: 5) needs them all.
        made = points_won[pitching_party] >= min(contract, rules.points_in_play)
        if moon and rules_moon is not None:
            if rules_moon.moon_all_tricks and pile.tricks_won[pitching_party] != sum(pile.tricks_won):
                made = False
            if made:
                if rules_moon.moon_made is MoonMade.SCORE:
                    changes[pitching_party] = rules_moon.moon_score
                else:
                    in_hole = rules_moon.moon_blocked_in_hole and scores_before[pitching_party] < 0
                    moon_decides = not in_hole
            else:
                changes[pitching_party] = -rules_moon.moon_score
                moon_decides = rules_moon.moon_set is MoonSet.LOSE_GAME
        elif not made:
            changes[pitching_party] = -contract
        if rules.scoring.no_junk_points:
            changes = [c if p == pitching_party else 0 for p, c in enumerate(changes)]

    return Settlement(tuple(points_won), made, moon, tuple(changes), moon_decides, pile.awards)
