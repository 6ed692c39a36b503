"""The spectator's table model against games the engine plays: the same events the referee
streams to spectators (each engine event converted by ``wire.event_to_pb`` for the
SPECTATOR viewer, plays before the events they caused), folded, agree with the engine on
every public fact and never hold a card no event showed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from pitch_sdk.bots import HeuristicBot, RandomBot
from pitch_sdk.harness.local import play_game
from pitch_sdk.proto.pitch.v1 import arena_pb2, bot_pb2
from pitch_sdk.protocol import wire
from pitch_sdk.rules import SPECTATOR, GameLog, GameState, PlayCard, Ruleset, preset
from pitch_sdk.rules.cards import CARDS, cards_of
from pitch_sdk.rules.events import Burned, Dealt, Event, Exchanged
from web.views.spectator import SpectatorTable

NAMES = ["north", "<b>east</b>", "south", "west"]


@dataclass(frozen=True)
class Streamed:
    """One spectator event, the engine item it came from, and each seat's hidden hand after it."""

    event: bot_pb2.MatchEvent
    item: Event | tuple[int, PlayCard]
    held: tuple[frozenset[str], ...]
    """The cards each seat holds after this event (from the engine's full record)."""
    state: GameState | None
    """The engine after the move this event belongs to, on the move's last event only."""


def spectator_stream(log: GameLog, game: int) -> Iterator[Streamed]:
    """Replay ``log`` (game ``game`` of a match, from 0) and yield what a spectator of the
    referee receives, in the referee's order (``referee.match.Match._broadcast``), with the
    hidden hands the engine knows at each event."""
    state = GameState(log.ruleset, seed=log.seed, dealer=log.dealer, deals=log.deals)
    hands = [0] * log.ruleset.players
    step: list[Event | tuple[int, PlayCard]] = list(state.history)
    moves = iter(log.moves)
    while True:
        for index, item in enumerate(step):
            _track(hands, item)
            held = tuple(frozenset(CARDS[c].name for c in cards_of(mask)) for mask in hands)
            yield Streamed(wire.event_to_pb(item, SPECTATOR, game), item, held,
                           state.clone() if index == len(step) - 1 else None)
        move = next(moves, None)
        if move is None:
            return
        seen = len(state.history)
        state.apply(move[1])
        step = [(move[0], move[1])] if isinstance(move[1], PlayCard) else []
        step.extend(state.history[seen:])


def _track(hands: list[int], item: Event | tuple[int, PlayCard]) -> None:
    """Follow each seat's hand through the engine's (hidden) record of the deal and exchanges."""
    if isinstance(item, Dealt):
        hands[:] = list(item.hands)
    elif isinstance(item, Exchanged):
        hands[item.seat] = (hands[item.seat] & ~item.discarded) | item.drawn
    elif isinstance(item, Burned):
        hands[item.seat] &= ~item.cards
    elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], PlayCard):
        hands[item[0]] &= ~(1 << int(item[1].card))


def played_log(rules: Ruleset, seed: int) -> GameLog:
    """A game two heuristic and two random bots play (one bot per seat of ``rules``)."""
    bots = [HeuristicBot() if seat % 2 == 0 else RandomBot() for seat in range(rules.players)]
    return GameLog.of(play_game(rules, bots, seed=seed))


def public_cards(event: bot_pb2.MatchEvent) -> set[str]:
    """Every card an event message names (all of them public, for a spectator's copy)."""
    found: set[str] = set()

    def walk(message: object) -> None:
        for descriptor, value in message.ListFields():  # type: ignore[attr-defined]
            if descriptor.message_type is None:
                continue
            items = [value] if hasattr(value, "ListFields") else list(value)  # one message, or repeated ones
            for child in items:
                if descriptor.message_type.name == "Card":
                    found.add(wire.card_from_pb(child).name)
                else:
                    walk(child)

    walk(event)
    return found


def data_cards(data: object) -> set[str]:
    """Every card name in JSON data from the model (values of ``card``/``cards`` keys and lists)."""
    found: set[str] = set()
    names = {card.name for card in CARDS}

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for child in value.values():
                walk(child)
        elif isinstance(value, list):
            for child in value:
                walk(child)
        elif isinstance(value, str) and value in names:
            found.add(value)

    walk(data)
    return found


@pytest.mark.parametrize(("name", "seed"), [("partnership", 3), ("cutthroat", 5), ("partnership", 11)])
def test_the_model_follows_the_engine(name: str, seed: int) -> None:
    """Dealer, hand, trump, tricks won, cards held per seat and scores match the engine
    after every move; the trick in play holds the plays since the last trick."""
    rules = preset(name)
    log = played_log(rules, seed)
    table = SpectatorTable.of(rules, NAMES[:rules.players])
    for streamed in spectator_stream(log, 0):
        table.apply(streamed.event)
        assert table.held == [len(cards) for cards in streamed.held]
        state = streamed.state
        if state is None or state.is_over:
            continue
        if state.hand_number == table.hand:
            assert table.dealer == state.dealer
            assert table.scores == list(state.scores)
            assert table.held == [len(state.hand(seat)) for seat in range(rules.players)]
            assert table.trump == (state.trump_suit.letter if state.trump_suit is not None else None)
            assert [p["card"] for p in table.trick] == [CARDS[c].name for _, c in state.trick]
    final = replay_final(log)
    assert table.scores == list(final.scores)
    assert table.games_won == [int(final.winner == party) for party in range(rules.parties)]
    assert len(table.hands) == len(final.results)
    assert [h["scores"] for h in table.hands] == [list(r.scores) for r in final.results]


def replay_final(log: GameLog) -> GameState:
    """The finished game of ``log``."""
    state = GameState(log.ruleset, seed=log.seed, dealer=log.dealer, deals=log.deals)
    for _, action in log.moves:
        state.apply(action)
    return state


def test_no_hidden_card_reaches_the_browser() -> None:
    """Each event's JSON and the table after it name only cards some event so far showed;
    none of a hand still held appears unless an earlier hand showed it, and seats' hands
    are counts."""
    rules = preset("partnership")
    log = played_log(rules, 21)
    table = SpectatorTable.of(rules, NAMES)
    revealed: set[str] = set()
    revealed_before_hand: set[str] = set()
    for streamed in spectator_stream(log, 0):
        if streamed.event.WhichOneof("event") == "hand_dealt":
            revealed_before_hand = set(revealed)
            assert not streamed.event.hand_dealt.hand, "the spectator's deal carries no hand"
        revealed |= public_cards(streamed.event)
        data = json.loads(json.dumps({"event": table.apply(streamed.event), "table": table.to_dict()}))
        assert data_cards(data) <= revealed
        held = frozenset().union(*streamed.held)
        assert data_cards(data) & held <= revealed_before_hand | public_cards(streamed.event)
        assert all(isinstance(count, int) for count in data["table"]["held"])


def test_the_result_names_the_winner_and_every_game() -> None:
    """The stream's last message becomes a result the page can show without the events."""
    rules = preset("partnership")
    table = SpectatorTable.of(rules, NAMES)
    result = bot_pb2.MatchResult(match_id="m", party_wins=[2, 1], completed=True, games=[
        bot_pb2.GameOutcome(winner=0, has_winner=True, scores=[11, 4], hands=3),
        bot_pb2.GameOutcome(winner=1, has_winner=True, scores=[7, 12], hands=4),
        bot_pb2.GameOutcome(winner=0, has_winner=True, scores=[11, 9], hands=5)])
    shown = table.finish(arena_pb2.StreamMatchEventsResponse(result=result).result)
    assert shown["text"] == "north & south won the match"
    assert shown["party_wins"] == [2, 1] and [g["winner"] for g in shown["games"]] == [0, 1, 0]
    assert table.to_dict()["result"] == shown
    forfeit = table.finish(bot_pb2.MatchResult(party_wins=[0, 0], forfeited=True, forfeiting_party=1, completed=True))
    assert forfeit["text"] == "<b>east</b> & west forfeited"


def test_unknown_events_are_counted_not_fatal() -> None:
    """An event kind this model does not know (a newer referee) shows by name and changes nothing."""
    table = SpectatorTable.of(preset("partnership"), NAMES)
    shown = table.apply(bot_pb2.MatchEvent(game=1))
    assert shown["kind"] == "unknown" and table.events == 1 and table.held == [0, 0, 0, 0]


def test_names_must_fill_the_seats() -> None:
    """A table whose names do not match the seats is refused rather than drawn wrong."""
    with pytest.raises(ValueError, match="4 seats"):
        SpectatorTable.of(preset("partnership"), NAMES[:3])
