"""The game state machine: deal -> bidding -> trump -> exchange -> tricks -> scoring.

One mutable :class:`GameState` per game; everything around it (ruleset, actions, records)
is frozen.  The state is pure and deterministic: chance comes only from the game's seed
(each deal is shuffled from the seed and the deal number alone) or from explicit deals, so a seed
plus the list of actions reproduces a whole game (:mod:`pitch_sdk.rules.replay`).

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
    PLAYS,
    TRUMPS,
    Action,
    Bid,
    ChooseCards,
    DecisionKind,
    DeclareTrump,
    Pass,
    PlayCard,
    choose_cards,
)
from pitch_sdk.rules.bidding import bid_menu
from pitch_sdk.rules.cards import CARDS, SUITS, Card, Suit, cards_of, format_cards, mask_of
from pitch_sdk.rules.errors import GameOverError, IllegalActionError, InvalidDealError
from pitch_sdk.rules.events import (
    AllPassed,
    BidMade,
    Dealt,
    Event,
    Exchanged,
    HandScored,
    TrumpSet,
)
from pitch_sdk.rules.records import HandResult, Trick, WinReason
from pitch_sdk.rules.ruleset import (
    Exchange,
    Follow,
    LowGoesTo,
    Ruleset,
    TrumpSelection,
)
from pitch_sdk.rules.scoring import award_points, played_by_party, settle_hand
from pitch_sdk.rules.shuffle import shuffled
from pitch_sdk.rules.tables import JOKER_MASK, TRUMP_BASE, TrumpTable, deck_cards, trump_table
from pitch_sdk.rules.tricks import card_power, follow_mask, random_card
from pitch_sdk.rules.winning import best_score, decide_winner


class Phase(StrEnum):
    """Where a hand is; the phase decides which kind of decision is asked."""

    BIDDING = "bidding"
    DECLARE_TRUMP = "declare-trump"
    EXCHANGE = "exchange"
    PLAY = "play"
    GAME_OVER = "game-over"


_PLAY, _GAME_OVER, _BIDDING = Phase.PLAY, Phase.GAME_OVER, Phase.BIDDING
_PHASE_DECISION = {
    Phase.BIDDING: DecisionKind.BID,
    Phase.DECLARE_TRUMP: DecisionKind.DECLARE_TRUMP,
    Phase.EXCHANGE: DecisionKind.CHOOSE_CARDS,
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
        "_bid_menu",
        "_deal_seats",
        "_deck",
        "_draws_from_stock",
        "_exchanges_left",
        "_joker_lead_ok",
        "_lead_suit",
        "_legal_list",
        "_legal_play",
        "_must_follow",
        "_next_seat",
        "_piles",
        "_scripted_deals",
        "_table",
        "_trick_best",
        "_trick_winner",
        "_tricks_won",
        "bids",
        "contract",
        "deal_number",
        "dealer",
        "first_dealer",
        "hand_number",
        "hands",
        "high_bid",
        "high_bidder",
        "history",
        "moves",
        "parties",
        "phase",
        "pitcher",
        "players",
        "results",
        "rules",
        "scores",
        "seed",
        "stock",
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
    high_bid: int
    high_bidder: int
    pitcher: int
    contract: int
    trump: int
    """The trump suit's index, -1 until chosen."""
    trick: list[tuple[int, int]]
    tricks: list[Trick]
    _table: TrumpTable | None
    _exchanges_left: int
    _trick_best: int
    _trick_winner: int
    _lead_suit: int
    _legal_play: int
    _legal_list: tuple[Action, ...] | None
    _deal_seats: tuple[tuple[int, ...], ...]
    _bid_menu: Mapping[tuple[bool, int], tuple[Action, ...]]
    _draws_from_stock: bool
    _next_seat: tuple[int, ...]
    _piles: list[int]
    """Each party's scoring pile this hand (cards of the tricks it won) as a bit mask."""
    _tricks_won: list[int]

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
        self._draws_from_stock = rules.trump.exchange is not Exchange.NONE
        self._must_follow = rules.play.follow is Follow.MUST_FOLLOW
        self._joker_lead_ok = rules.play.joker_may_lead_first_trick
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
        other.trick = list(self.trick)
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

    def decision(self) -> Decision:
        """The decision the player to move faces, with its legal actions."""
        if self.phase is Phase.GAME_OVER:
            raise GameOverError("the game is over: no decision is pending")
        card_set = self._card_set_rule() if self.phase is Phase.EXCHANGE else None
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
            elif phase is Phase.DECLARE_TRUMP:
                self._legal_list = TRUMPS
            elif phase is Phase.EXCHANGE:
                self._legal_list = tuple(choose_cards(m) for m in self._legal_exchange_masks())
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
            self._bid(seat, 0 if type(action) is Pass else action.amount)  # type: ignore[union-attr]
        elif phase is Phase.DECLARE_TRUMP:
            assert isinstance(action, DeclareTrump)
            self._set_trump(seat, action.suit, pitched=False)
            self._after_trump()
        elif phase is Phase.EXCHANGE:
            assert isinstance(action, ChooseCards)
            self._exchange(seat, mask_of(action.cards))

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
            elif self.trick:  # finish a trick someone else started, one card at a time
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
            bids = menu[seat == self.dealer, self.high_bid]
            choice = bids[int(uniform() * len(bids))]
            record((seat, choice))
            self._bid(seat, choice.amount if type(choice) is Bid else 0)
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
                if power < TRUMP_BASE and suit_of[card] != lead_suit:
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
        self.history.append(Dealt(self.hand_number, self.dealer, tuple(hands), tuple(stock)))
        self.bids = []
        self.high_bid = 0
        self.high_bidder = -1
        self.pitcher = -1
        self.contract = 0
        self.trump = -1
        self._table = None
        self._exchanges_left = 0
        self.trick = []
        self._trick_best = -1
        self._trick_winner = -1
        self._lead_suit = -1
        self._legal_play = -1
        self._legal_list = None
        self.tricks = []
        self._piles = [0] * self.parties
        self._tricks_won = [0] * self.parties
        eldest = (self.dealer + 1) % n
        if self.rules.bidding.auction:
            self.phase = Phase.BIDDING
            self.to_move = eldest
        else:  # no auction: eldest hand is the pitcher, and declares trump if the rules say so
            self.pitcher = eldest
            declare = self.rules.trump.trump_selection is TrumpSelection.DECLARE
            self.phase = Phase.DECLARE_TRUMP if declare else Phase.PLAY
            self.to_move = eldest

    # ------------------------------------------------------------------ bidding
    def _legal_bids(self) -> tuple[Action, ...]:
        return self._bid_menu[self.to_move == self.dealer, self.high_bid]

    def _bid(self, seat: int, amount: int) -> None:
        self.bids.append((seat, amount))
        self.history.append(BidMade(seat, amount))
        if amount:
            self.high_bid = amount
            self.high_bidder = seat
        if seat != self.dealer:
            self.to_move = (seat + 1) % self.players
            return
        if self.high_bidder < 0:  # everyone passed and the ruleset re-deals
            self.history.append(AllPassed(self.hand_number, self.dealer))
            if self.deal_number >= self.rules.win.max_hands:  # bots that always pass must not loop forever
                self._end_game(best_score(self.scores), WinReason.HAND_LIMIT)
                return
            self.hand_number -= 1
            self._start_deal()
            return
        self.pitcher = self.high_bidder
        self.contract = self.high_bid
        self.to_move = self.pitcher
        if self.rules.trump.trump_selection is TrumpSelection.DECLARE:
            self.phase = Phase.DECLARE_TRUMP
        else:
            self.phase = Phase.PLAY

    # ------------------------------------------------------------------ trump, exchange
    def _set_trump(self, seat: int, suit: Suit, pitched: bool) -> None:
        self.trump = int(suit)
        self._table = trump_table(self.rules.deck, suit)
        self.history.append(TrumpSet(seat, suit, pitched))

    def _after_trump(self) -> None:
        if self.rules.trump.exchange is Exchange.NONE:
            self.phase = Phase.PLAY
            self.to_move = self.pitcher
        else:
            self.phase = Phase.EXCHANGE
            self._exchanges_left = self.players
            self.to_move = (self.dealer + 1) % self.players

    def _card_set_rule(self) -> CardSetRule:
        assert self._table is not None
        hand = self.hands[self.to_move]
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

    def _legal_exchange_masks(self) -> list[int]:
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
            self.phase = Phase.PLAY
            self.to_move = self.pitcher

    # ------------------------------------------------------------------ trick play
    def _legal_play_mask(self, seat: int) -> int:
        """The cards ``seat`` may play now, as a bit mask (the hot path: keep it lean)."""
        hand = self.hands[seat]
        lead_suit = self._lead_suit
        if lead_suit < 0:  # leading: anything, but no joker to the first trick
            if not self.tricks and not self._joker_lead_ok:
                return hand & ~JOKER_MASK or hand
            return hand
        return follow_mask(hand, lead_suit, self.trump, self._table, self._must_follow)  # type: ignore[arg-type]

    def _play(self, seat: int, card: int) -> None:
        self.hands[seat] ^= 1 << card
        self._legal_play = -1
        trick = self.trick
        if trick:
            power = card_power(self._table, card, self._lead_suit)  # type: ignore[arg-type]
        else:
            if self.trump < 0:
                self._set_trump(seat, SUITS[card // 13], pitched=True)
            table = self._table
            self._lead_suit = table.effective_suit[card]  # type: ignore[union-attr]
            power = table.power[card]  # type: ignore[union-attr]
        if power > self._trick_best:
            self._trick_best = power
            self._trick_winner = seat
        trick.append((seat, card))
        if len(trick) < self.players:
            self.to_move = self._next_seat[seat]
        else:
            self._finish_trick(trick, self._trick_winner)

    def _finish_trick(self, plays: list[tuple[int, int]], winner: int) -> None:
        """Record a completed trick; the winner leads next, or the hand is scored."""
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
        self.to_move = winner
        if not self.hands[winner]:
            self._score_hand()

    def _trick_context(self) -> str:
        if self.phase is not Phase.PLAY or not self.trick:
            return ""
        led = CARDS[self.trick[0][1]]
        return f", {led} led, trump {self.trump_suit or 'not set'}"

    # ------------------------------------------------------------------ scoring
    def _score_hand(self) -> None:
        rules = self.rules
        assert self._table is not None
        played = (played_by_party(self.tricks, self.parties)
                  if rules.scoring.low_goes_to is LowGoesTo.PLAYER else None)
        pile = award_points(rules, self._table, self._piles, self._tricks_won, played)
        auction = rules.bidding.auction
        pitching_party = self.pitcher % self.parties
        contract = self.contract if auction else None
        settlement = settle_hand(rules, pile, pitching_party, contract, self.scores)
        winner, reason = decide_winner(rules, self.scores, settlement, pitching_party, len(self.results) + 1)
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
        )
        self.results.append(result)
        self.history.append(HandScored(result))
        if game_over:
            self._end_game(winner, reason)
            return
        self.dealer = (self.dealer + 1) % self.players
        self._start_deal()

    def _end_game(self, winner: int | None, reason: WinReason | None) -> None:
        self.winner = winner
        self.win_reason = reason
        self.phase = Phase.GAME_OVER
        self.to_move = -1


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
