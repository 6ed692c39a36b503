"""The host's side of ``RelayService``: forwarding relayed matches' messages to bots'
streams on this referee, and their answers back to the referee that runs the matches
(see :mod:`referee.relay` for the runner's side and why).

Only referees call it: the caller must prove it is one (:mod:`referee.relay_identity`:
the relay token, and on a mutual-TLS relay port the referees' certificate), checked before
any message is read.  Everything the runner sends is checked before it reaches a bot: an open
names a connected bot and 1-64 distinct seats, every forwarded message is a match message
of its relay's match and one of its seats.  A bad open or forward ends that relay
(``RelayResponse.ended``, INVALID_ARGUMENT, with a short message); a message that does
not parse, an oversized batch, a nested batch or a relay id opened twice ends the call.
A bot's relayed seats count against its capacity here, as a local match's do.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import grpc

from pitch_sdk.proto.pitch.v1 import bot_pb2, relay_pb2
from referee import config as bounds
from referee.admission import Context, RequestRefused, bounded, decode, invalid
from referee.arena import Arena
from referee.config import echo
from referee.relay import MAX_RELAY_MESSAGE_BYTES, join_responses, relay_outbox, unbatched
from referee.relay_identity import RelayIdentity
from referee.service import encoded, register_handlers
from referee.sessions import PendingDecision, Presence, Session

log = logging.getLogger("pitch.referee.relay")

FORWARDED = frozenset({"match_started", "decision_request", "events", "strike", "match_ended"})
"""The messages a relay forwards: a match's, to one of its seats."""
MAX_DECISION_ID_CHARS = bounds.MAX_ID_CHARS + 32
"""A decision id is ``{match id}:{seat}:{number}`` (see :class:`referee.match.SeatRunner`)."""


class HostedRelay:
    """One relay on the host: a bot's seats in a match another referee runs."""

    def __init__(self, relay_id: int, presence: Presence, match_id: str, seats: frozenset[int],
                 replies: Session) -> None:
        self.relay_id = relay_id
        self.presence = presence
        self.match_id = match_id
        self.seats = seats
        self.replies = replies
        self.latest: dict[int, str] = {}
        """The decision id each seat waits on (the runner waits on one per seat at a time)."""
        presence.seats_in_use += len(seats)
        presence.watchers.add(self._bot_changed)
        presence.relayed[match_id] = self._answered

    def forward(self, message: bot_pb2.RefereeMessage) -> None:
        """Check a message from the runner and write it on the bot's stream."""
        kind = message.WhichOneof("message")
        if kind not in FORWARDED:
            raise invalid(f"a relay forwards match messages only ({', '.join(sorted(FORWARDED))}), not {kind}")
        inner = getattr(message, kind)
        if inner.match_id != self.match_id:
            raise invalid(f"a forwarded {kind} names match {echo(inner.match_id)!r}; the relay is for "
                          f"{echo(self.match_id)!r}")
        if kind != "match_ended" and inner.seat not in self.seats:
            raise invalid(f"a forwarded {kind} names seat {inner.seat}, not one of the relay's {sorted(self.seats)}")
        presence = self.presence
        encoded_message = message.SerializeToString()
        if kind == "match_started":
            presence.resume_messages[(self.match_id, inner.seat)] = message
        elif kind == "decision_request":
            self._wait_for(inner, encoded_message)
        presence.send_encoded(encoded_message)

    def _wait_for(self, request: bot_pb2.DecisionRequest, encoded_request: bytes) -> None:
        """Register the bot's answer to a forwarded request (re-sent if the bot reconnects
        here); the seat's previous request, which the runner no longer waits for, is
        dropped, and a late answer to it goes to the runner through :meth:`_answered`."""
        decision_id = bounded("decision_id", request.decision_id, MAX_DECISION_ID_CHARS)
        if not decision_id.startswith(f"{self.match_id}:"):
            raise invalid(f"decision_id {echo(decision_id)!r} does not start with the match id")
        if decision_id in self.presence.pending:
            raise invalid(f"decision_id {echo(decision_id)!r} is already pending")
        self._drop(self.latest.get(request.seat))
        self.latest[request.seat] = decision_id
        answer: asyncio.Future[bot_pb2.Decision | None] = asyncio.get_running_loop().create_future()
        answer.add_done_callback(self._answer_ready)
        self.presence.pending[decision_id] = PendingDecision(encoded_request, answer)

    def _answer_ready(self, answer: asyncio.Future[bot_pb2.Decision | None]) -> None:
        decision = answer.result()
        if decision is not None:
            mine = self.presence.pending.get(decision.decision_id)
            if mine is not None and mine.answer is answer:  # not a local run's of the same decision id
                del self.presence.pending[decision.decision_id]
            self._answered(decision)

    def _answered(self, decision: bot_pb2.Decision) -> None:
        """Send a bot's answer that names the relayed match to the runner, which applies or
        counts it as it would a local one."""
        self.replies.send(relay_pb2.RelayResponse(decision=relay_pb2.RelayDecision(
            relay_id=self.relay_id, decision=decision)).SerializeToString())

    def _drop(self, decision_id: str | None) -> None:
        pending = self.presence.pending.pop(decision_id, None) if decision_id is not None else None
        if pending is not None and not pending.answer.done():
            pending.answer.set_result(None)

    def _bot_changed(self) -> None:
        """The bot's stream here opened or ended: tell the runner (its seats wait or go on)."""
        self.replies.send(relay_pb2.RelayResponse(connection=relay_pb2.RelayConnection(
            relay_id=self.relay_id, connected=self.presence.connected)).SerializeToString())

    def close(self) -> None:
        """The relay ended: forget the match's seats here and free their capacity."""
        presence = self.presence
        presence.seats_in_use -= len(self.seats)
        presence.watchers.discard(self._bot_changed)
        if presence.relayed.get(self.match_id) == self._answered:
            del presence.relayed[self.match_id]
        for decision_id in self.latest.values():
            self._drop(decision_id)
        for seat in self.seats:
            presence.resume_messages.pop((self.match_id, seat), None)
            presence.ignored.pop((self.match_id, seat), None)
            presence.impersonations.pop((self.match_id, seat), None)


class HostedCall:
    """One runner's ``Relay`` call on the host: its relays by id and its replies."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena
        self.replies = relay_outbox(join_responses)
        self.relays: dict[int, HostedRelay] = {}

    def handle(self, message: relay_pb2.RelayRequest) -> None:
        """Act on one (unbatched) message; a refused open or forward ends its relay with
        ``ended``, a relay id opened twice raises INVALID_ARGUMENT (the call ends)."""
        kind = message.WhichOneof("message")
        if kind == "open":
            relay_id = message.open.relay_id
            if relay_id in self.relays:
                raise invalid(f"relay {relay_id} is open already")
            try:
                relay = self.relays[relay_id] = self._host(message.open)
            except RequestRefused as refused:
                self._end(relay_id, refused)
                return
            assert relay.presence.session is not None  # connected
            self.replies.send(relay_pb2.RelayResponse(opened=relay_pb2.RelayOpened(
                relay_id=relay_id, hello=relay.presence.session.hello)).SerializeToString())
        elif kind == "forward":
            target = self.relays.get(message.forward.relay_id)
            if target is None:
                return  # ended by us already, or closed: the runner has not heard yet
            try:
                target.forward(message.forward.message)
            except RequestRefused as refused:
                del self.relays[target.relay_id]
                target.close()
                self._end(target.relay_id, refused)
        elif kind == "close":
            if (closed := self.relays.pop(message.close.relay_id, None)) is not None:
                closed.close()
        else:
            raise invalid(f"a relay request must be an open, a forward or a close, got {kind}")

    def _host(self, request: relay_pb2.RelayOpen) -> HostedRelay:
        """Check an open and start hosting it; a bot that is not connected here is
        FAILED_PRECONDITION, one whose seats here are full RESOURCE_EXHAUSTED."""
        bot_id = bounded("bot_id", request.bot_id, bounds.MAX_ID_CHARS)
        match_id = bounded("match_id", request.match_id, bounds.MAX_ID_CHARS)
        if not bot_id or not match_id:
            raise invalid("an open needs a bot_id and a match_id")
        seats = frozenset(request.seats)
        if not 0 < len(request.seats) <= bounds.MAX_LIST_ITEMS or len(seats) != len(request.seats):
            raise invalid(f"an open needs 1-{bounds.MAX_LIST_ITEMS} distinct seats, got {len(request.seats)}")
        if max(seats) >= bounds.MAX_LIST_ITEMS:
            raise invalid(f"seat {max(seats)} is out of range (seats are below {bounds.MAX_LIST_ITEMS})")
        if not self.arena.accepting:  # draining: the relays in flight go on, no new one starts here
            raise RequestRefused(grpc.StatusCode.UNAVAILABLE, "the referee is shutting down")
        presence = self.arena.registry.get(bot_id)
        if presence is None or not presence.playable:
            raise RequestRefused(grpc.StatusCode.FAILED_PRECONDITION,
                                 f"bot {echo(bot_id)!r} has no stream here that may play (none, or being checked)")
        if match_id in presence.relayed:
            raise invalid(f"match {echo(match_id)!r} is relayed for this bot already")
        if presence.seats_in_use + len(seats) > presence.capacity:
            raise RequestRefused(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                 f"bot {echo(presence.bot.name)!r} plays {presence.seats_in_use} of its "
                                 f"{presence.capacity} seats here already; the relay needs {len(seats)} more")
        return HostedRelay(request.relay_id, presence, match_id, seats, self.replies)

    def _end(self, relay_id: int, refused: RequestRefused) -> None:
        self.arena.client_faults.log(logging.WARNING, "RelayService.Relay: relay %d refused: %s", relay_id, refused)
        self.replies.send(relay_pb2.RelayResponse(ended=relay_pb2.RelayEnded(
            relay_id=relay_id, code=refused.code.value[0], message=str(refused))).SerializeToString())

    def close(self) -> None:
        """The call ended: every relay on it ends."""
        relays, self.relays = list(self.relays.values()), {}
        for relay in relays:
            relay.close()
        self.replies.close()


class RelayServicer:
    """``RelayService.Relay`` (messages in as bytes, parsed here once the caller is known)."""

    def __init__(self, arena: Arena, identity: RelayIdentity) -> None:
        self.arena = arena
        self.identity = identity
        self.calls: set[HostedCall] = set()
        """The runners' calls open now (a stopping referee drains their relays, then ends them)."""

    def relaying(self) -> int:
        """How many relays this referee hosts now: seats of matches other referees run,
        which a stopping referee keeps serving until they end (see :meth:`end_calls`)."""
        return sum(len(call.relays) for call in self.calls)

    def end_calls(self) -> None:
        """End every runner's call after what is queued (the referee stops): the relays
        still open end with it, and each runner opens its seats again elsewhere."""
        for call in list(self.calls):
            call.replies.close()

    async def Relay(self, request_iterator: Any, context: Context) -> None:
        """Admit the caller, then host its relays until it half-closes."""
        if (refusal := self.identity.refusal(context)) is not None:
            self.arena.client_faults.log(logging.WARNING, "RelayService.Relay refused: %s", refusal)
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, refusal)
        call = HostedCall(self.arena)
        self.calls.add(call)
        reader = asyncio.create_task(self._read(context, call))
        try:
            while (message := await call.replies.next_message()) is not None:
                await context.write(message)
        finally:
            reader.cancel()
            call.close()
            self.calls.discard(call)
        if call.replies.ending is not None:
            await context.abort(*call.replies.ending)

    async def _read(self, context: Context, call: HostedCall) -> None:
        """Handle each message until the runner half-closes; a bad one ends the call with
        INVALID_ARGUMENT, a fault of ours with INTERNAL."""
        try:
            while (raw := await context.read()) is not grpc.aio.EOF:
                for message in unbatched(decode(relay_pb2.RelayRequest, raw, MAX_RELAY_MESSAGE_BYTES)):
                    call.handle(message)
            call.replies.close()
        except RequestRefused as refused:
            self.arena.client_faults.log(logging.WARNING, "RelayService.Relay ended: %s", refused)
            call.replies.end(refused.code, str(refused))
        except Exception as fault:
            self.arena.internal_faults.log(logging.ERROR, "RelayService.Relay: internal error", exc_info=fault)
            call.replies.end(grpc.StatusCode.INTERNAL, f"internal error in the referee ({type(fault).__name__})")


def add_relay_service(servicer: RelayServicer, server: grpc.aio.Server) -> None:
    """Register ``RelayService`` with messages as bytes both ways (see :mod:`referee.service`)."""
    handler: grpc.RpcMethodHandler[Any, Any] = grpc.stream_stream_rpc_method_handler(
        servicer.Relay, request_deserializer=None, response_serializer=encoded)
    register_handlers(server, "pitch.v1.RelayService", {"Relay": handler})
