"""Round-robin schedules: which bots sit where, on which deals, in which match.

Pure (no I/O, no clock, no randomness): the same entrants, preset, games and base seed
always give the same matches with the same ids, so a task that re-reads the schedule after
a crash asks the referee for exactly the match it was asked before.

Every format is the same idea over *teams*: a team is the bots of one party (one bot for
individual presets, ``team_size`` bots for partnership presets).  For every combination of
``parties`` teams the schedule draws one deal sequence (one seed) and plays it once per
rotation of the teams over the party positions, so every team holds every party's cards:

* individual presets (``team_size`` 1): every combination of entrants over the seats, with
  the seats rotated (each entrant sits in each seat once on the same deals);
* partnership presets (two teams of two): every pairing of teams, played twice on the same
  deals with the teams swapped (duplicate deals: the luck of the cards cancels).

Partnership teams come from the caller (``teams``: fixed pairs; a bot may partner itself,
e.g. ``("a", "a")``, but may belong to one team only), or, when ``teams`` is omitted, from
every partition: every way of splitting every ``players``-sized group of entrants into
teams, so each bot partners each other bot and faces each pair of the rest.  With ``n``
entrants that is C(n, 4) x 3 pairings, 2 matches each.

Seat ``s`` belongs to party ``s % parties`` (the rules engine's convention: partners sit
alternately); member ``k`` of the team at party ``p`` sits in seat ``p + k * parties``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pitch_sdk.rules import RulesError, preset

#: Tournament ids become part of match ids and Redis keys: keep them plain.
TOURNAMENT_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class ScheduleError(ValueError):
    """A schedule that cannot be made (too few entrants, overlapping teams, ...)."""


@dataclass(frozen=True)
class ScheduledMatch:
    """One match of a schedule."""

    index: int
    """Position in the schedule (0-based); with the tournament id it names the match."""
    match_id: str
    """The referee's match id: retries with this id never play the match twice."""
    seats: tuple[str, ...]
    """The bot id in each seat."""
    seed: int
    """The deal sequence; every rotation of one pairing has the same seed."""
    pairing: int
    """Which combination of teams this is (rotations of one pairing share it)."""
    rotation: int
    """Which rotation of the pairing (0 .. parties-1)."""


@dataclass(frozen=True)
class Schedule:
    """A whole round robin: what to play and the matches, in launch order."""

    tournament_id: str
    preset: str
    options: dict[str, Any]
    games: int
    """Games in each match."""
    seed: int
    """The base seed every pairing's seed is derived from."""
    parties: int
    entrants: tuple[str, ...]
    teams: tuple[tuple[str, ...], ...]
    """The teams that were paired (single bots for individual presets)."""
    matches: tuple[ScheduledMatch, ...]

    @property
    def options_json(self) -> str:
        """The options as the referee's ``RunMatchRequest.options_json`` expects them."""
        return json.dumps(self.options, sort_keys=True) if self.options else ""

    def party_of(self, seat: int) -> int:
        """The party a seat belongs to."""
        return seat % self.parties

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data (how the plan is stored in Redis)."""
        return {
            "tournament_id": self.tournament_id, "preset": self.preset, "options": self.options,
            "games": self.games, "seed": self.seed, "parties": self.parties,
            "entrants": list(self.entrants), "teams": [list(t) for t in self.teams],
            "matches": [[m.match_id, list(m.seats), m.seed, m.pairing, m.rotation] for m in self.matches],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Schedule:
        """The inverse of :meth:`to_dict`."""
        return cls(
            tournament_id=data["tournament_id"], preset=data["preset"], options=data["options"],
            games=data["games"], seed=data["seed"], parties=data["parties"],
            entrants=tuple(data["entrants"]), teams=tuple(tuple(t) for t in data["teams"]),
            matches=tuple(ScheduledMatch(i, match_id, tuple(seats), seed, pairing, rotation)
                          for i, (match_id, seats, seed, pairing, rotation) in enumerate(data["matches"])))


def match_id(tournament_id: str, index: int) -> str:
    """The id of match ``index`` of a tournament."""
    return f"{tournament_id}.{index}"


def pairing_seed(base_seed: int, pairing: int) -> int:
    """The deal sequence of one pairing: a 48-bit hash of the base seed and the pairing, so
    tournaments with neighbouring base seeds share no deals (and JSON keeps it exact)."""
    digest = hashlib.blake2b(f"{base_seed}:{pairing}".encode(), digest_size=6).digest()
    return int.from_bytes(digest, "big")


def round_robin(tournament_id: str, entrants: Iterable[str], preset_name: str, *, games: int = 1, seed: int = 0,
                options: dict[str, Any] | None = None,
                teams: Sequence[Sequence[str]] | None = None) -> Schedule:
    """The round robin of ``entrants`` at ``preset_name`` (see the module docstring).

    The order of ``entrants`` (and of ``teams``) does not matter: they are sorted first.
    """
    if not TOURNAMENT_ID.fullmatch(tournament_id):
        raise ScheduleError(f"bad tournament id {tournament_id!r}: use 1-64 letters, digits, '-' or '_'")
    if games < 1:
        raise ScheduleError(f"games must be at least 1, got {games}")
    if seed < 0:
        raise ScheduleError(f"seed must not be negative, got {seed}")
    try:
        rules = preset(preset_name, options or {})
    except RulesError as exc:
        raise ScheduleError(str(exc)) from None
    bots = tuple(sorted(entrants))
    if len(set(bots)) != len(bots):
        raise ScheduleError(f"entrants must be distinct: {list(bots)}")
    size, parties = rules.seating.team_size, rules.parties
    if teams is not None:
        paired = _fixed_teams(teams, size, bots)
    elif len(bots) < rules.players:
        raise ScheduleError(f"{preset_name} seats {rules.players} players; got {len(bots)} entrant(s)")
    else:
        paired = tuple(itertools.combinations(bots, size))
    if len(paired) < parties:
        raise ScheduleError(f"{preset_name} needs {parties} teams of {size}; got {len(paired)}")
    matches: list[ScheduledMatch] = []
    pairings = (c for c in itertools.combinations(paired, parties) if _disjoint(c))
    for pairing, combination in enumerate(pairings):
        deal = pairing_seed(seed, pairing)
        for rotation in range(parties):
            order = combination[rotation:] + combination[:rotation]
            seats = tuple(order[s % parties][s // parties] for s in range(rules.players))
            index = len(matches)
            matches.append(ScheduledMatch(index, match_id(tournament_id, index), seats, deal, pairing, rotation))
    return Schedule(tournament_id, preset_name, dict(options or {}), games, seed, parties, bots, paired,
                    tuple(matches))


def _fixed_teams(teams: Sequence[Sequence[str]], size: int, entrants: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """Validated caller-given teams, sorted; every entrant must be in exactly one team."""
    fixed = tuple(sorted(tuple(team) for team in teams))
    for team in fixed:
        if len(team) != size:
            raise ScheduleError(f"teams have {size} members; got {list(team)}")
    members = [bot for team in fixed for bot in sorted(set(team))]
    if len(set(members)) != len(members):
        raise ScheduleError("a bot may belong to one team only")
    if set(members) != set(entrants):
        raise ScheduleError(f"teams must cover exactly the entrants {list(entrants)}")
    return fixed


def _disjoint(teams: tuple[tuple[str, ...], ...]) -> bool:
    """True when no bot plays for two of these teams."""
    members = [bot for team in teams for bot in set(team)]
    return len(members) == len(set(members))
