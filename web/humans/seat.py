"""The people's seat: one ``BotService.Connect`` stream, under the registered "people"
identity, that plays the seat of every person's game at once.

Each ``DecisionRequest`` for a person's match becomes the pending decision of that game's
:class:`Table`; the browser shows it and posts the chosen action, which goes back on the
stream as a ``Decision``.  The referee keeps the clock (the person's time control comes
with ``RunMatch``), so a person who leaves is handled like any slow bot: a strike and a
fallback move.  A match this stream did not start (a round robin that entered every
connected bot while people played) is answered at once with the first legal action, so it
never waits on a person who is not there."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc

from pitch_sdk import __version__
from pitch_sdk.proto.pitch.v1 import bot_pb2, bot_pb2_grpc
from pitch_sdk.proto.pitch.v1 import game_pb2 as pb
from pitch_sdk.protocol import wire
from pitch_sdk.protocol.batching import unbatched
from pitch_sdk.rules import ActionParseError, Card, Ruleset
from pitch_sdk.rules.actions import choose_cards
from store.tls import aio_channel

log = logging.getLogger("pitch.web.people")
PROTOCOL_VERSION = "pitch.v1"


class DecisionError(Exception):
    """A person's answer that cannot be sent, with the HTTP status that says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class PendingDecision:
    """What the person must decide now, as the referee asked it."""

    request: bot_pb2.DecisionRequest
    received: float = field(default_factory=time.monotonic)

    def actions(self) -> list[dict[str, Any]]:
        """The listed legal actions as the browser draws them: index, text, and the card a
        play or call names (so the hand's card itself can be the button)."""
        shown = []
        for index, action in enumerate(self.request.legal_actions):
            which = action.WhichOneof("choice")
            card = action.play.name if which == "play" else action.call.name if which == "call" else None
            cards = [c.name for c in action.cards.cards] if which == "cards" else None
            shown.append({"index": index, "text": action.text, "kind": which or "", "card": card, "cards": cards})
        return shown

    def view(self) -> dict[str, Any]:
        """The decision for the person's browser (their own seat only)."""
        request = self.request
        card_set = None
        if not request.legal_actions and request.HasField("card_set"):
            rule = request.card_set
            card_set = {"allowed": [c.name for c in rule.allowed], "required": [c.name for c in rule.required],
                        "min": rule.min_count, "max": rule.max_count}
        try:
            kind = wire.kind_from_pb(request.kind).value
        except ActionParseError:  # a kind newer than this service: the listed actions still work
            kind = "decision"
        return {"id": request.decision_id, "kind": kind, "actions": self.actions(),
                "card_set": card_set, "budget_ms": request.time_budget_ms, "bank_ms": request.time_bank_ms,
                "elapsed_ms": int(1000 * (time.monotonic() - self.received))}

    def answer(self, index: int | None, cards: Sequence[str] | None) -> bot_pb2.Decision:
        """The ``Decision`` for a listed action's index or a chosen set of cards; raises
        :class:`DecisionError` (400) when neither is a legal answer to this request."""
        request = self.request
        if index is not None:
            if not 0 <= index < len(request.legal_actions):
                raise DecisionError(400, f"action index {index} is out of range: "
                                         f"{len(request.legal_actions)} legal actions")
            return bot_pb2.Decision(match_id=request.match_id, decision_id=request.decision_id,
                                    legal_action_index=index)
        if cards is None or request.legal_actions or not request.HasField("card_set"):
            raise DecisionError(400, "answer with the index of a legal action")
        try:
            action = choose_cards([Card.parse(name) for name in cards])
        except (ActionParseError, ValueError) as exc:
            raise DecisionError(400, f"not a set of cards: {exc}") from None
        if action not in wire.card_set_actions(request.card_set):
            raise DecisionError(400, f"{action} is not a set this decision allows")
        return bot_pb2.Decision(match_id=request.match_id, decision_id=request.decision_id,
                                action=wire.action_to_pb(action))


@dataclass
class Table:
    """One person's game as the web service follows it: what the people's seat heard
    (the match's start, the seat's observations, strikes, the end) and what it waits for.

    Pages read :meth:`view`; every change bumps :attr:`version` and wakes the event
    streams waiting in :meth:`changed_since`."""

    match_id: str
    secret: str
    preset: str
    seat: int
    seat_names: list[str]
    ruleset: Ruleset
    observation: pb.Observation | None = None
    decision: PendingDecision | None = None
    strikes: list[str] = field(default_factory=list)
    result: bot_pb2.MatchResult | None = None
    error: str | None = None
    version: int = 0
    client: str = ""
    """The address of the client that started it (its share of the tables)."""
    owner_pages: int = 0
    """The person's pages of this game open now (their event streams)."""
    last_seen: float = field(default_factory=time.monotonic)
    """When the person last showed they are there (a page open, an answer)."""
    abandoned: bool = False
    """The person left: their seat is played by the first legal action to the end."""
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    def seen(self) -> None:
        """The person is there (a page of the game is open, or they answered)."""
        self.last_seen = time.monotonic()

    def gone_for(self, now: float) -> float:
        """Seconds since the person was last there (0 while a page of the game is open)."""
        return 0.0 if self.owner_pages else now - self.last_seen

    def abandon(self) -> bot_pb2.DecisionRequest | None:
        """Mark the person gone; the decision they left pending, to be answered for them."""
        pending = self.decision
        self.abandoned = True
        self.decision = None
        self.strikes.append("the person left the game: their seat plays the first legal action to its end")
        self.touch()
        return None if pending is None else pending.request

    @property
    def finished(self) -> bool:
        """The match is over (with a result) or never ran (with an error)."""
        return self.result is not None or self.error is not None

    def touch(self) -> None:
        """Record a change and wake every stream waiting for one."""
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    async def changed_since(self, version: int, timeout: float) -> bool:
        """Wait until the table is newer than ``version`` (False after ``timeout`` seconds)."""
        if self.version != version:
            return True
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), timeout)
        return self.version != version

    def ask(self, request: bot_pb2.DecisionRequest) -> None:
        """The referee asks the person (a re-sent request after a reconnection replaces the old one)."""
        self.observation = request.observation
        self.decision = PendingDecision(request)
        self.touch()

    def choose(self, decision_id: str, index: int | None, cards: Sequence[str] | None) -> bot_pb2.Decision:
        """The person's answer to the pending decision (cleared at once, so a second click
        cannot answer twice); :class:`DecisionError` 409 when nothing with that id waits."""
        if self.decision is None or self.decision.request.decision_id != decision_id:
            raise DecisionError(409, "that decision is no longer pending (answered, timed out or replaced)")
        answer = self.decision.answer(index, cards)
        if index is not None and self.observation is not None:
            self._show_play(self.decision.request.legal_actions[index])
        self.decision = None
        self.touch()
        return answer

    def _show_play(self, action: pb.Action) -> None:
        """Show the person's card on the table at once: the referee's next request (which
        says the same) may be a whole trick away."""
        if action.WhichOneof("choice") != "play" or self.observation is None:
            return
        hand = [card for card in self.observation.hand if card.id != action.play.id]
        del self.observation.hand[:]
        self.observation.hand.extend(hand)
        self.observation.current_trick.add(seat=self.seat, card=action.play)
        if self.seat < len(self.observation.hand_sizes):
            self.observation.hand_sizes[self.seat] = len(hand)

    def struck(self, strike: bot_pb2.Strike) -> None:
        """The referee played a fallback for the person (too late, usually)."""
        if self.decision is not None and self.decision.request.decision_id == strike.decision_id:
            self.decision = None
        self.strikes.append(f"{strike.message}: the referee played {strike.fallback.text}")
        self.touch()

    def end(self, result: bot_pb2.MatchResult | None, error: str | None = None) -> None:
        """The match is over (its result) or could not be played (why)."""
        self.decision = None
        if self.result is None:
            self.result = result
        self.error = error if result is None else None
        self.touch()

    def view(self, owner: bool) -> dict[str, Any]:
        """The table as JSON for the browser. Everyone sees public facts (scores, bids,
        trump, tricks, card counts); only the ``owner`` (who holds the game's secret) sees the
        person's hand and pending decision."""
        rules = self.ruleset
        state = "finished" if self.finished else "waiting" if self.decision is None else "deciding"
        view: dict[str, Any] = {
            "match_id": self.match_id, "preset": self.preset, "seat": self.seat, "seat_names": self.seat_names,
            "parties": [rules.party_of(s) for s in range(rules.players)], "target": rules.win.target,
            "version": self.version, "state": state, "owner": owner, "strikes": self.strikes, "error": self.error,
            "result": None if self.result is None else _result_view(self.result, self.seat, rules),
            "table": None if self.observation is None else _public_view(self.observation),
            "hand": [], "decision": None,
        }
        if owner and self.observation is not None and not self.finished:
            view["hand"] = [c.name for c in self.observation.hand]
            view["decision"] = None if self.decision is None else self.decision.view()
        return view


def _public_view(o: pb.Observation) -> dict[str, Any]:
    """The parts of an observation every player at the table may see."""
    last = o.tricks[-1] if o.tricks else None
    trump = wire.suit_from_pb(o.trump)
    return {
        "hand_number": o.hand_number, "dealer": o.dealer, "scores": list(o.scores), "hand_sizes": list(o.hand_sizes),
        "bids": [{"seat": b.seat, "amount": b.amount} for b in o.bids],
        "pitcher": o.pitcher if o.has_pitcher else None, "bid": o.bid if o.has_pitcher else None,
        "trump": None if trump is None else trump.name, "to_move": o.to_move,
        "trick": [{"seat": p.seat, "card": p.card.name} for p in o.current_trick],
        "last_trick": None if last is None else {"winner": last.winner,
                                                 "plays": [{"seat": p.seat, "card": p.card.name} for p in last.plays]},
        "last_result": None if not o.HasField("last_result") else {
            "hand_number": o.last_result.hand_number, "score_changes": list(o.last_result.score_changes),
            "scores": list(o.last_result.scores)},
    }


def _result_view(result: bot_pb2.MatchResult, seat: int, rules: Ruleset) -> dict[str, Any]:
    """The match's outcome as the person reads it: games won per party, final scores, and
    whether the person's party won."""
    party = rules.party_of(seat)
    wins = list(result.party_wins)
    best = max(wins) if wins else 0
    won = bool(wins) and wins[party] == best and wins.count(best) == 1
    drawn = bool(wins) and wins[party] == best and wins.count(best) > 1
    return {"party_wins": wins, "scores": [list(game.scores) for game in result.games], "won": won, "drawn": drawn,
            "forfeited": result.forfeited, "forfeiting_party": result.forfeiting_party if result.forfeited else None,
            "completed": result.completed}


class PeopleSeat:
    """The stream of the people's identity: reconnects with backoff while it runs, routes
    every decision request to its game's :class:`Table`, and sends the people's answers."""

    def __init__(self, address: str, token: str, capacity: int, tables: dict[str, Table]) -> None:
        self.address = address
        self.token = token
        self.capacity = capacity
        self.tables = tables
        self.connected = asyncio.Event()
        self._outbox: asyncio.Queue[bot_pb2.BotMessage | None] | None = None

    def send(self, decision: bot_pb2.Decision) -> bool:
        """Queue a person's answer; False when the stream is down (the referee re-sends the
        request when it is back, and the person answers again)."""
        if self._outbox is None or not self.connected.is_set():
            return False
        self._outbox.put_nowait(bot_pb2.BotMessage(decision=decision))
        return True

    async def run(self, stop: asyncio.Event) -> None:
        """Stay connected until ``stop`` is set."""
        backoff = 0.25
        while not stop.is_set():
            try:
                await self._session(stop)
                backoff = 0.25
            except grpc.aio.AioRpcError as exc:
                log.warning("people's seat: stream to %s lost (%s: %s)", self.address, exc.code().name, exc.details())
            self.connected.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=backoff * (0.5 + random.random()))
            backoff = min(backoff * 2, 10.0)

    async def _session(self, stop: asyncio.Event) -> None:
        outbox: asyncio.Queue[bot_pb2.BotMessage | None] = asyncio.Queue()
        outbox.put_nowait(bot_pb2.BotMessage(hello=bot_pb2.Hello(
            bot_name="person (web)", bot_version=__version__, sdk=f"pitch-web {__version__}",
            protocol_versions=[PROTOCOL_VERSION], capacity=self.capacity, skip_events=True)))
        self._outbox = outbox
        async with aio_channel(self.address) as channel:
            call = bot_pb2_grpc.BotServiceStub(channel).Connect(
                _drain(outbox), metadata=(("authorization", f"Bearer {self.token}"),))
            stopper = asyncio.create_task(stop.wait())
            stopper.add_done_callback(lambda _: call.cancel())
            try:
                async for message in call:
                    for inner in unbatched(message):
                        self._dispatch(inner, outbox)
            except asyncio.CancelledError:
                if not stop.is_set():
                    raise
            except grpc.aio.AioRpcError as exc:
                if not (stop.is_set() and exc.code() == grpc.StatusCode.CANCELLED):
                    raise
            finally:
                stopper.cancel()
                outbox.put_nowait(None)
                self.connected.clear()

    def _dispatch(self, message: bot_pb2.RefereeMessage, outbox: asyncio.Queue[bot_pb2.BotMessage | None]) -> None:
        kind = message.WhichOneof("message")
        if kind == "welcome":
            self.connected.set()
        elif kind == "refusal":
            log.error("people's seat refused: %s", message.refusal.message)
        elif kind == "decision_request":
            request = message.decision_request
            table = self.tables.get(request.match_id)
            if table is not None and not table.finished and not table.abandoned:
                table.ask(request)
            else:
                outbox.put_nowait(bot_pb2.BotMessage(decision=wire.first_legal_decision(request)))
        elif kind == "strike":
            struck = self.tables.get(message.strike.match_id)
            if struck is not None:
                struck.struck(message.strike)
        elif kind == "match_ended":
            ended = self.tables.get(message.match_ended.match_id)
            if ended is not None:
                ended.end(message.match_ended.result)


async def _drain(outbox: asyncio.Queue[bot_pb2.BotMessage | None]) -> AsyncIterator[bot_pb2.BotMessage]:
    """The stream's messages in order, until ``None``."""
    while (message := await outbox.get()) is not None:
        yield message
