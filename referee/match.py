"""Running one match: games of the rules engine, decisions asked of remote seats.

The referee is the only authority: it deals (seeded), asks the seat to move with its
observation and legal actions, times the answer on its own clock, validates it, and sends
every seat only what that seat may see.  Faults follow the match's policy: a late,
illegal or malformed answer earns a strike and the referee plays a fallback legal move; at
``max_strikes`` the seat's party forfeits; a seat whose bot stays disconnected longer than
the grace window forfeits too.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from pitch_sdk.clock import bank_after
from pitch_sdk.proto.pitch.v1 import arena_pb2, bot_pb2, game_pb2
from pitch_sdk.protocol import wire
from pitch_sdk.protocol.decision_times import add_time
from pitch_sdk.rules import (
    SPECTATOR,
    Action,
    ActionParseError,
    Decision,
    GameLog,
    GameState,
    PlayCard,
    Ruleset,
    observe,
)
from pitch_sdk.rules.events import Dealt, Event
from referee.admission import bot_error_text
from referee.config import echo
from referee.fallback_rule import SeatFallbacks, fallback_heavy, unrated_reason
from referee.protowire import field_tag, length_delimited
from referee.sessions import PendingDecision, Presence

log = logging.getLogger("pitch.referee.match")

#: Card-set decisions with more legal sets than this are sent as a constraint only.
MAX_LISTED_ACTIONS = 256
STRIKES_KEPT = 16
"""Strikes a seat keeps in full (:attr:`SeatRunner.strike_log`); the count goes on."""
_DECISION_REQUEST = field_tag(bot_pb2.RefereeMessage, "decision_request")
_OBSERVATION = field_tag(bot_pb2.DecisionRequest, "observation")
_STATUS_RANK: dict[int, int] = {  # the worst thing that happened to a seat decides its status
    game_pb2.SEAT_STATUS_OK: 0, game_pb2.SEAT_STATUS_TIMED_OUT: 1, game_pb2.SEAT_STATUS_ILLEGAL: 2,
    game_pb2.SEAT_STATUS_DISCONNECTED: 3, game_pb2.SEAT_STATUS_FORFEITED: 4,
}


@dataclass(frozen=True)
class MatchSpec:
    """What to play: validated by the service before a match is created."""

    match_id: str
    ruleset: Ruleset
    seats: tuple[Presence, ...]
    seed: int
    games: int
    per_decision_ms: int
    bank_ms: int
    max_strikes: int
    reconnect_grace_s: float
    seat_versions: tuple[str | None, ...] = ()
    """The version each seat's bot said hello with when the match was made (``None`` for a
    seat the referee plays itself): the results are rated under these versions."""


def game_seed(seed: int, game: int) -> int:
    """The engine seed of game ``game`` (from 0) of a match with ``seed``."""
    return seed * 65536 + game


class Forfeit(Exception):
    """A seat's party forfeits the match."""

    def __init__(self, seat: int, reason: str) -> None:
        super().__init__(reason)
        self.seat = seat


@dataclass
class SeatRunner:
    """One seat of a match: time control, strikes and fallbacks."""

    match: Match
    seat: int
    presence: Presence
    bank_ms: float
    strikes: int = 0
    timeouts: int = 0
    decisions: int = 0
    fallbacks: int = 0
    """Decisions the referee played for the seat (every reason, disconnection included)."""
    time_used_ms: float = 0.0
    """Time the bot took over the decisions it answered (referee's clock)."""
    decision_times: list[int] = field(default_factory=list)
    """Answered decisions per time bucket (:mod:`pitch_sdk.protocol.decision_times`)."""
    answer_ms: int | None = None
    """Milliseconds the seat's latest decision took its bot (``None``: no timed answer),
    for the game log."""
    status: int = game_pb2.SEAT_STATUS_OK
    disconnected_since: float | None = None
    held: list[bytes] = field(default_factory=list)
    """Events not yet delivered, each as a request part (see :func:`_event_part`): they
    ride on the seat's next decision request."""
    strike_log: list[bot_pb2.Strike] = field(default_factory=list)
    """The seat's first :data:`STRIKES_KEPT` strikes, as sent to the bot (what the arena's
    compliance check of a version reports, :mod:`referee.version_check`)."""

    def _worsen(self, status: int) -> None:
        if _STATUS_RANK[status] > _STATUS_RANK[self.status]:
            self.status = status

    async def decide(self, state: GameState, game: int) -> Action:
        """Ask the bot for the seat's move; returns the action to apply (maybe a fallback)."""
        spec = self.match.spec
        decision = state.decision()
        legal = decision.legal_actions
        decision_id = f"{spec.match_id}:{self.seat}:{self.match.next_decision()}"  # see Presence.ignore
        request, listed = self._request(state, decision, decision_id, game)
        loop = asyncio.get_running_loop()
        pending = PendingDecision(request, loop.create_future())
        presence = self.presence
        if decision_id in presence.pending:
            self.match.ran_twice(decision_id, presence)
        presence.pending[decision_id] = pending
        self.answer_ms = None
        try:
            presence.send_encoded(request)
            answer = await self._await_answer(pending)
        finally:
            if presence.pending.get(decision_id) is pending:
                del presence.pending[decision_id]
            else:  # dropped or replaced by the other run of this match id (it used to crash: KeyError)
                self.match.ran_twice(decision_id, presence)
        if answer is None:
            return self._fallback(state, decision_id, bot_pb2.STRIKE_REASON_TIMEOUT, "no answer in time")
        if answer is _DISCONNECTED:
            return self._fallback(state, decision_id, bot_pb2.STRIKE_REASON_DISCONNECTED, "bot disconnected")
        assert isinstance(answer, bot_pb2.Decision)
        which = answer.WhichOneof("answer")
        try:
            if which == "legal_action_index":
                if answer.legal_action_index >= listed:
                    raise ActionParseError(f"legal_action_index {answer.legal_action_index} is out of "
                                           f"range: {listed} actions")
                action = legal[answer.legal_action_index]
            elif which == "action":
                action = wire.action_from_pb(answer.action)
            elif which == "bot_error":
                return self._fallback(state, decision_id, bot_pb2.STRIKE_REASON_BOT_ERROR,
                                      bot_error_text(answer.bot_error))
            else:
                raise ActionParseError("the decision has no answer: set legal_action_index or action")
        except (ActionParseError, ValueError) as exc:
            return self._fallback(state, decision_id, bot_pb2.STRIKE_REASON_MALFORMED, str(exc))
        if which == "action" and not state.is_legal(action):  # a listed action is legal already
            return self._fallback(state, decision_id, bot_pb2.STRIKE_REASON_ILLEGAL_ACTION,
                                  f"{action} is not legal; legal: {', '.join(map(str, legal[:20]))}")
        self.decisions += 1
        return action

    def _request(self, state: GameState, decision: Decision, decision_id: str, game: int) -> tuple[bytes, int]:
        """The seat's encoded decision request, carrying (and releasing) its held events,
        and how many legal actions it lists.

        The request is joined from encoded parts (see :mod:`referee.protowire`): its own
        scalars, the observation (itself joined from cached parts), one cached part per
        listed legal action and the held events, each already encoded once."""
        spec = self.match.spec
        legal = decision.legal_actions
        head = bot_pb2.DecisionRequest(
            match_id=spec.match_id, decision_id=decision_id, seat=self.seat, game=game + 1,
            kind=wire.kind_to_pb(decision.kind), time_budget_ms=spec.per_decision_ms, time_bank_ms=int(self.bank_ms))
        if decision.card_set:
            head.card_set.CopyFrom(wire.card_set_rule_to_pb(decision.card_set))
        observation = wire.observation_bytes(observe(state, self.seat, legal), self._wants_tensor())
        listed = [_legal_action_part(action) for action in legal] if len(legal) <= MAX_LISTED_ACTIONS else []
        request = b"".join([head.SerializeToString(), length_delimited(_OBSERVATION, observation), *listed,
                            *self.held])
        self.held = []
        return length_delimited(_DECISION_REQUEST, request), len(listed)

    def _wants_tensor(self) -> bool:
        session = self.presence.session
        return session is not None and session.hello.observation_tensor

    def wants_events(self) -> bool:
        """Whether the seat's bot takes events (see :meth:`Presence.wants_events`)."""
        return self.presence.wants_events()

    async def _await_answer(self, pending: PendingDecision) -> bot_pb2.Decision | object | None:
        """The answer, ``None`` on timeout, ``_DISCONNECTED`` when the bot is away too long.

        The clock is the referee's: per-decision time first, then the bank.  While the bot
        is disconnected the bank is not spent; the request is re-sent when it returns."""
        spec = self.match.spec
        loop = asyncio.get_running_loop()
        start = loop.time()
        limit = (spec.per_decision_ms + self.bank_ms) / 1000
        while True:
            if not self.presence.connected:
                now = time.monotonic()
                if self.disconnected_since is None:
                    self.disconnected_since = now
                self._worsen(game_pb2.SEAT_STATUS_DISCONNECTED)
                remaining_grace = spec.reconnect_grace_s - (now - self.disconnected_since)
                if remaining_grace <= 0:
                    raise Forfeit(self.seat, "bot stayed disconnected past the grace window")
                back: asyncio.Future[Any] = asyncio.ensure_future(self.presence.reconnected.wait())
                try:
                    waiting: set[asyncio.Future[Any]] = {pending.answer, back}
                    await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED,
                                       timeout=min(remaining_grace, spec.per_decision_ms / 1000))
                finally:
                    back.cancel()
                if pending.answer.done():
                    return pending.answer.result()
                if not self.presence.connected:
                    return _DISCONNECTED
                start = loop.time()  # back: the clock restarts with the re-sent request
                continue
            self.disconnected_since = None
            answer = pending.answer
            if not answer.done():  # the match's clock resolves the future with None when time is up
                self.match.clock.watch(answer, start + limit)
                await answer
            decision = answer.result()
            if decision is None:
                if not self.presence.connected:
                    return _DISCONNECTED  # the stream dropped while we waited: no strike
                self.bank_ms = 0
                return None
            spent_ms = (loop.time() - start) * 1000
            self.bank_ms = bank_after(spent_ms, spec.per_decision_ms, self.bank_ms)
            self.time_used_ms += spent_ms
            self.answer_ms = round(spent_ms)
            add_time(self.decision_times, spent_ms)
            return decision

    def _fallback(self, state: GameState, decision_id: str, reason: int, message: str) -> Action:
        """Play the first legal action for the seat; strike it unless it was away."""
        action = state.default_action()
        spec = self.match.spec
        message = echo(message, 200)  # it may repeat what the bot sent
        if reason != bot_pb2.STRIKE_REASON_DISCONNECTED:
            self.strikes += 1
            if reason == bot_pb2.STRIKE_REASON_TIMEOUT:
                self.timeouts += 1
            self._worsen(game_pb2.SEAT_STATUS_TIMED_OUT if reason == bot_pb2.STRIKE_REASON_TIMEOUT
                         else game_pb2.SEAT_STATUS_ILLEGAL)
        log.info("match %s seat %d: %s; fallback %s", spec.match_id, self.seat, message, action)
        strike = bot_pb2.Strike(match_id=spec.match_id, decision_id=decision_id, seat=self.seat,
                                reason=reason,  # type: ignore[arg-type]
                                message=message, fallback=wire.action_to_pb(action), strikes=self.strikes)
        if len(self.strike_log) < STRIKES_KEPT:
            self.strike_log.append(strike)
        self.presence.send(bot_pb2.RefereeMessage(strike=strike))
        if spec.max_strikes and self.strikes >= spec.max_strikes:
            raise Forfeit(self.seat, f"{self.strikes} strikes")
        self.fallbacks += 1  # counted only when played: a forfeit ends the match instead
        return action


_DISCONNECTED = object()


def _expire(answer: asyncio.Future[bot_pb2.Decision | None]) -> None:
    """Time is up: resolve a pending answer with ``None`` (a later answer is then ignored)."""
    if not answer.done():
        answer.set_result(None)


class AnswerClock:
    """Expires a match's pending answer at its deadline, with one timer for the whole match.

    A match waits for one answer at a time, and nearly always for far less than the time
    allowed, so a timer armed and cancelled per decision is pure overhead on the hot path
    (a cancelled timer also stays in the event loop's heap until it is swept).  The clock
    keeps one timer instead: when it fires it expires the watched answer if that answer's
    deadline has passed, and otherwise re-arms itself for that deadline."""

    def __init__(self) -> None:
        self._answer: asyncio.Future[bot_pb2.Decision | None] | None = None
        self._deadline = 0.0
        self._timer: asyncio.TimerHandle | None = None

    def watch(self, answer: asyncio.Future[bot_pb2.Decision | None], deadline: float) -> None:
        """Expire ``answer`` at ``deadline`` (loop time) unless it is resolved before."""
        self._answer, self._deadline = answer, deadline
        if self._timer is not None and self._timer.when() > deadline:  # too late for this one
            self._timer.cancel()
            self._timer = None
        if self._timer is None:
            self._timer = answer.get_loop().call_at(deadline, self._fire)

    def _fire(self) -> None:
        self._timer = None
        answer = self._answer
        if answer is None or answer.done():
            return
        loop = answer.get_loop()
        if loop.time() >= self._deadline:
            _expire(answer)
        else:
            self._timer = loop.call_at(self._deadline, self._fire)


@dataclass
class Match:
    """A match in progress and its record."""

    spec: MatchSpec
    seats: list[SeatRunner] = field(default_factory=list)
    spectator_log: list[tuple[int, Event | tuple[int, Action]]] = field(default_factory=list)
    """(game, engine event or (seat, play)) for spectators, in order."""
    game_logs: list[str] = field(default_factory=list)
    result: bot_pb2.MatchResult | None = None
    _decisions: int = 0
    _grew: asyncio.Event | None = None
    """Set when the spectator log grows; created only once a spectator waits for more."""
    _ruleset: game_pb2.Ruleset = field(init=False)
    """The ruleset as a message, encoded once for every seat's start and the result."""
    clock: AnswerClock = field(default_factory=AnswerClock)
    """Times the answer the match is waiting for."""
    practice: bool = False
    """A practice match (not recorded)."""
    started_unix: float = field(default_factory=time.time)
    game: int = 0
    """The game being played, from 1 (0 before the first deal)."""
    _ran_twice: bool = False
    """Whether :meth:`ran_twice` has been said."""

    def __post_init__(self) -> None:
        self.seats = [SeatRunner(self, seat, presence, float(self.spec.bank_ms))
                      for seat, presence in enumerate(self.spec.seats)]
        self._ruleset = wire.ruleset_to_pb(self.spec.ruleset)

    def next_decision(self) -> int:
        """A new decision number (decision ids are unique within the referee)."""
        self._decisions += 1
        return self._decisions

    def ran_twice(self, decision_id: str, presence: Presence) -> None:
        """Another pending decision of a bot has this match's decision id: the match id runs
        twice at once on that bot's stream (here and on another referee, whose seat this
        referee relays), which the fleet-wide claim is there to prevent.  Said once per
        match, as an error: the seat goes on (its own answer may have been taken by the
        other run: then it times out), and the store keeps the first record of the match."""
        if not self._ran_twice:
            self._ran_twice = True
            log.error("match %s: decision %s of bot %r clashes with a pending decision of another run of the "
                      "same match id: it runs twice at once", self.spec.match_id, decision_id, presence.bot.name)

    # ------------------------------------------------------------------ running
    async def run(self) -> bot_pb2.MatchResult:
        """Play every game; returns (and keeps) the result, whatever happens."""
        spec = self.spec
        rules = spec.ruleset
        outcomes: list[bot_pb2.GameOutcome] = []
        forfeiting: int | None = None
        completed = True
        started = [self._started_message(seat) for seat in range(rules.players)]
        for seat, message in enumerate(started):
            self.spec.seats[seat].resume_messages[(spec.match_id, seat)] = message
            self.spec.seats[seat].send(message)
        state: GameState | None = None
        decision_ms: list[int | None] = []
        try:
            for game in range(spec.games):
                self.game = game + 1
                state = GameState.new(rules, seed=game_seed(spec.seed, game), dealer=game % rules.players)
                decision_ms = []
                self._broadcast(game, state.history, None)
                while not state.is_over:
                    seen = len(state.history)
                    runner = self.seats[state.to_move]
                    action = await runner.decide(state, game)
                    decision_ms.append(runner.answer_ms)
                    seat = state.to_move
                    state.apply(action)
                    self._broadcast(game, state.history[seen:], (seat, action))
                self.game_logs.append(GameLog.of(state, decision_ms=tuple(decision_ms)).to_json())
                outcomes.append(_outcome(state))
                state = None
        except Forfeit as forfeit:
            forfeiting = rules.party_of(forfeit.seat)
            self.seats[forfeit.seat].status = game_pb2.SEAT_STATUS_FORFEITED
            log.warning("match %s: party %d forfeits (%s)", spec.match_id, forfeiting, forfeit)
        except asyncio.CancelledError:
            completed = False
            log.warning("match %s aborted", spec.match_id)
        finally:
            if state is not None:  # the unfinished game, for the record
                self.game_logs.append(GameLog.of(state, decision_ms=tuple(decision_ms)).to_json())
            for seat in range(rules.players):
                self.spec.seats[seat].resume_messages.pop((spec.match_id, seat), None)
            self.result = self._result(outcomes, forfeiting, completed)
            for runner in self.seats:
                if runner.held:
                    held = bot_pb2.DecisionRequest.FromString(b"".join(runner.held)).events
                    runner.presence.send(bot_pb2.RefereeMessage(events=bot_pb2.MatchEvents(
                        match_id=spec.match_id, seat=runner.seat, events=held)))
                    runner.held = []
                runner.presence.send(bot_pb2.RefereeMessage(
                    match_ended=bot_pb2.MatchEnded(match_id=spec.match_id, result=self.result)))
            self._wake()
        return self.result

    def _started_message(self, seat: int) -> bot_pb2.RefereeMessage:
        spec = self.spec
        return bot_pb2.RefereeMessage(match_started=bot_pb2.MatchStarted(
            match_id=spec.match_id, seat=seat, ruleset=self._ruleset,
            seat_names=[p.bot.name for p in spec.seats], games=spec.games,
            time_control=bot_pb2.TimeControl(per_decision_ms=spec.per_decision_ms, bank_ms=spec.bank_ms),
            max_strikes=spec.max_strikes))

    def _broadcast(self, game: int, events: list[Event], move: tuple[int, Action] | None) -> None:
        """Hold new events for every seat that wants them (as that seat may see them) and
        log them for spectators (converted only when someone watches)."""
        items: list[Event | tuple[int, Action]] = []
        if move is not None and isinstance(move[1], PlayCard):
            items.append(move)
        items.extend(events)
        if not items:
            return
        self.spectator_log.extend((game, item) for item in items)
        self._wake()
        listeners = [runner for runner in self.seats if runner.wants_events()]
        if not listeners:
            return
        public = [_public_part(item, game) for item in items]
        dealt = any(isinstance(item, Dealt) for item in items)
        for runner in listeners:
            if dealt:  # a deal's event differs per seat: each sees its own hand
                runner.held.extend(_event_part(wire.event_to_pb(item, runner.seat, game)) if isinstance(item, Dealt)
                                   else shared for item, shared in zip(items, public, strict=True))
            else:
                runner.held.extend(public)

    def _wake(self) -> None:
        """Wake every spectator stream waiting for more (if any: this runs at every move)."""
        if self._grew is not None:
            self._grew.set()
            self._grew = None

    async def events(self) -> AsyncIterator[arena_pb2.StreamMatchEventsResponse]:
        """Every public event from the start, then new ones as they happen, then the result."""
        index = 0
        while True:
            while index < len(self.spectator_log):
                game, item = self.spectator_log[index]
                index += 1
                yield arena_pb2.StreamMatchEventsResponse(event=wire.event_to_pb(item, SPECTATOR, game))
            if self.result is not None:
                yield arena_pb2.StreamMatchEventsResponse(result=self.result)
                return
            if self._grew is None:
                self._grew = asyncio.Event()
            await self._grew.wait()

    def _result(self, outcomes: list[bot_pb2.GameOutcome], forfeiting: int | None,
                completed: bool) -> bot_pb2.MatchResult:
        rules = self.spec.ruleset
        wins = [0] * rules.parties
        for outcome in outcomes:
            if outcome.has_winner:
                wins[outcome.winner] += 1
        unrated = unrated_reason([SeatFallbacks(r.seat, r.decisions, r.fallbacks) for r in self.seats],
                                 forfeited=forfeiting is not None)
        return bot_pb2.MatchResult(
            match_id=self.spec.match_id, ruleset=self._ruleset, seed=self.spec.seed,
            games=outcomes, party_wins=wins, forfeited=forfeiting is not None,
            forfeiting_party=forfeiting or 0, completed=completed, unrated=bool(unrated), unrated_reason=unrated,
            seats=[bot_pb2.SeatOutcome(seat=r.seat, bot_id=r.presence.bot.bot_id, status=r.status,  # type: ignore[arg-type]
                                       strikes=r.strikes, decisions=r.decisions,
                                       ignored_answers=r.presence.ignored.pop((self.spec.match_id, r.seat), 0),
                                       impersonation_attempts=r.presence.impersonations.pop(
                                           (self.spec.match_id, r.seat), 0),
                                       timeouts=r.timeouts,
                                       time_used_ms=round(r.time_used_ms),
                                       decision_time_histogram=r.decision_times, fallbacks=r.fallbacks,
                                       fallback_heavy=fallback_heavy(r.decisions, r.fallbacks))
                   for r in self.seats])


def _outcome(state: GameState) -> bot_pb2.GameOutcome:
    return bot_pb2.GameOutcome(winner=state.winner or 0, has_winner=state.winner is not None,
                               scores=state.scores, hands=len(state.results),
                               win_reason=state.win_reason.value if state.win_reason else "")


@lru_cache(maxsize=8192)
def _legal_action_part(action: Action) -> bytes:
    """A serialized ``DecisionRequest`` listing only ``action``.

    Protobuf parses concatenated messages as their merge, repeated fields appended in
    order, so a request's legal actions and held events are such parts, concatenated; an
    action's part is built once (actions are immutable, games repeat them)."""
    return bot_pb2.DecisionRequest(legal_actions=[wire.action_to_pb(action)]).SerializeToString()


@lru_cache(maxsize=8192, typed=True)
def _public_part(item: Event | tuple[int, Action], game: int) -> bytes:
    """The request part of an event as every seat and spectator sees it: the same plays,
    bids and tricks recur from hand to hand and match to match, so each is encoded once.
    Typed, because events are named tuples, and a bid (seat, amount, double) equals an
    exchange with the same three numbers."""
    return _event_part(wire.event_to_pb(item, SPECTATOR, game))


def _event_part(event: bot_pb2.MatchEvent) -> bytes:
    """A serialized ``DecisionRequest`` carrying only ``event`` (see :func:`_legal_action_part`):
    encoded once, however many seats hold it."""
    return bot_pb2.DecisionRequest(events=[event]).SerializeToString()
