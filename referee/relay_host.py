"""The host's side of ``RelayService``: forwarding a relayed match's messages to a bot's
stream on this referee, and its answers back to the referee that runs the match (see
:mod:`referee.relay` for the runner's side and why).

Only referees call it: the call must carry the arena's admin token, checked before any
message is read.  Everything the runner sends is checked before it reaches the bot: the
open names a connected bot and 1-64 distinct seats, every forwarded message is a match
message of the opened match and one of its seats; anything else ends the call with
INVALID_ARGUMENT and a short message.  The bot's seats count against its capacity here,
as a local match's do.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import grpc

from pitch_sdk.proto.pitch.v1 import bot_pb2, relay_pb2
from referee import config as bounds
from referee.admission import Context, RequestRefused, bounded, decode, invalid, is_admin
from referee.arena import Arena
from referee.config import echo
from referee.relay import MAX_RELAY_MESSAGE_BYTES
from referee.service import encoded, register_handlers
from referee.sessions import PendingDecision, Presence, Session

log = logging.getLogger("pitch.referee.relay")

FORWARDED = frozenset({"match_started", "decision_request", "events", "strike", "match_ended"})
"""The messages a relay forwards: a match's, to one of its seats."""
MAX_DECISION_ID_CHARS = bounds.MAX_ID_CHARS + 32
"""A decision id is ``{match id}:{seat}:{number}`` (see :class:`referee.match.SeatRunner`)."""


class HostedRelay:
    """One relay on the host: a bot's seats in a match another referee runs."""

    def __init__(self, presence: Presence, match_id: str, seats: frozenset[int]) -> None:
        self.presence = presence
        self.match_id = match_id
        self.seats = seats
        self.outbox = Session(bot_pb2.Hello())  # replies to the runner, in order
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
        encoded = message.SerializeToString()
        if kind == "match_started":
            presence.resume_messages[(self.match_id, inner.seat)] = message
        elif kind == "decision_request":
            self._wait_for(inner, encoded)
        presence.send_encoded(encoded)

    def _wait_for(self, request: bot_pb2.DecisionRequest, encoded: bytes) -> None:
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
        self.presence.pending[decision_id] = PendingDecision(encoded, answer)

    def _answer_ready(self, answer: asyncio.Future[bot_pb2.Decision | None]) -> None:
        decision = answer.result()
        if decision is not None:
            self.presence.pending.pop(decision.decision_id, None)
            self._answered(decision)

    def _answered(self, decision: bot_pb2.Decision) -> None:
        """Send a bot's answer that names the relayed match to the runner, which applies or
        counts it as it would a local one."""
        self.outbox.send(relay_pb2.RelayResponse(decision=decision).SerializeToString())

    def _drop(self, decision_id: str | None) -> None:
        pending = self.presence.pending.pop(decision_id, None) if decision_id is not None else None
        if pending is not None and not pending.answer.done():
            pending.answer.set_result(None)

    def _bot_changed(self) -> None:
        """The bot's stream here opened or ended: tell the runner (its seats wait or go on)."""
        self.outbox.send(relay_pb2.RelayResponse(connection=relay_pb2.RelayConnection(
            connected=self.presence.connected)).SerializeToString())

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
        self.outbox.close()


class RelayServicer:
    """``RelayService.Relay`` (messages in as bytes, parsed here once the caller is known)."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena

    async def Relay(self, request_iterator: Any, context: Context) -> None:
        """Admit the caller and the open, then forward until the runner half-closes."""
        arena = self.arena
        if not is_admin(context, arena.config.admin_token):
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing or wrong admin token: relays are for "
                                                                 "the arena's referees")
        try:
            relay = self._host(await self._read_open(context))
        except RequestRefused as refused:
            arena.client_faults.log(logging.WARNING, "RelayService.Relay refused: %s", refused)
            await context.abort(refused.code, str(refused))
        reader = asyncio.create_task(self._read_forwards(context, relay))
        try:
            assert relay.presence.session is not None  # connected
            await context.write(relay_pb2.RelayResponse(opened=relay_pb2.RelayOpened(
                hello=relay.presence.session.hello)))
            while (message := await relay.outbox.next_message()) is not None:
                await context.write(message)
        finally:
            reader.cancel()
            relay.close()
        if relay.outbox.ending is not None:
            await context.abort(*relay.outbox.ending)

    async def _read_open(self, context: Context) -> relay_pb2.RelayOpen:
        try:
            raw = await asyncio.wait_for(context.read(), self.arena.config.hello_timeout_s)
        except TimeoutError:
            raise invalid("no open within the hello timeout") from None
        if raw is grpc.aio.EOF:
            raise invalid("the relay ended before its open")
        first = decode(relay_pb2.RelayRequest, raw, MAX_RELAY_MESSAGE_BYTES)
        if first.WhichOneof("message") != "open":
            raise invalid(f"the first relay message must be an open, got {first.WhichOneof('message')}")
        return first.open

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
        presence = self.arena.registry.get(bot_id)
        if presence is None or not presence.connected:
            raise RequestRefused(grpc.StatusCode.FAILED_PRECONDITION, f"bot {echo(bot_id)!r} has no stream here")
        if match_id in presence.relayed:
            raise invalid(f"match {echo(match_id)!r} is relayed for this bot already")
        if presence.seats_in_use + len(seats) > presence.capacity:
            raise RequestRefused(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                 f"bot {echo(presence.bot.name)!r} plays {presence.seats_in_use} of its "
                                 f"{presence.capacity} seats here already; the relay needs {len(seats)} more")
        return HostedRelay(presence, match_id, seats)

    async def _read_forwards(self, context: Context, relay: HostedRelay) -> None:
        """Forward each message until the runner half-closes; a bad one ends the relay with
        INVALID_ARGUMENT, a fault of ours with INTERNAL."""
        try:
            while (raw := await context.read()) is not grpc.aio.EOF:
                message = decode(relay_pb2.RelayRequest, raw, MAX_RELAY_MESSAGE_BYTES)
                if message.WhichOneof("message") != "forward":
                    raise invalid(f"after the open a relay takes forwards only, got {message.WhichOneof('message')}")
                relay.forward(message.forward)
            relay.outbox.close()
        except RequestRefused as refused:
            self.arena.client_faults.log(logging.WARNING, "RelayService.Relay ended: %s", refused)
            relay.outbox.end(refused.code, str(refused))
        except Exception as fault:
            self.arena.internal_faults.log(logging.ERROR, "RelayService.Relay: internal error", exc_info=fault)
            relay.outbox.end(grpc.StatusCode.INTERNAL, f"internal error in the referee ({type(fault).__name__})")


def add_relay_service(servicer: RelayServicer, server: grpc.aio.Server) -> None:
    """Register ``RelayService`` with messages as bytes both ways (see :mod:`referee.service`)."""
    handler: grpc.RpcMethodHandler[Any, Any] = grpc.stream_stream_rpc_method_handler(
        servicer.Relay, request_deserializer=None, response_serializer=encoded)
    register_handlers(server, "pitch.v1.RelayService", {"Relay": handler})
