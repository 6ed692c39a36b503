"""Match results as the referee reports them, built by hand for rating tests."""

from __future__ import annotations

from collections.abc import Sequence

from pitch_sdk.proto.pitch.v1 import bot_pb2, game_pb2


def match_result(match_id: str, seats: Sequence[str], games: Sequence[tuple[int | None, Sequence[int]]],
                 parties: int = 2, preset: str = "partnership", forfeiting: int | None = None,
                 completed: bool = True) -> bot_pb2.MatchResult:
    """A ``MatchResult``: ``seats`` are bot ids by seat, ``games`` are (winner party or
    ``None`` for a draw, final scores per party)."""
    wins = [0] * parties
    outcomes = []
    for winner, scores in games:
        if winner is not None:
            wins[winner] += 1
        outcomes.append(bot_pb2.GameOutcome(winner=winner or 0, has_winner=winner is not None, scores=scores))
    return bot_pb2.MatchResult(
        match_id=match_id, ruleset=game_pb2.Ruleset(name=preset, players=len(seats), parties=parties),
        seed=7, games=outcomes, party_wins=wins, forfeited=forfeiting is not None,
        forfeiting_party=forfeiting or 0, completed=completed,
        seats=[bot_pb2.SeatOutcome(seat=s, bot_id=bot, status=game_pb2.SEAT_STATUS_OK) for s, bot in enumerate(seats)])


def duel(match_id: str, a: str, b: str, outcomes: str, preset: str = "duel") -> bot_pb2.MatchResult:
    """A two-seat match between ``a`` (party 0) and ``b`` (party 1); ``outcomes`` has one
    letter per game: ``w`` (a wins), ``l`` (b wins), ``d`` (draw)."""
    table = {"w": (0, [7, 3]), "l": (1, [3, 7]), "d": (None, [5, 5])}
    return match_result(match_id, [a, b], [table[c] for c in outcomes], preset=preset)
