"""Seats relayed from another referee: the runner's side of ``RelayService``.

A bot that keeps one stream (a third-party bot on the raw stubs) is connected to one
referee only, and may be seated in a match that another referee runs (the one where most
of its seats are connected, see :meth:`store.fleet.FleetDirectory.placements`).
That referee (the *runner*) then seats a :class:`RelayedPresence`: to the match it is a
presence like any other (:class:`referee.sessions.Presence`), but what the match sends it
goes to a referee where the bot has a stream (the *host*, :mod:`referee.relay_host`),
which writes it on the bot's stream and sends back the bot's answers.  The bot sees a
match like a local one.  The runner keeps one ``RelayService.Relay`` call per host
(:class:`HostCall`) for every seat it relays from there, with batches both ways, as a
bot's stream has: the per-message cost of gRPC is shared by the matches in flight.

Faults are a local seat's: while the relay is down, or the bot's stream to the host is,
the seat is disconnected (no strike, its bank not spent, forfeited after the reconnect
grace, as :class:`referee.match.SeatRunner` does for any seat).  A relay that fails (the
host died), or whose bot turns up on another referee while its stream to the host is
down, is opened again, to whichever live referee the bot is connected to by then,
and, as :meth:`referee.sessions.Registry.attach` does for a stream that comes back, the
seats' ``match_started`` and the pending decision are sent again.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

import grpc
import redis

from pitch_sdk.proto.pitch.v1 import bot_pb2, relay_pb2
from referee import config as bounds
from referee.admission import RequestRefused, check_hello, decode, invalid, store_unreachable
from referee.config import echo
from referee.protowire import field_tag, join_batch, length_delimited, varint
from referee.relay_failures import HostFailures
from referee.relay_identity import NO_RELAY_TOKEN, RelayIdentity
from referee.sessions import Presence, Session
from store.fleet import FleetDirectory
from store.redis_store import BotRecord
from store.seats import SeatNeed

log = logging.getLogger("pitch.referee.relay")

RELAY_METHOD = "/pitch.v1.RelayService/Relay"
MAX_RELAY_MESSAGE_BYTES = 3 * 1024 * 1024
"""The largest relay message either side reads (below gRPC's own 4 MiB limit)."""
MAX_RELAY_BATCH = 256
"""The most messages a relay batch carries (a decision request is a few kB at most)."""
OPEN_TIMEOUT_S = 5.0
"""How long the runner waits for a host to accept a relay."""
RELINK_PAUSE_S = 0.25
"""Pause between two attempts to open a failed relay again."""

_FORWARD = field_tag(relay_pb2.RelayRequest, "forward")
_FORWARDED = field_tag(relay_pb2.RelayForward, "message")
_REQUESTS = field_tag(relay_pb2.RelayRequest, "batch")
_REQUEST = field_tag(relay_pb2.RelayRequests, "messages")
_RESPONSES = field_tag(relay_pb2.RelayResponse, "batch")
_RESPONSE = field_tag(relay_pb2.RelayResponses, "messages")
_RELAY_ID = varint(relay_pb2.RelayForward.DESCRIPTOR.fields_by_name["relay_id"].number << 3)


def join_requests(encoded: list[bytes]) -> bytes:
    """Encoded ``RelayRequest``s as one ``RelayRequest.batch``."""
    return join_batch(_REQUESTS, _REQUEST, encoded)


def join_responses(encoded: list[bytes]) -> bytes:
    """Encoded ``RelayResponse``s as one ``RelayResponse.batch``."""
    return join_batch(_RESPONSES, _RESPONSE, encoded)


def relay_outbox(join: Callable[[list[bytes]], bytes]) -> Session:
    """An ordered queue of encoded relay messages with one writer, sent in batches of at
    most :data:`MAX_RELAY_BATCH` (a :class:`Session`, as a bot's stream has)."""
    return Session(bot_pb2.Hello(batching=True), batch=join, max_batch=MAX_RELAY_BATCH)


Relayed = TypeVar("Relayed", relay_pb2.RelayRequest, relay_pb2.RelayResponse)


def unbatched(message: Relayed) -> list[Relayed]:
    """The messages a relay message carries, in order: its batch's members or itself;
    raises INVALID_ARGUMENT for a batch over the bound or a batch in a batch."""
    if message.WhichOneof("message") != "batch":
        return [message]
    members: list[Relayed] = list(message.batch.messages)
    if len(members) > bounds.MAX_BATCH_MESSAGES:
        raise invalid(f"a batch of {len(members)} messages, more than {bounds.MAX_BATCH_MESSAGES}")
    if any(member.WhichOneof("message") == "batch" for member in members):
        raise invalid("a batch inside a batch (batches do not nest)")
    return members


def _passthrough(message: bytes) -> bytes:
    return message


class RelayRefused(RequestRefused):
    """No referee relays a bot's seats (not connected anywhere, full, or unreachable)."""


class HostCall:
    """The runner's one ``Relay`` call to a host: every seat relayed from there, by relay id."""

    def __init__(self, relays: Relays, address: str, channel: grpc.aio.Channel) -> None:
        self.relays = relays
        self.address = address
        self.call: grpc.aio.StreamStreamCall[bytes, bytes] = channel.stream_stream(
            RELAY_METHOD, request_serializer=_passthrough, response_deserializer=_passthrough,
        )(metadata=relays.metadata)
        self.outbox = relay_outbox(join_requests)
        self.seats: dict[int, RelayedPresence] = {}
        """The open relays, by id."""
        self.opening: dict[int, asyncio.Future[bot_pb2.Hello]] = {}
        """The relays the host has not answered yet, by id."""
        self.alive = True
        self._ids = itertools.count(1)
        self._tasks = [asyncio.create_task(self._write(), name=f"relay-write-{address}"),
                       asyncio.create_task(self._read(), name=f"relay-read-{address}")]

    async def open(self, presence: RelayedPresence) -> tuple[int, bot_pb2.Hello]:
        """Open a relay for ``presence``: its id and the bot's hello; raises
        :class:`RelayRefused` (the host's reason) or ``TimeoutError``."""
        if not self.alive:
            raise RelayRefused(grpc.StatusCode.UNAVAILABLE, f"the relay call to {self.address} ended")
        relay_id = next(self._ids)
        opened: asyncio.Future[bot_pb2.Hello] = asyncio.get_running_loop().create_future()
        self.opening[relay_id] = opened
        self.seats[relay_id] = presence  # before the open: a reply about the relay may follow `opened` at once
        self.outbox.send(relay_pb2.RelayRequest(open=relay_pb2.RelayOpen(
            relay_id=relay_id, bot_id=presence.seat, match_id=presence.match_id,
            seats=presence.seats)).SerializeToString())
        try:
            hello = await asyncio.wait_for(opened, OPEN_TIMEOUT_S)
        except BaseException:
            self.close(relay_id)  # the host may still open it
            raise
        finally:
            self.opening.pop(relay_id, None)
        return relay_id, hello

    def forward(self, relay_id: int, encoded: bytes) -> None:
        """Queue an encoded ``RefereeMessage`` for relay ``relay_id`` (joined from parts,
        never encoded again)."""
        body = _RELAY_ID + varint(relay_id) + length_delimited(_FORWARDED, encoded)
        self.outbox.send(length_delimited(_FORWARD, body))

    def close(self, relay_id: int) -> None:
        """End relay ``relay_id`` (its match is over)."""
        self.seats.pop(relay_id, None)
        self.outbox.send(relay_pb2.RelayRequest(close=relay_pb2.RelayClose(relay_id=relay_id)).SerializeToString())

    async def _write(self) -> None:
        try:
            while (message := await self.outbox.next_message()) is not None:
                await self.call.write(message)
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
            pass  # the call ended: the reader tells the seats
        finally:
            self.call.cancel()

    async def _read(self) -> None:
        try:
            while (raw := await self.call.read()) is not grpc.aio.EOF:
                assert isinstance(raw, bytes)
                for reply in unbatched(decode(relay_pb2.RelayResponse, raw, MAX_RELAY_MESSAGE_BYTES)):
                    self._handle(reply)
        except grpc.aio.AioRpcError as error:
            if self.seats or self.opening:
                self.relays.failures.failed(self.address, f"{error.code().name}: {echo(error.details() or '', 200)}; "
                                                          f"{len(self.seats) + len(self.opening)} relay(s) lost")
        except RequestRefused as refused:
            log.warning("the relay call to %s sent a bad reply (%s)", self.address, refused)
        finally:
            self._ended()

    def _handle(self, reply: relay_pb2.RelayResponse) -> None:
        kind = reply.WhichOneof("message")
        if kind == "decision":
            presence = self.seats.get(reply.decision.relay_id)
            if presence is not None:
                presence.resolve(reply.decision.decision)
        elif kind == "connection":
            presence = self.seats.get(reply.connection.relay_id)
            if presence is not None:
                presence.bot_connected = reply.connection.connected
                if presence.bot_connected:
                    presence.came_back()
                else:
                    presence.bot_left(self)
        elif kind == "opened":
            self.relays.failures.succeeded(self.address)
            opening = self.opening.get(reply.opened.relay_id)
            if opening is not None and not opening.done():
                try:
                    check_hello(reply.opened.hello)
                    opening.set_result(reply.opened.hello)
                except RequestRefused as refused:
                    opening.set_exception(refused)
        elif kind == "ended":
            ended = reply.ended
            opening = self.opening.get(ended.relay_id)
            refusal = RelayRefused(_status(ended.code), echo(ended.message, 200))
            if opening is not None and not opening.done():
                opening.set_exception(refusal)
            elif (presence := self.seats.pop(ended.relay_id, None)) is not None:
                log.warning("match %s: %s ended the relay of bot %r: %s", presence.match_id, self.address,
                            presence.bot.name, refusal)
                presence.link_lost(self)

    def _ended(self) -> None:
        """The call is over: every relay on it is lost (each seat opens its own again)."""
        self.alive = False
        self.outbox.close()
        self.relays.forget(self)
        for opening in self.opening.values():
            if not opening.done():
                opening.set_exception(RelayRefused(grpc.StatusCode.UNAVAILABLE, f"the relay call to {self.address} "
                                                                                 "ended"))
        seats, self.seats = list(self.seats.values()), {}
        for presence in seats:
            presence.link_lost(self)

    def cancel(self) -> None:
        """End the call at once (the referee stops)."""
        self.call.cancel()


def _status(code: int) -> grpc.StatusCode:
    """The status code numbered ``code`` (UNKNOWN for a number grpc does not know)."""
    return next((status for status in grpc.StatusCode if status.value[0] == code), grpc.StatusCode.UNKNOWN)


class RelayedPresence(Presence):
    """A seat (or several) of a bot whose stream is on another referee: to the match, a
    presence like a local one (see the module docstring)."""

    def __init__(self, bot: BotRecord, relays: Relays, match_id: str, seats: Sequence[int],
                 seat: str | None = None) -> None:
        super().__init__(bot)
        self.seat = seat or bot.bot_id
        """What the seats name (the bot, or one version of it: :mod:`store.seat_keys`); once
        open, the version the host seated, so that a relay opened again finds the same one."""
        self.relays = relays
        self.match_id = match_id
        self.seats = tuple(seats)
        self.host: HostCall | None = None
        self.host_referee_id = ""
        """The fleet id of the referee the seats are relayed from (whose record of the bot's
        declared capacity bounds them fleet-wide)."""
        self.relay_id = 0
        self.bot_connected = False
        self.closed = False
        self._relinking: asyncio.Task[None] | None = None
        self._following: asyncio.Task[None] | None = None

    @property
    def connected(self) -> bool:
        return self.host is not None and self.bot_connected

    @property
    def capacity(self) -> int:
        return len(self.seats)  # the host admitted these seats against the bot's capacity there

    def seat_need(self, seats: int) -> SeatNeed:
        """Bounded by the capacity the bot declared to the host, whose stream plays the seats."""
        return SeatNeed(seats, 0, declared_to=self.host_referee_id)

    def send_encoded(self, encoded: bytes) -> bool:
        """Forward to the host while the relay is open (the host holds what the bot cannot
        take yet, as for a local bot); ``False`` while it is being opened again."""
        if self.host is None:
            return False
        self.host.forward(self.relay_id, encoded)
        return True

    async def open(self) -> None:
        """Open the relay on a referee where the bot has a stream; raises
        :class:`RelayRefused` (RESOURCE_EXHAUSTED when the bot's seats are full there,
        FAILED_PRECONDITION otherwise) when none takes it."""
        refusals: list[str] = []
        exhausted = False
        for referee_id, address in await self.relays.hosts_of(self.seat):
            self.bot_connected = True  # as the host sees it when it opens the relay; it says when that changes
            try:
                host = self.relays.host(address)
                self.relay_id, hello = await host.open(self)
            except RequestRefused as refused:
                exhausted |= refused.code == grpc.StatusCode.RESOURCE_EXHAUSTED
                refusals.append(f"{address}: {refused.code.name} {refused}")
                continue
            except TimeoutError:
                refusals.append(f"{address}: no answer within {OPEN_TIMEOUT_S:g} s")
                continue
            self.session = Session(hello)  # the bot's hello, for what it takes
            self.version = hello.bot_version
            self.seat = self.key
            self.host, self.host_referee_id = host, referee_id
            return
        why = "; ".join(refusals) if refusals else "no live referee has a stream from it"
        raise RelayRefused(grpc.StatusCode.RESOURCE_EXHAUSTED if exhausted else grpc.StatusCode.FAILED_PRECONDITION,
                           f"bot {echo(self.bot.name)!r} is not connected to this referee, and no other relays "
                           f"it: {echo(why, 300)}")

    def came_back(self) -> None:
        """The bot is reachable again: wake the seats waiting for it."""
        self.reconnected.set()
        self.reconnected = asyncio.Event()

    def bot_left(self, host: HostCall) -> None:
        """The bot's stream to the host ended: until it is back there, look for it on the
        other referees (see :meth:`_follow`)."""
        if self.host is host and not self.closed and self._following is None:
            self._following = asyncio.create_task(self._follow(), name=f"follow-{self.match_id}")

    async def _follow(self) -> None:
        """While the bot is away from its host, which is still up, look every
        :data:`RELINK_PAUSE_S` for it on another live referee (a third one, or this one):
        there, the relay is opened again (:meth:`_relink`), the host's relay closed first,
        so the pending decision, dropped there, is asked once more, on the new host only.
        Otherwise the seat would wait on the host until the reconnect grace ran out."""
        try:
            while not self.closed and (host := self.host) is not None and not self.bot_connected:
                await asyncio.sleep(RELINK_PAUSE_S)
                if self.closed or self.host is not host or self.bot_connected:
                    return
                try:
                    hosts = await self.relays.hosts_of(self.seat)
                except RelayRefused:
                    continue  # the directory is unreachable for now: look again
                if self.host is host and not self.bot_connected \
                        and any(address != host.address for _, address in hosts):
                    log.info("match %s: bot %r left %s for another referee; following it", self.match_id,
                             self.bot.name, host.address)
                    host.close(self.relay_id)
                    self.link_lost(host)
                    return
        finally:
            self._following = None

    def link_lost(self, host: HostCall) -> None:
        """The relay ended (its call failed, or the host ended it): unless the match is
        over, the seats are disconnected until it is open again (see :meth:`_relink`)."""
        if self.host is not host:
            return
        self.host = None
        if not self.closed and self._relinking is None:
            self._relinking = asyncio.create_task(self._relink(), name=f"relink-{self.match_id}")

    async def _relink(self) -> None:
        """Open the relay again wherever the bot is now, until the match ends, then resume
        its seats there as a reconnecting bot's are resumed."""
        try:
            while not self.closed:
                try:
                    await self.open()
                except (RelayRefused, redis.RedisError):
                    await asyncio.sleep(RELINK_PAUSE_S)
                    continue
                if self.closed:
                    break
                for message in self.resume_messages.values():
                    self.send(message)
                for pending in self.pending.values():
                    if not pending.answer.done():
                        self.send_encoded(pending.request)
                log.info("match %s: bot %r relayed again, from %s", self.match_id, self.bot.name,
                         self.host.address if self.host else "?")
                self.came_back()
                return
        finally:
            self._relinking = None

    def close(self) -> None:
        """The match is over (or never started): end the relay after what is queued."""
        self.closed = True
        for task in (self._relinking, self._following):
            if task is not None:
                task.cancel()
        if self.host is not None:
            self.host.close(self.relay_id)
            self.host = None


def close_relays(seats: Iterable[Presence]) -> None:
    """Close the relays among a match's seats (it ended, or it will not start)."""
    for presence in seats:
        if isinstance(presence, RelayedPresence):
            presence.close()


class Relays:
    """The runner's relays: where a bot is connected (the fleet directory), one channel
    and one relay call per host referee, and opening a relay."""

    def __init__(self, identity: RelayIdentity, directory: FleetDirectory,
                 failures: HostFailures | None = None) -> None:
        self.identity = identity
        self.metadata = identity.metadata
        self.directory = directory
        self.failures = failures or HostFailures(log)
        """Hosts whose calls failed: backed off, and logged in summaries."""
        self._channels: dict[str, grpc.aio.Channel] = {}
        self._calls: dict[str, HostCall] = {}

    async def seat(self, bot: BotRecord, match_id: str, seats: Sequence[int], seat: str | None = None
                   ) -> RelayedPresence:
        """A relayed presence for ``bot``'s ``seats`` of ``match_id`` (played by the version
        ``seat`` names, if it names one), its relay open."""
        presence = RelayedPresence(bot, self, match_id, seats, seat)
        await presence.open()
        return presence

    async def hosts_of(self, seat: str) -> list[tuple[str, str]]:
        """The live referees where the bot (or version) ``seat`` names has a stream, least
        busy first: (id, the address of its relay listener)."""
        if not self.identity.token:
            raise RelayRefused(grpc.StatusCode.FAILED_PRECONDITION, NO_RELAY_TOKEN)
        try:
            entries = await asyncio.to_thread(self.directory.hosting, [seat])
        except redis.RedisError as exc:
            raise RelayRefused(grpc.StatusCode.UNAVAILABLE, store_unreachable(exc)) from None
        return [(entry.referee_id, entry.relay_address or entry.address) for entry in entries]

    def host(self, address: str) -> HostCall:
        """The live relay call to ``address`` (opened on first use, and again after it ended);
        raises :class:`RelayRefused` (UNAVAILABLE) while calls to it are backed off."""
        call = self._calls.get(address)
        if call is None or not call.alive:
            if (wait_s := self.failures.backing_off(address)) > 0:
                raise RelayRefused(grpc.StatusCode.UNAVAILABLE,
                                   f"relay calls to {address} failed; the next try is in {wait_s:.1f} s")
            channel = self._channels.get(address)
            if channel is None:
                channel = self._channels[address] = self.identity.channel(address)
            call = self._calls[address] = HostCall(self, address, channel)
        return call

    def forget(self, call: HostCall) -> None:
        """A relay call ended: the next relay to its host opens a new one."""
        if self._calls.get(call.address) is call:
            del self._calls[call.address]

    async def close(self) -> None:
        """End every relay call and close every channel (the referee stops)."""
        for call in list(self._calls.values()):
            call.cancel()
        channels, self._channels = list(self._channels.values()), {}
        for channel in channels:
            await channel.close()
