"""The seed-text oracle for seed 004's named games played with a whole trick-taking hand:
Contway 6-point, Kentucky 7-point and its South-East Missouri form, and the three teams
of three.

Like :mod:`seed_oracle` it never reads the ruleset: each game's rules are the constants
of a :class:`Classic`, quoted from its seed paragraph, and the game is driven only through
the engine's public surface.  At every decision it recomputes who is to move and the legal
bids, trumps and plays; at every scored hand the deal, the exchange, the trick winners,
each point award, made/set, the score changes, the scores and the end of the game.

Where a paragraph is silent the reading is the preset's docstring, else the default hand
of ``/work/shared/RULES.md`` (the project's reading of seed 004's basic and auction
pitch): play follows auction pitch ("a player who can follow suit to a plain suit lead is
nonetheless allowed to play a trump"); High is the highest trump in play, Low the lowest,
a joker included (seed 004 sets a joker aside for Low only where it ranks "below the two of
trumps": "For the determination of the low point it is ignored"), and Low goes to
its original holder ("the point for low is often awarded to the player who won the trick
containing the lowest trump, rather than the original owner" - capture is the option);
jokers rank "just below the jack" (below the off-jack where there is one, as in seed 003)
and "are not allowed to be led in the first trick"; Contway's and Kentucky's jokers carry no
pips: their off-jack-then-joker order is the seed's "Off-jack, jokers and odd trumps" ("one
can rank the joker between the off-jack and the ten of trumps ... one can play with the
off-jack and more than one joker"), which gives jokers no pips, not auction pitch's
two-joker variation ("Jokers are worth half a pip"); the pitcher's party scores what it
took if that reaches the bid, else is set back by the bid, and the other parties score
what they took ("Players may receive points even if they did not win the auction").
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from typing import Any

from seed_oracle import JOKER_IDS, SAME_COLOUR, Award, HandTracker, OracleStats, bits, check_end, mask, rank_of

from pitch_sdk.rules import CARDS, SPECTATOR, Bid, Card, DecisionKind, DeclareTrump, GameState, Suit, observe
from pitch_sdk.rules.events import Dealt, Exchanged, TrumpSet

#: Each suit's thirteen cards, as a bit mask.
SUIT_MASK = {suit: mask(Card.of(rank, suit) for rank in range(2, 15)) for suit in Suit}
#: Seed 004: "Cards rank as in whist and have certain numerical values called pips"
#: (10 = 10, A = 4, K = 3, Q = 2, J = 1).
PIPS = {10: 10, 14: 4, 13: 3, 12: 2, 11: 1}


@dataclasses.dataclass(frozen=True)
class Classic:
    """One named game of seed 004, as its paragraph states it."""

    name: str
    points: tuple[str, ...]
    """The point categories, in the order they count towards the target."""
    minimum_bid: int
    maximum_bid: int
    players: int = 4
    parties: int = 2
    """Partners sit ``parties`` seats apart: seat ``s`` plays for party ``s % parties``."""
    jokers: int = 0
    off_jack: bool = False
    removed_ranks: tuple[int, ...] = ()
    hand_size: int = 6
    forced_minimum_only: bool = False
    """The dealer facing only passes must bid exactly the minimum (else: at least it)."""
    declared: bool = False
    """The bidder names trump before play (else the pitcher's first lead sets it)."""
    refill: bool = False
    """Everyone discards the non-trumps and is dealt back up to six."""
    face_up: bool = False
    """The discards lie "face up in the center of the table" (Kentucky): every seat and a
    spectator see them; the cards dealt back stay their receiver's."""
    joker_pip: float = 0.0
    target: int = 21
    bid_made_to_win: bool = True
    """Only a pitching party that made its bid may reach the target (bid to go out)."""
    pookie: bool = False
    """A set party "give[s] back any points ... and receive[s] 1 negative point"."""
    counting_cards: tuple[tuple[str, int, int], ...] = ()
    """Trumps worth points to their capturer: (category, rank, value)."""
    revoke_penalty: bool = False
    """Auction pitch's "A player who can follow suit but discards a card of a different
    non-trump suit is punished for the revoke by being set back by the value of the bid":
    the discard is legal, and its party's change for the hand is minus the bid per revoke
    (the engine's documented reading, docs/variants.md "Recorded awards")."""

    def deck(self) -> int:
        suited = (int(Card.of(r, s)) for s in Suit for r in range(2, 15) if r not in self.removed_ranks)
        return mask(suited) | mask(JOKER_IDS[:self.jokers])

    def trumps(self, trump: Suit) -> list[int]:
        """The trump suit high to low: "ace, king, queen, jack, off-jack, joker, 10,9,8,...2"."""
        order: list[int] = []
        for rank in range(14, 1, -1):
            if rank in self.removed_ranks:
                continue
            order.append(int(Card.of(rank, trump)))
            if rank == 11:
                if self.off_jack:
                    order.append(int(Card.of(11, SAME_COLOUR[trump])))
                order += JOKER_IDS[:self.jokers]
        return order


_SIX = ("high", "low", "jack", "off-jack", "joker", "game")
CLASSIC_GAMES: tuple[Classic, ...] = (
    # "a regular 52-card deck plus one joker. The six points consist of high, low, jack, off-jack, joker, and
    # game. Trump suit includes the off-jack and joker and is ordered ace, king, queen, jack, off-jack, joker,
    # 10,9,8,...2. Four people play in teams of two with partners sitting across ... Each player is dealt six
    # cards ... Each player has the option to either pass or outbid the previous bid. The minimum bid is 2, and
    # if all players pass, the dealer is given the minimum bid"; "based on auction pitch" (the pitcher
    # pitches, and a revoke is set back by the bid); the docstring's reading: to 21 "reached after making the bid".
    Classic("contway-six", _SIX, 2, 6, jokers=1, off_jack=True, forced_minimum_only=True, revoke_penalty=True),
    # "seven possible points: high, low, jack, off-jack, big joker, little joker, and game. The game is played to
    # 21 points. Bids between 3 and 7 are allowed. The highest bidder calls trumps, and players discard non-trump
    # cards face up in the center of the table. The dealer then distributes 6 cards to each player"
    Classic("kentucky-seven", _SIX, 3, 7, jokers=2, off_jack=True, declared=True, refill=True,
            face_up=True),
    # "played with a 34 card deck (2s-6s removed with a 10 card blind, no discarding). Points and bids are the
    # same as described above"
    Classic("missouri-seven", _SIX, 3, 7, jokers=2, off_jack=True, removed_ranks=(2, 3, 4, 5, 6), declared=True),
    # "3 teams with 3 partners each. Partners are seated an equal 2 seat between each other. All 54 cards
    # (including high joker and low joker). Points are awarded for high trump (ace), jack of trump, high joker,
    # low joker, low trump (2) and trick/card points (82 points possible, each joker worth 1/2 point). Each
    # player left of the dealer has a chance to bid 1-6 points with the winning bidder leading their trump. If a
    # team does not make their bid they must give back any points (chips) they have accumulated and receive 1
    # negative point (pookie)."  The docstring's reading: to 21, any team may win.
    Classic("three-teams", ("high", "jack", "joker", "low", "game"), 1, 6, players=9, parties=3, jokers=2,
            joker_pip=0.5, bid_made_to_win=False, pookie=True),
)
_KINDS = {DecisionKind.BID, DecisionKind.DECLARE_TRUMP, DecisionKind.PLAY}


class ClassicOracle(HandTracker):
    """One game of a :class:`Classic`, checked against its paragraph."""

    def __init__(self, game: Classic) -> None:
        self.game = game
        self.deck = game.deck()
        self.players = game.players
        self.last_dealer: int | None = None
        self.strict: int | None = None
        """At a play decision under the revoke penalty, the plays that are no revoke."""
        super().__init__()

    @property
    def parties(self) -> int:
        return self.game.parties

    def new_hand(self, dealt: Dealt) -> None:
        g = self.game
        if self.last_dealer is not None:  # "Normal play rotation is clockwise"
            assert dealt.dealer == (self.last_dealer + 1) % g.players, "the deal did not pass left"
        self.last_dealer = dealt.dealer
        assert len(dealt.hands) == g.players and all(h.bit_count() == g.hand_size for h in dealt.hands)
        every = [*(c for h in dealt.hands for c in bits(h)), *dealt.stock]
        assert len(every) == len(set(every)) and mask(every) == self.deck, "the deal is not the seed's pack"
        super().new_hand(dealt)
        self.exchanged = False

    def choose(self, legal: list[Any], rng: random.Random) -> Any:
        """Mostly a pass or the lowest bid: uniform bidders overbid and are set nearly every
        hand, so the target (and the end-of-game check) would rarely be reached."""
        bids = [a for a in legal if isinstance(a, Bid)]
        if bids and rng.random() < 0.8:
            return rng.choice([a for a in legal if a not in bids] + bids[:1])
        if self.strict is not None and rng.random() < 0.95:  # mostly no revoke: each costs the bid
            return rng.choice([a for a in legal if self.strict >> int(a.card) & 1])
        return rng.choice(legal)

    # ------------------------------------------------------------------ decisions
    def decision(self, state: GameState, legal: list[Any], stats: OracleStats) -> None:
        g = self.game
        kind = state.decision().kind
        assert kind in _KINDS, f"{g.name} asks a {kind} decision, which its seed paragraph does not know"
        self.strict = None
        if kind is DecisionKind.BID:
            assert self.trump is None and not self.tricks
            forced = [Bid(g.minimum_bid)] if g.forced_minimum_only else \
                [Bid(n) for n in range(g.minimum_bid, g.maximum_bid + 1)]
            self.check_bids(state, legal, g.minimum_bid, g.maximum_bid, (), forced)
            stats.bids_checked += 1
        elif kind is DecisionKind.DECLARE_TRUMP:
            assert g.declared and self.high is not None and len(self.bids) == g.players
            assert state.to_move == self.high.seat, "someone other than the high bidder names trump"
            assert legal == [DeclareTrump(s) for s in Suit]
        else:
            if not self.exchanged:
                self.apply_exchange()
                self.check_discards_seen(state)
            trick = self.current_trick(state)
            seat = self.seat_to_play(trick)
            assert state.to_move == seat, f"seat {state.to_move} plays, expected {seat}"
            got = mask(int(a.card) for a in legal)
            want = self.legal_plays(self.hands[seat], [c for _, c in trick])
            assert got == want, f"legal {bits(got)} != the seed's {bits(want)} (trick {trick}, trump {self.trump})"
            if g.revoke_penalty and trick:
                self.strict = self.following(self.hands[seat], trick[0][1])
            stats.plays_checked += 1

    def seat_to_play(self, trick: list[tuple[int, int]]) -> int:
        """"the highest bidder pitches"; "the winner of each trick leads to the next"."""
        if trick:
            return (trick[-1][0] + 1) % self.players
        return self.tricks[-1].winner if self.tricks else self.first_leader()

    def event(self, event: Any) -> None:
        super().event(event)
        if isinstance(event, TrumpSet) and not event.sub:
            self.order = self.game.trumps(event.suit)
            self.trump_mask = mask(self.order)

    def legal_plays(self, hand: int, plays: list[int]) -> int:
        """"a player who can follow suit to a plain suit lead is nonetheless allowed to play
        a trump"; a trump led must be followed by a trump; a void player plays anything.
        The first lead: any card but a joker ("not allowed to be led in the first trick")."""
        if not plays:
            return hand & ~mask(JOKER_IDS) if not self.tricks else hand
        if self.game.revoke_penalty:  # a revoke (any other plain card) may be played; it costs the bid
            return hand
        return self.following(hand, plays[0])

    def following(self, hand: int, led: int) -> int:
        """The plays of ``hand`` to a trick led by ``led`` that are no revoke."""
        trumps = self.trump_mask
        suit_led = trumps if trumps >> led & 1 else SUIT_MASK[CARDS[led].suit] & ~trumps  # type: ignore[index]
        follow = hand & suit_led
        return follow | hand & trumps if follow else hand

    def revokes(self) -> list[tuple[int, int]]:
        """The hand's revokes as (seat, card): a plain card of another suit played while
        holding the suit led, trumps included on a trump lead ("discards a card of a
        different non-trump suit"); every card is played, so a seat's holding at a trick is
        what it played from that trick on."""
        trumps = self.trump_mask
        held = [0] * self.players
        for trick in self.tricks:
            for seat, card in trick.plays:
                held[seat] |= 1 << card
        found = []
        for trick in self.tricks:
            led = trick.plays[0][1]
            suit_led = trumps if trumps >> led & 1 else SUIT_MASK[CARDS[led].suit] & ~trumps  # type: ignore[index]
            for seat, card in trick.plays[1:]:
                if held[seat] & suit_led and not (suit_led | trumps) >> card & 1:
                    found.append((seat, card))
            for seat, card in trick.plays:
                held[seat] &= ~(1 << card)
        return found

    def apply_exchange(self) -> None:
        """Kentucky: "players discard non-trump cards face up in the center of the table. The
        dealer then distributes 6 cards to each player in batches of 1" (each player back up
        to six, from eldest, in the stock's order: dealing "in batches of 1" round the table
        would hand out the same shuffled stock in another order, so the engine's fill-each-in-
        turn is accepted); the others have no exchange ("no discarding")."""
        if self.exchanged:
            return
        self.exchanged = True
        if not self.game.refill:
            assert not self.preparation, f"{self.game.name} has no exchange: {self.preparation}"
            return
        assert self.trump is not None
        trumps = self.trump_mask
        stock = list(self.stock)
        expected = []
        for seat in ((self.eldest + k) % self.players for k in range(self.players)):
            kept = self.hands[seat] & trumps
            drawn = stock[:6 - kept.bit_count()]
            del stock[:len(drawn)]
            expected.append(Exchanged(seat, self.hands[seat] & ~trumps, mask(drawn), self.game.face_up))
            self.hands[seat] = kept | mask(drawn)
        got = [e for e in self.preparation if isinstance(e, Exchanged) and (e.discarded or e.drawn)]
        assert got == [e for e in expected if e.discarded or e.drawn], f"exchange {got} != the seed's {expected}"
        assert len(got) == len(self.preparation)

    def check_discards_seen(self, state: GameState) -> None:
        """Kentucky's "players discard non-trump cards face up in the center of the table":
        each seat and a spectator see every exchange's discards (which the hidden-card
        property, tests/property/test_prop_visibility.py, lets through); elsewhere none."""
        discards = [e.discarded for e in self.preparation if isinstance(e, Exchanged)]
        want = discards if self.game.face_up and any(discards) else []
        for viewer in (*range(self.players), SPECTATOR):
            seen = observe(state, viewer).face_up_discards
            assert [mask(shown) for shown in seen] == want, f"seat {viewer} sees discards {seen}, not {want}"

    # ------------------------------------------------------------------ scoring
    def winner_of(self, plays: tuple[tuple[int, int], ...]) -> int:
        """The highest trump, else the highest card of the suit led ("Cards rank as in whist")."""
        trumps = [(self.order.index(c), seat) for seat, c in plays if self.trump_mask >> c & 1]
        if trumps:
            return min(trumps)[1]
        led = CARDS[plays[0][1]].suit
        return max((rank_of(c), seat) for seat, c in plays if CARDS[c].suit == led)[1]

    def first_leader(self) -> int:
        """"the highest bidder pitches"."""
        assert self.high is not None
        return self.high.seat

    def scored(self, state: GameState, result: Any, stats: OracleStats) -> None:
        expected = self.played_awards(result)
        assert self.high is not None
        bid, bidder = self.high, self.high.seat
        g = self.game
        party = [seat % g.parties for seat in range(g.players)]
        won = [sum(a[1] for a in expected if a[2] == p) for p in range(g.parties)]
        assert list(result.points_won) == won
        team = party[bidder]
        made = won[team] >= bid.amount
        before = list(self.scores)
        changes = list(won)
        if not made:
            changes[team] = min(before[team], 0) - 1 - before[team] if g.pookie else -bid.amount
        revoked = Counter(party[seat] for seat, _ in self.revokes()) if g.revoke_penalty else Counter()
        for revoker, count in revoked.items():  # "set back by the value of the bid", per revoke
            changes[revoker] = -bid.amount * count
        made = made and not revoked[team]
        assert result.made == made and not result.moon
        assert list(result.score_changes) == changes, f"changes {result.score_changes} != {changes} (bid {bid})"
        self.scores = [b + c for b, c in zip(before, changes, strict=True)]
        assert list(result.scores) == self.scores
        check_end(state, result, self.game_winner(before, changes, team, made, expected), stats)

    def played_awards(self, result: Any) -> list[Award]:
        """Checks the tricks, the pips and the awards of the hand; returns the seed's awards."""
        g = self.game
        assert self.high is not None and self.trump is not None
        bid, bidder = self.high, self.high.seat
        self.apply_exchange()
        assert not any(self.hands), "cards in play were not played"
        assert result.pitcher == bidder and result.trump == self.trump and result.bid == bid.amount
        assert self.tricks[0].plays[0][0] == self.first_leader()
        if not g.declared:  # "establishes the trump suit (as the suit of the card led)"
            assert self.trump == CARDS[self.tricks[0].plays[0][1]].suit
        party = [seat % g.parties for seat in range(g.players)]
        capturer: dict[int, int] = {}
        holder: dict[int, int] = {}
        pips = [0.0] * g.parties
        for trick in self.tricks:
            winner = self.winner_of(trick.plays)
            assert trick.winner == winner, f"{trick} won by {trick.winner}, expected {winner} (trump {self.trump})"
            for seat, card in trick.plays:
                capturer[card], holder[card] = party[winner], party[seat]
                pips[party[winner]] += g.joker_pip if card in JOKER_IDS else PIPS.get(rank_of(card), 0)
        assert list(result.pips) == pips, f"pips {result.pips} != {pips}"
        in_play = [c for c in self.order if c in capturer]
        found: dict[str, list[Award]] = {name: [] for name in g.points}
        if in_play:
            found["high"] = [("high", 1, capturer[in_play[0]], in_play[0])]
        if in_play and "low" in found:
            found["low"] = [("low", 1, holder[in_play[-1]], in_play[-1])]
        for name, card in (("jack", int(Card.of(11, self.trump))),
                           ("off-jack", int(Card.of(11, SAME_COLOUR[self.trump])))):
            if name in found and card in capturer:
                found[name] = [(name, 1, capturer[card], card)]
        if "joker" in found:
            found["joker"] = [("joker", 1, capturer[j], j) for j in JOKER_IDS if j in capturer]
        if pips.count(max(pips)) == 1:
            found["game"] = [("game", 1, pips.index(max(pips)), None)]
        for name, rank, value in g.counting_cards:
            card = int(Card.of(rank, self.trump))
            if card in capturer:
                found[name] = [(name, value, capturer[card], card)]
        expected = [award for name in g.points for award in found[name]]
        revokes: list[Award] = [("revoke", -bid.amount, party[seat], card) for seat, card in self.revokes()] \
            if g.revoke_penalty else []
        got = [(str(a.category), a.value, a.party, None if a.card is None else int(a.card)) for a in result.awards]
        assert Counter(got) == Counter(expected + revokes), \
            f"awards {sorted(got, key=str)} != {sorted(expected + revokes, key=str)}"
        return expected

    def game_winner(self, before: list[int], changes: list[int], team: int, made: bool,
                    awards: list[Award]) -> int | None:
        """"Any points won by the pitcher are counted first. Thereafter the remaining points
        are awarded in the order as listed"; under bid to go out only a pitching party that
        made its bid may reach the target."""
        g = self.game
        running = list(before)
        running[team] += changes[team]
        if running[team] >= g.target and (made or not g.bid_made_to_win):
            return team
        if g.bid_made_to_win:
            return None
        for award in awards:
            if award[2] != team:
                running[award[2]] += award[1]
                if running[award[2]] >= g.target:
                    return award[2]
        return None
