"""Mucking a hand dealt no point cards: each such seat's own choice (seed 004).

Seed 004, "Card distribution variations": "Players who have received no point cards (that
is, no cards which could contribute toward the Game point) may lay their cards face down
and receive a new hand. The cards can be checked by the other players after the hand has
been played. A player who has made use of this option may not bid unless forced to do so
(i.e., if the player is the dealer)." and "A player who has received no point cards may
ask for a complete re-deal by the same dealer."

"May": under either ``muck`` option every seat dealt such a hand is asked, in turn from
eldest hand (the order of the deal and of the auction that follows), ``keep`` or
``muck``, before the auction.  Under ``new-hand`` a mucker takes the next cards of the
stock (asked only while the stock holds a whole hand) and its mucked cards are shown to
the table once the hand is over; under ``redeal`` the first seat that mucks has the same
dealer deal again (asked only while the deal count is below ``max_hands``), and its hand
is shown at once, the deal being void.  Declining leaves no trace in the log: a public
"kept it" would tell the table the hand holds no point card.
"""

from __future__ import annotations

from pitch_sdk.rules.cards import mask_of
from pitch_sdk.rules.events import Exchanged, MuckShown
from pitch_sdk.rules.state_fields import Phase, StateFields


class Mucking(StateFields):
    """The muck decisions after a deal, mixed into :class:`GameState`."""

    __slots__ = ()

    def _pointless_seats(self) -> list[int]:
        """The seats, from eldest hand, dealt "no point cards (that is, no cards which could
        contribute toward the Game point)" (seed 004)."""
        return [seat for seat in self._from_eldest() if not self.hands[seat] & self._pip_cards]

    def _ask_mucks(self) -> None:
        """After a deal: queue the seats that may muck and ask the first, else start the auction."""
        may_redeal = self._muck_redeal and self.deal_number < self.rules.win.max_hands
        self._muck_asks = self._pointless_seats() if self._muck_new_hand or may_redeal else []
        self._next_muck_question()

    def _next_muck_question(self) -> None:
        """Ask the next queued seat, while the option is still open; else start the auction."""
        if self._muck_asks and not (self._muck_new_hand and len(self.stock) < self.rules.deal.hand_size):
            self.phase = Phase.MUCK
            self.to_move = self._muck_asks.pop(0)
            return
        self._muck_asks = []
        self._start_auction()

    def _answer_muck(self, seat: int, mucks: bool) -> None:
        """Keep the hand, or lay it face down: a new hand from the stock, or a re-deal."""
        if not mucks:
            self._next_muck_question()
            return
        cards = self.hands[seat]
        if self._muck_redeal:  # "a complete re-deal by the same dealer": the same hand number
            self.history.append(MuckShown(seat, cards, redeal=True))
            self._new_deal()
            return
        size = self.rules.deal.hand_size
        drawn = mask_of(self.stock[:size])
        del self.stock[:size]
        self.history.append(Exchanged(seat, cards, drawn))
        self.hands[seat] = drawn
        self._mucked.append((seat, cards))
        self._muck_mask |= 1 << seat
        self._next_muck_question()

    def _show_mucks(self) -> None:
        """The hand is over (scored, or thrown in when everyone passed): "The cards can be
        checked by the other players after the hand has been played"."""
        for seat, cards in self._mucked:
            self.history.append(MuckShown(seat, cards))
        self._mucked = []
