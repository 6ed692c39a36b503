"""Seats relayed from another referee: the runner's side of ``RelayService``.

A bot that keeps one stream (a third-party bot on the raw stubs) is connected to one
referee only, and may be seated in a match that another referee runs (the one where most
of its seats are connected, see :meth:`workers.storage.fleet.FleetDirectory.placements`).
That referee (the *runner*) then seats a :class:`RelayedPresence`: to the match it is a
presence like any other (:class:`referee.sessions.Presence`), but what the match sends it
goes over one ``RelayService.Relay`` stream, per match and bot, to a referee where the bot
has a stream (the *host*, :mod:`referee.relay_host`), which writes it on the bot's stream
and sends back the bot's answers.  The bot sees a match like a local one.

Faults are a local seat's: while the relay is down, or the bot's stream to the host is,
the seat is disconnected (no strike, its bank not spent, forfeited after the reconnect
grace, as :class:`referee.match.SeatRunner` does for any seat).  A relay that fails (the
host died) is opened again, to whichever live referee the bot is connected to by then,
and, as :meth:`referee.sessions.Registry.attach` does for a stream that comes back, the
seats' ``match_started`` and the pending decision are sent again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Sequence

import grpc
import redis

from pitch_sdk.proto.pitch.v1 import bot_pb2, relay_pb2
from referee.admission import RequestRefused, check_hello, decode, store_unreachable
from referee.config import echo
from referee.protowire import field_tag, length_delimited
from referee.sessions import Presence, Session
from workers.storage.fleet import FleetDirectory
from workers.storage.store import BotRecord

log = logging.getLogger("pitch.referee.relay")

RELAY_METHOD = "/pitch.v1.RelayService/Relay"
MAX_RELAY_MESSAGE_BYTES = 1024 * 1024
"""The largest relay message either side reads (a decision request with its observation,
256 listed actions and its events is far below)."""
OPEN_TIMEOUT_S = 5.0
"""How long the runner waits for a host to accept a relay."""
RELINK_PAUSE_S = 0.25
"""Pause between two attempts to open a failed relay again."""

_FORWARD = field_tag(relay_pb2.RelayRequest, "forward")


def _passthrough(message: bytes) -> bytes:
    return message


class RelayRefused(RequestRefused):
    """No referee relays a bot's seats (not connected anywhere, full, or unreachable)."""


class RelayLink:
    """One open ``Relay`` call: its outgoing queue and the task reading the host's replies."""

    def __init__(self, presence: RelayedPresence, address: str, call: grpc.aio.StreamStreamCall[bytes, bytes]) -> None:
        self.presence = presence
        self.address = address
        self.call = call
        self.outbox = Session(bot_pb2.Hello())  # an ordered queue with one writer, as for a bot's stream
        self.bot_connected = True
        self.tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        """Write what is queued, read what the host answers, until the call ends."""
        self.tasks = [asyncio.create_task(self._write(), name=f"relay-write-{self.presence.match_id}"),
                      asyncio.create_task(self._read(), name=f"relay-read-{self.presence.match_id}")]

    def forward(self, encoded: bytes) -> None:
        """Queue an encoded ``RefereeMessage`` for the bot."""
        self.outbox.send(length_delimited(_FORWARD, encoded))

    async def _write(self) -> None:
        try:
            while (message := await self.outbox.next_message()) is not None:
                await self.call.write(message)
            await self.call.done_writing()
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
            pass  # the call ended: the reader tells the presence

    async def _read(self) -> None:
        presence = self.presence
        try:
            while (raw := await self.call.read()) is not grpc.aio.EOF:
                assert isinstance(raw, bytes)
                reply = decode(relay_pb2.RelayResponse, raw, MAX_RELAY_MESSAGE_BYTES)
                kind = reply.WhichOneof("message")
                if kind == "decision":
                    presence.resolve(reply.decision)
                elif kind == "connection":
                    self.bot_connected = reply.connection.connected
                    if self.bot_connected:
                        presence.came_back()
        except grpc.aio.AioRpcError as error:
            if not presence.closed:
                log.warning("match %s: the relay of bot %r from %s failed (%s: %s)", presence.match_id,
                            presence.bot.name, self.address, error.code().name, echo(error.details() or "", 200))
        except RequestRefused as refused:
            log.warning("match %s: the relay from %s sent a bad reply (%s)", presence.match_id, self.address, refused)
            self.call.cancel()
        finally:
            self.outbox.close()
            presence.link_lost(self)


class RelayedPresence(Presence):
    """A seat (or several) of a bot whose stream is on another referee: to the match, a
    presence like a local one (see the module docstring)."""

    def __init__(self, bot: BotRecord, relays: Relays, match_id: str, seats: Sequence[int]) -> None:
        super().__init__(bot)
        self.relays = relays
        self.match_id = match_id
        self.seats = tuple(seats)
        self.link: RelayLink | None = None
        self.closed = False
        self._relinking: asyncio.Task[None] | None = None

    @property
    def connected(self) -> bool:
        link = self.link
        return link is not None and link.bot_connected

    @property
    def capacity(self) -> int:
        return len(self.seats)  # the host admitted these seats against the bot's capacity there

    def send_encoded(self, encoded: bytes) -> bool:
        """Forward to the host while the relay is open (the host holds what the bot cannot
        take yet, as for a local bot); ``False`` while it is being opened again."""
        if self.link is None:
            return False
        self.link.forward(encoded)
        return True

    async def open(self) -> None:
        """Open the relay on a referee where the bot has a stream; raises
        :class:`RelayRefused` (RESOURCE_EXHAUSTED when the bot's seats are full there,
        FAILED_PRECONDITION otherwise) when none takes it."""
        refusals: list[str] = []
        exhausted = False
        for address in await self.relays.hosts_of(self.bot.bot_id):
            try:
                self.link = await self.relays.link(self, address)
                return
            except grpc.aio.AioRpcError as error:
                exhausted |= error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                refusals.append(f"{address}: {error.code().name} {echo(error.details() or '', 120)}")
            except (TimeoutError, RequestRefused) as error:
                refusals.append(f"{address}: {type(error).__name__} {echo(str(error), 120)}")
        why = "; ".join(refusals) if refusals else "no live referee has a stream from it"
        raise RelayRefused(grpc.StatusCode.RESOURCE_EXHAUSTED if exhausted else grpc.StatusCode.FAILED_PRECONDITION,
                           f"bot {echo(self.bot.name)!r} is not connected to this referee, and no other relays "
                           f"it: {why}")

    def came_back(self) -> None:
        """The bot is reachable again: wake the seats waiting for it."""
        self.reconnected.set()
        self.reconnected = asyncio.Event()

    def link_lost(self, link: RelayLink) -> None:
        """A relay call ended: unless the match is over, the seats are disconnected until
        it is open again (see :meth:`_relink`)."""
        if self.link is not link:
            return
        self.link = None
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
                         self.link.address if self.link else "?")
                self.came_back()
                return
        finally:
            self._relinking = None

    def close(self) -> None:
        """The match is over (or never started): end the relay once what is queued is sent."""
        self.closed = True
        if self._relinking is not None:
            self._relinking.cancel()
        if self.link is not None:
            self.link.outbox.close()


def close_relays(seats: Iterable[Presence]) -> None:
    """Close the relays among a match's seats (it ended, or it will not start)."""
    for presence in seats:
        if isinstance(presence, RelayedPresence):
            presence.close()


class Relays:
    """The runner's relays: where a bot is connected (the fleet directory), one channel
    per host referee, and opening a relay."""

    def __init__(self, admin_token: str, directory: FleetDirectory) -> None:
        self.metadata = (("authorization", f"Bearer {admin_token}"),)
        self.directory = directory
        self._channels: dict[str, grpc.aio.Channel] = {}

    async def seat(self, bot: BotRecord, match_id: str, seats: Sequence[int]) -> RelayedPresence:
        """A relayed presence for ``bot``'s ``seats`` of ``match_id``, its relay open."""
        presence = RelayedPresence(bot, self, match_id, seats)
        await presence.open()
        return presence

    async def hosts_of(self, bot_id: str) -> list[str]:
        """The addresses of the live referees where ``bot_id`` has a stream, least busy first."""
        try:
            entries = await asyncio.to_thread(self.directory.hosting, [bot_id])
        except redis.RedisError as exc:
            raise RelayRefused(grpc.StatusCode.UNAVAILABLE, store_unreachable(exc)) from None
        return [entry.address for entry in entries]

    async def link(self, presence: RelayedPresence, address: str) -> RelayLink:
        """Open a relay call to ``address`` for ``presence`` and wait for the host to accept
        it; raises the call's error, ``TimeoutError`` or a :class:`RequestRefused`."""
        channel = self._channels.get(address)
        if channel is None:
            channel = self._channels[address] = grpc.aio.insecure_channel(address)
        call: grpc.aio.StreamStreamCall[bytes, bytes] = channel.stream_stream(
            RELAY_METHOD, request_serializer=_passthrough, response_deserializer=_passthrough,
        )(metadata=self.metadata)
        try:
            await call.write(relay_pb2.RelayRequest(open=relay_pb2.RelayOpen(
                bot_id=presence.bot.bot_id, match_id=presence.match_id, seats=presence.seats)).SerializeToString())
            raw = await asyncio.wait_for(call.read(), OPEN_TIMEOUT_S)
            if raw is grpc.aio.EOF:
                raise RequestRefused(grpc.StatusCode.UNAVAILABLE, "the host ended the relay before opening it")
            assert isinstance(raw, bytes)
            reply = decode(relay_pb2.RelayResponse, raw, MAX_RELAY_MESSAGE_BYTES)
            if reply.WhichOneof("message") != "opened":
                raise RequestRefused(grpc.StatusCode.INTERNAL, "the host's first reply is not `opened`")
            check_hello(reply.opened.hello)
        except BaseException:
            call.cancel()
            raise
        presence.session = Session(reply.opened.hello)  # the bot's hello, for what it takes
        link = RelayLink(presence, address, call)
        link.start()
        return link

    async def close(self) -> None:
        """Close every channel (the referee stops)."""
        channels, self._channels = list(self._channels.values()), {}
        for channel in channels:
            await channel.close()
