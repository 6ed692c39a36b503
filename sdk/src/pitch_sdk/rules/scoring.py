"""Hand scoring: which party earned each point category, and what the bid does to scores.

Pure functions over the completed tricks, so they can be tested on hand-made tricks and
reused by bots that want to evaluate an imagined end of hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from pitch_sdk.rules.cards import BIG_JOKER_ID, CARDS, LITTLE_JOKER_ID
from pitch_sdk.rules.records import PointAward, Trick, new_award, tuple_builder
from pitch_sdk.rules.ruleset import (
    JokerRank,
    LowGoesTo,
    MadeScores,
    MoonMade,
    MoonSet,
    PointCategory,
    Ruleset,
    SetPenalty,
)
from pitch_sdk.rules.tables import JOKER_MASK, TrumpTable, pips2_of


class PileSummary(NamedTuple):
    """What the tricks of a hand put in each party's pile."""

    awards: tuple[PointAward, ...]
    pips2: tuple[int, ...]
    """Doubled pips per party (so a joker's half pip is an integer)."""
    tricks_won: tuple[int, ...]


def award_points(rules: Ruleset, table: TrumpTable, piles: Sequence[int], tricks_won: Sequence[int],
                 played: Sequence[int] | None = None, credited_burns: Sequence[int] | None = None,
                 sides: Sequence[int] | None = None) -> PileSummary:
    """Award every point category of ``rules`` for a finished hand, in counting order.

    ``piles`` holds each party's scoring pile (the cards of the tricks it won) as a bit
    mask; ``played`` the cards each party played, needed only when Low or the two goes to
    the player who held it (:func:`played_by_party`); ``credited_burns`` the burned cards
    whose points each party is given (seed 004's off-ace eleven-point).  A card is *in
    play* when it was played to a trick; it belongs to the party that won that trick,
    except Low and the two under ``low_goes_to``/``two_goes_to=player``.  With called
    partners (``sides``: party -> side) Game goes to the side with the most pips, "earned
    as a team" (seed 004), credited to that side's member holding the most of them.
    """
    in_play = 0
    for pile in piles:
        in_play |= pile
    # Card points (not High, Low or Game, which need the card in play) also go to a burned
    # card's credited party: its "pile" for them holds the burned cards it is given.
    holders, counted = piles, in_play
    if credited_burns is not None:
        holders = [pile | burned for pile, burned in zip(piles, credited_burns, strict=True)]
        for burned in credited_burns:
            counted |= burned
    scoring = rules.scoring
    point_cards = table.point_cards
    awards: list[PointAward] = []
    pips2 = list(map(pips2_of, piles if rules.deck.joker_half_pip else [pile & ~JOKER_MASK for pile in piles]))
    for rule in scoring.points:
        category, value = rule.category, rule.value
        card = point_cards.get(category, -2)  # the usual case first: a single-card point
        owners = piles
        if card != -2:
            if card < 0 or not counted >> card & 1:
                continue
            owners = holders
            if category is _TWO and scoring.two_goes_to is _TO_PLAYER and in_play >> card & 1:
                owners = _required(played, "the two")
        elif category is _HIGH:
            card = table.highest(in_play & ~JOKER_MASK if rules.deck.joker_rank is _UNRANKED else in_play)
        elif category is _LOW:
            card = table.lowest(in_play & ~JOKER_MASK if rules.deck.joker_rank in _JOKERS_NOT_LOW else in_play)
            if scoring.low_goes_to is _TO_PLAYER:
                owners = _required(played, "Low")
        elif category is _GAME:
            if sides is None:
                best = max(pips2)
                winner = pips2.index(best) if pips2.count(best) == 1 else None
            else:
                winner = _side_game_winner(pips2, sides)
            if winner is not None:
                awards.append(new_award((category, value, winner, None)))
            continue
        elif category is _JOKER:
            for joker in (BIG_JOKER_ID, LITTLE_JOKER_ID):
                if counted >> joker & 1:
                    awards.append(new_award((category, value, _owner(joker, holders), CARDS[joker])))
            continue
        else:  # SUB_HIGH, SUB_LOW
            high, low = table.sub_extremes(in_play)
            card = high if category is PointCategory.SUB_HIGH else low
        if card >= 0:
            awards.append(new_award((category, value, _owner(card, owners), CARDS[card])))
    return _new_pile_summary((tuple(awards), tuple(pips2), tuple(tricks_won)))


_new_pile_summary = tuple_builder(PileSummary)
# Module aliases for the per-hand path: on Python 3.11 an Enum member lookup such as
# ``PointCategory.HIGH`` costs ~0.1 us (``EnumType`` defines ``__getattr__``).
_HIGH, _LOW, _GAME, _JOKER, _TWO = (PointCategory.HIGH, PointCategory.LOW, PointCategory.GAME, PointCategory.JOKER,
                                    PointCategory.TWO)
_TO_PLAYER, _UNRANKED = LowGoesTo.PLAYER, JokerRank.UNRANKED
_SWEEP, _REVOKE = PointCategory.SWEEP, PointCategory.REVOKE
_JOKERS_NOT_LOW = (JokerRank.BELOW_TWO, JokerRank.UNRANKED)


def keep_low_from_joker(table: TrumpTable, tricks: Sequence[Trick], piles: Sequence[int],
                        parties: int) -> Sequence[int]:
    """Seed 004: a joker "as the ultimate trump, capturing everything but the low trump".
    When the Low card (the lowest trump in play, the joker aside) was played to the trick
    the joker won, it moves from the winner's pile to the pile of the party that played
    it, so that Low (and any pips or point it carries) stays with that party.  ``piles``
    is not changed; the adjusted copy is returned."""
    in_play = 0
    for pile in piles:
        in_play |= pile
    low = table.lowest(in_play & ~JOKER_MASK)
    if low < 0:
        return piles
    trick = next(t for t in tricks if any(card == low for _, card in t.plays))
    if not any(seat == trick.winner and JOKER_MASK >> card & 1 for seat, card in trick.plays):
        return piles
    player = next(seat for seat, card in trick.plays if card == low)
    moved = list(piles)
    moved[trick.winner % parties] ^= 1 << low
    moved[player % parties] |= 1 << low
    return moved


def find_revokes(table: TrumpTable, tricks: Sequence[Trick], left: Sequence[int]) -> list[tuple[int, int]]:
    """Seed 004's revokes in a finished hand, as ``(seat, card)`` in play order: a card
    neither of the suit led nor a trump, played while holding the suit led.  What a seat
    held at a trick is what it played from that trick on, plus ``left`` (the cards each
    seat still holds), so the hand's tricks are enough: no per-card work during play."""
    holding = list(left)
    found: list[tuple[int, int]] = []
    trumps = table.trump_mask
    for trick in reversed(tricks):
        for seat, card in trick.plays:
            holding[seat] |= 1 << card
        led = table.suit_masks[table.effective_suit[trick.plays[0][1]]]
        found[:0] = [(seat, card) for seat, card in trick.plays[1:]
                     if holding[seat] & led and not (led | trumps) >> card & 1]
    return found


def side_members(party: int, parties: int, sides: Sequence[int] | None) -> list[int]:
    """The parties on ``party``'s side this hand, in party order: only itself, unless the
    bidder called a partner (``sides``: party -> side)."""
    if sides is None:
        return [party]
    return [p for p in range(parties) if sides[p] == sides[party]]


def _side_game_winner(pips2: Sequence[int], sides: Sequence[int]) -> int | None:
    """With called partners, the party earning Game: its side has strictly the most pips
    (a tie for most awards nothing), and it holds the most of them within the side."""
    side_pips = [0] * (max(sides) + 1)
    for party, pips in enumerate(pips2):
        side_pips[sides[party]] += pips
    best = max(side_pips)
    if side_pips.count(best) != 1:
        return None
    side = side_pips.index(best)
    return max((p for p in range(len(pips2)) if sides[p] == side), key=lambda p: pips2[p])


def _required(played: Sequence[int] | None, what: str) -> Sequence[int]:
    if played is None:
        raise ValueError(f"{what} goes to the player who held it: award_points needs `played`")
    return played


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


_new_settlement = tuple_builder(Settlement)


def settle_hand(rules: Ruleset, pile: PileSummary, pitching_party: int | None,
                contract: int | None, scores_before: Sequence[int], stakes: int | None = None,
                sides: Sequence[int] | None = None, revokes: Sequence[tuple[int, int]] = ()) -> Settlement:
    """Apply the bid: the pitching side scores its points (or its bid, ``made_scores``) if
    it made the bid, else loses ``stakes`` (the bid, twice it for a double bid).

    Then seed 004's extras, each recorded as an award after the points: ``sweep_bonus``
    for a side that took every point in play, and ``revokes`` (``(seat, card)``, see
    :func:`find_revokes`), each setting its party back by ``stakes`` instead of its points.

    ``sides`` maps each party to its side for this hand when the bidder called a partner:
    points are earned by the side and every member of a side scores the side's result
    (seed 004, call for partner: "Points are kept individually, though they are earned as
    a team"); by default every party is its own side."""
    parties = len(scores_before)
    points_won = [0] * parties
    for award in pile.awards:
        points_won[award.party] += award.value
    if sides is None:
        side_of: Sequence[int] = range(parties)
        side_points = points_won
        changes = list(points_won)
    else:
        side_of = sides
        side_points = [0] * (max(sides) + 1)
        for party, points in enumerate(points_won):
            side_points[sides[party]] += points
        changes = [side_points[sides[party]] for party in range(parties)]
    made: bool | None = None
    moon = False
    moon_decides = False
    if pitching_party is not None and contract is not None:
        side = side_of[pitching_party]
        team = side_members(pitching_party, parties, sides)
        taken = side_points[side]
        stakes = contract if stakes is None else stakes
        rules_moon = rules.moon
        moon = rules_moon is not None and contract in (rules_moon.moon_bid, rules_moon.blind_moon_bid)
        # A moon bid above the points in play (partnership smudge: 5) needs them all.
        made = taken >= min(contract, rules.points_in_play)
        scoring = rules.scoring
        for party in team:
            before = scores_before[party]
            if moon and rules_moon is not None:
                tricks_taken = sum(pile.tricks_won[p] for p in team)
                if rules_moon.moon_all_tricks and tricks_taken != sum(pile.tricks_won):
                    made = False
                worth = contract if rules_moon.moon_made is MoonMade.BID else rules_moon.moon_score
                if not made:
                    changes[party] = -worth
                    moon_decides = rules_moon.moon_set is MoonSet.LOSE_GAME
                elif rules_moon.moon_made in (MoonMade.SCORE, MoonMade.BID):
                    changes[party] = worth
                elif rules_moon.moon_made is MoonMade.TO_TARGET:
                    changes[party] = (rules.win.target if before >= 0 else 0) - before
                else:
                    moon_decides = not (rules_moon.moon_blocked_in_hole and scores_before[pitching_party] < 0)
                    if scoring.made_scores is MadeScores.BID:  # counts if the moon does not decide
                        changes[party] = stakes
            elif made:
                if scoring.made_scores is MadeScores.BID:
                    changes[party] = stakes
            elif scoring.set_penalty is SetPenalty.POOKIE:
                changes[party] = min(before, 0) - 1 - before
            else:
                changes[party] = -stakes
        if scoring.no_junk_points:
            changes = [c if side_of[p] == side else 0 for p, c in enumerate(changes)]

    awards = pile.awards
    if revokes or rules.scoring.sweep_bonus:
        extra: list[PointAward] = []
        # Seed 004: the revoking party is "set back by the value of the bid", read as a failed
        # pitcher's set-back: minus the bid per revoke, instead of what it won.
        revoked = [0] * parties
        for seat, card in revokes:
            party = rules.party_of(seat)
            revoked[party] += 1
            extra.append(new_award((_REVOKE, -(stakes or 0), party, CARDS[card])))
        bonus = rules.scoring.sweep_bonus
        if bonus and rules.points_in_play in side_points:
            swept = side_points.index(rules.points_in_play)
            for party in range(parties):
                if side_of[party] == swept and not revoked[party]:
                    changes[party] += bonus
                    extra.append(new_award((_SWEEP, bonus, party, None)))
        for party, count in enumerate(revoked):
            if count:
                changes[party] = -(stakes or 0) * count
                if made and party == pitching_party:
                    made, moon_decides = False, False  # no made bid, and a made moon does not win
        awards = awards + tuple(extra)
    return _new_settlement((tuple(points_won), made, moon, tuple(changes), moon_decides, awards))


def scored_points(settlement: Settlement) -> Sequence[int]:
    """What each party's awards add up to, a sweep bonus included and revokes left out: a
    party scoring exactly this is counted award by award (:func:`~pitch_sdk.rules.winning.counting_steps`)."""
    totals = [0] * len(settlement.points_won)
    for award in settlement.awards:
        if award.category is not _REVOKE:
            totals[award.party] += award.value
    return totals
