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
    CountOrder,
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


def award_points(rules: Ruleset, table: TrumpTable, tricks: Sequence[Trick]) -> PileSummary:
    """Award every point category of ``rules`` for a finished hand, in counting order.

    A card is *in play* when it was played to a trick; it belongs to the party that won
    that trick, except Low under ``low_goes_to=player``.  Piles are bit masks.
    """
    parties = rules.parties
    piles = [0] * parties
    tricks_won = [0] * parties
    for trick in tricks:
        winner_party = trick.winner % parties
        tricks_won[winner_party] += 1
        for _, card in trick.plays:
            piles[winner_party] |= 1 << card
    by_player = rules.scoring.low_goes_to is LowGoesTo.PLAYER
    played = [0] * parties  # what each party played: only Low "to the holder" needs it
    if by_player:
        for trick in tricks:
            for seat, card in trick.plays:
                played[seat % parties] |= 1 << card
    in_play = 0
    for pile in piles:
        in_play |= pile
    awards: list[PointAward] = []
    pips2 = [pips2_of(pile) for pile in piles]
    for rule in rules.scoring.points:
        category, value = rule.category, rule.value
        card = -1  # the card that earns the category, if any is in play
        owners = piles
        if category is PointCategory.HIGH:
            card = next((c for c in table.order if in_play >> c & 1), -1)
        elif category is PointCategory.LOW:
            candidates = in_play & ~JOKER_MASK if rules.deck.joker_rank is JokerRank.BELOW_TWO else in_play
            card = next((c for c in reversed(table.order) if candidates >> c & 1), -1)
            owners = played if by_player else piles
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
        if card >= 0 and in_play >> card & 1:
            awards.append(PointAward(category, value, _owner(card, owners), CARDS[card]))
    return PileSummary(tuple(awards), tuple(pips2), tuple(tricks_won))


def _owner(card: int, masks: list[int]) -> int:
    """The party whose mask holds ``card``."""
    for party, mask in enumerate(masks):
        if mask >> card & 1:
            return party
    raise AssertionError(f"card {card} is in no pile")


class Settlement(NamedTuple):
    """What a hand does to the scores, and the order the points are counted in."""

    points_won: tuple[int, ...]
    made: bool | None
    moon: bool
    score_changes: tuple[int, ...]
    steps: tuple[tuple[int, int], ...]
    """(party, change) in counting order; applying them in turn gives the new scores."""
    moon_decides: bool
    """The moon bid ends the game by itself (made and winning, or failed and losing)."""


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

    steps: list[tuple[int, int]] = []
    if rules.win.count_order is CountOrder.PITCHER_FIRST and pitching_party is not None:
        steps.append((pitching_party, changes[pitching_party]))
        for award in pile.awards:
            if award.party != pitching_party and changes[award.party]:
                steps.append((award.party, award.value))
    else:
        if pitching_party is not None and changes[pitching_party] != points_won[pitching_party]:
            steps.append((pitching_party, changes[pitching_party]))  # set back: counted first
        for award in pile.awards:
            if changes[award.party] == points_won[award.party] and changes[award.party]:
                steps.append((award.party, award.value))
    return Settlement(tuple(points_won), made, moon, tuple(changes), tuple(steps), moon_decides)
