"""Between the auction and the first lead: trump, the partner call and hand preparation.

The pitcher declares trump (and a sub-trump in two-trump pitch) and may call a partner's
card; then the ruleset's exchange runs (discard and draw, or seed 003's discard all
non-trumps and refill, with the dealer picking from the stock in nine-five), the
leftover stock goes to the bidder or its partner, and hands over the playing size are
burned down.  Each step is skipped when the ruleset does not use it.
"""

from __future__ import annotations

from pitch_sdk.rules.cards import SUITS, Suit, mask_of
from pitch_sdk.rules.events import Burned, Exchanged, PartnerCalled, TrumpSet, new_trump_set
from pitch_sdk.rules.ruleset import Exchange, PartnerCall
from pitch_sdk.rules.state_fields import Phase, StateFields
from pitch_sdk.rules.tables import JOKER_MASK, trump_table


class Preparation(StateFields):
    """Trump, partner and hand-preparation transitions, mixed into :class:`GameState`."""

    __slots__ = ()

    def _set_trump(self, seat: int, suit: Suit, pitched: bool) -> None:
        self.trump = int(suit)
        self._table = self._tables[suit]
        self.history.append(new_trump_set((seat, suit, pitched, False)))

    def _set_sub_trump(self, seat: int, suit: Suit) -> None:
        self.sub_trump = int(suit)
        play = self.rules.play
        self._table = trump_table(self.rules.deck, SUITS[self.trump], play.lowest_wins, play.low_trump_wins,
                                  int(suit))
        self.history.append(TrumpSet(seat, suit, False, sub=True))

    def _after_trump(self) -> None:
        if self.rules.trump.sub_trump and self.sub_trump < 0:
            self.phase = Phase.DECLARE_SUB_TRUMP
            self.to_move = self.pitcher
        elif self.rules.seating.partner_call is PartnerCall.HOLDER:
            self.phase = Phase.CALL_CARD
            self.to_move = self.pitcher
        else:
            self._prepare_hands()

    def _callable_cards(self) -> list[int]:
        """Five-handed: any trump the bidder does not hold, the card "he/she wants to see
        played" (seed 003: only trumps are played; ``call_any_card`` allows any card).  Call
        for partner: any card the bidder does not hold but a joker, which has no suit to set
        trump with (seed 004)."""
        mine = self.hands[self.pitcher]
        if self.rules.seating.call_any_card:
            return [card for card in self._deck if not mine >> card & 1]
        if self.rules.seating.partner_call is PartnerCall.LEAD:
            return [card for card in self._deck if not mine >> card & 1 and not JOKER_MASK >> card & 1]
        assert self._table is not None
        return [card for card in self._deck if self._table.trump_mask >> card & 1 and not mine >> card & 1]

    def _call(self, seat: int, card: int) -> None:
        """Seed 003: "Whoever has that card in their hand is the bidder's partner against
        the other three ... In the event the card is in the blind, the bidder has no partner
        ... AND is required to lead the card that was called." """
        self._seat_partner(seat, card)
        leads_it = self.rules.seating.partner_call is PartnerCall.LEAD
        self.history.append(PartnerCalled(seat, card))
        if leads_it:
            self._start_play()
        else:
            self._prepare_hands()

    def _seat_partner(self, seat: int, card: int) -> None:
        """The called card's holder becomes ``seat``'s partner: the sides of the hand, and
        the card the first leader must lead (the called card, when nobody holds it or when
        it sets trump)."""
        self.called = card
        self.partner = next((s for s in range(self.players) if self.hands[s] >> card & 1), -1)
        team = {self.party_of(seat), self.party_of(self.partner) if self.partner >= 0 else -1}
        self._sides = tuple(0 if party in team else 1 for party in range(self.parties))
        if self.partner < 0 or self.rules.seating.partner_call is PartnerCall.LEAD:
            self._must_lead = card

    def _fixed_partner(self, seat: int) -> int:
        """The next seat clockwise of ``seat``'s own team (partners sit alternately)."""
        return (seat + self.parties) % self.players

    def _prepare_hands(self) -> None:
        """After trump (and the partner call): the exchange the ruleset uses, if any."""
        exchange = self.rules.trump.exchange
        if exchange is Exchange.NONE:
            self._before_play()
        elif exchange is Exchange.DISCARD_NON_TRUMPS:
            self._discard_and_refill()
        else:
            self.phase = Phase.EXCHANGE
            self._exchanges_left = self.players
            self.to_move = self._next_seat[self.dealer]

    def _exchange(self, seat: int, discarded: int) -> None:
        """Discard and draw: as many as discarded, or up to ``refill_to`` cards (seed 004's
        nine-card exchanges; ``refill_to`` is 0 for the others)."""
        kept = (self.hands[seat] & ~discarded).bit_count()
        size = self.rules.deal.refill_to or kept + discarded.bit_count()
        draw_count = min(max(size - kept, 0), len(self.stock))
        drawn = mask_of(self.stock[:draw_count])
        del self.stock[:draw_count]
        self.hands[seat] = self.hands[seat] & ~discarded | drawn
        self.history.append(Exchanged(seat, discarded, drawn, self.rules.trump.discards_face_up))
        self._exchanges_left -= 1
        if self._exchanges_left:
            self.to_move = (seat + 1) % self.players
        else:
            self._before_play()

    def _discard_and_refill(self) -> None:
        """Seed 003: "Each player then discards the cards in his/her hand which are not in
        trump ... Each player, in turn, then asks for a number of cards to fill their hand
        to six cards. Any cards remaining are given to the bidder." """
        assert self._table is not None
        trumps, refill_to, stock = self._table.trump_mask, self.rules.deal.refill_to, self.stock
        picks, face_up = self.rules.trump.dealer_picks, self.rules.trump.discards_face_up
        for seat in self._from_eldest():
            hand = self.hands[seat]
            discarded = hand & ~trumps
            need = 0 if picks and seat == self.dealer else max(0, refill_to - (hand ^ discarded).bit_count())
            drawn = mask_of(stock[:need])
            del stock[:need]
            self.hands[seat] = hand ^ discarded | drawn
            if discarded or drawn:
                self.history.append(Exchanged(seat, discarded, drawn, face_up))
        if picks and stock and self.hands[self.dealer].bit_count() < refill_to:
            self.phase = Phase.DEALER_PICK
            self.to_move = self.dealer
            return
        self._after_refill()

    def _dealer_pick(self, seat: int, chosen: int) -> None:
        self.stock[:] = [card for card in self.stock if not chosen >> card & 1]
        self.hands[seat] |= chosen
        self.history.append(Exchanged(seat, 0, chosen))
        self._after_refill()

    def _after_refill(self) -> None:
        stock = self.stock
        trump_rules = self.rules.trump
        if trump_rules.leftovers_to_bidder and stock:
            if trump_rules.pass_leftovers:
                self.phase = Phase.PASS_LEFTOVERS
                self.to_move = self.pitcher
                return
            self._give_leftovers(self.pitcher)
        self._before_play()

    def _give_leftovers(self, seat: int) -> None:
        drawn = mask_of(self.stock)
        self.stock.clear()
        self.hands[seat] |= drawn
        self.history.append(Exchanged(seat, 0, drawn))

    def _before_play(self) -> None:
        """Throw away what cannot be played (trump-only play), then burn down to size."""
        if self.rules.play.trumps_only:
            assert self._table is not None
            for seat in self._from_eldest():
                dead = self.hands[seat] & ~self._table.trump_mask
                if dead:
                    self.hands[seat] ^= dead
                    self.history.append(Exchanged(seat, dead, 0))
        burn_to = self.rules.deal.burn_to
        if burn_to:
            self._pending = [seat for seat in self._from_eldest()
                             if self.hands[seat].bit_count() > burn_to]
        if self._pending:
            self.phase = Phase.BURN
            self.to_move = self._pending[0]
        else:
            self._start_play()

    def _burn(self, seat: int, cards: int) -> None:
        """Seed 003: "In the event someone has more than six cards in the trump suit they
        must 'burn' cards until they have only six. Burned cards are removed from play." """
        self.hands[seat] ^= cards
        self._burned[seat] |= cards
        self.history.append(Burned(seat, cards))
        self._pending.pop(0)
        if self._pending:
            self.to_move = self._pending[0]
        else:
            self._start_play()
