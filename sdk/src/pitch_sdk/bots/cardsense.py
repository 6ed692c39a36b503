"""Card sense for bots: how cards rank under a trump, what they are worth, who is winning.

The engine keeps these facts in its per-trump tables; this module phrases them the way a
player thinks ("is this the top trump left?", "what does capturing this card earn?") so
bots stay short.  Everything here is derived from the ruleset, the trump and the cards a
seat can see: nothing peeks at hidden state.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import TypeVar

from pitch_sdk.rules import Card, Observation, PointCategory, Ruleset, Suit
from pitch_sdk.rules.cards import mask_of
from pitch_sdk.rules.ruleset import JokerRank, LowGoesTo
from pitch_sdk.rules.tables import PIPS2, TRUMP_BASE, TrumpTable, deck_cards, trump_table

CardT = TypeVar("CardT", bound=int)

#: What one pip in a capturing party's pile is worth in points, roughly: a hand has some
#: 40 pips in play and the Game point goes to the most, so ten pips (a ten) ~ 0.4 points.
POINTS_PER_PIP = 0.04


@dataclass(frozen=True)
class TrumpSense:
    """The facts a bot needs about one trump suit under one ruleset."""

    table: TrumpTable
    fixed_points: dict[int, int]
    """Card id -> points its capturer scores (jack, off-jack, five, three, jokers, and the
    ten-point family's ace, ten, two, nine and off-cards)."""
    player_points: dict[int, int]
    """Card id -> points that go to whoever *plays* the card, whoever wins the trick (the
    two under ``two_goes_to=player``): worth keeping, worth nothing to capture."""
    pips_count: bool
    """Whether pips matter (the ruleset scores Game)."""
    low_value: int
    """What the Low point is worth (0 when the ruleset has no Low)."""
    low_to_player: bool
    """Low goes to the player who held it, not to its capturer."""
    high_value: int
    """What the High point is worth (0 when the ruleset has no High)."""
    low_candidates: tuple[int, ...]
    """Trumps that can be Low, lowest first (jokers below the two are never Low)."""
    _beaters: dict[tuple[int, int], int] = field(default_factory=dict, init=False, repr=False, compare=False)
    """:meth:`beaters`' masks, by the lead's suit and the power to beat."""

    def is_trump(self, card: int) -> bool:
        """Whether ``card`` belongs to trump (off-cards and jokers included)."""
        return bool(self.table.trump_mask >> card & 1)

    def power(self, card: int, lead: int | None) -> int:
        """How strongly ``card`` plays to a trick led by ``lead`` (-1: cannot win it)."""
        power = self.table.power[card]
        if power < TRUMP_BASE and lead is not None and \
                self.table.effective_suit[card] != self.table.effective_suit[lead]:
            return -1
        return power

    def beaters(self, power: int, lead: int) -> int:
        """The mask of the cards that beat ``power`` on a trick led by ``lead``: those whose
        :meth:`power` there is higher (worked out once per suit led and power)."""
        key = (self.table.effective_suit[lead], power)
        mask = self._beaters.get(key)
        if mask is None:
            mask = mask_of(card for card in range(len(self.table.power)) if self.power(card, lead) > power)
            self._beaters[key] = mask
        return mask

    def trick_leader(self, plays: Sequence[tuple[int, int]]) -> tuple[int, int]:
        """``(seat, power)`` of who is winning a trick so far (``(-1, -1)`` if empty)."""
        best_seat, best = -1, -1
        lead = plays[0][1] if plays else None
        for seat, card in plays:
            power = self.power(card, lead)
            if power > best:
                best_seat, best = seat, power
        return best_seat, best

    def trump_rank(self, card: int) -> float:
        """0 for the weakest trump of the pack, 1 for the strongest (non-trumps: 0).

        Strength is trick-taking power, so under ``lowest_wins`` the two ranks 1 and the
        ace 0."""
        if not self.is_trump(card):
            return 0.0
        order = self.table.order
        return min(1.0, max(0.0, (self.table.power[card] - TRUMP_BASE) / max(1, len(order) - 1)))

    def by_power(self) -> tuple[int, ...]:
        """The trumps of the pack, strongest (trick-taking) first."""
        return tuple(sorted(self.table.order, key=lambda c: -self.table.power[c]))

    def keep_value(self, card: int) -> float:
        """Points a card is worth keeping for: the points it carries, those that go to its
        player counted double (they are sure; the others must still win their trick)."""
        return self.fixed_points.get(card, 0) + 2 * self.player_points.get(card, 0)

    def stake(self, card: int, unseen: int) -> float:
        """Points, roughly, that capturing ``card`` earns its capturer.

        ``unseen``: mask of the cards the bot cannot see (other hands, stock).  A trump
        is Low unless a lower one is in play: each unseen lower trump halves its chance
        (about half the unseen cards are in other hands, the rest were never dealt).
        """
        value, lower = self._stakes[card]
        if lower >= 0:
            value += self.low_value * 0.5 ** (lower & unseen).bit_count()
        return value

    @cached_property
    def _stakes(self) -> tuple[tuple[float, int], ...]:
        """Per card id, :meth:`stake`'s part that does not depend on the unseen cards, and the
        mask of the Low candidates below it when it may be Low (else -1)."""
        stakes = []
        for card in range(len(self.table.power)):
            value = float(self.fixed_points.get(card, 0))
            if self.pips_count:
                value += PIPS2[card] / 2 * POINTS_PER_PIP
            lower = -1
            if self.low_value and not self.low_to_player and card in self.low_candidates:
                lower = mask_of(self.low_candidates[:self.low_candidates.index(card)])
            stakes.append((value, lower))
        return tuple(stakes)


@dataclass(frozen=True)
class RulesSense:
    """The card sense of one ruleset: the pack and each suit's :class:`TrumpSense`.

    Built once per game (:func:`rules_sense`), so decisions never rebuild or re-hash the
    ruleset.
    """

    ruleset: Ruleset
    deck: int
    """The pack as a bit mask."""
    trumps: tuple[TrumpSense, ...]
    """Indexed by suit."""

    @property
    def partners(self) -> int:
        """How many partners each player has (0 when playing alone)."""
        return self.ruleset.seating.team_size - 1

    @cached_property
    def point_values(self) -> dict[PointCategory, int]:
        """What each point category the ruleset scores is worth."""
        return {rule.category: rule.value for rule in self.ruleset.scoring.points}

    @cached_property
    def game_value(self) -> int:
        """What the Game point is worth (0 when the ruleset does not score it)."""
        return next((r.value for r in self.ruleset.scoring.points if r.category is PointCategory.GAME), 0)

    def __getitem__(self, trump: Suit) -> TrumpSense:
        return self.trumps[trump]

    def of(self, observation: Observation) -> TrumpSense:
        """The trump facts of the hand being played: its trump, and its sub-trump (two-trump
        pitch) when the observation says which it is."""
        assert observation.trump is not None, "no trump yet"
        sub = getattr(observation, "sub_trump", None)
        return self.under(observation.trump, -1 if sub is None else int(sub))

    def under(self, trump: int, sub_trump: int = -1) -> TrumpSense:
        """The trump facts of ``trump`` (a suit index) with ``sub_trump`` (-1: none)."""
        if sub_trump < 0:
            return self.trumps[trump]
        return _trump_sense(self.ruleset, Suit(trump), sub_trump)

    def unseen(self, seen: Iterable[int]) -> int:
        """The cards of the pack not in ``seen``: held by others, or never dealt."""
        return self.deck & ~mask_of(seen)


@cache
def rules_sense(ruleset: Ruleset) -> RulesSense:
    """The (cached) :class:`RulesSense` of ``ruleset``."""
    return RulesSense(ruleset, mask_of(deck_cards(ruleset.deck)),
                      tuple(_trump_sense(ruleset, suit) for suit in Suit))


@cache
def _trump_sense(ruleset: Ruleset, trump: Suit, sub_trump: int = -1) -> TrumpSense:
    play = ruleset.play
    table = trump_table(ruleset.deck, trump, play.lowest_wins, play.low_trump_wins, sub_trump)
    fixed: dict[int, int] = {}
    player: dict[int, int] = {}
    values = {rule.category: rule.value for rule in ruleset.scoring.points}
    for category, card in table.point_cards.items():
        if category in values and card >= 0:
            to_player = category is PointCategory.TWO and ruleset.scoring.two_goes_to is LowGoesTo.PLAYER
            points = player if to_player else fixed
            points[card] = points.get(card, 0) + values[category]
    if PointCategory.JOKER in values:
        for card in table.order:
            if Card(card).is_joker:
                fixed[card] = fixed.get(card, 0) + values[PointCategory.JOKER]
    lows = [c for c in reversed(table.order)
            if not (ruleset.deck.joker_rank is JokerRank.BELOW_TWO and Card(c).is_joker)]
    return TrumpSense(table, fixed, player, PointCategory.GAME in values, values.get(PointCategory.LOW, 0),
                      ruleset.scoring.low_goes_to is LowGoesTo.PLAYER, values.get(PointCategory.HIGH, 0),
                      tuple(lows))


def suit_cards(hand: Iterable[CardT], sense_: TrumpSense, suit: Suit) -> list[CardT]:
    """The cards of ``hand`` that follow ``suit`` under this trump, highest first."""
    wanted = int(suit)
    cards = [c for c in hand if sense_.table.effective_suit[c] == wanted]
    return sorted(cards, key=lambda c: -sense_.table.power[c])
