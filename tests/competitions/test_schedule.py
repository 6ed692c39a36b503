"""Round-robin schedules: how many matches, who meets whom, where they sit, on which deals."""

from __future__ import annotations

import itertools
from collections import Counter
from math import comb

import pytest

from competitions.tournaments.schedule import Schedule, ScheduleError, round_robin

BOTS = [f"bot{i}" for i in range(6)]


@pytest.mark.parametrize(("preset", "players"), [("cutthroat", 3), ("ipitch", 4), ("simple", 4)])
@pytest.mark.parametrize("entrants", [4, 5, 6])
def test_individual_every_combination_with_every_seat(preset: str, players: int, entrants: int) -> None:
    """Individual presets: every combination of entrants meets, once per seat rotation, and
    within a combination every entrant sits in every seat once on the same deals."""
    schedule = round_robin("t", BOTS[:entrants], preset, seed=5)
    assert len(schedule.matches) == comb(entrants, players) * players
    by_pairing: dict[int, list[tuple[str, ...]]] = {}
    for match in schedule.matches:
        by_pairing.setdefault(match.pairing, []).append(match.seats)
    assert {frozenset(seatings[0]) for seatings in by_pairing.values()} == {
        frozenset(c) for c in itertools.combinations(BOTS[:entrants], players)}
    for pairing, seatings in by_pairing.items():
        assert len({m.seed for m in schedule.matches if m.pairing == pairing}) == 1
        for seat in range(players):
            assert sorted(s[seat] for s in seatings) == sorted(seatings[0])


def test_partnership_every_partition_and_duplicate_deals() -> None:
    """Partnership without fixed teams: every split of every four entrants into two teams
    (each bot partners each other), each played twice on one deal sequence, teams swapped."""
    schedule = round_robin("t", BOTS, "partnership", games=3, seed=9)
    assert len(schedule.matches) == comb(6, 4) * 3 * 2
    pairings: set[frozenset[frozenset[str]]] = set()
    for first, second in zip(schedule.matches[::2], schedule.matches[1::2], strict=True):
        assert first.pairing == second.pairing and first.seed == second.seed
        assert (first.rotation, second.rotation) == (0, 1)
        team_a, team_b = frozenset(first.seats[0::2]), frozenset(first.seats[1::2])
        assert (frozenset(second.seats[0::2]), frozenset(second.seats[1::2])) == (team_b, team_a)
        assert len(team_a | team_b) == 4
        pairings.add(frozenset({team_a, team_b}))
    assert len(pairings) == comb(6, 4) * 3
    partners = Counter(frozenset(m.seats[p::2]) for m in schedule.matches for p in (0, 1))
    assert set(partners) == {frozenset(pair) for pair in itertools.combinations(BOTS, 2)}
    assert len(set(partners.values())) == 1, "every pair of bots partners equally often"
    assert len({m.seed for m in schedule.matches}) == len(pairings)


def test_partnership_fixed_teams() -> None:
    """Fixed teams (a bot may partner itself): every pairing of teams, duplicated."""
    teams = [("a", "b"), ("c", "c"), ("d", "e")]
    schedule = round_robin("t", "abcde", "partnership-five", teams=teams)
    assert len(schedule.matches) == comb(3, 2) * 2
    met = {frozenset({m.seats[0::2], m.seats[1::2]}) for m in schedule.matches}
    assert met == {frozenset(p) for p in itertools.combinations(teams, 2)}
    assert schedule.matches[2].seats == ("a", "d", "b", "e") and schedule.matches[3].seats == ("d", "a", "e", "b")


def test_deterministic_ids_and_order_independent() -> None:
    """The same inputs give the same schedule whatever the entrants' order; ids come from the
    tournament id and the index; base seeds change every deal; the plan round-trips."""
    one = round_robin("cup-7", BOTS, "partnership", games=2, seed=1)
    assert one == round_robin("cup-7", list(reversed(BOTS)), "partnership", games=2, seed=1)
    assert [m.match_id for m in one.matches] == [f"cup-7.{i}" for i in range(len(one.matches))]
    assert [m.index for m in one.matches] == list(range(len(one.matches)))
    other = round_robin("cup-7", BOTS, "partnership", games=2, seed=2)
    assert [m.seats for m in other.matches] == [m.seats for m in one.matches]
    assert not {m.seed for m in one.matches} & {m.seed for m in other.matches}
    assert Schedule.from_dict(one.to_dict()) == one
    options = round_robin("x", BOTS[:3], "cutthroat", options={"target": 7})
    assert options.options_json == '{"target": 7}' and Schedule.from_dict(options.to_dict()) == options


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"entrants": BOTS[:3], "preset_name": "partnership"}, "seats 4 players"),
    ({"entrants": ["a", "a", "b", "c"]}, "distinct"),
    ({"entrants": "abcd", "teams": [("a", "b"), ("b", "c"), ("d", "d")]}, "one team only"),
    ({"entrants": "abcd", "teams": [("a", "b", "c"), ("d",)]}, "teams have 2 members"),
    ({"entrants": "abcde", "teams": [("a", "b"), ("c", "d")]}, "cover exactly"),
    ({"entrants": "ab", "teams": [("a", "b")]}, "needs 2 teams"),
    ({"tournament_id": "no spaces"}, "bad tournament id"),
    ({"games": 0}, "games"),
    ({"preset_name": "whist"}, "unknown preset"),
])
def test_refused_schedules(kwargs: dict[str, object], message: str) -> None:
    """Impossible schedules are refused with a message naming the problem."""
    arguments: dict[str, object] = {"tournament_id": "t", "entrants": BOTS, "preset_name": "partnership", **kwargs}
    with pytest.raises(ScheduleError, match=message):
        round_robin(**arguments)  # type: ignore[arg-type]
