"""The game state machine: deal -> bidding -> trump -> hand preparation -> tricks -> scoring.

One mutable :class:`GameState` per game; everything around it (ruleset, actions, records)
is frozen.  The state is pure and deterministic: chance comes only from the game's seed
(each deal is shuffled from the seed and the deal number alone) or from explicit deals, so a seed
plus the list of actions reproduces a whole game (:mod:`pitch_sdk.rules.replay`).

A hand runs through phases, each skipped when the ruleset does not use it: bidding,
declaring trump, calling a partner's card, the exchange (discard and draw, or seed 003's
discard-all-non-trumps and refill), passing the leftovers, burning down to the playing
hand, then trick play.  A player whose hand is empty sits out the rest of the hand while
the others play on (seed 003's trump-only play), so tricks may have fewer cards than
players.

For every decision there is the triad ``verify(action)`` (raises with the reason),
``is_legal(action)`` and ``apply(action)``; ``legal_actions()`` lists what the player to
move may do, sorted, and is never empty before the game ends.  Hands and piles are bit
masks over card ids so the trick loop stays cheap.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from itertools import combinations

from pitch_sdk.rules.actions import (
    CALLS,
    COKE,
    NO,
    PASS,
    PLAYS,
    TRUMPS,
    YES,
    Action,
    Bid,
    CallCard,
    Choose,
    ChooseCards,
    Coke,
    DecisionKind,
    DeclareTrump,
    PlayCard,
    bid,
    choose_cards,
)
from pitch_sdk.rules.bidding import bid_menu
from pitch_sdk.rules.cards import CARDS, LITTLE_JOKER_ID, SUITS, Card, Suit, cards_of, format_cards, mask_of
from pitch_sdk.rules.errors import GameOverError, IllegalActionError, InvalidDealError
from pitch_sdk.rules.events import (
    AllPassed,
    BidMade,
    Burned,
    Coked,
    Dealt,
    Event,
    Exchanged,
    HandScored,
    Looked,
    PartnerCalled,
    TrumpSet,
)
from pitch_sdk.rules.records import HandResult, Trick, WinReason
from pitch_sdk.rules.ruleset import (
    AllPass,
    BurnedPoints,
    CokeSitsOut,
    Exchange,
    FirstLead,
    Follow,
    JokerRank,
    LowGoesTo,
    PartnerCall,
    Ruleset,
    TrumpSelection,
)
from pitch_sdk.rules.scoring import award_points, played_by_party, settle_hand
from pitch_sdk.rules.shuffle import shuffled
from pitch_sdk.rules.tables import JOKER_MASK, NO_SUIT, TrumpTable, deck_cards, trump_table
from pitch_sdk.rules.tricks import card_power, follow_mask, random_card, two_trump_follow_mask
from pitch_sdk.rules.winning import best_score, decide_winner


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
    PLAY = "play"
    GAME_OVER = "game-over"


_PLAY, _GAME_OVER, _BIDDING = Phase.PLAY, Phase.GAME_OVER, Phase.BIDDING
_PHASE_DECISION = {
    Phase.LOOK: DecisionKind.CHOICE,
    Phase.BIDDING: DecisionKind.BID,
    Phase.OFFER: DecisionKind.CHOICE,
    Phase.DISCARD: DecisionKind.CHOOSE_CARDS,
    Phase.DEALER_PICK: DecisionKind.CHOOSE_CARDS,
    Phase.DECLARE_TRUMP: DecisionKind.DECLARE_TRUMP,
    Phase.DECLARE_SUB_TRUMP: DecisionKind.DECLARE_TRUMP,
    Phase.CALL_CARD: DecisionKind.CALL_CARD,
    Phase.EXCHANGE: DecisionKind.CHOOSE_CARDS,
    Phase.PASS_LEFTOVERS: DecisionKind.CHOICE,
    Phase.BURN: DecisionKind.CHOOSE_CARDS,
    Phase.PLAY: DecisionKind.PLAY,
}


@dataclass(frozen=True, slots=True)
class Deal:
    """An explicit deal: each seat's hand and the stock in the order it is drawn."""

    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class CardSetRule:
    """The constraint on a card-set decision, for when listing every set would explode:
    choose between ``min_count`` and ``max_count`` cards from ``allowed``, including all
    of ``required``."""

    allowed: tuple[Card, ...]
    required: tuple[Card, ...]
    min_count: int
    max_count: int


@dataclass(frozen=True, slots=True)
class Decision:
    """What the player to move must decide, with every legal answer."""

    seat: int
    kind: DecisionKind
    legal_actions: tuple[Action, ...]
    card_set: CardSetRule | None = None


class GameState:
    """A game of Pitch in progress.  Create with :meth:`new` or :meth:`from_deals`."""

    __slots__ = (
        "_barn",
        "_bid_menu",
        "_bids_vary",
        "_burned",
        "_burns_score",
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
        "_lead_suit",
        "_legal_list",
        "_legal_play",
        "_look",
        "_lost",
        "_must_follow",
        "_must_lead",
        "_needs_played",
        "_next_seat",
        "_offers",
        "_pending",
        "_piles",
        "_scripted_deals",
        "_seat_order",
        "_sides",
        "_table",
        "_tables",
        "_trick_best",
        "_trick_seats",
        "_trick_winner",
        "_tricks_won",
        "_two_trump",
        "_uniform_tricks",
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
    _lost: list[int]
    """Per seat, the card it lost for looking (Abacos), -1 if none."""
    _coke_mask: int
    """Bit per seat that declared coke this hand."""
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

    def __init__(self, rules: Ruleset, seed: int = 0, dealer: int = 0,
                 deals: Sequence[Deal] = ()) -> None:
        if not 0 <= dealer < rules.players:
            raise InvalidDealError(f"dealer {dealer} is not a seat of {rules.players} players")
        self.rules = rules
        self.seed = seed
        self.players = rules.players
        self.parties = rules.parties
        self._deck = deck_cards(rules.deck)
        self._scripted_deals = [self._check_deal(d) for d in deals]
        self.scores = [0] * self.parties
        self.first_dealer = dealer
        self.dealer = dealer
        self.deal_number = 0
        self.hand_number = 0
        self.results: list[HandResult] = []
        self.winner: int | None = None
        self.win_reason: WinReason | None = None
        self.history: list[Event] = []
        self.moves: list[tuple[int, Action]] = []
        self._deal_seats = _deal_seats(rules)
        self._bid_menu = bid_menu(rules)
        self._next_seat = tuple((seat + 1) % rules.players for seat in range(rules.players))
        self._seat_order = tuple(tuple((seat + k) % rules.players for k in range(rules.players))
                                 for seat in range(rules.players))
        self._draws_from_stock = rules.trump.exchange is not Exchange.NONE
        self._must_follow = rules.play.follow is Follow.MUST_FOLLOW
        self._joker_lead_ok = rules.play.joker_may_lead_first_trick
        self._barn = rules.play.trump_must_be_broken
        self._cokes_sit_out_first = rules.bidding.coke_sits_out is CokeSitsOut.FIRST
        self._first_lead_left = rules.play.first_lead is FirstLead.LEFT_OF_PITCHER
        self._first_lead_trump = rules.play.first_lead_trump
        self._look = rules.bidding.look_option
        # Two-trump pitch's following rules: whenever jokers are suitless (a joker lead lets
        # the next card set the suit), with or without a sub-trump.
        self._two_trump = rules.trump.sub_trump or (
            rules.deck.jokers > 0 and rules.deck.joker_rank is JokerRank.UNRANKED)
        bidding = rules.bidding
        self._bids_vary = bidding.forced_nine or bidding.coke or (
            rules.moon is not None and rules.moon.blind_moon_bid > 0)
        self._tables = _trump_tables(rules)
        scoring = rules.scoring
        self._needs_played = LowGoesTo.PLAYER in (scoring.low_goes_to, scoring.two_goes_to)
        self._burns_score = scoring.burned_points is BurnedPoints.OPPONENTS
        self._even_hands = (rules.trump.exchange is not Exchange.DISCARD_NON_TRUMPS
                            and not rules.play.trumps_only and not rules.deal.burn_to
                            and not bidding.lookers_lose_card and not bidding.coke)
        self._start_deal()

    # ------------------------------------------------------------------ creation
    @classmethod
    def new(cls, rules: Ruleset, seed: int = 0, dealer: int = 0) -> GameState:
        """A game whose deals are shuffled from ``seed``."""
        return cls(rules, seed=seed, dealer=dealer)

    @classmethod
    def from_deals(cls, rules: Ruleset, deals: Sequence[Deal], dealer: int = 0,
                   seed: int = 0) -> GameState:
        """A game that uses ``deals`` first (scenarios), then seeded deals."""
        return cls(rules, seed=seed, dealer=dealer, deals=deals)

    def clone(self) -> GameState:
        """An independent copy, for bots that search ahead."""
        other = GameState.__new__(GameState)
        for name in GameState.__slots__:
            value = getattr(self, name)
            setattr(other, name, list(value) if isinstance(value, list) else value)
        return other

    # ------------------------------------------------------------------ queries
    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.phase is Phase.GAME_OVER

    @property
    def trump_suit(self) -> Suit | None:
        """The trump suit of the current hand, once chosen."""
        return None if self.trump < 0 else Suit(self.trump)

    def party_of(self, seat: int) -> int:
        """The party (player or team) a seat belongs to."""
        return seat % self.parties

    def hand(self, seat: int) -> tuple[Card, ...]:
        """The cards a seat holds now."""
        return cards_of(self.hands[seat])

    def burned(self, seat: int) -> tuple[Card, ...]:
        """The cards a seat burned this hand (public)."""
        return cards_of(self._burned[seat])

    def decision(self) -> Decision:
        """The decision the player to move faces, with its legal actions."""
        if self.phase is Phase.GAME_OVER:
            raise GameOverError("the game is over: no decision is pending")
        card_set = self._card_set_rule() if _PHASE_DECISION[self.phase] is DecisionKind.CHOOSE_CARDS else None
        return Decision(self.to_move, _PHASE_DECISION[self.phase], tuple(self.legal_actions()), card_set)

    def legal_actions(self) -> list[Action]:
        """Every legal action of the player to move, sorted; empty only when the game is over."""
        phase = self.phase
        if phase is Phase.PLAY:
            mask = self._legal_play = self._legal_play_mask(self.to_move)
            out: list[Action] = []
            while mask:
                low = mask & -mask
                out.append(PLAYS[low.bit_length() - 1])
                mask ^= low
            return out
        if self._legal_list is None:
            if phase is Phase.BIDDING:
                self._legal_list = self._legal_bids()
            elif phase in (Phase.LOOK, Phase.OFFER):
                self._legal_list = (NO, YES)
            elif phase is Phase.DECLARE_TRUMP:
                self._legal_list = TRUMPS
            elif phase is Phase.DECLARE_SUB_TRUMP:
                self._legal_list = tuple(t for t in TRUMPS if t.suit != self.trump)
            elif phase is Phase.CALL_CARD:
                self._legal_list = tuple(CALLS[card] for card in self._callable_cards())
            elif phase is Phase.PASS_LEFTOVERS:
                self._legal_list = (NO, YES)
            elif phase in (Phase.EXCHANGE, Phase.BURN, Phase.DISCARD, Phase.DEALER_PICK):
                self._legal_list = tuple(choose_cards(m) for m in self._legal_card_set_masks())
            else:
                return []
        return list(self._legal_list)

    def is_legal(self, action: Action) -> bool:
        """Whether ``action`` may be applied now."""
        if self.phase is Phase.PLAY:
            return type(action) is PlayCard and bool(self._legal_play_mask(self.to_move) >> action.card & 1)
        legal = self._legal_list if self._legal_list is not None else self.legal_actions()
        return action in legal

    def verify(self, action: Action) -> None:
        """Raise :class:`IllegalActionError` (naming the state and the alternatives) unless
        ``action`` is legal now."""
        if self.phase is Phase.GAME_OVER:
            raise GameOverError(f"{action} rejected: the game is over", action)
        if not self.is_legal(action):
            legal = self.legal_actions()
            raise IllegalActionError(
                f"{action} is not legal for seat {self.to_move} in {self.phase} "
                f"(hand {format_cards(cards_of(self.hands[self.to_move]))}"
                f"{self._trick_context()}); legal: {', '.join(map(str, legal))}",
                action, legal)

    # ------------------------------------------------------------------ apply
    def apply(self, action: Action) -> None:
        """Apply the mover's ``action``; an illegal one raises and changes nothing."""
        phase = self.phase
        seat = self.to_move
        if phase is Phase.PLAY and type(action) is PlayCard:
            legal = self._legal_play
            if legal < 0:
                legal = self._legal_play_mask(seat)
            if not legal >> action.card & 1:
                self.verify(action)
            self.moves.append((seat, action))
            self._play(seat, action.card)
            return
        self.verify(action)
        self.moves.append((seat, action))
        self._legal_list = None
        if phase is Phase.BIDDING:
            if type(action) is Bid:
                self._bid(seat, action.amount, action.double)
            elif type(action) is Coke:
                self._coke(seat)
            else:
                self._bid(seat, 0)
        elif phase is Phase.LOOK:
            assert isinstance(action, Choose)
            self.looked[seat] = action.yes
            self.history.append(Looked(seat, action.yes))
            self.phase = Phase.BIDDING
        elif phase is Phase.OFFER:
            assert isinstance(action, Choose)
            if action.yes:
                self.hands[seat] |= 1 << self.offered
                self.phase = Phase.DISCARD
            else:
                self._next_offer()
        elif phase is Phase.DISCARD:
            assert isinstance(action, ChooseCards)
            discarded = mask_of(action.cards)
            self.hands[seat] ^= discarded
            self.history.append(Exchanged(seat, discarded, 1 << self.offered))
            self._next_offer()
        elif phase is Phase.DEALER_PICK:
            assert isinstance(action, ChooseCards)
            self._dealer_pick(seat, mask_of(action.cards))
        elif phase is Phase.DECLARE_TRUMP:
            assert isinstance(action, DeclareTrump)
            self._set_trump(seat, action.suit, pitched=False)
            self._after_trump()
        elif phase is Phase.DECLARE_SUB_TRUMP:
            assert isinstance(action, DeclareTrump)
            self._set_sub_trump(seat, action.suit)
            self._after_trump()
        elif phase is Phase.CALL_CARD:
            assert isinstance(action, CallCard)
            self._call(seat, int(action.card))
        elif phase is Phase.PASS_LEFTOVERS:
            assert isinstance(action, Choose)
            self._give_leftovers(self._fixed_partner(seat) if action.yes else seat)
            self._before_play()
        elif phase is Phase.EXCHANGE:
            assert isinstance(action, ChooseCards)
            self._exchange(seat, mask_of(action.cards))
        elif phase is Phase.BURN:
            assert isinstance(action, ChooseCards)
            self._burn(seat, mask_of(action.cards))

    def playout(self, rng: random.Random, hands: int | None = None) -> None:
        """Finish the game (or ``hands`` more hands) with uniformly random legal actions.

        The fast path for simulation bots (Monte Carlo rollouts) and the engine benchmark:
        the same rules, transitions and move log as :meth:`apply`, without building an
        action list for every card played.
        """
        results = self.results
        stop_after = -1 if hands is None else len(results) + hands
        uniform = rng.random
        while len(results) != stop_after:
            phase = self.phase
            if phase is _GAME_OVER:
                return
            if phase is _BIDDING:
                self._random_bids(uniform)
            elif phase is not _PLAY:
                legal = self.legal_actions()
                self.apply(legal[int(uniform() * len(legal))])
            elif self.trick or not self._uniform_tricks:  # one card at a time
                seat = self.to_move
                card = random_card(self._legal_play_mask(seat), uniform)
                self.moves.append((seat, PLAYS[card]))
                self._play(seat, card)
            else:
                self._random_tricks(uniform)

    def _random_bids(self, uniform: Callable[[], float]) -> None:
        """Finish the auction with uniformly random legal bids: legal by construction, so
        they are recorded and applied without re-checking."""
        record, menu = self.moves.append, self._bid_menu
        while self.phase is _BIDDING:
            seat = self.to_move
            bids = self._legal_bids() if self._bids_vary else menu[seat == self.dealer, self.high_bid, self.high_double]
            choice = bids[int(uniform() * len(bids))]
            record((seat, choice))
            if type(choice) is Bid:
                self._bid(seat, choice.amount, choice.double)
            elif type(choice) is Coke:
                self._coke(seat)
            else:
                self._bid(seat, 0)
        self._legal_list = None

    def _random_tricks(self, uniform: Callable[[], float]) -> None:
        """Play the rest of the hand with random legal cards, trick by trick, keeping the
        trick in locals: the rollout hot path, built from the same pieces as :meth:`_play`."""
        hands, record, following = self.hands, self.moves.append, self._next_seat
        tricks, history = self.tricks, self.history
        piles, tricks_won, parties = self._piles, self._tricks_won, self.parties
        leader = self.to_move
        card = random_card(self._legal_play_mask(leader), uniform)
        if self.trump < 0:
            self._set_trump(leader, SUITS[card // 13], pitched=True)
        table, trump, must_follow = self._table, self.trump, self._must_follow
        assert table is not None
        power_of, suit_of, suit_masks, trumps = table.power, table.effective_suit, table.suit_masks, table.trump_mask
        cut = table.cut_power
        others = range(self.players - 1)
        while True:
            hands[leader] ^= 1 << card
            record((leader, PLAYS[card]))
            plays = [(leader, card)]
            taken = 1 << card
            lead_suit = suit_of[card]
            winner = seat = leader
            best = power_of[card]
            # follow_mask and card_power, inlined: this loop is the rollout hot path.  The
            # property tests replay rollouts through apply(), which checks every card with them.
            led = suit_masks[lead_suit]
            strict = lead_suit == trump or must_follow
            for _ in others:
                seat = following[seat]
                hand = hands[seat]
                mask = hand & led
                if not mask:
                    mask = hand
                elif not strict:
                    mask |= hand & trumps
                skip = int(uniform() * mask.bit_count())
                while skip:
                    mask &= mask - 1
                    skip -= 1
                bit = mask & -mask
                card = bit.bit_length() - 1
                hands[seat] = hand ^ bit
                taken |= bit
                record((seat, PLAYS[card]))
                plays.append((seat, card))
                power = power_of[card]
                if power < cut and suit_of[card] != lead_suit:
                    continue
                if power > best:
                    best, winner = power, seat
            done = Trick(leader, tuple(plays), winner)
            tricks.append(done)
            history.append(done)
            piles[winner % parties] |= taken
            tricks_won[winner % parties] += 1
            leader = winner
            if not hands[leader]:
                break
            card = random_card(self._legal_play_mask(leader), uniform)
        self._legal_play = -1
        self.to_move = leader
        self._score_hand()

    # ------------------------------------------------------------------ dealing
    def _check_deal(self, deal: Deal) -> Deal:
        size = self.rules.deal.hand_size
        if len(deal.hands) != self.players:
            raise InvalidDealError(f"deal has {len(deal.hands)} hands for {self.players} players")
        seen: set[int] = set()
        allowed = set(self._deck)
        for seat, hand in enumerate(deal.hands):
            if len(hand) != size:
                raise InvalidDealError(f"seat {seat} is dealt {len(hand)} cards; this ruleset deals {size}")
        for card in [c for h in deal.hands for c in h] + list(deal.stock):
            if card in seen:
                raise InvalidDealError(f"card {CARDS[card]} is dealt twice")
            if card not in allowed:
                raise InvalidDealError(f"card {CARDS[card]} is not in this ruleset's deck")
            seen.add(card)
        return deal

    def _start_deal(self) -> None:
        self.deal_number += 1
        self.hand_number += 1
        n = self.players
        if self._scripted_deals:
            deal = self._scripted_deals.pop(0)
            hands = [mask_of(h) for h in deal.hands]
            stock = [int(c) for c in deal.stock]
            if not stock:
                used = 0
                for h in hands:
                    used |= h
                stock = [c for c in self._deck if not used >> c & 1]
        else:
            dealt = len(self._deal_seats[0])
            deck = shuffled(self._deck, self.seed, self.deal_number, None if self._draws_from_stock else dealt)
            hands = [0] * n
            for card, seat in zip(deck, self._deal_seats[self.dealer], strict=False):
                hands[seat] |= 1 << card
            stock = deck[dealt:]
        self.hands = hands
        self.stock = stock
        self.history.append(Dealt(self.hand_number, self.dealer, tuple(hands), tuple(stock),
                                  self.rules.bidding.look_option))
        self.bids = []
        self.high_bid = 0
        self.high_double = False
        self.high_bidder = -1
        self.pitcher = -1
        self.contract = 0
        self.doubled = False
        self.trump = -1
        self.sub_trump = -1
        self.called = -1
        self.partner = -1
        look = self.rules.bidding.look_option
        self.looked = [not look] * n
        self.offered = -1
        self._offers = []
        self._lost = [-1] * n
        self._coke_mask = 0
        self._table = None
        self._exchanges_left = 0
        self._pending = []
        self.trick = []
        self._trick_best = -1
        self._trick_winner = -1
        self._trick_seats = self._seat_order[0]
        self._uniform_tricks = True
        self._lead_suit = -1
        self._legal_play = -1
        self._legal_list = None
        self.tricks = []
        self._piles = [0] * self.parties
        self._tricks_won = [0] * self.parties
        self._burned = [0] * n
        self._sides = None
        self._must_lead = -1
        eldest = (self.dealer + 1) % n
        self.to_move = eldest
        if self.rules.bidding.auction:
            self.phase = Phase.LOOK if look else Phase.BIDDING
        else:  # no auction: eldest hand is the pitcher, and declares trump if the rules say so
            self.pitcher = eldest
            if self.rules.trump.trump_selection is TrumpSelection.DECLARE:
                self.phase = Phase.DECLARE_TRUMP
            else:
                self._start_play()

    # ------------------------------------------------------------------ bidding
    def _legal_bids(self) -> tuple[Action, ...]:
        seat = self.to_move
        bids = self._bid_menu[seat == self.dealer, self.high_bid, self.high_double]
        if self._bids_vary:
            bids = self._adjusted_bids(seat, bids)
        return bids

    def _adjusted_bids(self, seat: int, bids: tuple[Action, ...]) -> tuple[Action, ...]:
        """The bids that depend on the hand or on looking: the blind moon only before
        looking, nine-five's forced 9, the Scranton coke."""
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
        return tuple(out)

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
        self.history.append(BidMade(seat, amount, double))
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
            shown = tuple(self.hands) if self.rules.bidding.all_pass is AllPass.PASS_DEAL else ()
            self.history.append(AllPassed(self.hand_number, self.dealer, shown))
            if self.deal_number >= self.rules.win.max_hands:  # bots that always pass must not loop forever
                self._end_game(best_score(self.scores), WinReason.HAND_LIMIT)
                return
            self.hand_number -= 1
            if self.rules.bidding.all_pass is AllPass.PASS_DEAL:
                self.dealer = (self.dealer + 1) % self.players
            self._start_deal()
            return
        self.pitcher = self.high_bidder
        self.contract = self.high_bid
        self.doubled = self.high_double
        self.to_move = self.pitcher
        self.phase = Phase.BIDDING
        if self.rules.bidding.lookers_lose_card:
            self._lose_cards()
        self._after_auction()

    def _lose_cards(self) -> None:
        """Seed 004, Abacos: "each player who looked at his/her cards before acting loses one
        card, chosen at random" (drawn from the game's seed, like the deal); man-o-war
        offers the others' lost cards to the high bidder, one at a time."""
        for seat in self._seat_order[(self.dealer + 1) % self.players]:
            if self.looked[seat] and self.hands[seat]:
                hand = cards_of(self.hands[seat])
                card = int(shuffled(hand, self.seed, self.deal_number, 1, salt=f"lost-{seat}")[0])
                self.hands[seat] ^= 1 << card
                self._lost[seat] = card
                self.history.append(Exchanged(seat, 1 << card, 0))
                if self.rules.bidding.bidder_takes_lost and seat != self.pitcher:
                    self._offers.append(card)

    def _after_auction(self) -> None:
        if self._offers:
            self.phase = Phase.OFFER
            self.to_move = self.pitcher
            self.offered = self._offers.pop(0)
            return
        self.offered = -1
        self.to_move = self.pitcher
        if self.rules.trump.trump_selection is TrumpSelection.DECLARE:
            self.phase = Phase.DECLARE_TRUMP
        elif self.rules.seating.partner_call is PartnerCall.LEAD:
            self.phase = Phase.CALL_CARD
        else:
            self._start_play()

    # ------------------------------------------------------------------ trump, partner
    def _next_offer(self) -> None:
        self.phase = Phase.BIDDING  # between decisions: _after_auction picks the next phase
        self._after_auction()

    def _set_trump(self, seat: int, suit: Suit, pitched: bool) -> None:
        self.trump = int(suit)
        self._table = self._tables[suit]
        self.history.append(TrumpSet(seat, suit, pitched))

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
        played" (seed 003: only trumps are played).  Call for partner: any card the bidder
        does not hold but a joker, which has no suit to set trump with (seed 004)."""
        mine = self.hands[self.pitcher]
        if self.rules.seating.partner_call is PartnerCall.LEAD:
            return [card for card in self._deck if not mine >> card & 1 and not JOKER_MASK >> card & 1]
        assert self._table is not None
        return [card for card in self._deck if self._table.trump_mask >> card & 1 and not mine >> card & 1]

    def _call(self, seat: int, card: int) -> None:
        """Seed 003: "Whoever has that card in their hand is the bidder's partner against
        the other three ... In the event the card is in the blind, the bidder has no partner
        ... AND is required to lead the card that was called." """
        self.called = card
        self.partner = next((s for s in range(self.players) if self.hands[s] >> card & 1), -1)
        team = {self.party_of(seat), self.party_of(self.partner) if self.partner >= 0 else -1}
        self._sides = tuple(0 if party in team else 1 for party in range(self.parties))
        leads_it = self.rules.seating.partner_call is PartnerCall.LEAD
        if self.partner < 0 or leads_it:
            self._must_lead = card
        self.history.append(PartnerCalled(seat, card))
        if leads_it:
            self._start_play()
        else:
            self._prepare_hands()

    def _fixed_partner(self, seat: int) -> int:
        """The next seat clockwise of ``seat``'s own team (partners sit alternately)."""
        return (seat + self.parties) % self.players

    # ------------------------------------------------------------------ hand preparation
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
            self.to_move = (self.dealer + 1) % self.players

    def _card_set_rule(self) -> CardSetRule:
        hand = self.hands[self.to_move]
        if self.phase is Phase.BURN:  # never the called card the bidder must lead (seed 003)
            count = hand.bit_count() - self.rules.deal.burn_to
            keep = 1 << self._must_lead if self._must_lead >= 0 else 0
            return CardSetRule(cards_of(hand & ~keep), (), count, count)
        if self.phase is Phase.DISCARD:
            return CardSetRule(cards_of(hand), (), 1, 1)
        if self.phase is Phase.DEALER_PICK:  # seed 004: "If too few trump cards remain, the
            # dealer may take any card" - so trumps first: "all trump cards are in play"
            assert self._table is not None
            count = min(len(self.stock), self.rules.deal.refill_to - hand.bit_count())
            trumps = [c for c in sorted(self.stock) if self._table.trump_mask >> c & 1]
            if len(trumps) >= count:
                return CardSetRule(tuple(CARDS[c] for c in trumps), (), count, count)
            return CardSetRule(tuple(CARDS[c] for c in sorted(self.stock)), tuple(CARDS[c] for c in trumps),
                               count, count)
        assert self._table is not None
        exchange = self.rules.trump.exchange
        non_trumps = hand & ~self._table.trump_mask
        limit = len(self.stock)
        if exchange is Exchange.ANY:
            return CardSetRule(cards_of(hand), (), 0, min(limit, hand.bit_count()))
        if exchange is Exchange.NON_TRUMPS:
            return CardSetRule(cards_of(non_trumps), (), 0, min(limit, non_trumps.bit_count()))
        count = non_trumps.bit_count()
        if count > limit:  # the stock cannot refill: discard only as many as it replaces
            return CardSetRule(cards_of(non_trumps), (), limit, limit)
        return CardSetRule(cards_of(non_trumps), cards_of(non_trumps), count, count)

    def _legal_card_set_masks(self) -> list[int]:
        rule = self._card_set_rule()
        required = mask_of(rule.required)
        optional = [c for c in rule.allowed if c not in rule.required]
        masks: list[int] = []
        for size in range(rule.min_count - len(rule.required), rule.max_count - len(rule.required) + 1):
            masks.extend(required | mask_of(combo) for combo in combinations(optional, size))
        return sorted(masks, key=lambda m: (m.bit_count(), sorted(cards_of(m))))

    def _exchange(self, seat: int, discarded: int) -> None:
        draw_count = min(discarded.bit_count(), len(self.stock))
        drawn = mask_of(self.stock[:draw_count])
        del self.stock[:draw_count]
        self.hands[seat] = self.hands[seat] & ~discarded | drawn
        self.history.append(Exchanged(seat, discarded, drawn))
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
        picks = self.rules.trump.dealer_picks
        for seat in self._seat_order[(self.dealer + 1) % self.players]:
            hand = self.hands[seat]
            discarded = hand & ~trumps
            need = 0 if picks and seat == self.dealer else max(0, refill_to - (hand ^ discarded).bit_count())
            drawn = mask_of(stock[:need])
            del stock[:need]
            self.hands[seat] = hand ^ discarded | drawn
            if discarded or drawn:
                self.history.append(Exchanged(seat, discarded, drawn))
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
            for seat in self._seat_order[(self.dealer + 1) % self.players]:
                dead = self.hands[seat] & ~self._table.trump_mask
                if dead:
                    self.hands[seat] ^= dead
                    self.history.append(Exchanged(seat, dead, 0))
        burn_to = self.rules.deal.burn_to
        if burn_to:
            self._pending = [seat for seat in self._seat_order[(self.dealer + 1) % self.players]
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

    # ------------------------------------------------------------------ trick play
    def _start_play(self) -> None:
        self.phase = Phase.PLAY
        self._uniform_tricks = not self._two_trump and (
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
        if self._two_trump:
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
        trick.append((seat, card))
        if len(trick) < len(self._trick_seats):
            self.to_move = self._trick_seats[len(trick)]
        else:
            self._finish_trick(trick, self._trick_winner)

    def _finish_trick(self, plays: list[tuple[int, int]], winner: int) -> None:
        """Record a completed trick; the winner (or the next seat still holding cards)
        leads next, or the hand is scored."""
        done = Trick(plays[0][0], tuple(plays), winner)
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

    def _trick_context(self) -> str:
        if self.phase is not Phase.PLAY or not self.trick:
            return ""
        led = CARDS[self.trick[0][1]]
        return f", {led} led, trump {self.trump_suit or 'not set'}"

    # ------------------------------------------------------------------ scoring
    def _score_hand(self) -> None:
        rules = self.rules
        assert self._table is not None
        played = played_by_party(self.tricks, self.parties) if self._needs_played else None
        credited = self._credited_burns() if self._burns_score else None
        pile = award_points(rules, self._table, self._piles, self._tricks_won, played, credited, self._sides)
        auction = rules.bidding.auction
        pitching_party = self.pitcher % self.parties
        contract = self.contract if auction else None
        stakes = self.contract * 2 if self.doubled else self.contract
        settlement = settle_hand(rules, pile, pitching_party, contract, self.scores, stakes, self._sides)
        winner, reason = decide_winner(rules, self.scores, settlement, pitching_party, len(self.results) + 1,
                                       self._sides)
        self.scores = [s + c for s, c in zip(self.scores, settlement.score_changes, strict=True)]
        game_over = reason is not None
        result = HandResult(
            hand_number=self.hand_number, dealer=self.dealer, pitcher=self.pitcher,
            bid=contract, trump=self._table.trump, awards=pile.awards,
            pips=tuple([p / 2 if p % 2 else p // 2 for p in pile.pips2]),
            tricks_won=pile.tricks_won, points_won=settlement.points_won,
            made=settlement.made, moon=settlement.moon,
            score_changes=settlement.score_changes, scores=tuple(self.scores),
            winner=winner, win_reason=reason, game_over=game_over,
            doubled=self.doubled, sides=self._sides,
        )
        self.results.append(result)
        self.history.append(HandScored(result))
        if game_over:
            self._end_game(winner, reason)
            return
        self.dealer = (self.dealer + 1) % self.players
        self._start_deal()

    def _credited_burns(self) -> list[int] | None:
        """Burned cards each party is credited with: seed 004's off-ace eleven-point gives
        "those points ... to the opposing team"; otherwise burned cards score for nobody."""
        if not any(self._burned):
            return None
        credited = [0] * self.parties
        sides = self._sides if self._sides is not None else tuple(range(self.parties))
        for seat, cards in enumerate(self._burned):
            side = sides[self.party_of(seat)]
            opponent = next(p for p in range(self.parties) if sides[p] != side)
            credited[opponent] |= cards
        return credited

    def _end_game(self, winner: int | None, reason: WinReason | None) -> None:
        self.winner = winner
        self.win_reason = reason
        self.phase = Phase.GAME_OVER
        self.to_move = -1
        self._trick_seats = ()


#: Every card of rank ten or higher (the Scranton rule's coke needs none of them).
_TEN_OR_HIGHER = sum(1 << (suit * 13 + rank - 2) for suit in range(4) for rank in range(10, 15)) | JOKER_MASK


def _nine_forces(hand: int) -> bool:
    """Seed 004, nine-five: the hand holds a nine "and another card of the same suit"."""
    for suit in range(4):
        cards = hand >> (suit * 13) & 0x1FFF
        if cards >> 7 & 1 and cards.bit_count() >= 2:
            return True
    return False


@cache
def _trump_tables(rules: Ruleset) -> tuple[TrumpTable, ...]:
    """The trump table of each suit under ``rules`` (built once per ruleset)."""
    play = rules.play
    return tuple(trump_table(rules.deck, suit, play.lowest_wins, play.low_trump_wins) for suit in Suit)


@cache
def _deal_seats(rules: Ruleset) -> tuple[tuple[int, ...], ...]:
    """For each dealer, the seat that receives the card at each position of the deck:
    batches of ``deal_batch`` cards, starting left of the dealer (once per ruleset)."""
    n, size, batch = rules.players, rules.deal.hand_size, rules.deal.deal_batch
    relative: list[int] = []
    for start in range(0, size, batch):
        for seat in range(n):
            relative += [seat] * min(batch, size - start)
    return tuple(tuple((dealer + 1 + r) % n for r in relative) for dealer in range(n))
