"""The replay's view model (``web.views.replay``) on games the built-in bots play with the
engine, checked step by step against the engine's own state (no servers)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

import pytest

from pitch_sdk.bots.loader import load_bot
from pitch_sdk.harness.local import play_game
from pitch_sdk.rules import FULL_VIEW, PRESETS, GameLog, GameState, PointCategory, preset, replay
from pitch_sdk.rules.actions import ChooseCards
from pitch_sdk.rules.cards import CARDS
from web.views.replay import Replay, game_replay, parse_view, view_name

NAMES = ("north", "east", "south", "west", "fifth", "sixth")


@cache
def _log(name: str, seed: int = 2) -> GameLog:
    """A whole game of preset ``name`` between heuristic bots."""
    rules = preset(name)
    return GameLog.of(play_game(rules, [load_bot("heuristic") for _ in range(rules.players)], seed=seed))


def _states(log: GameLog) -> Iterator[GameState]:
    """The engine's state at each step: before the first move, then after each."""
    state = GameState(log.ruleset, seed=log.seed, dealer=log.dealer, deals=log.deals)
    yield state
    for _, action in log.moves:
        state.apply(action)
        yield state


def _replay(name: str, viewer: int) -> Replay:
    log = _log(name)
    return game_replay(log, NAMES[:log.ruleset.players], viewer)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_face_up_steps_are_the_engines_table(name: str) -> None:
    """Every preset: one step per move plus the deal; at each, every hand, the trick in play
    and the scores are the engine's, and the last step is the game's end."""
    built = _replay(name, FULL_VIEW)
    log = _log(name)
    assert len(built.steps) == len(log.moves) + 1
    for step, state in zip(built.steps, _states(log), strict=True):
        assert [list(seat.cards) for seat in step.seats] == [[c.name for c in state.hand(s)]
                                                             for s in range(state.players)]
        assert all(seat.backs == 0 for seat in step.seats)
        assert [(p.seat, p.card) for p in step.trick] == [(s, CARDS[c].name) for s, c in state.trick]
        assert step.scores == tuple(state.scores)
        assert step.hand_number == state.hand_number
    final = replay(log)
    assert built.steps[-1].over and built.steps[-1].winner == final.winner


@pytest.mark.parametrize("name", ["partnership", "cutthroat", "five-handed", "nine-five"])
def test_a_seat_sees_its_own_hand_and_only_backs_of_the_others(name: str) -> None:
    """From a seat: its hand is the engine's, every other hand is counted, never named, and
    another seat's chosen cards (an exchange, a discard) are counted in the last action."""
    log = _log(name)
    for viewer in range(log.ruleset.players):
        built = _replay(name, viewer)
        for step, state in zip(built.steps, _states(log), strict=True):
            for seat in step.seats:
                held = [c.name for c in state.hand(seat.seat)]
                if seat.seat == viewer:
                    assert list(seat.cards) == held or (not seat.cards and seat.backs == len(held))
                else:
                    assert seat.cards == () and seat.backs == len(held)
            if step.action is not None and step.action[0] != viewer:
                _, action = log.moves[step.index - 1]
                if isinstance(action, ChooseCards):
                    assert step.action[1].startswith("chooses ") and not any(
                        c.name in step.action[1] for c in action.cards)


def test_hand_starts_and_navigation_follow_the_engines_hands() -> None:
    """A hand starts where the engine's hand number changes; next and previous hand move
    between those starts (previous: to this hand's start, or the one before at a start)."""
    built = _replay("partnership", FULL_VIEW)
    numbers = [state.hand_number for state in _states(_log("partnership"))]
    starts = tuple(i for i, n in enumerate(numbers) if i == 0 or n != numbers[i - 1])
    assert built.hand_starts == starts and len(starts) > 2
    assert all(built.steps[s].decision == 0 for s in starts)
    assert built.next_hand(0) == starts[1] and built.next_hand(starts[1] + 1) == starts[2]
    assert built.next_hand(len(built.steps) - 1) == len(built.steps) - 1
    assert built.previous_hand(starts[1] + 3) == starts[1] and built.previous_hand(starts[1]) == 0
    assert built.previous_hand(0) == 0


def test_points_fall_during_the_hand_and_all_show_at_its_scoring() -> None:
    """During a hand only the engine's awards whose card a completed trick holds show, Game
    never before the scoring; the scoring step shows every award and score change; a seat
    sees High and Low only at the scoring."""
    log = _log("partnership")
    final = replay(log)
    results = {r.hand_number: r for r in final.results}
    face_up, seat = _replay("partnership", FULL_VIEW), _replay("partnership", 0)
    ended = 0
    for up, mine in zip(face_up.steps, seat.steps, strict=True):
        awarded = results[up.hand_number].awards
        shown = {(line.category, a.card) for line in up.points for a in line.awards}
        assert shown <= {(_label(a.category), None if a.card is None else a.card.name) for a in awarded}
        assert all(card is not None for _, card in shown)
        seen = {category for line in mine.points for category in [line.category] if line.awards}
        assert not seen & {"High", "Low"}
        if up.ended is not None:
            ended += 1
            result = results[up.ended.hand_number]
            everything = {(line.category, a.card, a.party) for line in up.ended.points for a in line.awards}
            assert everything == {(_label(a.category), None if a.card is None else a.card.name, a.party)
                                  for a in result.awards}
            assert up.ended.score_changes == result.score_changes and up.ended.scores == result.scores
            assert up.ended.last_trick is not None and mine.ended == up.ended
    assert ended == len(final.results)
    assert [line.category for line in face_up.steps[0].points] == [
        _label(rule.category) for rule in log.ruleset.scoring.points]


def test_views_parse_and_name_each_other() -> None:
    """``all`` and ``seat-K`` name the viewers; anything else is refused."""
    assert parse_view("all", 4) == FULL_VIEW and parse_view("seat-3", 4) == 3
    assert all(parse_view(view_name(v), 4) == v for v in (FULL_VIEW, 0, 1, 2, 3))
    for bad in ("seat-4", "seat--1", "seat-", "seat-x", "ALL", "", "3"):
        with pytest.raises(ValueError):
            parse_view(bad, 4)


def _label(category: PointCategory) -> str:
    return category.value.replace("-", " ").capitalize()
