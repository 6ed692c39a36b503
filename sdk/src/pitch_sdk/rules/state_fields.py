"""What a game state holds, declared once for the modules that move it.

:class:`~pitch_sdk.rules.state.GameState` is assembled from one mixin per stage of a
hand (:mod:`~pitch_sdk.rules.auction`, :mod:`~pitch_sdk.rules.preparation`,
:mod:`~pitch_sdk.rules.trickplay`).  They all read and write the same fields, so the
fields (as ``__slots__``, which keeps attribute access and :meth:`GameState.clone`
cheap) and the few transitions one stage hands over to another are declared here, where
every mixin and the type checker can see them.

This module imports nothing from :mod:`~pitch_sdk.rules.state`, not even for the type
checker: the state imports the mixins, which import these fields, so a type the fields
name (such as :class:`~pitch_sdk.rules.deal.Deal`) lives in a module below all of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import TYPE_CHECKING

from pitch_sdk.rules.actions import Action
from pitch_sdk.rules.cards import Suit
from pitch_sdk.rules.cardsets import CardSetChoices
from pitch_sdk.rules.deal import Deal
from pitch_sdk.rules.events import Event
from pitch_sdk.rules.records import HandResult, Trick, WinReason
from pitch_sdk.rules.ruleset import Ruleset
from pitch_sdk.rules.tables import PlayRecords, TrumpTable


class Phase(StrEnum):
    """Where a hand is; the phase decides which kind of decision is asked."""

    LOOK = "look"
    """Before acting in the auction, a seat says whether it looks at its hand (seed 004)."""
    BIDDING = "bidding"
    OFFER = "offer"
    """The high bidder takes or leaves a card another seat lost (seed 004, man-o-war)."""
    DISCARD = "discard"
    """Having taken a card, the high bidder discards one of its choice (man-o-war)."""
    DECLARE_TRUMP = "declare-trump"
    DECLARE_SUB_TRUMP = "declare-sub-trump"
    """The bidder names the sub-trump suit (seed 004, two-trump pitch)."""
    CALL_CARD = "call-card"
    """The bidder calls the card whose holder becomes the partner (seed 003, five-handed)."""
    EXCHANGE = "exchange"
    PASS_LEFTOVERS = "pass-leftovers"
    """The bidder says whether to pass the leftover stock, unseen, to the partner (seed 003)."""
    DEALER_PICK = "dealer-pick"
    """The dealer completes its hand choosing from the stock (seed 004, nine-five)."""
    BURN = "burn"
    """A player holding more than ``burn_to`` cards chooses which to burn (seed 003)."""
    MUCK = "muck"
    """A seat dealt no point cards says whether it lays its hand face down (seed 004's
    ``muck`` options), before the auction."""
    PLAY = "play"
    GAME_OVER = "game-over"


class StateFields:
    """The fields of a game in progress, and the transitions shared across stages."""

    __slots__ = (
        "_barn",
        "_bid_menu",
        "_bids_vary",
        "_burned",
        "_burns_score",
        "_choices",
        "_coke_mask",
        "_cokes_sit_out_first",
        "_deal_seats",
        "_deck",
        "_draws_from_stock",
        "_even_hands",
        "_exchanges_left",
        "_first_lead_left",
        "_first_lead_trump",
        "_joker_lead_ok",
        "_joker_top",
        "_lead_suit",
        "_legal_list",
        "_legal_play",
        "_look",
        "_muck_asks",
        "_muck_mask",
        "_muck_new_hand",
        "_muck_redeal",
        "_mucked",
        "_must_follow",
        "_must_lead",
        "_needs_played",
        "_next_seat",
        "_odd_follow",
        "_offers",
        "_pending",
        "_piles",
        "_pip_cards",
        "_records",
        "_revoke_ok",
        "_scripted_deals",
        "_seat_order",
        "_sides",
        "_table",
        "_tables",
        "_trick_best",
        "_trick_seats",
        "_trick_winner",
        "_tricks_won",
        "_uniform_tricks",
        "_widow",
        "_widow_size",
        "bids",
        "called",
        "contract",
        "deal_number",
        "dealer",
        "doubled",
        "first_dealer",
        "hand_number",
        "hands",
        "high_bid",
        "high_bidder",
        "high_double",
        "history",
        "looked",
        "moves",
        "offered",
        "parties",
        "partner",
        "phase",
        "pitcher",
        "players",
        "results",
        "rules",
        "scores",
        "seed",
        "stock",
        "sub_trump",
        "to_move",
        "trick",
        "tricks",
        "trump",
        "win_reason",
        "winner",
    )
    phase: Phase
    to_move: int
    hands: list[int]
    """Each seat's cards as a bit mask over card ids."""
    stock: list[int]
    bids: list[tuple[int, int]]
    """(seat, amount) in bidding order; 0 is a pass."""
    looked: list[bool]
    """Per seat, whether it has looked at its hand (always true without ``look_option``)."""
    offered: int
    """The lost card the high bidder is deciding on (man-o-war), -1 otherwise."""
    _offers: list[int]
    _coke_mask: int
    """Bit per seat that declared coke this hand."""
    _muck_mask: int
    """Bit per seat whose hand was mucked and replaced this deal (seed 004: it may only pass)."""
    _muck_asks: list[int]
    """Seats dealt no point cards still to be asked whether they muck, in turn from eldest."""
    _mucked: list[tuple[int, int]]
    """(seat, cards laid face down) this deal, shown to the table once the hand is over."""
    _muck_new_hand: bool
    _muck_redeal: bool
    _pip_cards: int
    """The cards worth pips: a hand without any is mucked (``DealRules.muck``)."""
    _widow: int
    """The widow while untaken (seed 004), a bit mask; 0 once the maker took it, or none."""
    _widow_size: int
    _joker_top: bool
    """The joker is the ultimate trump: the Low card it wins stays with its player."""
    _bids_vary: bool
    """Legal bids depend on the hand or on looking (blind moon, forced nine, coke), not
    only on the bid menu."""
    high_bid: int
    high_double: bool
    high_bidder: int
    pitcher: int
    contract: int
    doubled: bool
    """The contract is a double bid ("6 for 12"): made and set count twice."""
    trump: int
    """The trump suit's index, -1 until chosen."""
    sub_trump: int
    """The sub-trump suit's index (two-trump pitch), -1 if none."""
    called: int
    """The card the bidder called to pick a partner, -1 if none (hidden: who holds it)."""
    partner: int
    """The seat holding the called card, -1 if none or if it was not dealt."""
    trick: list[tuple[int, int]]
    tricks: list[Trick]
    _table: TrumpTable | None
    _exchanges_left: int
    _pending: list[int]
    """Seats still to burn, in turn."""
    _trick_best: int
    _trick_winner: int
    _trick_seats: tuple[int, ...]
    """The seats playing the current trick, in order: those still holding cards."""
    _uniform_tricks: bool
    """Every seat plays every trick (hands were equal at the first lead): the fast path."""
    _lead_suit: int
    _legal_play: int
    _legal_list: tuple[Action, ...] | None
    _choices: CardSetChoices | None
    """The pending card-set decision's choices, once asked for (reset with ``_legal_list``)."""
    _records: PlayRecords
    """Shared move-log and trick entries of every seat and card, and each leader's followers."""
    _deal_seats: tuple[tuple[int, ...], ...]
    _bid_menu: Mapping[tuple[bool, int, bool], tuple[Action, ...]]
    _draws_from_stock: bool
    _next_seat: tuple[int, ...]
    _seat_order: tuple[tuple[int, ...], ...]
    """For each seat, every seat clockwise starting with it."""
    _piles: list[int]
    """Each party's scoring pile this hand (cards of the tricks it won) as a bit mask."""
    _tricks_won: list[int]
    _burned: list[int]
    """Each seat's burned cards this hand (out of play)."""
    _sides: tuple[int, ...] | None
    """Per party, its side this hand when partners are called; ``None``: parties are sides."""
    _tables: tuple[TrumpTable, ...]
    _needs_played: bool
    """Low or the two goes to the player who held it: scoring needs who played what."""
    _burns_score: bool
    _even_hands: bool
    """No rule can leave hands of different sizes at the first lead."""
    _must_lead: int
    """A card the leader of the first trick must lead if held (five-handed), else -1."""
    rules: Ruleset
    seed: int
    players: int
    parties: int
    scores: list[int]
    first_dealer: int
    dealer: int
    deal_number: int
    """Deals so far, counting those thrown in when everyone passed (each shuffles anew)."""
    hand_number: int
    results: list[HandResult]
    winner: int | None
    win_reason: WinReason | None
    history: list[Event]
    moves: list[tuple[int, Action]]
    _deck: tuple[int, ...]
    _scripted_deals: list[Deal]
    _must_follow: bool
    _joker_lead_ok: bool
    _barn: bool
    """Trump must be broken before it is led."""
    _cokes_sit_out_first: bool
    _first_lead_left: bool
    _first_lead_trump: bool
    _look: bool
    _odd_follow: bool
    """Trick play leaves the plain following rules: two-trump pitch's (sub-trump, or
    suitless jokers), or the revoke option's."""
    _revoke_ok: bool
    """``revoke_penalty``: a player holding the suit led may also discard another non-trump."""

    def _from_eldest(self) -> tuple[int, ...]:
        """Every seat, starting left of the dealer: the order of the deal's turns (bidding,
        refills, lost cards, burns)."""
        return self._seat_order[self._next_seat[self.dealer]]

    if TYPE_CHECKING:  # one stage handing over to another; implemented by the stage it names
        def party_of(self, seat: int) -> int: ...
        def _start_deal(self) -> None: ...
        def _new_deal(self) -> None: ...
        def _start_auction(self) -> None: ...
        def _show_mucks(self) -> None: ...
        def _set_trump(self, seat: int, suit: Suit, pitched: bool) -> None: ...
        def _start_play(self) -> None: ...
        def _score_hand(self) -> None: ...
        def _end_game(self, winner: int | None, reason: WinReason | None) -> None: ...
