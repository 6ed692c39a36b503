"""The heuristic bot's card play: capture points, protect the partner, draw trumps.

Two numbers drive every choice.  A card's *stake* is what its capturer can expect to score
(the jack, a ten's pips, the Low as likely as no lower trump being in play); its
*strength* is how useful it stays for winning later tricks.  Leading, the bot draws trumps with the top trump,
otherwise leads cheap side cards; following, it never overtakes a partner who is
winning, dumps points on a partner's safe trick, captures valuable tricks with the
cheapest card that is sure to hold, and otherwise throws its lowest junk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pitch_sdk.bots.cardsense import RulesSense, TrumpSense, suit_cards
from pitch_sdk.bots.strength import best_suit
from pitch_sdk.rules import Card, Observation
from pitch_sdk.rules.cards import mask_of

#: What winning a trick is worth by itself (the lead, pips towards Game), in points.
TRICK_VALUE = 0.1
#: How much a card's future trick-winning strength counts against spending it now.
SPEND_COST = 0.3


def choose_play(rules: RulesSense, observation: Observation, legal: Sequence[Card]) -> Card:
    """The card to play, among ``legal``, for the seat that made ``observation``."""
    if observation.trump is None:
        return _pitch(rules, observation, legal)
    view = _View.of(rules, observation)
    if not observation.current_trick:
        return view.lead(legal)
    return view.follow(legal)


def _pitch(rules: RulesSense, observation: Observation, legal: Sequence[Card]) -> Card:
    """The first lead names trump: lead the best suit's top card if it is the ace of the
    pack (it draws trumps and cannot lose), else its least valuable card."""
    suit, _ = best_suit(rules, observation.hand)
    info = rules[suit]
    own = [c for c in suit_cards(legal, info, suit) if not c.is_joker]
    if not own:  # the best suit holds only a joker, which may not lead: any suit will do
        return min(legal, key=lambda c: _strength(info, c))
    if own[0] == info.by_power()[0]:
        return own[0]
    unseen = rules.unseen(observation.hand)
    return min(own, key=lambda c: info.stake(c, unseen) + SPEND_COST * info.trump_rank(c))


def _strength(info: TrumpSense, card: int) -> float:
    """How useful ``card`` stays for winning tricks: any trump can ruff, high ones more."""
    if info.is_trump(card):
        return 0.5 + 0.5 * info.trump_rank(card)
    power = max(2, info.table.power[card])  # rank 2..14, reversed when the lowest card wins
    return 0.3 * (power - 2) / 12


@dataclass(frozen=True)
class _View:
    """One decision's picture: the trump facts, the cards still unseen, the trick."""

    info: TrumpSense
    observation: Observation
    unseen: int

    @classmethod
    def of(cls, rules: RulesSense, observation: Observation) -> _View:
        assert observation.trump is not None
        seen = mask_of(observation.hand) | mask_of(observation.my_discards)
        for shown in observation.face_up_discards:  # Kentucky
            seen |= mask_of(shown)
        for trick in observation.tricks:
            for _, card in trick.plays:
                seen |= 1 << card
        for _, card in observation.current_trick:
            seen |= 1 << card
        return cls(rules.of(observation), observation, rules.deck & ~seen)

    def stake(self, card: int) -> float:
        return self.info.stake(card, self.unseen)

    def junk(self, cards: Sequence[Card]) -> Card:
        """The card whose loss costs least: no points, little strength."""
        return min(cards, key=lambda c: (self.stake(c) + 0.5 * _strength(self.info, c), c))

    def unseen_beats(self, power: int, lead: int) -> bool:
        """Whether some card still unseen would beat ``power`` on this trick."""
        return bool(self.unseen & self.info.beaters(power, lead))

    # ------------------------------------------------------------------ leading
    def lead(self, legal: Sequence[Card]) -> Card:
        info = self.info
        trumps = sorted((c for c in legal if info.is_trump(c)), key=lambda c: -info.table.power[c])
        trumps_out = self.unseen & info.table.trump_mask
        if trumps and trumps_out and not self.unseen_beats(info.table.power[trumps[0]], trumps[0]):
            return trumps[0]  # draw trumps with the top one left
        side = [c for c in legal if not info.is_trump(c)]
        if side:
            if not trumps_out:
                sure = [c for c in side if not self.unseen_beats(info.table.power[c], c)]
                if sure:
                    return max(sure, key=self.stake)  # nothing can beat it: cash it
            return self.junk(side)
        return min(trumps, key=lambda c: self.stake(c) + SPEND_COST * info.trump_rank(c))

    # ------------------------------------------------------------------ following
    def follow(self, legal: Sequence[Card]) -> Card:
        obs, info = self.observation, self.info
        trick = obs.current_trick
        lead = trick[0][1]
        winner, best = info.trick_leader(trick)
        my_party = obs.viewer % obs.parties
        still_to_play = [(obs.viewer + k) % obs.players for k in range(1, obs.players - len(trick))]
        opponents_after = any(s % obs.parties != my_party for s in still_to_play)

        def holds(power: int) -> bool:
            return not opponents_after or not self.unseen_beats(power, lead)

        beaters = info.beaters(best, lead)
        beating = [c for c in legal if beaters >> c & 1]
        if winner % obs.parties == my_party:
            under = [c for c in legal if c not in beating] or list(legal)
            if holds(best):  # partner's trick is safe: give it our points
                return max(under, key=lambda c: (self.stake(c) - 0.5 * _strength(info, c), -c))
            return self.junk(under)

        on_table = sum(self.stake(c) for _, c in trick)
        sure = [c for c in beating if holds(info.power(c, lead))]
        if sure:
            card = min(sure, key=lambda c: (SPEND_COST * _strength(info, c) - self.stake(c), c))
            if on_table + self.stake(card) + TRICK_VALUE > SPEND_COST * _strength(info, card):
                return card
        partner_after = any(s % obs.parties == my_party for s in still_to_play)
        if beating and not partner_after:
            card = min(beating, key=lambda c: (_strength(info, c), c))
            risk = self.stake(card) + SPEND_COST * _strength(info, card)
            if self.stake(card) < 0.2 and on_table + TRICK_VALUE > risk:
                return card  # may be overtaken, but cheap to try
        return self.junk(legal)
