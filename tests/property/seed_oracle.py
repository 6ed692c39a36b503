"""A second, preset-specific oracle for seed 003's ten-point family and seed 004's
two-trump pitch, written from the seed texts alone (``seed_oracle_five_handed``,
``seed_oracle_classic`` and ``seed_oracle_nine_five`` build on it for five-handed, seed
004's six-card named games, and nine-five/hotshot).

``pitch_props``'s oracle reads the ruleset's option fields, so a preset that sets an
option the seed does not ask for would pass it.  This oracle never reads the ruleset:
each preset's rules are constants below, quoted from its seed, and the game is only
driven through the engine's public surface (``legal_actions``/``apply``, the event log,
the current trick).  At every decision it recomputes the legal plays (or bids) and the
seat to move; at every scored hand the hand preparation, the trick winners, each point
award, made/set, the score changes, the scores and the end of the game.

Readings where the seeds are silent follow the presets' docstrings (they are the
documented reading the engine implements): the two jokers of seed 003 ("Joker, Joker")
are made one big, one little; defenders score the points they take and the pitcher's
points count first (seed 004's auction pitch); a score of zero is "above zero" for the
moon; in two-trump Low goes to its original holder and sub-low to its capturer.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from pitch_sdk.rules import (
    BIG_JOKER,
    CARDS,
    LITTLE_JOKER,
    PASS,
    Bid,
    Card,
    DecisionKind,
    GameState,
    MuckHand,
    Suit,
    Trick,
    preset,
)
from pitch_sdk.rules.events import AllPassed, BidMade, Burned, Dealt, Exchanged, HandScored, MuckShown, TrumpSet

#: Same colour, other suit: the off-cards' suit (seed 003: "jack of same color as trump").
SAME_COLOUR = {Suit.CLUBS: Suit.SPADES, Suit.SPADES: Suit.CLUBS, Suit.HEARTS: Suit.DIAMONDS,
               Suit.DIAMONDS: Suit.HEARTS}
JOKER_IDS = (int(BIG_JOKER), int(LITTLE_JOKER))
#: Point category names, as the engine's PointAward spells them, per (rank, off-card).
_CATEGORY = {(14, False): "ace", (14, True): "off-ace", (11, False): "jack", (11, True): "off-jack",
             (10, False): "ten", (10, True): "off-ten", (3, False): "three", (3, True): "off-three",
             (2, False): "two", (2, True): "off-two"}
Award = tuple[str, int, int, int | None]  # (category, value, party, card)


def bits(m: int) -> list[int]:
    """The card ids of a bit mask, lowest first (set bits only: the oracles call this at
    every decision)."""
    out = []
    m &= (1 << 54) - 1
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


def rank_of(card: int) -> int:
    """A suited card's rank (jokers have none)."""
    rank = CARDS[card].rank
    assert rank is not None, f"{CARDS[card]} has no rank"
    return rank


def mask(cards: Any) -> int:
    """The bit mask of card ids (``Card`` is an ``int``: no conversion in this hot loop)."""
    out = 0
    for card in cards:
        out |= 1 << card
    return out


# --------------------------------------------------------------------------- the seeds' constants
_TEN = {(14, False): 1, (11, False): 1, (11, True): 1, (10, False): 1, (2, False): 1, (3, False): 3}
_NO_THREE = {k: v for k, v in _TEN.items() if k != (3, False)}
_ALL_OFF = {**_TEN, (14, True): 1, (10, True): 1, (2, True): 1, (3, True): 3}
_ALL_OFFS = frozenset({14, 11, 10, 3, 2})


@dataclasses.dataclass(frozen=True)
class TenPoint:
    """One member of the ten-point family, as its seed paragraph states it."""

    name: str
    points: dict[tuple[int, bool], int]
    """Trump point cards: (rank, is the off-card) -> value."""
    joker_points: int = 1
    offs: frozenset[int] = frozenset({11})
    """Ranks whose same-colour card is a trump, just below its counterpart."""
    hand_size: int = 9
    minimum_bid: int = 4
    maximum_bid: int = 0
    """Highest ordinary bid (0: the points in play); the moon is one above it."""
    target: int = 52
    two_to_player: bool = True
    reverse: bool = False
    moon_wins: bool = False
    """Seed 004's moon ("they win the game; if they are set, they lose the game"); else
    seed 003's ("advances their score to 52 ... Failure ... constitutes loss of game")."""
    burned_to_opponents: bool = False
    double_bids: bool = False
    refill: bool = True
    """"Each player, in turn, then asks for a number of cards to fill their hand to six"."""
    misdeal: bool = False
    """Seed 004's off-ace game: "The misdeal rule is in effect" - "A player who has received
    no point cards may ask for a complete re-deal by the same dealer"."""

    @property
    def total(self) -> int:
        return sum(self.points.values()) + 2 * self.joker_points

    @property
    def top_bid(self) -> int:
        return self.maximum_bid or self.total


#: Seed 003 (ten-point and its "Point Variations"/"Other") and seed 004's 10-point games.
TEN_POINT_FAMILY: tuple[TenPoint, ...] = (
    # "each of the following is worth one point - ace, jack, off-jack, joker, joker, ten, and two.
    # The three is worth three points."
    TenPoint("ten-point", _TEN),
    TenPoint("five-point", _NO_THREE, joker_points=0),  # "the jokers and the three are not counted"
    TenPoint("seven-point", _NO_THREE),  # "the three is not counted as a point"
    TenPoint("eight-point", _TEN, joker_points=0),  # "the jokers are not counted as points"
    TenPoint("thirteen-point", {**_TEN, (3, True): 3}, offs=frozenset({11, 3})),  # "off-three ... worth three"
    TenPoint("eleven-point", {**_TEN, (3, True): 3}, joker_points=0, offs=frozenset({11, 3})),
    # "ALL off-points are used ... All off cards rank below their counterparts"
    TenPoint("sixteen-point", _ALL_OFF, offs=_ALL_OFFS),
    TenPoint("fifteen-point", {k: v for k, v in _ALL_OFF.items() if k != (2, True)}, offs=_ALL_OFFS),
    TenPoint("fourteen-point", _ALL_OFF, joker_points=0, offs=_ALL_OFFS),
    TenPoint("dirty", _TEN, two_to_player=False),  # "the two ... must be 'carried' as any other card"
    TenPoint("reverse-hierarchy", _TEN, reverse=True),  # "The two is the most powerful card"
    # seed 004: "nine cards. Minimum bid is 5, and the Shoot the Moon rule is in effect"
    # The off-ace game is "Played much like Campbell ten-point ... Play ends at 51 points rather than 32"
    TenPoint("nine-card-ten-point", _TEN, minimum_bid=5, moon_wins=True, target=32),
    # seed 004: "dealt six cards. Bids are usually from 1-9 ... '6 for 12'"
    TenPoint("oklahoma-ten", _TEN, hand_size=6, minimum_bid=1, maximum_bid=9, moon_wins=True, double_bids=True),
    # seed 004: "off-ace ... ranks just below the ace. Play ends at 51 ... minimum bid is 1 ... If a player is
    # forced to burn a card worth points, those points are awarded to the opposing team"; "The misdeal rule
    # is in effect"
    TenPoint("eleven-point-off-ace", {**_TEN, (14, True): 1}, offs=frozenset({14, 11}), minimum_bid=1, target=51,
             moon_wins=True, burned_to_opponents=True, misdeal=True),
)


def ten_point_trumps(variant: TenPoint, trump: Suit) -> list[int]:
    """Seed 003: "Ace, King, Queen, Jack, Off-jack, Joker, Joker, 10 ... 2", off-cards just
    below their counterparts; reverse hierarchy: "the same order but from top to bottom"."""
    order: list[int] = []
    for rank in range(14, 1, -1):
        order.append(int(Card.of(rank, trump)))
        if rank in variant.offs:
            order.append(int(Card.of(rank, SAME_COLOUR[trump])))
        if rank == 11:
            order += JOKER_IDS
    return order[::-1] if variant.reverse else order


def ten_point_category(variant: TenPoint, trump: Suit, card: int) -> tuple[str, int] | None:
    """The point a card is worth in this variant, if any."""
    if card in JOKER_IDS:
        return ("joker", variant.joker_points) if variant.joker_points else None
    key = (rank_of(card), CARDS[card].suit != trump)
    value = variant.points.get(key)
    return None if value is None else (_CATEGORY[key], value)


# --------------------------------------------------------------------------- driving a game
@dataclasses.dataclass
class OracleStats:
    hands: int = 0
    plays_checked: int = 0
    bids_checked: int = 0
    moons: int = 0
    games_won: int = 0


def play_checked(state: GameState, rng: random.Random, checker: Any, max_steps: int = 20_000) -> OracleStats:
    """Play random legal actions to the end, letting ``checker`` check every decision and
    every scored hand against its seed."""
    stats = OracleStats()
    seen = 0
    for _ in range(max_steps):
        history = state.history
        for event in history[seen:]:
            if isinstance(event, Dealt):
                checker.new_hand(event)
            elif isinstance(event, HandScored):
                checker.scored(state, event.result, stats)
                stats.hands += 1
            else:
                checker.event(event)
        seen = len(history)
        if state.is_over:
            return stats
        legal = state.legal_actions()
        checker.decision(state, legal, stats)
        state.apply(checker.choose(legal, rng))
    raise AssertionError("game does not end")


def play_games(name: str, games: int, first_seed: int, max_hands: int,
               oracle: Callable[[random.Random], HandTracker]) -> OracleStats:
    """Play ``games`` seeded games of preset ``name``, each capped at a random number of
    hands, summing what the oracle checked."""
    total = OracleStats()
    for seed in range(first_seed, first_seed + games):
        rng = random.Random(seed)
        rules = preset(name).with_options(max_hands=rng.randint(1, max_hands))
        try:
            stats = play_checked(GameState.new(rules, seed=seed, dealer=seed % 4), rng, oracle(rng))
        except AssertionError as exc:
            raise AssertionError(f"{name}, seed {seed}: {exc}") from exc
        for field in dataclasses.fields(OracleStats):
            setattr(total, field.name, getattr(total, field.name) + getattr(stats, field.name))
    return total



class HandTracker:
    """What both oracles track of a hand: the deal, the bids, trump, and the tricks, from
    the event log; the hands are replayed from the deal, not read from the engine."""

    players = 4

    def __init__(self) -> None:
        self.scores = [0] * self.parties

    @property
    def parties(self) -> int:
        return self.players

    def new_hand(self, dealt: Dealt) -> None:
        self.dealt = dealt
        self.hands = list(dealt.hands)
        self.stock = list(dealt.stock)
        self.bids: list[BidMade] = []
        self.trump: Suit | None = None
        self.sub: Suit | None = None
        self.tricks: list[Trick] = []
        self.burned = [0] * self.players
        self.preparation: list[Any] = []

    @property
    def eldest(self) -> int:
        return (self.dealt.dealer + 1) % self.players

    @property
    def high(self) -> BidMade | None:
        made = [b for b in self.bids if b.amount]
        return made[-1] if made else None

    def event(self, event: Any) -> None:
        if isinstance(event, BidMade):
            self.bids.append(event)
        elif isinstance(event, TrumpSet):
            if event.sub:
                self.sub = event.suit
            else:
                self.trump = event.suit
        elif isinstance(event, (Exchanged, Burned)):
            self.preparation.append(event)
        elif isinstance(event, Trick):
            self.tricks.append(event)
            for seat, card in event.plays:
                assert self.hands[seat] >> card & 1, f"seat {seat} played {CARDS[card]}, not in its hand"
                self.hands[seat] &= ~(1 << card)

    def check_bids(self, state: GameState, legal: list[Any], lowest: int, top: int, extra: tuple[int, ...],
                   forced: list[Any] | None) -> None:
        """Each player once, from eldest, bids higher than the standing bid or passes; a
        dealer facing only passes is offered exactly ``forced`` (``None``: it may pass too,
        and the deal is abandoned)."""
        seat = (self.eldest + len(self.bids)) % self.players
        assert state.to_move == seat, f"seat {state.to_move} bids, expected {seat}"
        high = self.high.amount if self.high else 0
        everyone_passed = len(self.bids) == self.players - 1 and not high
        if everyone_passed and forced is not None:
            assert legal == forced, f"forced dealer offered {legal}, the seed says {forced}"
            return
        straight = sorted(a.amount for a in legal if isinstance(a, Bid) and not a.double)
        expected = [n for n in (*range(lowest, top + 1), *extra) if n > high]
        assert straight == expected, f"bids {straight} over {high}, expected {expected}"
        assert PASS in legal, "a bidder who is not the stuck dealer may not pass"

    def choose(self, legal: list[Any], rng: random.Random) -> Any:
        """A uniformly random legal action (the ten-point oracle shoots the moon less)."""
        return rng.choice(legal)

    def current_trick(self, state: GameState) -> list[tuple[int, int]]:
        return [(seat, int(card)) for seat, card in state.trick]


# --------------------------------------------------------------------------- ten-point
class TenPointOracle(HandTracker):
    """Seed 003's hand: four players in two teams ("a partner who 'sits' across")."""

    def __init__(self, variant: TenPoint, moon_rate: float = 0.01) -> None:
        self.variant = variant
        self.moon_rate = moon_rate
        self._orders: dict[Suit, list[int]] = {}
        self._trump_masks: dict[Suit, int] = {}
        super().__init__()

    @property
    def parties(self) -> int:
        return 2

    def order(self) -> list[int]:
        """The trumps high to low, worked out once per trump suit in a game (the oracle
        asks at every play); callers must not change the list."""
        assert self.trump is not None
        order = self._orders.get(self.trump)
        if order is None:
            order = self._orders[self.trump] = ten_point_trumps(self.variant, self.trump)
        return order

    def trump_mask(self) -> int:
        """The mask of :meth:`order`, once per trump suit."""
        assert self.trump is not None
        trumps = self._trump_masks.get(self.trump)
        if trumps is None:
            trumps = self._trump_masks[self.trump] = mask(self.order())
        return trumps

    def choose(self, legal: list[Any], rng: random.Random) -> Any:
        """Mostly not the moon: a uniform bidder shoots it in most hands, and a shot moon
        ends the game, so scoring and the target would rarely be reached otherwise."""
        plain = [a for a in legal if not (isinstance(a, Bid) and a.amount > self.variant.top_bid)]
        return rng.choice(plain if plain and rng.random() >= self.moon_rate else legal)

    #: The decisions seed 003's hand asks: bid, name trump, pass the leftovers or not, burn, play.
    kinds = frozenset({DecisionKind.BID, DecisionKind.DECLARE_TRUMP, DecisionKind.CHOICE, DecisionKind.CHOOSE_CARDS,
                       DecisionKind.PLAY})
    #: Cards "which could contribute toward the Game point" (seed 004's card distribution
    #: section: the pips of 10, A, K, Q, J, and the jokers' half pip).
    _PIP_CARDS = mask([int(Card.of(r, s)) for s in Suit for r in (10, 11, 12, 13, 14)] + list(JOKER_IDS))
    redealt: Dealt | None = None

    def new_hand(self, dealt: Dealt) -> None:
        """After a misdeal "the same dealer" deals again: the same dealer, the same hand."""
        if self.redealt is not None:
            assert (dealt.dealer, dealt.hand_number) == (self.redealt.dealer, self.redealt.hand_number), \
                f"deal {dealt.hand_number} by {dealt.dealer} after a misdeal of {self.redealt}"
            self.redealt = None
        super().new_hand(dealt)

    def event(self, event: Any) -> None:
        if isinstance(event, MuckShown):
            assert self.variant.misdeal and event.redeal, f"{self.variant.name}: a hand thrown in ({event})"
            assert not self.bids and event.cards == self.dealt.hands[event.seat], "the misdeal shows another hand"
            self.redealt = self.dealt
        super().event(event)

    def decision(self, state: GameState, legal: list[Any], stats: OracleStats) -> None:
        kind = state.decision().kind
        v = self.variant
        if kind is DecisionKind.MUCK and v.misdeal:
            # "A player who has received no point cards may ask for a complete re-deal", before bidding
            assert not self.bids and not self.dealt.hands[state.to_move] & self._PIP_CARDS, \
                f"seat {state.to_move} asked for a misdeal with point cards"
            assert legal == [MuckHand(False), MuckHand(True)], f"misdeal answers {legal}"
            return
        assert kind in self.kinds, f"{v.name} asks a {kind} decision, which its seed does not know"
        if kind is DecisionKind.BID:
            # "The minimum bid is four ... If no one bids ... the dealer MUST take the bid for four"
            self.check_bids(state, legal, v.minimum_bid, v.top_bid, (v.top_bid + 1,), [Bid(v.minimum_bid)])
            if v.double_bids:
                doubles = sorted(a.amount for a in legal if isinstance(a, Bid) and a.double)
                assert set(doubles) <= set(range(v.minimum_bid, v.top_bid + 1))
            stats.bids_checked += 1
        elif kind is DecisionKind.CHOICE:  # the only yes/no the seed asks, and only of the bidder:
            # "If the bidder so choses he/she can pass those cards to his/her partner"
            assert self.parties == 2 and self.trump is not None and self.high is not None and not self.tricks \
                and state.to_move == self.high.seat, f"{v.name} asks a yes/no question its seed does not ask"
        elif kind is DecisionKind.PLAY:
            self.check_preparation()
            trumps = self.trump_mask()
            assert all(not h & ~trumps for h in self.hands), "a non-trump stayed in a hand"
            assert all(h.bit_count() <= 6 for h in self.hands), "a hand above six trumps"
            seat = self.seat_to_play(self.current_trick(state))
            assert state.to_move == seat, f"seat {state.to_move} plays, expected {seat} (out players skipped)"
            got = mask(int(a.card) for a in legal)
            # "Only those cards belonging to the trump suit are allowed as legal plays"
            assert got == self.hands[seat] & trumps, f"legal {bits(got)} != trumps held {bits(self.hands[seat])}"
            stats.plays_checked += 1

    def seat_to_play(self, trick: list[tuple[int, int]]) -> int:
        """"the person taking the trick leads the following trick unless they have no more
        cards in trump. In this case the person to his/her left leads. A person having no
        cards in trump is 'out'"."""
        played = {seat for seat, _ in trick}
        held = [h & ~mask(c for _, c in trick) for h in self.hands]
        if trick:
            start = (trick[-1][0] + 1) % self.players
        else:
            assert self.high is not None
            start = self.tricks[-1].winner if self.tricks else self.high.seat  # "The bidder then leads"
        for k in range(self.players):
            seat = (start + k) % self.players
            if seat not in played and held[seat]:
                return seat
        raise AssertionError("nobody left to play")

    def check_preparation(self) -> None:
        """"Each player then discards the cards ... not in trump ... Each player, in turn,
        then asks for a number of cards to fill their hand to six cards. Any cards remaining
        are given to the bidder. If the bidder so choses he/she can pass those cards to
        his/her partner ... someone has more than six cards in the trump suit they must
        'burn' cards until they have only six.\""""
        if not self.preparation and not self.stock:
            return  # checked already
        assert self.high is not None and self.trump is not None
        bidder = self.high.seat
        trumps = self.trump_mask()
        events = list(self.preparation)
        hands = list(self.dealt.hands)
        stock = list(self.stock)
        expected: list[Any] = []
        seats = [(self.eldest + k) % self.players for k in range(self.players)]
        for seat in seats:
            need = max(0, 6 - (hands[seat] & trumps).bit_count()) if self.variant.refill else 0
            drawn = mask(stock[:need])
            del stock[:need]
            if hands[seat] & ~trumps or drawn:
                expected.append(Exchanged(seat, hands[seat] & ~trumps, drawn))
            hands[seat] = hands[seat] & trumps | drawn
        if stock:
            given = events[len(expected)] if len(events) > len(expected) else None
            partner = (bidder + 2) % 4 if self.parties == 2 else None
            receiver = given.seat if isinstance(given, Exchanged) and given.seat == partner else bidder
            expected.append(Exchanged(receiver, 0, mask(stock)))
            hands[receiver] |= mask(stock)
        for seat in seats:  # the leftovers' non-trumps: "Only ... the trump suit are ... legal plays"
            if hands[seat] & ~trumps:
                expected.append(Exchanged(seat, hands[seat] & ~trumps, 0))
                hands[seat] &= trumps
        assert events[:len(expected)] == expected, f"preparation {events} != the seed's {expected}"
        burns = events[len(expected):]
        assert [b.seat for b in burns] == [s for s in seats if hands[s].bit_count() > 6], f"burns {burns}"
        for burn in burns:
            assert isinstance(burn, Burned) and not burn.cards & ~hands[burn.seat]
            hands[burn.seat] &= ~burn.cards
            assert hands[burn.seat].bit_count() == 6, "burned to other than six"
            self.burned[burn.seat] |= burn.cards
        self.hands, self.stock, self.preparation = hands, [], []

    def played_awards(self, result: Any, party_of: list[int]) -> list[Award]:
        """Checks the hand's tricks and awards, ``party_of`` mapping each seat to the party
        that scores for it; returns the seed's awards."""
        v = self.variant
        assert self.high is not None and self.trump is not None
        bid, bidder = self.high, self.high.seat
        self.check_preparation()  # a hand where nobody held a trump has no play decision
        assert not any(self.hands), "cards in play were not played"
        assert result.pitcher == bidder and result.trump == self.trump and result.bid == bid.amount
        order = self.order()
        rank = {card: i for i, card in enumerate(order)}
        expected: list[Award] = []
        for trick in self.tricks:  # "Highest card takes the trick"
            taker = min(trick.plays, key=lambda play: rank[play[1]])[0]
            assert trick.winner == taker, f"{trick} won by {trick.winner}, expected {taker}"
            for seat, card in trick.plays:
                point = ten_point_category(v, self.trump, card)
                if point is not None:  # "The two goes to the person who plays it"
                    owner = seat if point[0] == "two" and v.two_to_player else taker
                    expected.append((*point, party_of[owner], card))
        for seat, cards in enumerate(self.burned):  # "Burned cards are removed from play"
            for card in bits(cards):
                point = ten_point_category(v, self.trump, card)
                if point is not None and v.burned_to_opponents:
                    expected.append((*point, party_of[(seat + 1) % self.players], card))
        got = [(str(a.category), a.value, a.party, None if a.card is None else int(a.card)) for a in result.awards]
        assert Counter(got) == Counter(expected), f"awards {sorted(got, key=str)} != {sorted(expected, key=str)}"
        return expected

    def scored(self, state: GameState, result: Any, stats: OracleStats) -> None:
        v = self.variant
        expected = self.played_awards(result, [seat % 2 for seat in range(4)])
        assert self.high is not None
        bid, bidder = self.high, self.high.seat
        won = [sum(a[1] for a in expected if a[2] == party) for party in (0, 1)]
        assert list(result.points_won) == won
        team, other = bidder % 2, (bidder + 1) % 2
        moon = bid.amount == v.top_bid + 1  # "Shooting the moon means takin all 10 points"
        made = won[team] >= (v.total if moon else bid.amount)
        assert result.made == made and result.moon == moon and result.doubled == bid.double
        stakes = bid.amount * (2 if bid.double else 1)
        before = list(self.scores)
        changes = [0, 0]
        changes[other] = won[other]  # defenders score what they take
        winner: int | None = None
        if moon:
            stats.moons += 1
            if not made:  # "Failure to score all ten points constitutes loss of game"
                winner = other
            elif v.moon_wins:
                winner = team
            else:  # "advances their score to 52 if ... above zero or to zero if ... below zero"
                changes[team] = (v.target if before[team] >= 0 else 0) - before[team]
        else:
            changes[team] = stakes if made else -stakes  # "receive that number of points" / "set"
        # a moon that wins or loses the game outright: the seeds say nothing of the score
        checked = (other,) if winner is not None else (0, 1)
        assert all(result.score_changes[p] == changes[p] for p in checked), \
            f"changes {result.score_changes} != {changes}"
        self.scores = [b + c for b, c in zip(before, result.score_changes, strict=True)]
        assert list(result.scores) == self.scores
        if winner is None:  # "The first team to reach 52"; the pitcher's points count first
            final = [before[p] + changes[p] for p in (0, 1)]
            winner = team if final[team] >= v.target else other if final[other] >= v.target else None
        check_end(state, result, winner, stats)


def check_end(state: GameState, result: Any, winner: int | None, stats: OracleStats) -> None:
    """The game ends when the seed says someone won, with that winner; otherwise it goes
    on, but for the hand limit the harness sets."""
    if winner is not None:
        assert result.game_over and result.winner == winner, f"winner {result.winner} != the seed's {winner}"
        stats.games_won += 1
    elif result.game_over:
        assert len(state.results) >= state.rules.win.max_hands, f"game ended without a winner: {result}"


# --------------------------------------------------------------------------- two-trump
#: Seed 004: "Nine points are possible: high, low, jack, sub-high, sub-low, sub-jack, both
#: jokers, and game" - the order they count in, after the pitcher's points.
TWO_TRUMP_ORDER = ("high", "low", "jack", "sub-high", "sub-low", "sub-jack", "joker", "game")
_PIPS = {10: 10, 14: 4, 13: 3, 12: 2, 11: 1}


class TwoTrumpOracle(HandTracker):
    """Seed 004's two-trump pitch, four players alone, six cards each (basic pitch's deal),
    "Bids 3 (or 4) to 9 ... Games are played to 26 points"."""

    target = 26
    abandoned: AllPassed | None = None

    def event(self, event: Any) -> None:
        if isinstance(event, AllPassed):
            assert len(self.bids) == self.players and not self.high, "a deal abandoned with a bid standing"
            self.abandoned = event
        super().event(event)

    def new_hand(self, dealt: Dealt) -> None:
        """After an abandoned deal "the same dealer deals again", the same hand."""
        if self.abandoned is not None:
            assert (dealt.dealer, dealt.hand_number) == (self.abandoned.dealer, self.abandoned.hand_number), \
                f"deal {dealt.hand_number} by {dealt.dealer} after all passed on {self.abandoned}"
            self.abandoned = None
        super().new_hand(dealt)

    def decision(self, state: GameState, legal: list[Any], stats: OracleStats) -> None:
        kind = state.decision().kind
        if kind is DecisionKind.BID:
            # No forced bid: the seed's auction pitch, "If no player bids, the deal is abandoned
            # and the same dealer deals again" (checked in new_hand).
            self.check_bids(state, legal, 3, 9, (), None)
            stats.bids_checked += 1
        elif kind is DecisionKind.PLAY:
            assert self.trump is not None and self.sub is not None and self.sub != self.trump
            trick = self.current_trick(state)
            seat = self.seat_to_play(trick)
            assert state.to_move == seat, f"seat {state.to_move} plays, expected {seat}"
            got = mask(int(a.card) for a in legal)
            want = self.legal_plays(self.hands[seat], [c for _, c in trick])
            assert got == want, f"legal {bits(got)} != the seed's {bits(want)} (trick {trick})"
            stats.plays_checked += 1

    def seat_to_play(self, trick: list[tuple[int, int]]) -> int:
        if trick:
            return (trick[-1][0] + 1) % self.players
        assert self.high is not None
        return self.tricks[-1].winner if self.tricks else self.high.seat

    def legal_plays(self, hand: int, plays: list[int]) -> int:
        """"Players follow suit as in other variations; sub-trumps do not count as trumps for
        this purpose. sub-trumps may be used to 'trump in,' on non-trump leads ... If a
        sub-trump is lead, main trump can be 'trumped in' ... When leading a joker it is
        considered to be suit-less, the second play of the trick determines the lead suit
        ... If a trump suit is lead, jokers may not be cut in if the player in possession of
        the joker has cards of that trump remaining. A joker may be cut in at any time if a
        non-trump suit is lead"; following as in auction pitch: follow suit or trump.  The
        sub-trump is "a trump suit" too: no joker on its lead while holding it."""
        suited = [c for c in plays if c not in JOKER_IDS]
        if not suited:
            return hand
        assert self.trump is not None and self.sub is not None
        led = CARDS[suited[0]].suit
        of_suit = {s: hand & mask(Card.of(r, s) for r in range(2, 15)) for s in Suit}
        jokers = hand & mask(JOKER_IDS)
        follow = of_suit[led]  # type: ignore[index]
        if not follow:
            return hand
        if led == self.trump:
            return follow
        if led == self.sub:
            return follow | of_suit[self.trump]
        return follow | of_suit[self.trump] | jokers | of_suit[self.sub]

    def winner_of(self, plays: tuple[tuple[int, int], ...]) -> int:
        """Trump beats sub-trump beats the suit led; jokers "cannot be used to capture"."""
        assert self.trump is not None and self.sub is not None
        suited = [(seat, c) for seat, c in plays if c not in JOKER_IDS]
        led = CARDS[suited[0][1]].suit
        for suit in (self.trump, self.sub, led):
            cards = [(rank_of(c), seat) for seat, c in suited if CARDS[c].suit == suit]
            if cards:
                return max(cards)[1]
        raise AssertionError("unreachable")

    def scored(self, state: GameState, result: Any, stats: OracleStats) -> None:
        assert self.high is not None and self.trump is not None and self.sub is not None
        bid, bidder = self.high, self.high.seat
        assert result.pitcher == bidder and result.trump == self.trump and result.bid == bid.amount
        assert not self.preparation and not any(self.hands), "no exchange in two-trump; every card is played"
        capturer: dict[int, int] = {}
        player: dict[int, int] = {}
        pips = [0] * 4
        for trick in self.tricks:
            winner = self.winner_of(trick.plays)
            assert trick.winner == winner, f"{trick} won by {trick.winner}, expected {winner}"
            for seat, card in trick.plays:
                capturer[card], player[card] = winner, seat
                if card not in JOKER_IDS:  # the seed gives jokers no pips
                    pips[winner] += _PIPS.get(rank_of(card), 0)
        assert list(result.pips) == pips

        def ranked(suit: Suit) -> list[int]:
            return sorted((c for c in capturer if c not in JOKER_IDS and CARDS[c].suit == suit),
                          key=rank_of, reverse=True)

        trumps, subs = ranked(self.trump), ranked(self.sub)
        expected: list[Award] = []
        if trumps:
            expected += [("high", 1, capturer[trumps[0]], trumps[0]), ("low", 1, player[trumps[-1]], trumps[-1])]
        jack = int(Card.of(11, self.trump))
        if jack in capturer:
            expected.append(("jack", 1, capturer[jack], jack))
        if subs:
            expected += [("sub-high", 1, capturer[subs[0]], subs[0]), ("sub-low", 1, capturer[subs[-1]], subs[-1])]
        sub_jack = int(Card.of(11, self.sub))
        if sub_jack in capturer:
            expected.append(("sub-jack", 1, capturer[sub_jack], sub_jack))
        expected += [("joker", 1, capturer[j], j) for j in JOKER_IDS if j in capturer]
        if pips.count(max(pips)) == 1:
            expected.append(("game", 1, pips.index(max(pips)), None))
        got = [(str(a.category), a.value, a.party, None if a.card is None else int(a.card)) for a in result.awards]
        assert Counter(got) == Counter(expected), f"awards {got} != {expected}"
        won = [sum(a[1] for a in expected if a[2] == p) for p in range(4)]
        assert list(result.points_won) == won
        made = won[bidder] >= bid.amount
        assert result.made == made and not result.moon
        # seed 004's auction pitch: "Players may receive points even if they did not win the auction. A pitcher who
        # did not win at least the number of points undertaken ... is instead set back by the amount of the bid"
        changes = list(won)
        changes[bidder] = won[bidder] if made else -bid.amount
        assert list(result.score_changes) == changes, f"changes {result.score_changes} != {changes}"
        before = self.scores
        self.scores = [b + c for b, c in zip(before, changes, strict=True)]
        assert list(result.scores) == self.scores
        # "Any points won by the pitcher are counted first. Thereafter the remaining points are
        # awarded in the order as listed above"
        running = list(before)
        running[bidder] += changes[bidder]
        game_winner = bidder if running[bidder] >= self.target else None
        for category in TWO_TRUMP_ORDER:
            for award in expected:
                if game_winner is None and award[0] == category and award[2] != bidder:
                    running[award[2]] += award[1]
                    if running[award[2]] >= self.target:
                        game_winner = award[2]
        check_end(state, result, game_winner, stats)
