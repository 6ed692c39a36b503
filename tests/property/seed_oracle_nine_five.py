"""The seed-text oracle for seed 004's nine-five pitch and its hotshot variant.

Seed 004: "Four players play in two partnerships, sitting crosswise. In all variants of
nine-five the five of trumps and the nine of trumps score many game points when captured
in tricks: 5 and 9, respectively. The minimum bid is 4 or 9. The maximum number of points
that can be won is 18. A minimum bid of 9 is forced if a player holds the 9 and another
card of the same suit ... Nine cards are dealt to each player. A 'smudge' bid is worth 19
points in this variant. A 'blind smudge' bid must be made before the player looks at their
hand. It is worth 20 points. The winning bidder declares the trump suit, and each player
discards any non-trump cards. If a player has more than six trumps, he or she must discard
down to six cards. Next, the dealer will deal each player back up to six total cards.
Finally, the dealer brings their own hand to six cards, and is allowed to look at remaining
cards when doing so. If too few trump cards remain, the dealer may take any card he or she
chooses. This discard process ensures that all trump cards are in play. Game play is normal
with the 2 winning conditions: the first team to win a bid that brings them above 100 points
or if a team reaches -100 points the other team is declared winner."

Hotshot: "Legal bids are 9-18. 18 is called 'hotshot'. The pitcher need not lead a trump.
Bidding 'hotshot' makes the game sudden death; if the bidder succeeds and collects all 18
points in the round, he wins the entire game, but if he fails, the game is over. The player
to the left of the pitcher leads the first card, and is not required to lead trump. If all
players pass, the cards are shown face up to prove the lack of a forced bid, and the deal is
passed to the left."

Readings where the paragraphs are silent, from the presets' docstring: "above 100" is 101;
the nine-five pitcher leads a trump to the first trick; the forced 9 binds a player who
looked; smudges need all 18 points and score (or cost) their bid; a stuck nine-five dealer
must bid (the force-bid default of RULES.md); play, High, Low (to its original holder),
Jack, Game and the ordinary bid's score as in :mod:`seed_oracle_classic`.  A hotshot that
fails ends the game, lost by the bidder's team.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from seed_oracle import OracleStats, bits, check_end, mask
from seed_oracle_classic import SUIT_MASK, Classic, ClassicOracle

from pitch_sdk.rules import PASS, Bid, ChooseCards, DecisionKind, GameState, Suit
from pitch_sdk.rules.events import AllPassed, Burned, Dealt, Exchanged, Looked

_NINE_FIVE_POINTS = ("high", "low", "jack", "game", "nine", "five")
NINE_FIVE = Classic("nine-five", _NINE_FIVE_POINTS, 4, 18, hand_size=9, declared=True, target=101,
                    counting_cards=(("nine", 9, 9), ("five", 5, 5)))
HOTSHOT = Classic("hotshot", _NINE_FIVE_POINTS, 9, 17, hand_size=9, declared=True, target=101,
                  counting_cards=(("nine", 9, 9), ("five", 5, 5)))
SMUDGE, BLIND_SMUDGE, HOTSHOT_BID = 19, 20, 18


class NineFiveOracle(ClassicOracle):
    """Nine-five (``hotshot=False``) or its hotshot variant, against the seed."""

    def __init__(self, hotshot: bool) -> None:
        self.hotshot = hotshot
        super().__init__(HOTSHOT if hotshot else NINE_FIVE)
        self.passed_in = False
        self.kinds = {DecisionKind.BID, DecisionKind.DECLARE_TRUMP, DecisionKind.CHOOSE_CARDS, DecisionKind.PLAY}
        if not hotshot:  # "A 'blind smudge' bid must be made before the player looks at their hand"
            self.kinds.add(DecisionKind.CHOICE)

    def new_hand(self, dealt: Dealt) -> None:
        super().new_hand(dealt)
        self.looked: dict[int, bool] = {}

    def event(self, event: Any) -> None:
        if isinstance(event, Looked):
            assert not self.hotshot and event.seat not in self.looked
            self.looked[event.seat] = event.looked
        elif isinstance(event, AllPassed):
            # "If all players pass, the cards are shown face up to prove the lack of a forced bid, and the deal
            # is passed to the left" (hotshot); nine-five's stuck dealer must bid
            assert self.hotshot and len(self.bids) == 4 and self.high is None
            assert list(event.shown) == list(self.dealt.hands)
            assert not any(self.forced(seat) for seat in range(4)), "all passed, but one held a forcing 9"
            self.passed_in = True
        super().event(event)

    def forced(self, seat: int) -> bool:
        """"A minimum bid of 9 is forced if a player holds the 9 and another card of the same suit"."""
        if not self.hotshot and not self.looked.get(seat, False):
            return False
        hand = self.dealt.hands[seat]
        return any(hand >> int(Suit(s) * 13 + 7) & 1 and (hand & SUIT_MASK[s]).bit_count() >= 2 for s in Suit)

    def first_leader(self) -> int:
        """Hotshot: "The player to the left of the pitcher leads the first card"."""
        assert self.high is not None
        return (self.high.seat + 1) % 4 if self.hotshot else self.high.seat

    def decision(self, state: GameState, legal: list[Any], stats: OracleStats) -> None:
        kind = state.decision().kind
        assert kind in self.kinds, f"{self.game.name} asks a {kind} decision, which its seed does not know"
        seat = (self.eldest + len(self.bids)) % 4
        if kind is DecisionKind.CHOICE:  # look at the hand, or keep the blind smudge open
            assert self.trump is None and seat not in self.looked and state.to_move == seat
        elif kind is DecisionKind.BID:
            assert state.to_move == seat and (self.hotshot or seat in self.looked), "bid before looking or not"
            self.check_bid(legal, seat)
            stats.bids_checked += 1
        elif kind is DecisionKind.CHOOSE_CARDS:
            self.check_choice(state, legal)
        else:
            super().decision(state, legal, stats)

    def check_bid(self, legal: list[Any], seat: int) -> None:
        high = self.high.amount if self.high else 0
        # hotshot: "Legal bids are 9-18"; nine-five: "The minimum bid is 4 or 9. The maximum number of points
        # ... is 18", smudge 19, blind smudge 20 (only before looking)
        amounts = range(9, HOTSHOT_BID + 1) if self.hotshot else range(4, SMUDGE + (1 if self.looked[seat] else 2))
        forced = self.forced(seat) and high < 9
        stuck = not self.hotshot and len(self.bids) == 3 and not high
        want = [Bid(n) for n in amounts if n > high and (n >= 9 or not forced)]
        if not forced and not stuck:
            want.insert(0, PASS)
        assert legal == want, f"seat {seat} may {legal}, the seed says {want} (high {high}, forced {forced})"

    def check_choice(self, state: GameState, legal: list[Any]) -> None:
        """A player above six trumps discards down to six; the dealer picks from the rest,
        every trump left first ("ensures that all trump cards are in play")."""
        assert self.trump is not None and self.high is not None
        seat = state.to_move
        hand, stock = self.replay_exchange(upto=seat)
        trumps = hand & self.trump_mask
        if trumps.bit_count() > 6:  # (the engine asks it once the stock is dealt; the seed says before)
            want = {trumps & ~mask(keep) for keep in combinations(bits(trumps), 6)}
            want = {w | hand & ~self.trump_mask for w in want}
        else:
            assert seat == self.dealt.dealer, \
                f"seat {seat} asked to choose cards (hand {bits(hand)}, dealer {self.dealt.dealer}, {self.preparation})"
            need = min(6 - hand.bit_count(), len(stock))  # the sixteen undealt cards may run short
            left = mask(stock)
            left_trumps = left & self.trump_mask
            if left_trumps.bit_count() >= need:
                want = {mask(c) for c in combinations(bits(left_trumps), need)}
            else:
                want = {left_trumps | mask(c) for c in combinations(bits(left & ~left_trumps),
                                                                     need - left_trumps.bit_count())}
        if legal:
            got = {mask(int(c) for c in a.cards) for a in legal if isinstance(a, ChooseCards)}
            assert got == want, f"seat {seat} may choose {[bits(g) for g in got]}, the seed says " \
                f"{[bits(w) for w in want]} (hand {bits(hand)}, stock {stock})"

    def replay_exchange(self, upto: int | None = None) -> tuple[int, list[int]]:
        """Replays the exchange events; returns seat ``upto``'s hand and the stock left."""
        hands = list(self.dealt.hands)
        stock = list(self.stock)
        for e in self.preparation:
            if isinstance(e, Burned):  # "more than six trumps ... must discard down to six cards"
                assert not e.cards & ~hands[e.seat] and (hands[e.seat] & ~e.cards).bit_count() == 6
                hands[e.seat] &= ~e.cards
                continue
            assert isinstance(e, Exchanged)
            assert not e.discarded & ~hands[e.seat], f"{e} discards cards it does not hold"
            hands[e.seat] &= ~e.discarded
            if e.seat != self.dealt.dealer:  # "the dealer will deal each player back up to six total cards"
                assert mask(stock[:e.drawn.bit_count()]) == e.drawn, f"{e} did not draw the top of the stock"
            assert not e.drawn & ~mask(stock)
            stock = [c for c in stock if not e.drawn >> c & 1]
            hands[e.seat] |= e.drawn
        self.replayed = hands
        return (hands[upto] if upto is not None else 0), stock

    def apply_exchange(self) -> None:
        """"each player discards any non-trump cards. If a player has more than six trumps, he
        or she must discard down to six cards. Next, the dealer will deal each player back up
        to six total cards. Finally, the dealer brings their own hand to six cards"."""
        if self.exchanged:
            return
        self.exchanged = True
        assert self.trump is not None
        _, stock = self.replay_exchange()
        order = [(self.eldest + k) % 4 for k in range(4)]
        assert order[-1] == self.dealt.dealer
        for seat in order:
            hand = self.replayed[seat]
            dealt_trumps = self.dealt.hands[seat] & self.trump_mask
            assert hand.bit_count() == 6 or (hand.bit_count() < 6 and not stock), \
                f"seat {seat} plays with {hand.bit_count()} cards, {len(stock)} left in the stock"
            kept = hand & self.dealt.hands[seat]
            assert kept == kept & self.trump_mask, f"seat {seat} kept a non-trump"
            assert kept == dealt_trumps or (dealt_trumps.bit_count() > 6 and kept.bit_count() == 6)
        assert not mask(stock) & self.trump_mask or self.replayed[self.dealt.dealer] & self.trump_mask \
            == self.replayed[self.dealt.dealer], "the dealer left a trump in the stock for a non-trump"
        self.hands = self.replayed

    def seat_to_play(self, trick: list[tuple[int, int]]) -> int:
        """As usual, but a player whose short hand ran out sits the rest out (the sixteen
        undealt cards may not bring every hand back to six; the seed does not say more)."""
        played = {seat for seat, _ in trick}
        start = (trick[-1][0] + 1) % 4 if trick else self.tricks[-1].winner if self.tricks else self.first_leader()
        for k in range(4):
            seat = (start + k) % 4
            if seat not in played and self.hands[seat] & ~mask(c for _, c in trick):
                return seat
        raise AssertionError("nobody left to play")

    def legal_plays(self, hand: int, plays: list[int]) -> int:
        """Nine-five: the pitcher leads a trump to the first trick (hotshot: "is not required
        to lead trump"); then "Game play is normal"."""
        if not plays and not self.tricks:
            return hand if self.hotshot else hand & self.trump_mask or hand
        return super().legal_plays(hand, plays)

    def scored(self, state: GameState, result: Any, stats: OracleStats) -> None:
        expected = self.played_awards(result)
        assert self.high is not None
        bid, team = self.high.amount, self.high.seat % 2
        won = [sum(a[1] for a in expected if a[2] == p) for p in (0, 1)]
        assert list(result.points_won) == won
        smudge = bid >= (HOTSHOT_BID if self.hotshot else SMUDGE)
        made = won[team] >= min(bid, 18)  # a smudge needs all 18 points
        assert result.made == made and result.moon == smudge
        stats.moons += smudge
        before = list(self.scores)
        changes = list(won)
        changes[team] = (bid if smudge else won[team]) if made else -bid
        if smudge and self.hotshot:  # "he wins the entire game, but if he fails, the game is over"
            assert result.score_changes[1 - team] == changes[1 - team]
            self.scores = list(result.scores)
            check_end(state, result, team if made else 1 - team, stats)
            return
        assert list(result.score_changes) == changes, f"changes {result.score_changes} != {changes} (bid {bid})"
        self.scores = [b + c for b, c in zip(before, changes, strict=True)]
        assert list(result.scores) == self.scores
        # "the first team to win a bid that brings them above 100 points or if a team reaches -100 points the
        # other team is declared winner"
        winner = team if made and self.scores[team] >= 101 else None
        for party in (0, 1):
            if winner is None and self.scores[party] <= -100:
                winner = 1 - party
        check_end(state, result, winner, stats)
