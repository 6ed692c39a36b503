"""The heuristic bot: a sound, rule-of-thumb Pitch player built on the observation only.

It bids what its best trump suit promises (:mod:`pitch_sdk.bots.strength`), never more
unless the dealer is forced; names or pitches that suit; keeps trumps, aces and tens in
an exchange; and plays its cards with :mod:`pitch_sdk.bots.trickplay`.  It is the
opponent new bots are measured against, so it favours clear rules over cleverness.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from pitch_sdk.bot import Bot
from pitch_sdk.bots.cardsense import RulesSense, rules_sense
from pitch_sdk.bots.strength import best_suit
from pitch_sdk.bots.trickplay import choose_play
from pitch_sdk.rules import (
    Action,
    Bid,
    Card,
    ChooseCards,
    DeclareTrump,
    Observation,
    Pass,
    PlayCard,
    Ruleset,
)
from pitch_sdk.rules.cards import ACE, TEN


class HeuristicBot(Bot):
    """Bids from trump strength, captures points, protects its partner."""

    name = "heuristic"

    def __init__(self) -> None:
        super().__init__()
        self._sense: RulesSense | None = None

    def start_game(self, ruleset: Ruleset, seat: int, rng: random.Random) -> None:
        """Also looks the ruleset's card facts up, once for the whole game."""
        super().start_game(ruleset, seat, rng)
        self._sense = rules_sense(ruleset)

    @property
    def sense(self) -> RulesSense:
        """The card facts of the ruleset being played."""
        if self._sense is None:
            raise RuntimeError("HeuristicBot needs start_game() before its first decision")
        return self._sense

    def bid(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """The highest legal bid within the hand's estimate; pass rather than overbid
        (and rather than take the contract from a partner who holds it), unless forced."""
        bids = [a for a in legal_actions if isinstance(a, Bid)]
        passing = next((a for a in legal_actions if isinstance(a, Pass)), None)
        high_bidder = next((seat for seat, amount in reversed(observation.bids) if amount), None)
        if passing is not None and high_bidder is not None and \
                high_bidder % observation.parties == observation.party:
            return passing  # the partner's bid already counts on this hand's help
        _, estimate = best_suit(self.sense, observation.hand)
        affordable = [b for b in bids if b.amount <= estimate]
        if affordable:
            return max(affordable, key=lambda b: b.amount)
        if passing is not None:
            return passing
        return min(bids, key=lambda b: b.amount)  # forced: the cheapest contract

    def declare_trump(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """The suit the hand is strongest in."""
        suit, _ = best_suit(self.sense, observation.hand)
        return next(a for a in legal_actions if isinstance(a, DeclareTrump) and a.suit is suit)

    def choose_cards(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """Discard the most junk the rules allow: keep trumps, aces and tens."""
        assert observation.trump is not None, "card sets are chosen after trump is named"
        info = self.sense[observation.trump]

        def junk(card: int) -> float:
            if info.is_trump(card):
                return -10.0
            rank = Card(card).rank or 0
            return -0.5 if rank in (ACE, TEN) else 1.0 - rank / 100

        sets = [a for a in legal_actions if isinstance(a, ChooseCards)]
        return max(sets, key=lambda a: (sum(junk(c) for c in a.cards), -len(a.cards)))

    def play(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """See :mod:`pitch_sdk.bots.trickplay`."""
        plays = {a.card: a for a in legal_actions if isinstance(a, PlayCard)}
        card = choose_play(self.sense, observation, list(plays))
        return plays[card]
