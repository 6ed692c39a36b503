"""The hosted bot's only way out: a ``BotService`` on a Unix socket that forwards to a referee.

A sandboxed bot has no network.  It dials ``unix:/run/pitch/referee.sock`` with the
placeholder token its environment holds, as ``pitch-bot run`` and the kits dial any
referee, and this proxy, outside the sandbox, opens the matching stream to the real
referee.  Each bot stream is one upstream stream, so the referee sees the bot exactly as it
sees a remote one (same protocol, same sessions, same reconnection); what the proxy changes
is what the arena, not the bot, decides:

- the token: the upstream call carries the version's own (ephemeral) bot token; whatever
  the bot sent is ignored, so the program never holds a credential;
- the hello: ``bot_version`` becomes the hosted version's string (results are rated per
  submitted version, whatever the code says), ``capacity`` is at most the operator's seat
  capacity, and ``fleet_updates`` is off;
- the fleet: a hosted bot plays through its host's one referee (a match placed elsewhere is
  relayed to it), so the welcome's fleet and address are cleared and fleet updates dropped,
  or the SDK would try to dial referees it cannot reach.

During a version's compliance check (:mod:`hosting.check`) the proxy also holds a
:class:`pitch_sdk.checks.relay.PracticeObserver`: it notes every message that passes, as
``pitch-bot check --command``'s relay does, adds the check's practice requests to the
stream to the referee and lets only the bot's hello and answers pass; the upstream token is
then the check identity's.

Bounds: at most ``max_streams`` streams at once and ``streams_per_minute`` new ones, each
message at most the referee's size, a hello within ``hello_timeout_s``; any other RPC is
UNIMPLEMENTED (grpc's answer for a method no handler serves).  Upstream failures reach the
bot as the status it would have got from a referee, so the SDK's own backoff reconnects;
the referee refusing the host's token becomes UNAVAILABLE (the host fixes that, not the
bot), and is counted in :attr:`BotProxy.refused_upstream`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from pitch_sdk.checks.relay import PracticeObserver
from pitch_sdk.proto.pitch.v1 import bot_pb2
from pitch_sdk.protocol.batching import unbatched
from store.tls import aio_channel

log = logging.getLogger("pitch.hosting.proxy")

CONNECT = "/pitch.v1.BotService/Connect"
MAX_BOT_MESSAGE_BYTES = 256 * 1024
"""The referee's bound on an encoded ``BotMessage`` (``referee.config.MAX_BOT_MESSAGE_BYTES``,
the protocol's 256 KiB; the host may not import the referee, a test keeps the two equal)."""
MAX_CAPACITY = 1024
"""The referee's bound on a hello's capacity (``referee.config.MAX_CAPACITY``)."""
MAX_SOCKET_PATH_BYTES = 107
"""The longest Unix socket path the kernel takes (``sun_path`` is 108 bytes with its NUL)."""
_Context = grpc.aio.ServicerContext[Any, Any]
"""A bot stream's server side (messages as bytes; its ``read`` may also give ``EOF``)."""
_Call = grpc.aio.StreamStreamCall[Any, Any]
"""An upstream stream (messages as bytes)."""
_WELCOME = bytes([bot_pb2.RefereeMessage.DESCRIPTOR.fields_by_name["welcome"].number << 3 | 2])
_FLEET_UPDATE = bytes([bot_pb2.RefereeMessage.DESCRIPTOR.fields_by_name["fleet_update"].number << 3 | 2])


@dataclass(frozen=True)
class Upstream:
    """Where, and as which version, a hosted bot plays."""

    referee: str
    """The referee's address (``host:port``)."""
    token: str
    """The version's ephemeral bot token (the host issues and renews it)."""
    bot_version: str
    """The hosted version's string, said in every hello."""
    capacity: int
    """The operator's seat capacity per hosted version: the most a hello may declare."""

    def __post_init__(self) -> None:
        if not 1 <= self.capacity <= MAX_CAPACITY:
            raise ValueError(f"capacity must be 1 to {MAX_CAPACITY}, got {self.capacity}")


def hosted_hello(raw: bytes, upstream: Upstream) -> bytes:
    """The bot's first message as the referee gets it: a hello with the hosted version, the
    capacity capped and no fleet updates; any other message unchanged (the referee refuses
    it).  Raises :class:`DecodeError` for bytes that are not a ``BotMessage``."""
    message = bot_pb2.BotMessage.FromString(raw)
    if message.WhichOneof("message") != "hello":
        return raw
    hello = message.hello
    hello.bot_version = upstream.bot_version
    hello.capacity = min(max(hello.capacity, 1), upstream.capacity)
    hello.fleet_updates = False
    return message.SerializeToString()


def for_the_bot(raw: bytes) -> bytes | None:
    """A referee message as the sandboxed bot gets it: ``None`` for a fleet update, a
    welcome without the fleet's addresses, anything else as it came.  (A message holds one
    field of its ``oneof``, so its first byte is that field's tag; fleet updates are never
    batched, being sent only to a hello that asked for them.)"""
    if raw.startswith(_FLEET_UPDATE):
        return None
    if raw.startswith(_WELCOME):
        message = bot_pb2.RefereeMessage.FromString(raw)
        del message.welcome.fleet[:]
        message.welcome.referee_address = ""
        return message.SerializeToString()
    return raw


class _OpenRate:
    """New streams in the last minute, to refuse a bot that reconnects in a tight loop
    (each stream costs the referee a hello, a version lookup and a session)."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self.opened: deque[float] = deque()

    def admit(self) -> bool:
        """Count a new stream; ``False`` when the minute's budget is spent."""
        now = time.monotonic()
        while self.opened and now - self.opened[0] > 60:
            self.opened.popleft()
        if len(self.opened) >= self.per_minute:
            return False
        self.opened.append(now)
        return True


class _Upstream:
    """One upstream stream: its writes (the bot's messages, and a check's practice requests
    added from the other direction) one at a time, as gRPC requires.

    During a check the bot's messages are noted by the check's observer, and only its hello
    and then its answers pass: the practice matches are the check's alone (a bot asking for
    its own easy ones could otherwise pass them off as the check's), and a second hello
    would be answered with an error the check would take for a refused practice match."""

    def __init__(self, call: _Call, observer: PracticeObserver | None) -> None:
        self.call = call
        self.observer = observer
        self._lock = asyncio.Lock()
        self._passing = "hello"
        """The one kind of the bot's messages a check lets pass now: its hello, then answers."""

    async def write(self, raw: bytes, from_bot: bool = False) -> None:
        """Send ``raw`` to the referee (a bot's message checked first, during a check)."""
        if from_bot and self.observer is not None:
            checked = self._checked(raw, self.observer)
            if checked is None:
                return
            raw = checked
        async with self._lock:
            await self.call.write(raw)

    def _checked(self, raw: bytes, observer: PracticeObserver) -> bytes | None:
        """A bot's message during its check: noted, less what the check does not let pass
        (``None`` when nothing is left)."""
        try:
            message = bot_pb2.BotMessage.FromString(raw)
        except DecodeError:
            return raw  # the referee refuses it, and says why
        members = unbatched(message)
        kept = [inner for inner in members if inner.WhichOneof("message") == self._passing]
        self._passing = "decision"
        for inner in kept:
            observer.from_bot(inner)
        if len(kept) == len(members):
            return raw
        if not kept:
            return None
        return bot_pb2.BotMessage(batch=bot_pb2.BotMessages(messages=kept)).SerializeToString()

    async def done_writing(self) -> None:
        """The bot ended its side of the stream."""
        async with self._lock:
            await self.call.done_writing()

    async def noted(self, raw: bytes) -> None:
        """Note a referee message, and send the practice requests the observer adds after it."""
        if self.observer is None:
            return
        added = [extra for inner in unbatched(bot_pb2.RefereeMessage.FromString(raw))
                 for extra in self.observer.from_referee(inner)]
        with contextlib.suppress(grpc.aio.AioRpcError, asyncio.InvalidStateError):  # the bot ended its side
            for message in added:
                await self.write(message.SerializeToString())


class BotProxy:
    """One hosted version's ``BotService`` on a Unix socket, forwarding to its referee."""

    def __init__(self, socket_path: Path, upstream: Upstream, *, max_streams: int = 2,
                 streams_per_minute: int = 30, hello_timeout_s: float = 10.0) -> None:
        if len(str(socket_path).encode()) > MAX_SOCKET_PATH_BYTES:
            raise ValueError(f"socket path {str(socket_path)[:60]!r}... is longer than a Unix socket path may be "
                             f"({MAX_SOCKET_PATH_BYTES} bytes)")
        self.socket_path = socket_path
        self.upstream = upstream
        self.max_streams = max_streams
        self.hello_timeout_s = hello_timeout_s
        self.greeted = asyncio.Event()
        """Set once the bot has sent a hello (the host kills a bot that never does)."""
        self.streams = 0
        """Streams open now."""
        self.refused_upstream = 0
        """Streams the referee refused the host's token on."""
        self.check: tuple[PracticeObserver, str] | None = None
        """While set, the streams opened are the compliance check's: its observer and the
        check identity's token (see the module's docstring)."""
        self._rate = _OpenRate(streams_per_minute)
        self._channel: grpc.aio.Channel | None = None
        self._server = grpc.aio.server(options=[("grpc.max_receive_message_length", MAX_BOT_MESSAGE_BYTES)])
        handler: grpc.RpcMethodHandler[Any, Any] = grpc.stream_stream_rpc_method_handler(self._connect)
        self._server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler("pitch.v1.BotService", {"Connect": handler}),))

    @property
    def address(self) -> str:
        """The address the bot dials (as the host's side of the filesystem names it)."""
        return f"unix:{self.socket_path}"

    async def start(self) -> None:
        """Listen on the socket (replacing a stale one left by a dead host) and open the
        channel to the referee."""
        self.socket_path.unlink(missing_ok=True)
        if self._server.add_insecure_port(self.address) == 0:
            raise OSError(f"cannot listen on {self.address}")
        self._channel = aio_channel(self.upstream.referee,
                                    options=[("grpc.max_send_message_length", MAX_BOT_MESSAGE_BYTES)])
        await self._server.start()
        self.socket_path.chmod(0o666)  # the sandbox may run as another user; the folder guards the socket

    async def stop(self, grace_s: float = 0.5) -> None:
        """End every stream (and its upstream call), close the channel, remove the socket."""
        await self._server.stop(grace_s)
        if self._channel is not None:
            await self._channel.close()
        self.socket_path.unlink(missing_ok=True)

    async def _connect(self, _requests: Any, context: _Context) -> None:
        """Forward one bot stream, after its hello, to a new upstream stream."""
        if self.streams >= self.max_streams:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"at most {self.max_streams} streams at once per hosted bot")
        if not self._rate.admit():
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"at most {self._rate.per_minute} new streams per minute per hosted bot")
        self.streams += 1
        try:
            await self._forward(context)
        finally:
            self.streams -= 1

    async def _forward(self, context: _Context) -> None:
        try:
            first = await asyncio.wait_for(context.read(), self.hello_timeout_s)
        except TimeoutError:
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, f"no hello within {self.hello_timeout_s:g} s")
        if first is grpc.aio.EOF:
            return
        try:
            hello = hosted_hello(first, self.upstream)
        except DecodeError:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                f"undecodable first message ({len(first)} bytes): not a BotMessage")
        self.greeted.set()
        assert self._channel is not None, "the proxy was not started"
        observer, token = self.check or (None, self.upstream.token)
        call: _Call = self._channel.stream_stream(CONNECT)(metadata=(("authorization", f"Bearer {token}"),))
        stream = _Upstream(call, observer)
        up = asyncio.create_task(self._bot_to_referee(hello, context, stream))
        try:
            status = await self._referee_to_bot(stream, context)
        finally:
            up.cancel()
            call.cancel()
        if status is not None:
            await context.abort(*status)

    @staticmethod
    async def _bot_to_referee(hello: bytes, context: _Context, stream: _Upstream) -> None:
        """Pass the bot's messages on as they came (the referee bounds and parses them)."""
        try:
            await stream.write(hello, from_bot=True)
            while (raw := await context.read()) is not grpc.aio.EOF:
                await stream.write(raw, from_bot=True)
            await stream.done_writing()
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
            return  # the upstream stream ended: the other direction reports how

    async def _referee_to_bot(self, stream: _Upstream,
                              context: _Context) -> tuple[grpc.StatusCode, str] | None:
        """Pass the referee's messages on until its stream ends; the status to end the bot's
        stream with (``None``: it ended OK)."""
        call = stream.call
        try:
            while isinstance(raw := await call.read(), bytes):  # until EOF
                await stream.noted(raw)
                if (message := for_the_bot(raw)) is not None:
                    await context.write(message)
            code, details = await call.code(), await call.details()
        except grpc.aio.AioRpcError as exc:
            code, details = exc.code(), exc.details() or ""
        if code == grpc.StatusCode.OK:
            return None
        if code == grpc.StatusCode.UNAUTHENTICATED:
            self.refused_upstream += 1
            log.warning("the referee refused the host's token for version %r: %s", self.upstream.bot_version,
                        details)
            return grpc.StatusCode.UNAVAILABLE, "the arena did not accept this bot host's token; retry later"
        return code, details
