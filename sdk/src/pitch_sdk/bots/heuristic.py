"""The heuristic bot: a sound, rule-of-thumb Pitch player built on the observation only.

It bids what its best trump suit promises (:mod:`pitch_sdk.bots.strength`, which reads
the ruleset's point categories), never more unless the dealer is forced; names or pitches
that suit; keeps trumps, aces and tens in an exchange; and plays its cards with
:mod:`pitch_sdk.bots.trickplay`.  It is the opponent new bots are measured against, so it
favours clear rules over cleverness.

The seed 003/004 decisions follow the same rules of thumb:

* a shoot-the-moon bid above the numbered bids (the ten-point family's "bid 11") only
  when the estimate covers every point with room to spare, which in practice is never;
  a double bid ("6 for 12") only with ``DOUBLE_MARGIN`` points to spare;
* five-handed: call the strongest trump it lacks (its holder wins a trick for the side);
* leftovers: take them, unless the hand already holds ``burn_to`` trumps, where taking
  them could only force burns: then pass them to the partner, who may have room;
* burning: keep the point cards (the two, whose point goes to its player, included), then
  the strongest trumps; burn the weakest cards that score nothing;
* a hand dealt no point cards (the ``muck`` option): muck it when it has no chance, that is
  when its best suit's estimate falls short of the minimum bid (it could never bid it);
  keep one that could still make a bid on Low and length.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from pitch_sdk.bot import Bot
from pitch_sdk.bots.cardsense import RulesSense, rules_sense
from pitch_sdk.bots.revokes import without_revokes
from pitch_sdk.bots.strength import best_suit, expected_points
from pitch_sdk.bots.trickplay import choose_play
from pitch_sdk.rules import (
    Action,
    Bid,
    CallCard,
    Card,
    CardSetChoices,
    Choose,
    ChooseCards,
    DeclareTrump,
    MuckHand,
    Observation,
    Pass,
    Phase,
    PlayCard,
    Ruleset,
)
from pitch_sdk.rules.actions import choose_cards
from pitch_sdk.rules.cards import ACE, TEN

#: Points to spare before a double bid ("6 for 12"): it wins twice and loses twice.
DOUBLE_MARGIN = 1.5
#: Points to spare, above every point in play, before shooting a moon bid that lies above
#: the numbered bids (it wins or loses the game, or needs every trick).
MOON_MARGIN = 0.5


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
        affordable = [b for b in bids if self._affordable(b, estimate)]
        if affordable:
            return max(affordable, key=lambda b: (b.amount, b.double))
        if passing is not None:
            return passing
        return min(bids, key=lambda b: (b.amount, b.double))  # forced: the cheapest contract

    def _affordable(self, bid: Bid, estimate: float) -> bool:
        """Whether the hand's estimate supports ``bid``."""
        ruleset = self.sense.ruleset
        moon = ruleset.moon
        if moon is not None and bid.amount == moon.moon_bid and moon.moon_bid > ruleset.bidding.maximum_bid:
            return estimate >= ruleset.points_in_play + MOON_MARGIN
        if bid.double:
            return bid.amount + DOUBLE_MARGIN <= estimate
        return bid.amount <= estimate

    def declare_trump(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """The suit the hand is strongest in (for a sub-trump, the strongest one left)."""
        named = {a.suit: a for a in legal_actions if isinstance(a, DeclareTrump)}
        return named[max(named, key=lambda suit: expected_points(self.sense, observation.hand, suit))]

    def call_card(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """Call the strongest trump the hand lacks: its holder, the partner, takes a trick
        with it (and when it is a point card, the point stays on the bidder's side).  When
        the called card is led to set trump (call for partner), call the strongest card the
        hand lacks in its best suit."""
        calls = [a for a in legal_actions if isinstance(a, CallCard)]
        if not calls:
            return legal_actions[0]
        if observation.trump is None:
            suit, _ = best_suit(self.sense, observation.hand)
            info = self.sense[suit]
            in_suit = [a for a in calls if info.table.effective_suit[a.card] == suit] or calls
            return max(in_suit, key=lambda a: (info.table.power[a.card], -a.card))
        power = self.sense.of(observation).table.power
        return max(calls, key=lambda a: (power[a.card], -a.card))


    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """Pass the leftovers to the partner only when the hand already holds as many
        trumps as it may play (``burn_to``): taking more could only force burns."""
        answers = {a.yes: a for a in legal_actions if isinstance(a, Choose)}
        if observation.phase is not Phase.PASS_LEFTOVERS or observation.trump is None:
            return answers.get(False, legal_actions[0])
        info = self.sense.of(observation)
        trumps = sum(1 for c in observation.hand if info.is_trump(c))
        cap = self.sense.ruleset.deal.burn_to
        want = bool(cap) and trumps >= cap
        return answers.get(want, legal_actions[0])

    def muck(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """Muck a hand with no chance: one whose estimate is below the minimum bid."""
        _, estimate = best_suit(self.sense, observation.hand)
        hopeless = estimate < self.sense.ruleset.bidding.minimum_bid
        return next(a for a in legal_actions if isinstance(a, MuckHand) and a.muck is hopeless)

    def choose_cards(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """Discard the most junk the rules allow: keep trumps, aces and tens.  Burning
        keeps the point cards and the strongest trumps (:meth:`burn`).  A maker who takes
        the widow discards before naming trump: it keeps the suit it will name (its best)."""
        if observation.phase is Phase.BURN:
            return self.burn(observation, legal_actions)
        if observation.trump is None:
            info = self.sense[best_suit(self.sense, observation.hand)[0]]
        else:
            info = self.sense.of(observation)

        def junk(card: int) -> float:
            if info.is_trump(card):
                return -10.0
            rank = Card(card).rank or 0
            return -0.5 if rank in (ACE, TEN) else 1.0 - rank / 100

        if isinstance(legal_actions, CardSetChoices):  # too many sets to score one by one
            rule = legal_actions.rule
            optional = sorted((c for c in rule.allowed if c not in rule.required), key=junk, reverse=True)
            wanted = sum(1 for c in optional if junk(c) > 0)  # the best score of the max() below
            size = min(max(wanted, rule.min_count - len(rule.required)), rule.max_count - len(rule.required))
            return choose_cards([*rule.required, *optional[:size]])
        sets = [a for a in legal_actions if isinstance(a, ChooseCards)]
        return max(sets, key=lambda a: (sum(junk(c) for c in a.cards), -len(a.cards)))

    def burn(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """Burn down to ``burn_to`` cards: non-trumps first, then the weakest trumps that
        score nothing; a point card only when the hand holds more of them than it keeps
        (then the least valuable, weakest ones)."""
        assert observation.trump is not None, "burning comes after trump is named"
        info = self.sense.of(observation)
        first = legal_actions[0]
        assert isinstance(first, ChooseCards)
        count = len(first.cards)

        def keep(card: int) -> tuple[bool, float, int]:
            return info.is_trump(card), info.keep_value(card), info.table.power[card]

        burn = choose_cards(sorted(observation.hand, key=keep)[:count])
        if burn in legal_actions:
            return burn
        if isinstance(legal_actions, CardSetChoices):  # e.g. a called card that must stay
            rule = legal_actions.rule
            optional = sorted((c for c in rule.allowed if c not in rule.required), key=keep)
            return choose_cards([*rule.required, *optional[:rule.min_count - len(rule.required)]])
        # The rules allow other sets (e.g. a burn of another size): the cheapest one.
        sets = [a for a in legal_actions if isinstance(a, ChooseCards)]
        return min(sets, key=lambda a: sorted((keep(c) for c in a.cards), reverse=True))

    def play(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """See :mod:`pitch_sdk.bots.trickplay`."""
        # A revoke is legal under the revoke penalty but costs the bid (seed 004): never one.
        plays = {a.card: a for a in without_revokes(self.sense.ruleset, observation, legal_actions)
                 if isinstance(a, PlayCard)}
        card = choose_play(self.sense, observation, list(plays))
        return plays[card]
