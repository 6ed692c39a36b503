"""Trick play: who leads, what may be played, who takes each trick.

Hands are bit masks over card ids and trump's lookup tables are precomputed, so a legal
play is a few mask operations.  :meth:`TrickPlay._random_tricks` is the rollout hot path
(:meth:`GameState.playout`): it plays whole tricks with the following and ranking rules
inlined and the trick kept in locals, and the property tests replay its games through
:meth:`GameState.apply` to hold it to the same rules.  A player whose hand is empty sits
out the rest of the hand while the others play on (seed 003's trump-only play), so
tricks may have fewer cards than players.
"""

from __future__ import annotations

from collections.abc import Callable

from pitch_sdk.rules.cards import LITTLE_JOKER_ID, SUITS
from pitch_sdk.rules.records import new_trick
from pitch_sdk.rules.state_fields import Phase, StateFields
from pitch_sdk.rules.tables import JOKER_MASK, NO_SUIT
from pitch_sdk.rules.tricks import card_power, follow_mask, random_card, revoke_mask, two_trump_follow_mask


class TrickPlay(StateFields):
    """The trick-play transitions, mixed into :class:`GameState`."""

    __slots__ = ()

    def _start_play(self) -> None:
        self.phase = Phase.PLAY
        self._uniform_tricks = not self._odd_follow and (
            self._even_hands or len({hand.bit_count() for hand in self.hands}) == 1)
        first = self.partner if self.partner >= 0 and self._must_lead >= 0 else self.pitcher
        if self._first_lead_left:
            first = self._next_seat[self.pitcher]
        leader = first if self.hands[first] else self._next_holding(first)
        if leader < 0:  # nobody holds a card: nothing to play
            self._score_hand()
        else:
            self._start_trick(leader)

    def _next_holding(self, seat: int) -> int:
        """``seat`` if it still holds cards, else the next such seat clockwise (seed 003:
        "unless they have no more cards in trump. In this case the person to his/her left
        leads"); -1 when every hand is empty."""
        hands = self.hands
        for candidate in self._seat_order[seat]:
            if hands[candidate]:
                return candidate
        return -1

    def _start_trick(self, leader: int) -> None:
        order = self._seat_order[leader]
        if not self._uniform_tricks:
            sitting_out = self._coke_mask if not self.tricks and self._cokes_sit_out_first else 0
            order = tuple(s for s in order if self.hands[s] and not sitting_out >> s & 1)
        self._trick_seats = order
        self.to_move = order[0]

    def _legal_play_mask(self, seat: int) -> int:
        """The cards ``seat`` may play now, as a bit mask (the hot path: keep it lean)."""
        hand = self.hands[seat]
        lead_suit = self._lead_suit
        if lead_suit < 0:
            return hand if self.tricks and not self._barn else self._lead_mask(hand)
        if self._odd_follow:
            if self._revoke_ok:
                return revoke_mask(hand, lead_suit, self.trump, self._table, self._must_follow)  # type: ignore[arg-type]
            return two_trump_follow_mask(hand, lead_suit, self._table,  # type: ignore[arg-type]
                                         self.trick[0][1] >= LITTLE_JOKER_ID, self.rules.play.double_down_override,
                                         self._must_follow)
        return follow_mask(hand, lead_suit, self.trump, self._table, self._must_follow)  # type: ignore[arg-type]

    def _lead_mask(self, hand: int) -> int:
        """What may be led: no joker to the first trick (seed 004), the called card first
        when the bidder plays alone (seed 003), no trump before trump is broken (barn)."""
        if not self.tricks:
            must = self._must_lead
            if must >= 0 and hand >> must & 1:
                return 1 << must
            if not self._joker_lead_ok:
                hand = hand & ~JOKER_MASK or hand
            if self._first_lead_trump and self._table is not None:
                hand = hand & self._table.trump_mask or hand
        if self._barn and self._table is not None:
            trumps = self._table.trump_mask
            broken = any(pile & trumps for pile in self._piles)
            if not broken:
                hand = hand & ~trumps or hand
        return hand

    def _play(self, seat: int, card: int) -> None:
        self.hands[seat] ^= 1 << card
        self._legal_play = -1
        trick = self.trick
        table = self._table
        if trick:
            if self._lead_suit == NO_SUIT:  # a suitless joker was led: this card sets the suit
                self._lead_suit = table.effective_suit[card]  # type: ignore[union-attr]
            power = card_power(table, card, self._lead_suit)  # type: ignore[arg-type]
            if power > self._trick_best:
                self._trick_best = power
                self._trick_winner = seat
        else:
            if self.trump < 0:
                self._set_trump(seat, SUITS[card // 13], pitched=True)
                table = self._table
            self._lead_suit = table.effective_suit[card]  # type: ignore[union-attr]
            self._trick_best = table.power[card]  # type: ignore[union-attr]
            self._trick_winner = seat
        trick.append(self._records[1][seat][card])
        if len(trick) < len(self._trick_seats):
            self.to_move = self._trick_seats[len(trick)]
        else:
            self._finish_trick(trick, self._trick_winner)

    def _random_tricks(self, uniform: Callable[[], float]) -> None:
        """Play the rest of the hand with random legal cards, trick by trick, keeping the
        trick in locals: the rollout hot path, built from the same pieces as :meth:`_play`."""
        hands, record = self.hands, self.moves.append
        tricks, history = self.tricks, self.history
        piles, tricks_won, parties = self._piles, self._tricks_won, self.parties
        moves, plays_of, followers = self._records
        leader = self.to_move
        card = random_card(self._legal_play_mask(leader), uniform)
        if self.trump < 0:
            self._set_trump(leader, SUITS[card // 13], pitched=True)
        table, trump, must_follow = self._table, self.trump, self._must_follow
        assert table is not None
        suit_of, suit_masks, trumps = table.effective_suit, table.suit_masks, table.trump_mask
        lead_power = table.lead_power
        free_leads = not self._barn  # after the first trick any card may be led, but in barn
        while True:
            hands[leader] ^= 1 << card
            record(moves[leader][card])
            plays = [plays_of[leader][card]]
            taken = 1 << card
            lead_suit = suit_of[card]
            power_of = lead_power[lead_suit]
            winner = leader
            best = power_of[card]
            # follow_mask, random_card and card_power, inlined: this loop is the rollout hot
            # path.  The property tests replay rollouts through apply(), which checks every
            # card with them.
            led = suit_masks[lead_suit]
            allowed = led if lead_suit == trump or must_follow else led | trumps  # when not void
            for seat in followers[leader]:
                hand = hands[seat]
                mask = hand & allowed if hand & led else hand
                skip = int(uniform() * mask.bit_count())
                while skip:
                    mask &= mask - 1
                    skip -= 1
                bit = mask & -mask
                card = bit.bit_length() - 1
                hands[seat] = hand ^ bit
                taken |= bit
                record(moves[seat][card])
                plays.append(plays_of[seat][card])
                if power_of[card] > best:
                    best, winner = power_of[card], seat
            done = new_trick((leader, tuple(plays), winner))
            tricks.append(done)
            history.append(done)
            piles[winner % parties] |= taken
            tricks_won[winner % parties] += 1
            leader = winner
            if not hands[leader]:
                break
            card = random_card(hands[leader] if free_leads else self._legal_play_mask(leader), uniform)
        self._legal_play = -1
        self.to_move = leader
        self._score_hand()

    def _finish_trick(self, plays: list[tuple[int, int]], winner: int) -> None:
        """Record a completed trick; the winner (or the next seat still holding cards)
        leads next, or the hand is scored."""
        done = new_trick((plays[0][0], tuple(plays), winner))
        self.tricks.append(done)
        self.history.append(done)
        taken = 0
        for _, card in plays:
            taken |= 1 << card
        self._piles[winner % self.parties] |= taken
        self._tricks_won[winner % self.parties] += 1
        self.trick = []
        self._trick_best = -1
        self._trick_winner = -1
        self._lead_suit = -1
        leader = self._next_holding(winner)
        if leader < 0:
            self.to_move = winner
            self._score_hand()
        else:
            self._start_trick(leader)

