"""The game state machine: deal -> bidding -> trump -> hand preparation -> tricks -> scoring.

One mutable :class:`GameState` per game; everything around it (ruleset, actions, records)
is frozen.  The state is pure and deterministic: chance comes only from the game's seed
(each deal is shuffled from the seed and the deal number alone) or from explicit deals, so a seed
plus the list of actions reproduces a whole game (:mod:`pitch_sdk.rules.replay`).

A hand runs through phases, each skipped when the ruleset does not use it: bidding,
declaring trump, calling a partner's card, the exchange (discard and draw, or seed 003's
discard-all-non-trumps and refill), passing the leftovers, burning down to the playing
hand, then trick play.  Each stage's transitions live in their own module
(:mod:`~pitch_sdk.rules.auction`, :mod:`~pitch_sdk.rules.preparation`,
:mod:`~pitch_sdk.rules.trickplay`), mixed into :class:`GameState`, which keeps the public
face: creation, queries, legality, ``apply``, ``playout``, dealing and scoring.

For every decision there is the triad ``verify(action)`` (raises with the reason),
``is_legal(action)`` and ``apply(action)``; ``legal_actions()`` lists what the player to
move may do, sorted, and is never empty before the game ends.  Hands and piles are bit
masks over card ids so the trick loop stays cheap.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from operator import add

from pitch_sdk.rules.actions import (
    CALLS,
    KEEP_HAND,
    MUCK_HAND,
    NO,
    PLAYS,
    TRUMPS,
    YES,
    Action,
    CallCard,
    Choose,
    ChooseCards,
    DecisionKind,
    DeclareTrump,
    MuckHand,
    PlayCard,
)
from pitch_sdk.rules.auction import Auction
from pitch_sdk.rules.bidding import bid_menu
from pitch_sdk.rules.cards import CARDS, Card, Suit, cards_of, format_cards, mask_of
from pitch_sdk.rules.cardsets import MAX_LISTED_CARD_SETS, CardSetChoices, CardSetRule
from pitch_sdk.rules.deal import Deal
from pitch_sdk.rules.errors import GameOverError, IllegalActionError, InvalidDealError
from pitch_sdk.rules.events import new_dealt, new_hand_scored
from pitch_sdk.rules.mucking import Mucking
from pitch_sdk.rules.preparation import Preparation
from pitch_sdk.rules.records import WinReason, new_hand_result
from pitch_sdk.rules.ruleset import (
    BurnedPoints,
    CokeSitsOut,
    Exchange,
    FirstLead,
    Follow,
    JokerRank,
    LowGoesTo,
    Muck,
    Ruleset,
    TrumpSelection,
)
from pitch_sdk.rules.scoring import (
    award_points,
    find_revokes,
    keep_low_from_joker,
    played_by_party,
    settle_hand,
    side_members,
)
from pitch_sdk.rules.shuffle import shuffled
from pitch_sdk.rules.state_fields import Phase, StateFields
from pitch_sdk.rules.tables import TrumpTable, deck_cards, pip_cards, play_records, trump_table
from pitch_sdk.rules.trickplay import TrickPlay
from pitch_sdk.rules.tricks import random_card
from pitch_sdk.rules.winning import decide_winner

__all__ = ["CardSetRule", "Decision", "GameState", "Phase"]

# Module aliases for the per-card paths: on Python 3.11 ``Phase.PLAY`` costs ~0.1 us per
# lookup (``EnumType`` defines ``__getattr__``, which slows every class attribute read).
_PLAY, _GAME_OVER, _BIDDING = Phase.PLAY, Phase.GAME_OVER, Phase.BIDDING
_SIZED_EXCHANGES = frozenset({Exchange.NON_TRUMPS_OR_ALL, Exchange.DOWN_TO_SIZE})
_CARD_SET_PHASES = frozenset({Phase.EXCHANGE, Phase.BURN, Phase.DISCARD, Phase.DEALER_PICK})
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
    Phase.MUCK: DecisionKind.MUCK,
    Phase.PLAY: DecisionKind.PLAY,
}


@dataclass(frozen=True, slots=True)
class Decision:
    """What the player to move must decide, with every legal answer."""

    seat: int
    kind: DecisionKind
    legal_actions: tuple[Action, ...]
    """Every legal answer, except for a card-set decision admitting more than
    ``MAX_LISTED_CARD_SETS`` sets: then none, and ``card_set`` describes them."""
    card_set: CardSetRule | None = None


class GameState(Auction, Mucking, Preparation, TrickPlay):
    """A game of Pitch in progress.  Create with :meth:`new` or :meth:`from_deals`.

    Its fields are declared in :class:`~pitch_sdk.rules.state_fields.StateFields`.
    """

    __slots__ = ()

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
        self.results = []
        self.winner: int | None = None
        self.win_reason: WinReason | None = None
        self.history = []
        self.moves = []
        self._deal_seats = _deal_seats(rules)
        self._bid_menu = bid_menu(rules)
        self._records = play_records(rules.players)
        self._next_seat = tuple((seat + 1) % rules.players for seat in range(rules.players))
        self._seat_order = tuple(tuple((seat + k) % rules.players for k in range(rules.players))
                                 for seat in range(rules.players))
        # The stock's order matters (so the whole pack is shuffled) when cards are drawn
        # from it: an exchange or refill, or a coke player's fresh five (seed 004).
        self._draws_from_stock = (rules.trump.exchange is not Exchange.NONE or rules.bidding.coke
                                  or rules.deal.muck is Muck.NEW_HAND or rules.deal.widow)
        self._muck_new_hand = rules.deal.muck is Muck.NEW_HAND
        self._muck_redeal = rules.deal.muck is Muck.REDEAL
        self._pip_cards = pip_cards(rules.deck)
        self._widow_size = rules.deal.hand_size if rules.deal.widow else 0
        self._must_follow = rules.play.follow is Follow.MUST_FOLLOW
        self._joker_lead_ok = rules.play.joker_may_lead_first_trick
        self._barn = rules.play.trump_must_be_broken
        self._cokes_sit_out_first = rules.bidding.coke_sits_out is CokeSitsOut.FIRST
        self._first_lead_left = rules.play.first_lead is FirstLead.LEFT_OF_PITCHER
        self._first_lead_trump = rules.play.first_lead_trump
        self._look = rules.bidding.look_option
        # Two-trump pitch's following rules: whenever jokers are suitless (a joker lead lets
        # the next card set the suit), with or without a sub-trump.
        self._revoke_ok = rules.play.revoke_penalty
        self._odd_follow = self._revoke_ok or rules.trump.sub_trump or (
            rules.deck.jokers > 0 and rules.deck.joker_rank is JokerRank.UNRANKED)
        bidding = rules.bidding
        self._bids_vary = bidding.forced_nine or bidding.coke or self._muck_new_hand or (
            rules.moon is not None and rules.moon.blind_moon_bid > 0)
        self._tables = _trump_tables(rules)
        scoring = rules.scoring
        self._needs_played = LowGoesTo.PLAYER in (scoring.low_goes_to, scoring.two_goes_to)
        self._joker_top = rules.deck.jokers > 0 and rules.deck.joker_rank is JokerRank.TOP
        self._burns_score = scoring.burned_points is BurnedPoints.OPPONENTS
        self._even_hands = (rules.trump.exchange is not Exchange.DISCARD_NON_TRUMPS
                            and rules.trump.exchange not in _SIZED_EXCHANGES
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
        for name in StateFields.__slots__:
            value = getattr(self, name)
            setattr(other, name, list(value) if isinstance(value, list) else value)
        return other

    # ------------------------------------------------------------------ queries
    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.phase is _GAME_OVER

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

    @property
    def widow(self) -> tuple[Card, ...]:
        """The widow while nobody has taken it (hidden from every seat; seed 004)."""
        return cards_of(self._widow)

    def decision(self) -> Decision:
        """The decision the player to move faces, with its legal actions."""
        if self.phase is _GAME_OVER:
            raise GameOverError("the game is over: no decision is pending")
        card_set = self._card_set_choices().rule if self._is_card_set_phase() else None
        return Decision(self.to_move, _PHASE_DECISION[self.phase], self.listed_actions(), card_set)

    def listed_actions(self) -> tuple[Action, ...]:
        """:meth:`legal_actions`, unless the decision is a card set admitting more than
        ``MAX_LISTED_CARD_SETS`` sets (a bidder holding the whole stock burns): then none,
        since listing them could take minutes and gigabytes; :meth:`decision`'s
        ``card_set`` describes them and :meth:`is_legal` checks them by that rule."""
        if self._is_card_set_phase() and len(self._card_set_choices()) > MAX_LISTED_CARD_SETS:
            return ()
        return tuple(self.legal_actions())

    def default_action(self) -> Action:
        """The first of :meth:`legal_actions`, without listing them (the referee's fallback)."""
        if self._is_card_set_phase():
            return self._card_set_choices()[0]
        return self.legal_actions()[0]

    def _is_card_set_phase(self) -> bool:
        return self.phase in _CARD_SET_PHASES

    def _card_set_choices(self) -> CardSetChoices:
        """The pending card-set decision's choices, built once per decision (``apply``
        and each deal forget them, with the legal-action list)."""
        if self._choices is None:
            self._choices = CardSetChoices(self._card_set_rule())
        return self._choices

    def legal_actions(self) -> list[Action]:
        """Every legal action of the player to move, sorted; empty only when the game is over.

        A card-set decision may admit millions of sets: code that must not build such a
        list uses :meth:`listed_actions`, or ``CardSetChoices(decision().card_set)``."""
        phase = self.phase
        if phase is _PLAY:
            mask = self._legal_play  # kept until the next card is played (``_play`` forgets it)
            if mask < 0:
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
            elif phase is Phase.MUCK:
                self._legal_list = (KEEP_HAND, MUCK_HAND)
            elif phase in _CARD_SET_PHASES:
                self._legal_list = tuple(self._card_set_choices())
            else:
                return []
        return list(self._legal_list)

    def is_legal(self, action: Action) -> bool:
        """Whether ``action`` may be applied now."""
        if self.phase is _PLAY:
            playable = self._legal_play
            if playable < 0:
                playable = self._legal_play_mask(self.to_move)
            return type(action) is PlayCard and bool(playable >> action.card & 1)
        if self._is_card_set_phase():  # by the rule: the sets may be too many to list
            return action in self._card_set_choices()
        legal = self._legal_list if self._legal_list is not None else self.legal_actions()
        return action in legal

    def verify(self, action: Action) -> None:
        """Raise :class:`IllegalActionError` (naming the state and the alternatives) unless
        ``action`` is legal now."""
        if self.phase is Phase.GAME_OVER:
            raise GameOverError(f"{action} rejected: the game is over", action)
        if not self.is_legal(action):
            legal = list(self.listed_actions())
            shown = ", ".join(map(str, legal)) if legal else f"any {self._card_set_choices().rule}"
            raise IllegalActionError(
                f"{action} is not legal for seat {self.to_move} in {self.phase} "
                f"(hand {format_cards(cards_of(self.hands[self.to_move]))}"
                f"{self._trick_context()}); legal: {shown}",
                action, legal)

    def _trick_context(self) -> str:
        if self.phase is not Phase.PLAY or not self.trick:
            return ""
        led = CARDS[self.trick[0][1]]
        return f", {led} led, trump {self.trump_suit or 'not set'}"

    def _card_set_rule(self) -> CardSetRule:
        hand = self.hands[self.to_move]
        if self.phase is Phase.BURN:  # never the called card the bidder must lead (seed 003)
            count = hand.bit_count() - self.rules.deal.burn_to
            keep = 1 << self._must_lead if self._must_lead >= 0 else 0
            return CardSetRule(cards_of(hand & ~keep), (), count, count)
        if self.phase is Phase.DISCARD:  # one card per lost card taken, else down from the widow
            count = 1 if self.offered >= 0 else hand.bit_count() - self.rules.deal.hand_size
            return CardSetRule(cards_of(hand), (), count, count)
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
        if exchange in _SIZED_EXCHANGES:  # seed 004's nine cards: down to refill_to
            down = max(hand.bit_count() - self.rules.deal.refill_to, 0)
            if count < down:  # "exactly three cards including all non-trumps"
                return CardSetRule(cards_of(hand), cards_of(non_trumps), down, down)
            # "at least three non-trumps" (as many more as the stock can replace), or "all non-trumps"
            most = min(count, down + limit) if exchange is Exchange.NON_TRUMPS_OR_ALL else down
            return CardSetRule(cards_of(non_trumps), (), down, most)
        if count > limit:  # the stock cannot refill: discard only as many as it replaces
            return CardSetRule(cards_of(non_trumps), (), limit, limit)
        return CardSetRule(cards_of(non_trumps), cards_of(non_trumps), count, count)

    # ------------------------------------------------------------------ apply
    def apply(self, action: Action) -> None:
        """Apply the mover's ``action``; an illegal one raises and changes nothing."""
        phase = self.phase
        seat = self.to_move
        if phase is _PLAY and type(action) is PlayCard:
            legal = self._legal_play
            if legal < 0:
                legal = self._legal_play_mask(seat)
            if not legal >> action.card & 1:
                self.verify(action)
            self.moves.append(self._records[0][seat][action.card])
            self._play(seat, action.card)
            return
        self.verify(action)
        self.moves.append((seat, action))
        self._legal_list = None
        self._choices = None
        if phase is Phase.BIDDING:
            self._take_bid(seat, action)
        elif phase is Phase.LOOK:
            assert isinstance(action, Choose)
            self._choose_to_look(seat, action.yes)
        elif phase is Phase.OFFER:
            assert isinstance(action, Choose)
            self._answer_offer(seat, action.yes)
        elif phase is Phase.DISCARD:
            assert isinstance(action, ChooseCards)
            self._discard_for_offer(seat, mask_of(action.cards))
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
        elif phase is Phase.MUCK:
            assert isinstance(action, MuckHand)
            self._answer_muck(seat, action.muck)

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
            elif phase in _CARD_SET_PHASES:  # a random set by its index: no list to build
                choices = self._card_set_choices()
                self.apply(choices[int(uniform() * len(choices))])
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
        self.hand_number += 1
        self._new_deal()

    def _new_deal(self) -> None:
        """Deal the current hand (again, after a re-deal by the same dealer) and ask its
        first decision: a muck where the ruleset offers one, else the auction's."""
        self.deal_number += 1
        n = self.players
        self._deal()
        self._widow = 0
        if self._widow_size:  # seed 004: "a widow (extra hand) is dealt along with the players' hands"
            self._widow = mask_of(self.stock[:self._widow_size])
            del self.stock[:self._widow_size]
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
        self._coke_mask = 0
        self._muck_mask = 0
        self._mucked = []
        self._muck_asks = []
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
        self._choices = None
        self.tricks = []
        self._piles = [0] * self.parties
        self._tricks_won = [0] * self.parties
        self._burned = [0] * n
        self._sides = None
        self._must_lead = -1
        if self._muck_new_hand or self._muck_redeal:
            self._ask_mucks()
        else:
            self._start_auction()

    def _start_auction(self) -> None:
        """The deal's first decision once hands are settled: the auction's, or without one
        the eldest hand's trump (or its first lead)."""
        eldest = self._next_seat[self.dealer]
        self.to_move = eldest
        if self.rules.bidding.auction:
            self.phase = Phase.LOOK if self._look else Phase.BIDDING
        else:  # no auction: eldest hand is the pitcher, and declares trump if the rules say so
            self.pitcher = eldest
            if self.rules.trump.trump_selection is TrumpSelection.DECLARE:
                self.phase = Phase.DECLARE_TRUMP
            else:
                self._start_play()

    def _deal(self) -> None:
        """Deal the hands and the stock (the next scripted deal, else a shuffle of this deal
        number) and log them."""
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
            hands = [0] * self.players
            for card, seat in zip(deck, self._deal_seats[self.dealer], strict=False):
                hands[seat] |= 1 << card
            stock = deck[dealt:]
        self.hands = hands
        self.stock = stock
        self.history.append(new_dealt((self.hand_number, self.dealer, tuple(hands), tuple(stock), self._look)))

    # ------------------------------------------------------------------ scoring
    def _score_hand(self) -> None:
        rules = self.rules
        assert self._table is not None
        played = played_by_party(self.tricks, self.parties) if self._needs_played else None
        credited = self._credited_burns() if self._burns_score else None
        piles = keep_low_from_joker(self._table, self.tricks, self._piles, self.parties) if self._joker_top \
            else self._piles
        pile = award_points(rules, self._table, piles, self._tricks_won, played, credited, self._sides)
        auction = rules.bidding.auction
        pitching_party = self.pitcher % self.parties
        contract = self.contract if auction else None
        stakes = self.contract * 2 if self.doubled else self.contract
        revokes = find_revokes(self._table, self.tricks, self.hands) if self._revoke_ok else ()
        settlement = settle_hand(rules, pile, pitching_party, contract, self.scores, stakes, self._sides, revokes)
        winner, reason = decide_winner(rules, self.scores, settlement, pitching_party, len(self.results) + 1,
                                       self._sides)
        self.scores = list(map(add, self.scores, settlement.score_changes))
        game_over = reason is not None
        result = new_hand_result((  # HandResult's fields, in order (a keyword call costs 3x)
            self.hand_number, self.dealer, self.pitcher, contract, self._table.trump, settlement.awards,
            tuple([p / 2 if p % 2 else p // 2 for p in pile.pips2]), pile.tricks_won,
            settlement.points_won, settlement.made, settlement.moon, settlement.score_changes,
            tuple(self.scores), winner, reason, game_over, self.doubled, self._sides,
        ))
        self.results.append(result)
        self.history.append(new_hand_scored((result,)))
        if self._mucked:
            self._show_mucks()
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
        for seat, cards in enumerate(self._burned):
            team = side_members(self.party_of(seat), self.parties, self._sides)
            opponent = next(p for p in range(self.parties) if p not in team)
            credited[opponent] |= cards
        return credited

    def _end_game(self, winner: int | None, reason: WinReason | None) -> None:
        self.winner = winner
        self.win_reason = reason
        self.phase = Phase.GAME_OVER
        self.to_move = -1
        self._trick_seats = ()


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
