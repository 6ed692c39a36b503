"""The auction: looking, bidding (with coke and the forced nine), and the lost cards.

Everything from the deal up to the contract being set: each seat in turn (after saying
whether it looks at its hand, when the ruleset lets it bid blind) bids, passes or
declares coke; when everyone passes the hand is dealt again.  Lookers may then lose a
card (Abacos), offered one at a time to the high bidder (man-o-war), before trump is
chosen.  Kept apart from trick play so each reads against its own part of the rules.
"""

from __future__ import annotations

from collections.abc import Callable

from pitch_sdk.rules.actions import COKE, PASS, Action, Bid, Coke, bid
from pitch_sdk.rules.cards import cards_of, mask_of
from pitch_sdk.rules.events import AllPassed, Coked, Exchanged, Looked, new_bid_made
from pitch_sdk.rules.records import WinReason
from pitch_sdk.rules.ruleset import AllPass, PartnerCall, TrumpSelection
from pitch_sdk.rules.shuffle import shuffled
from pitch_sdk.rules.state_fields import Phase, StateFields
from pitch_sdk.rules.tables import JOKER_MASK
from pitch_sdk.rules.winning import best_score


class Auction(StateFields):
    """The auction's decisions and transitions, mixed into :class:`GameState`."""

    __slots__ = ()

    def _legal_bids(self) -> tuple[Action, ...]:
        seat = self.to_move
        bids = self._bid_menu[seat == self.dealer, self.high_bid, self.high_double]
        if self._bids_vary:
            bids = self._adjusted_bids(seat, bids)
        return bids

    def _adjusted_bids(self, seat: int, bids: tuple[Action, ...]) -> tuple[Action, ...]:
        """The bids that depend on the hand or on looking: the blind moon only before
        looking, nine-five's forced 9, the Scranton coke, a mucked hand's pass."""
        rules, hand, looked = self.rules, self.hands[seat], self.looked[seat]
        blind = rules.moon.blind_moon_bid if rules.moon is not None else 0
        out = list(bids)
        if blind and not looked and blind > self.high_bid:
            out.append(bid(blind))
        if rules.bidding.forced_nine and looked and self.high_bid < 9 and _nine_forces(hand):
            out = [b for b in out if type(b) is Bid and b.amount >= 9]
        if (rules.bidding.coke and PASS in out and len(self.stock) >= 5
                and not hand & _TEN_OR_HIGHER):
            out.append(COKE)
        if self._muck_mask >> seat & 1 and PASS in out:  # seed 004: a mucker "may not bid unless forced"
            return (PASS,)
        return tuple(out)

    def _random_bids(self, uniform: Callable[[], float]) -> None:
        """Finish the auction with uniformly random legal bids: legal by construction, so
        they are recorded and applied without re-checking."""
        record, bidding = self.moves.append, Phase.BIDDING
        while self.phase is bidding:
            seat = self.to_move
            bids = self._legal_bids()
            choice = bids[int(uniform() * len(bids))]
            record((seat, choice))
            self._take_bid(seat, choice)
        self._legal_list = None

    def _take_bid(self, seat: int, choice: Action) -> None:
        """A legal bidding action: a bid, coke, or a pass."""
        if type(choice) is Bid:
            self._bid(seat, choice.amount, choice.double)
        elif type(choice) is Coke:
            self._coke(seat)
        else:
            self._bid(seat, 0)

    def _choose_to_look(self, seat: int, looks: bool) -> None:
        self.looked[seat] = looks
        self.history.append(Looked(seat, looks))
        self.phase = Phase.BIDDING

    def _coke(self, seat: int) -> None:
        """Seed 004: "the player who declares coke is then dealt a fresh five card hand, must
        show his six cards to all players, cannot bid further" - a pass in the auction."""
        shown = self.hands[seat]
        drawn = mask_of(self.stock[:5])
        del self.stock[:5]
        self.hands[seat] = drawn
        self._coke_mask |= 1 << seat
        self.history.append(Coked(seat, shown))
        self.history.append(Exchanged(seat, shown, drawn))
        self._bid(seat, 0)

    def _bid(self, seat: int, amount: int, double: bool = False) -> None:
        self.bids.append((seat, amount))
        self.history.append(new_bid_made((seat, amount, double)))
        if amount:
            self.high_bid = amount
            self.high_double = double
            self.high_bidder = seat
        if seat != self.dealer:
            self.to_move = (seat + 1) % self.players
            if self._look:
                self.phase = Phase.LOOK
            return
        if self.high_bidder < 0:  # everyone passed and the ruleset re-deals
            passes_deal = self.rules.bidding.all_pass is AllPass.PASS_DEAL  # hands shown, deal passes left
            self.history.append(AllPassed(self.hand_number, self.dealer, tuple(self.hands) if passes_deal else ()))
            if self._mucked:
                self._show_mucks()
            if self.deal_number >= self.rules.win.max_hands:  # bots that always pass must not loop forever
                self._end_game(best_score(self.scores), WinReason.HAND_LIMIT)
                return
            self.hand_number -= 1
            if passes_deal:
                self.dealer = self._next_seat[self.dealer]
            self._start_deal()
            return
        self.pitcher = self.high_bidder
        self.contract = self.high_bid
        self.doubled = self.high_double
        self.to_move = self.pitcher
        if self.rules.bidding.lookers_lose_card:
            self._lose_cards()
        self._after_auction()

    def _lose_cards(self) -> None:
        """Seed 004, Abacos: "each player who looked at his/her cards before acting loses one
        card, chosen at random" (drawn from the game's seed, like the deal); man-o-war
        offers the others' lost cards to the high bidder, one at a time."""
        for seat in self._from_eldest():
            if self.looked[seat] and self.hands[seat]:
                hand = cards_of(self.hands[seat])
                card = int(shuffled(hand, self.seed, self.deal_number, 1, salt=f"lost-{seat}")[0])
                self.hands[seat] ^= 1 << card
                self.history.append(Exchanged(seat, 1 << card, 0))
                bidding = self.rules.bidding
                if bidding.bidder_takes_lost and (seat != self.pitcher or bidding.offer_own_lost):
                    self._offers.append(card)

    def _after_auction(self) -> None:
        if self._offers:
            self.phase = Phase.OFFER
            self.to_move = self.pitcher
            self.offered = self._offers.pop(0)
            return
        self.offered = -1
        self.to_move = self.pitcher
        if self._widow:
            self._take_widow()
        elif self.rules.trump.trump_selection is TrumpSelection.DECLARE:
            self.phase = Phase.DECLARE_TRUMP
        elif self.rules.seating.partner_call is PartnerCall.LEAD:
            self.phase = Phase.CALL_CARD
        else:
            self._start_play()

    def _take_widow(self) -> None:
        """Seed 004: "Before deciding the trump suit, the maker adds the widow to their hand
        and brings the number of cards back down to six by discarding." """
        self.hands[self.pitcher] |= self._widow
        self.history.append(Exchanged(self.pitcher, 0, self._widow))
        self._widow = 0
        self.phase = Phase.DISCARD

    def _answer_offer(self, seat: int, takes: bool) -> None:
        """Man-o-war: the high bidder takes the offered card (and then discards one) or leaves it."""
        if takes:
            self.hands[seat] |= 1 << self.offered
            self.phase = Phase.DISCARD
        else:
            self._after_auction()  # the next offer, or on to trump

    def _discard_for_offer(self, seat: int, discarded: int) -> None:
        """The discard after taking a lost card (man-o-war: logged with it) or the widow."""
        self.hands[seat] ^= discarded
        self.history.append(Exchanged(seat, discarded, 1 << self.offered if self.offered >= 0 else 0))
        self._after_auction()


#: Every card of rank ten or higher (the Scranton rule's coke needs none of them).
_TEN_OR_HIGHER = sum(1 << (suit * 13 + rank - 2) for suit in range(4) for rank in range(10, 15)) | JOKER_MASK


def _nine_forces(hand: int) -> bool:
    """Seed 004, nine-five: the hand holds a nine "and another card of the same suit"."""
    for suit in range(4):
        cards = hand >> (suit * 13) & 0x1FFF
        if cards >> 7 & 1 and cards.bit_count() >= 2:
            return True
    return False
