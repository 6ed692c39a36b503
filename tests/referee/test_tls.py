"""TLS on the referee's listeners, and relays between referees over mutual TLS.

The rules checked (docs/fleet.md, "TLS and who may relay"): with a server certificate a
referee's listener speaks TLS only, and bots (the SDK's client), workers and tools reach it
through the arena's CA; with a relay port, relays go there only, over mutual TLS: a caller
must present a certificate from the arena's CA naming the referees' identity
(``pitch-referee``) and carry the relay token, and the admin token opens none.  The
certificates are made by ``scripts/make-tls.sh`` at test time, for loopback names.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from competitions.referee_client import RefereeClient
from pitch_sdk.proto.pitch.v1 import arena_pb2, arena_pb2_grpc, game_pb2, relay_pb2
from pitch_sdk.remote.tls import ChannelSecurity
from referee.config import RefereeConfig
from referee.relay import RELAY_METHOD
from store.tls import Tls, aio_channel
from tests.kits.kit_process import KIT_COMMANDS
from tests.referee.bots import FirstLegalBot
from tests.referee.harness import ADMIN, FAST, directory, eventually, played_here, run, running_arena
from tests.referee.test_relay import SingleStreamBot

ROOT = Path(__file__).resolve().parents[2]
RELAY = (("authorization", "Bearer test-relay"),)


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The arena's CA, a server certificate for localhost and 127.0.0.1, the referees'
    relay identity, and an impostor: a certificate from the same CA under another name."""
    folder = tmp_path_factory.mktemp("tls")
    make = [str(ROOT / "scripts" / "make-tls.sh"), str(folder), "localhost", "127.0.0.1"]
    subprocess.run(make, check=True, capture_output=True, env={**os.environ, "PITCH_RELAY_PEER_NAME": "impostor"})
    for name in ("referee.pem", "referee-key.pem"):
        shutil.move(folder / name, folder / name.replace("referee", "impostor"))
    subprocess.run(make, check=True, capture_output=True)  # the same CA: a second run keeps it
    yield folder


def tls_settings(certs: Path, relay_port: bool = True) -> dict[str, object]:
    """A referee's settings with TLS on its listener and (``relay_port``) a mutual-TLS
    relay port; without one, relays go to the TLS listener with the relay token."""
    listener = {"tls_ca": str(certs / "ca.pem"), "tls_cert": str(certs / "server.pem"),
                "tls_key": str(certs / "server-key.pem"), **FAST}
    if not relay_port:
        return listener
    return {**listener, "relay_address": "127.0.0.1:0", "relay_cert": str(certs / "referee.pem"),
            "relay_key": str(certs / "referee-key.pem")}


@pytest.mark.parametrize("relay_port", [True, False], ids=["mutual-TLS relay port", "relay on the TLS listener"])
def test_a_match_with_a_relayed_seat_is_played_over_tls(redis_url: str, certs: Path, relay_port: bool) -> None:
    """Two referees with server certificates (and a mutual-TLS relay port, or none): two
    bots on the first over TLS, the third (the SDK's client, trusting the arena's CA) on
    the second only; the match runs on the first, the far seat is relayed over TLS and
    every seat plays to the end.  A plaintext client gets no answer from a TLS listener."""
    prefix = f"tls-{uuid.uuid4().hex[:8]}:"
    fleet = directory(redis_url, prefix)

    async def scenario() -> None:
        async with running_arena(redis_url, prefix, **tls_settings(certs, relay_port)) as first, \
                running_arena(redis_url, prefix, **tls_settings(certs, relay_port)) as second:
            near, other = [await first.register() for _ in range(2)]
            bots = [SingleStreamBot(first, near.token), SingleStreamBot(first, other.token)]
            for bot in bots:
                await bot.stream.started()
            far, client = await second.connect(FirstLegalBot, capacity=1,
                                               security=ChannelSecurity(ca=str(certs / "ca.pem")))
            entries = fleet.live()
            assert {entry.relay_address for entry in entries} == ({
                f"127.0.0.1:{first.server.relay_port}", f"127.0.0.1:{second.server.relay_port}"} if relay_port
                else {""})
            await eventually(lambda: [e.address for e in fleet.hosting([far])] == [second.address])
            seats = [near.bot_id, far, other.bot_id]
            result = (await first.run_match("cutthroat", seats, seed=5, options_json='{"target": 3}')).result
            assert result.completed and played_here(first.server.arena, result.match_id)
            assert all(seat.status == game_pb2.SEAT_STATUS_OK and seat.decisions > 0 for seat in result.seats)
            assert client.decisions == result.seats[1].decisions  # the far seat's answers came over the relay
            async with grpc.aio.insecure_channel(first.address) as plaintext:
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await arena_pb2_grpc.ArenaServiceStub(plaintext).ListBots(arena_pb2.ListBotsRequest(),
                                                                             metadata=ADMIN, timeout=5)
                assert refused.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)

    run(scenario())


async def relay_status(channel: grpc.aio.Channel, metadata: tuple[tuple[str, str], ...],
                       bot_id: str) -> tuple[grpc.StatusCode, str]:
    """Open a relay for ``bot_id`` on ``channel``: the status of the call (or of the host's
    answer to the open) and its message."""
    call = channel.stream_stream(RELAY_METHOD, request_serializer=lambda raw: raw,
                                 response_deserializer=relay_pb2.RelayResponse.FromString)(metadata=metadata)
    with contextlib.suppress(TimeoutError):  # a refusal comes before any message is read
        await asyncio.wait_for(asyncio.shield(call.initial_metadata()), 1)
    if call.done():
        return await call.code(), await call.details() or ""
    try:
        await call.write(relay_pb2.RelayRequest(open=relay_pb2.RelayOpen(
            relay_id=1, bot_id=bot_id, match_id="m-1", seats=[0])).SerializeToString())
        reply = await asyncio.wait_for(call.read(), 10)
    except grpc.aio.AioRpcError as error:
        return error.code(), error.details() or ""
    call.cancel()
    assert isinstance(reply, relay_pb2.RelayResponse)
    if reply.HasField("ended"):
        return grpc.StatusCode.FAILED_PRECONDITION, reply.ended.message
    return grpc.StatusCode.OK, reply.WhichOneof("message") or ""


def test_a_relay_without_the_referee_identity_is_refused(redis_url: str, certs: Path) -> None:
    """On the mutual-TLS relay port: the referees' certificate and the relay token open a
    relay; the same certificate with the admin token, another certificate from the arena's
    CA (not naming ``pitch-referee``), no client certificate, or plaintext are refused; the
    main listener serves no relay at all."""

    async def scenario() -> None:
        async with running_arena(redis_url, **tls_settings(certs)) as arena:
            registered = await arena.register()
            bot = SingleStreamBot(arena, registered.token)
            await bot.stream.started()
            relay_port = f"127.0.0.1:{arena.server.relay_port}"
            ca = str(certs / "ca.pem")

            def dial(cert: str = "", key: str = "", tls: bool = True) -> grpc.aio.Channel:
                return aio_channel(relay_port, Tls(ca, cert, key, "pitch-referee") if tls else Tls())

            referee = (str(certs / "referee.pem"), str(certs / "referee-key.pem"))
            impostor = (str(certs / "impostor.pem"), str(certs / "impostor-key.pem"))
            cases: list[tuple[grpc.aio.Channel, tuple[tuple[str, str], ...], set[grpc.StatusCode], str]] = [
                (dial(*referee), RELAY, {grpc.StatusCode.OK}, "opened"),
                (dial(*referee), ADMIN, {grpc.StatusCode.UNAUTHENTICATED}, "relay token"),
                (dial(*impostor), RELAY, {grpc.StatusCode.UNAUTHENTICATED}, "'pitch-referee'"),
                (dial(), RELAY, {grpc.StatusCode.UNAVAILABLE}, ""),  # no client certificate: no handshake
                (dial(tls=False), RELAY, {grpc.StatusCode.UNAVAILABLE}, ""),
                (arena.channel, RELAY, {grpc.StatusCode.UNIMPLEMENTED}, ""),  # the main listener
            ]
            for channel, metadata, codes, says in cases:
                code, details = await relay_status(channel, metadata, registered.bot_id)
                assert code in codes and says in details, (metadata, code, details)
            presence = arena.server.arena.registry.get(registered.bot_id)
            assert presence is not None
            await eventually(lambda: presence.seats_in_use == 0 and not presence.relayed)

    run(scenario())


def test_settings_that_cannot_work_are_refused_at_start() -> None:
    """A relay token equal to the admin token, a certificate without its key, and mutual TLS
    without a relay port or a CA are refused with a message naming the setting."""
    for settings, says in (({"admin_token": "same", "relay_token": "same"}, "must differ"),
                           ({"tls_cert": "c.pem"}, "tls_cert and tls_key"),
                           ({"relay_cert": "r.pem", "relay_key": "r-key.pem"}, "needs relay_address and tls_ca")):
        with pytest.raises(ValueError, match=says):
            RefereeConfig(**settings)  # type: ignore[arg-type]


def test_the_workers_and_the_clis_client_reaches_a_tls_referee_through_the_environment(
        redis_url: str, certs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The workers' and the CLI's admin client (``RefereeClient``, on ``store/tls.py``)
    speaks TLS to a referee whose listener does when ``PITCH_TLS_CA`` is set, and fails with
    UNAVAILABLE (no traceback of its own) in plaintext."""

    async def scenario() -> None:
        async with running_arena(redis_url, **tls_settings(certs, relay_port=False)) as arena:
            registered = await arena.register()
            monkeypatch.setenv("PITCH_TLS_CA", str(certs / "ca.pem"))
            bots = await asyncio.to_thread(RefereeClient(arena.address, "test-admin", 30).bots, 10)
            assert registered.bot_id in {bot.bot_id for bot in bots}
            monkeypatch.delenv("PITCH_TLS_CA")
            with pytest.raises(grpc.RpcError) as refused:
                await asyncio.to_thread(RefereeClient(arena.address, "test-admin", 30).bots, 5)
            assert refused.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)

    run(scenario())


def test_pitch_bot_check_plays_its_practice_matches_with_a_tls_referee(redis_url: str, certs: Path) -> None:
    """``pitch-bot check --referee`` trusts the arena's CA with ``--tls-ca``, for a Python bot
    and for a bot process (``--command``, whose plaintext stream to the check's local relay
    goes on over TLS); without it the check fails with a clear message, no traceback."""
    bin_dir = Path(sys.executable).parent

    async def check(token: str, address: str, *options: str) -> tuple[int, str]:
        process = await asyncio.create_subprocess_exec(
            str(bin_dir / "pitch-bot"), "check", *options, "--referee", address, "--token", token,
            "-r", "cutthroat", "--games", "1", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        output, _ = await asyncio.wait_for(process.communicate(), 120)
        return process.returncode or 0, output.decode(errors="replace")

    async def scenario() -> None:
        async with running_arena(redis_url, **tls_settings(certs, relay_port=False)) as arena:
            token = (await arena.register()).token
            ca = ("--tls-ca", str(certs / "ca.pem"))
            code, output = await check(token, arena.address, "heuristic", *ca)
            assert code == 0 and "PASS" in output, output
            command = ("--command", f"{bin_dir / 'pitch-bot'} run heuristic")
            code, output = await check(token, arena.address, *command, *ca)
            assert code == 0 and "PASS" in output, output
            code, output = await check(token, arena.address, "heuristic")
            assert code == 2 and "no referee answered" in output and "Traceback" not in output, output

    run(scenario())


def test_the_kits_bots_play_a_match_with_a_tls_referee(redis_url: str, certs: Path, tmp_path: Path) -> None:
    """The Node and Go kits' bots speak TLS with ``--tls-ca`` (or ``PITCH_TLS_CA``) and play
    a match beside an SDK bot on a referee whose listener speaks TLS only; a kit given an
    unreadable CA file stops at once with exit 2 naming the flag."""
    commands = {kit: command() for kit, command in KIT_COMMANDS.items()}

    async def scenario() -> None:
        async with running_arena(redis_url, **tls_settings(certs, relay_port=False)) as arena:
            sdk_bot, _ = await arena.connect(FirstLegalBot, security=ChannelSecurity(ca=str(certs / "ca.pem")))
            processes, seats = [], [sdk_bot]
            try:
                for kit, command in commands.items():
                    registered = await arena.register()
                    env = {**os.environ, "PITCH_REFEREE": arena.address, "PITCH_BOT_TOKEN": registered.token,
                           "PITCH_TLS_CA": str(certs / "ca.pem")}
                    log = (tmp_path / f"{kit}.log").open("wb")
                    processes.append(subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT))
                    seats.append(registered.bot_id)
                registry = arena.server.arena.registry
                await eventually(lambda: set(seats) <= {p.bot.bot_id for p in registry.connected()}, timeout=30)
                played = await arena.run_match("cutthroat", seats, games=1, seed=5)
                assert played.result.completed and not played.result.forfeited
                assert all(seat.strikes == 0 for seat in played.result.seats)
            finally:
                for process in processes:
                    process.terminate()
                    process.wait(timeout=10)
            for kit, command in commands.items():
                unreadable = await asyncio.to_thread(
                    subprocess.run, [*command, "--referee", arena.address, "--token", "x", "--tls-ca",
                                     str(tmp_path / "missing.pem")], capture_output=True, text=True, timeout=30)
                assert unreadable.returncode == 2 and "--tls-ca" in unreadable.stderr, (kit, unreadable.stderr)

    run(scenario())
