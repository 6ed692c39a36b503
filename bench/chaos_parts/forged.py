"""The ``forged-relay`` fault: a relay opened with a credential that is not a referee's.

A relay writes match messages straight to a connected bot, so a holder of the operator's
admin token (the web, the CLI's users, a leaked compose ``.env``), a bot's token or a
guessed one must not open one.  The fault opens ``RelayService.Relay`` on a live referee
with each of those, and for any call the referee does not refuse with UNAUTHENTICATED at
once it sends what a forger would (an open for a connected bot's seat, then a strike for
it).  Every such call counts as admitted: the ``forged_relay_admitted`` check, which must
stay 0."""

from __future__ import annotations

import asyncio
import contextlib
import secrets

import grpc

from pitch_sdk.proto.pitch.v1 import bot_pb2, relay_pb2

RELAY_METHOD = "/pitch.v1.RelayService/Relay"
REFUSAL_WAIT_S = 2.0
"""How long the referee has to refuse a forged call before it counts as admitted (a
refusal comes before any message is read; the fleet may be loaded by the other faults)."""
READY_WAIT_S = 15.0
"""How long a referee just restarted by another fault has to listen before the forgery is
skipped (a connection refused is no answer from the referee: it tests nothing)."""


class RefereeUnreachable(Exception):
    """The referee did not listen within :data:`READY_WAIT_S`: nothing was tried."""


def forged_messages(bot_id: str, match_id: str) -> list[bytes]:
    """An open for ``bot_id``'s seat 0 of ``match_id`` and a strike forwarded to it."""
    strike = bot_pb2.RefereeMessage(strike=bot_pb2.Strike(match_id=match_id, seat=0, strikes=1,
                                                          message="forged by the chaos bench"))
    return [relay_pb2.RelayRequest(open=relay_pb2.RelayOpen(relay_id=1, bot_id=bot_id, match_id=match_id,
                                                            seats=[0])).SerializeToString(),
            relay_pb2.RelayRequest(forward=relay_pb2.RelayForward(relay_id=1, message=strike)).SerializeToString()]


async def _attempt(address: str, credential: str, bot_id: str) -> str | None:
    """One forged relay: ``None`` when refused with UNAUTHENTICATED, else what happened."""
    async with grpc.aio.insecure_channel(address) as channel:
        try:
            await asyncio.wait_for(channel.channel_ready(), READY_WAIT_S)
        except TimeoutError:
            raise RefereeUnreachable(f"{address} not listening after {READY_WAIT_S:g} s") from None
        call = channel.stream_stream(RELAY_METHOD, request_serializer=lambda raw: raw,
                                     response_deserializer=relay_pb2.RelayResponse.FromString)(
            metadata=(("authorization", f"Bearer {credential}"),))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(call.initial_metadata()), REFUSAL_WAIT_S)
        if call.done():
            code = await call.code()
            return None if code == grpc.StatusCode.UNAUTHENTICATED else f"ended {code.name}, not UNAUTHENTICATED"
        with contextlib.suppress(grpc.aio.AioRpcError, asyncio.InvalidStateError):
            for message in forged_messages(bot_id, f"forged-{secrets.token_hex(4)}"):
                await call.write(message)
        call.cancel()
        return f"not refused within {REFUSAL_WAIT_S:g} s: an open and a forged strike were sent"


def forge_relays(address: str, credentials: dict[str, str], bot_id: str) -> list[str]:
    """Try a forged relay on the referee at ``address`` with each credential (name ->
    token); the admitted ones, described.  Raises :class:`RefereeUnreachable` when the
    referee does not listen (restarting after another fault)."""
    async def attempts() -> list[str]:
        admitted = []
        for name, token in credentials.items():
            outcome = await _attempt(address, token, bot_id)
            if outcome is not None:
                admitted.append(f"{address} with {name}: {outcome}")
        return admitted

    return asyncio.run(attempts())
