"""A tournament's table: games, wins, draws and losses per entrant, from recorded outcomes.

Pure: the same schedule and outcomes give the same table whatever order the workers
finished in.  A bot is credited once per party it plays for in a match (a bot partnering
itself is not counted twice).  Games are taken from the referee's result; when a party
forfeits, the games it did not play count as lost for its bots and as won by forfeit for
every other party's bots (they finished ahead of it, as the ratings see it too): a bot
whose opponents crashed every match shows those wins, in ``wins`` and, apart, in
``forfeit_wins``.  Matches recorded as not played count in ``not_played`` only.

Unrated matches (played out, but a seat's moves were mostly the referee's fallbacks: see
:mod:`referee.fallback_rule`) count in ``unrated`` only, for every bot seated in them, and
not in the standings: the games were not the bots' play, so counting them would let the
table and the tournament's Bradley–Terry column (which leaves them out too) disagree.  The
organiser sees how many there were (:func:`unrated_matches`), each with its reason; the
absent bot's strikes and timeouts still count in its conduct.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from competitions.tournaments.schedule import Schedule

PLAYED = "played"
NOT_PLAYED = "not_played"


@dataclass
class Row:
    """One entrant's line of the table."""

    bot_id: str
    matches: int = 0
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: int = 0
    """Matches the bot's party forfeited."""
    forfeit_wins: int = 0
    """Games won because another party forfeited before playing them (counted in ``wins``)."""
    not_played: int = 0
    unrated: int = 0
    """Matches the bot played that were kept off the ratings (and off this table's games)."""

    @property
    def score(self) -> float:
        """Wins plus half the draws, per game (0 before any game)."""
        return (self.wins + self.draws / 2) / self.games if self.games else 0.0


def compute_table(schedule: Schedule, outcomes: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows sorted by score, then wins, then bot id; each row a JSON-ready dict."""
    rows = {bot: Row(bot) for bot in schedule.entrants}
    for match in schedule.matches:
        outcome = outcomes.get(match.index)
        if outcome is None:
            continue
        parties: dict[str, set[int]] = {}
        for seat, bot in enumerate(match.seats):
            parties.setdefault(bot, set()).add(schedule.party_of(seat))
        if outcome["status"] != PLAYED:
            for bot in parties:
                rows[bot].not_played += 1
            continue
        result = outcome["result"]
        if result.get("unrated"):
            for bot in parties:
                rows[bot].unrated += 1
            continue
        games = result.get("games", [])
        forfeiting = result.get("forfeiting_party", 0) if result.get("forfeited") else None
        unplayed = max(0, schedule.games - len(games)) if forfeiting is not None else 0
        for bot, bot_parties in parties.items():
            row = rows[bot]
            for party in bot_parties:
                row.matches += 1
                for game in games:
                    row.games += 1
                    if not game.get("has_winner"):
                        row.draws += 1
                    elif game.get("winner", 0) == party:
                        row.wins += 1
                    else:
                        row.losses += 1
                row.games += unplayed
                if party == forfeiting:
                    row.forfeits += 1
                    row.losses += unplayed
                else:
                    row.wins += unplayed
                    row.forfeit_wins += unplayed
    ordered = sorted(rows.values(), key=lambda r: (-r.score, -r.wins, r.bot_id))
    return [{**asdict(row), "score": round(row.score, 4)} for row in ordered]


def unrated_matches(outcomes: Mapping[int, Mapping[str, Any]]) -> dict[int, str]:
    """The played matches kept off the ratings, by match index, with the referee's reason."""
    return {index: str(outcome["result"].get("unrated_reason", "")) for index, outcome in sorted(outcomes.items())
            if outcome["status"] == PLAYED and outcome["result"].get("unrated")}
