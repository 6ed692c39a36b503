"""The seed-text oracle for seed 003's five-handed ten-point pitch.

Seed 003: "Five-Handed: Game played as above with ten cards dealt to each player. The
remaining four cards are kept as a blind. The high bidder not only choses the suit but
calls for the card he/she wants to see played. Whoever has that card in their hand is the
bidder's partner against the other three. The blind then goes to the bidder. In the event
the card is in the blind, the bidder has no partner agains the other four AND is required
to lead the card that was called."

Everything else is seed 003's ten-point hand, checked by :class:`seed_oracle.TenPointOracle`
(the discard of non-trumps, the burn to six, trump-only play, out players, the two to its
player, the three worth three, the moon).  Readings where the paragraph is silent, from the
preset's docstring: with the blind going to the bidder nobody is refilled; the called card
is a trump the bidder does not hold (only trumps are played); scores are kept per player
and each member of a side scores the side's result (seed 004's call for partner: "Points
are kept individually, though they are earned as a team").  Who among several players past
52 wins is not said: the oracle accepts any of the side that counts first (the pitcher's).
"""

from __future__ import annotations

from typing import Any

from seed_oracle import _TEN, OracleStats, TenPoint, TenPointOracle, bits, mask

from pitch_sdk.rules import CallCard, DecisionKind, GameState
from pitch_sdk.rules.events import Dealt, PartnerCalled

#: "ten cards dealt to each player. The remaining four cards are kept as a blind"; the
#: points as above ("ace, jack, off-jack, joker, joker, ten, and two ... The three is worth
#: three points").
FIVE_HANDED = TenPoint("five-handed", _TEN, hand_size=10, refill=False)


class FiveHandedOracle(TenPointOracle):
    """Five players alone, the bidder's side picked by a called card."""

    players = 5
    kinds = TenPointOracle.kinds - {DecisionKind.CHOICE} | {DecisionKind.CALL_CARD}

    def __init__(self, moon_rate: float = 0.01) -> None:
        super().__init__(FIVE_HANDED, moon_rate)

    @property
    def parties(self) -> int:
        return 5

    def new_hand(self, dealt: Dealt) -> None:
        assert [h.bit_count() for h in dealt.hands] == [10] * 5 and len(dealt.stock) == 4
        every = [*(c for h in dealt.hands for c in bits(h)), *dealt.stock]
        assert sorted(every) == list(range(54)), "the deal is not all 54 cards"
        super().new_hand(dealt)
        self.called: int | None = None

    def event(self, event: Any) -> None:
        if isinstance(event, PartnerCalled):
            assert self.high is not None and event.seat == self.high.seat and self.called is None
            self.called = event.card
        super().event(event)

    @property
    def partner(self) -> int | None:
        """"Whoever has that card in their hand is the bidder's partner"."""
        assert self.called is not None
        holders = [seat for seat, hand in enumerate(self.dealt.hands) if hand >> self.called & 1]
        return holders[0] if holders else None

    def decision(self, state: GameState, legal: list[Any], stats: OracleStats) -> None:
        kind = state.decision().kind
        if kind is DecisionKind.CALL_CARD:
            # "The high bidder not only choses the suit but calls for the card he/she wants to see played"
            assert self.high is not None and self.trump is not None and self.called is None
            assert state.to_move == self.high.seat, "someone other than the high bidder calls"
            want = self.trump_mask() & ~self.dealt.hands[self.high.seat]
            assert all(isinstance(a, CallCard) for a in legal) and mask(int(a.card) for a in legal) == want, \
                f"callable {sorted(str(a) for a in legal)} != the trumps the bidder lacks {bits(want)}"
            return
        if kind is DecisionKind.PLAY and not self.tricks and not state.trick and self.partner is None:
            # "In the event the card is in the blind ... is required to lead the card that was called"
            self.check_preparation()
            assert self.high is not None and state.to_move == self.high.seat
            assert self.called is not None and self.hands[self.high.seat] >> self.called & 1, \
                "the bidder must lead the called card from the blind, but no longer holds it"
            assert [int(a.card) for a in legal] == [self.called], f"bidder alone may lead {legal}, not the called card"
            stats.plays_checked += 1
            return
        super().decision(state, legal, stats)

    def scored(self, state: GameState, result: Any, stats: OracleStats) -> None:
        v = self.variant
        expected = self.played_awards(result, list(range(5)))
        assert self.high is not None and self.called is not None
        bid, bidder = self.high, self.high.seat
        side = [0 if seat in (bidder, self.partner) else 1 for seat in range(5)]
        assert result.sides is not None and list(result.sides) == side, f"sides {result.sides} != {side}"
        won = [sum(a[1] for a in expected if a[2] == seat) for seat in range(5)]
        assert list(result.points_won) == won
        side_won = [sum(won[s] for s in range(5) if side[s] == k) for k in (0, 1)]
        moon = bid.amount == v.top_bid + 1
        made = side_won[0] >= (v.total if moon else bid.amount)
        assert result.made == made and result.moon == moon
        stats.moons += moon
        before = list(self.scores)
        changes: list[int | None] = [side_won[1] if side[s] else None for s in range(5)]  # defenders score their take
        if not moon:
            changes = [c if side[s] else (bid.amount if made else -bid.amount) for s, c in enumerate(changes)]
        elif made:  # "advances their score to 52 if their score was above zero or to zero if ... below zero"
            changes = [c if side[s] else (v.target if before[s] >= 0 else 0) - before[s] for s, c in enumerate(changes)]
        assert all(c is None or result.score_changes[s] == c for s, c in enumerate(changes)), \
            f"changes {result.score_changes} != {changes} (sides {side}, bid {bid})"
        self.scores = [b + c for b, c in zip(before, result.score_changes, strict=True)]
        assert list(result.scores) == self.scores
        if moon and not made:  # "Failure to score all ten points constitutes loss of game"
            assert result.game_over and (result.winner is None or side[result.winner] == 1), \
                f"a failed moon, but the game went to {result.winner}"
            stats.games_won += 1
            return
        reached = [[s for s in range(5) if side[s] == k and self.scores[s] >= v.target] for k in (0, 1)]
        first = reached[0] or reached[1]  # "The first team to reach 52"; the pitcher's points count first
        if first:
            assert result.game_over and result.winner in first, f"winner {result.winner}, expected one of {first}"
            stats.games_won += 1
        elif result.game_over:
            assert len(state.results) >= state.rules.win.max_hands, f"game ended without a winner: {result}"

