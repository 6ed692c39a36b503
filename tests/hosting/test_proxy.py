"""The hosted bot's proxy: a real referee, the proxy on a Unix socket, and a real
``pitch-bot run`` process that knows only the socket and a placeholder token."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc
import pytest

from hosting.proxy import MAX_BOT_MESSAGE_BYTES, MAX_CAPACITY, BotProxy, Upstream, for_the_bot, hosted_hello
from pitch_sdk.checks.compliance import practice_requests
from pitch_sdk.checks.relay import PracticeObserver
from pitch_sdk.proto.pitch.v1 import arena_pb2, arena_pb2_grpc, bot_pb2, bot_pb2_grpc
from referee import config as referee_config
from tests.kits.kit_process import node_kit
from tests.referee.harness import ADMIN
from tests.workers.celery_harness import ArenaThread, wait_until

PITCH_BOT = Path(sys.executable).parent / "pitch-bot"
HELLO = bot_pb2.Hello(bot_name="raw", bot_version="mine", protocol_versions=["pitch.v1"], capacity=50)


def test_the_proxy_bounds_messages_as_the_referee_does() -> None:
    assert MAX_BOT_MESSAGE_BYTES == referee_config.MAX_BOT_MESSAGE_BYTES
    assert MAX_CAPACITY == referee_config.MAX_CAPACITY


def test_the_hello_says_the_hosted_version_and_at_most_the_operators_capacity() -> None:
    upstream = Upstream("127.0.0.1:1", "tok", "v3", capacity=4)
    sent = bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="b", bot_version="9.9", capacity=50, fleet_updates=True))
    hello = bot_pb2.BotMessage.FromString(hosted_hello(sent.SerializeToString(), upstream)).hello
    assert (hello.bot_name, hello.bot_version, hello.capacity, hello.fleet_updates) == ("b", "v3", 4, False)
    fewer = bot_pb2.BotMessage(hello=bot_pb2.Hello(capacity=2)).SerializeToString()
    assert bot_pb2.BotMessage.FromString(hosted_hello(fewer, upstream)).hello.capacity == 2
    other = bot_pb2.BotMessage(practice=bot_pb2.PracticeRequest(preset="cutthroat")).SerializeToString()
    assert hosted_hello(other, upstream) == other  # not a hello: the referee refuses it


def test_the_bot_never_hears_of_other_referees() -> None:
    update = bot_pb2.RefereeMessage(fleet_update=bot_pb2.FleetUpdate(addresses=["10.0.0.1:50051"]))
    assert for_the_bot(update.SerializeToString()) is None
    welcome = bot_pb2.RefereeMessage(welcome=bot_pb2.Welcome(session_id="s", bot_id="b", fleet=["a:1", "b:2"],
                                                             referee_address="a:1"))
    seen = bot_pb2.RefereeMessage.FromString(for_the_bot(welcome.SerializeToString()) or b"").welcome
    assert (seen.session_id, seen.bot_id, list(seen.fleet), seen.referee_address) == ("s", "b", [], "")
    strike = bot_pb2.RefereeMessage(strike=bot_pb2.Strike(match_id="m")).SerializeToString()
    assert for_the_bot(strike) == strike


@pytest.fixture(scope="module")
def sockets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A short folder for the sockets (a Unix socket path has at most 107 bytes)."""
    return tmp_path_factory.mktemp("px")


def start_proxy(arena: ArenaThread, socket: Path, upstream: Upstream, **options: object) -> BotProxy:
    async def start() -> BotProxy:
        proxy = BotProxy(socket, upstream, **options)  # type: ignore[arg-type]
        await proxy.start()
        return proxy

    return arena.call(start())  # type: ignore[no-any-return]


def listed(arena: ArenaThread, bot_id: str) -> arena_pb2.BotInfo | None:
    async def bots() -> arena_pb2.ListBotsResponse:
        return await arena.arena.admin.ListBots(arena_pb2.ListBotsRequest(), metadata=ADMIN)

    return next((bot for bot in arena.call(bots()).bots if bot.bot_id == bot_id), None)


@pytest.fixture(scope="module")
def hosted(arena: ArenaThread, sockets: Path) -> Iterator[tuple[str, BotProxy, subprocess.Popen[bytes]]]:
    """A registered bot played by a ``pitch-bot run heuristic`` process through a proxy: the
    process has the socket's address and a placeholder token, the proxy the real token."""
    bot_id, token = arena.register()
    proxy = start_proxy(arena, sockets / "a.sock", Upstream(arena.arena.address, token, "v7", capacity=2))
    log = (sockets / "bot.log").open("wb")
    process = subprocess.Popen(
        [str(PITCH_BOT), "run", "heuristic", "--capacity", "8", "--verbose"],
        env={"PATH": os.environ["PATH"], "PITCH_REFEREE": proxy.address, "PITCH_BOT_TOKEN": "placeholder"},
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_until(lambda: process.poll() is None and bool(getattr(listed(arena, bot_id), "connected", False)), 30,
                   "the hosted bot to connect through the proxy")
        yield bot_id, proxy, process
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)
        log.close()
        arena.call(proxy.stop())


def test_a_bot_on_the_socket_plays_as_the_hosted_version(arena: ArenaThread, sockets: Path,
                                                         hosted: tuple[str, BotProxy, subprocess.Popen[bytes]]
                                                         ) -> None:
    bot_id, proxy, process = hosted
    assert listed(arena, bot_id).capacity == 2  # type: ignore[union-attr]  # it asked 8: the operator's 2
    others = [arena.connect("heuristic") for _ in range(2)]
    played: arena_pb2.RunMatchResponse = arena.call(arena.arena.run_match("cutthroat", [bot_id, *others], seed=3,
                                                                          games=1), timeout=60)
    assert played.result.completed and not played.result.forfeited
    assert played.seat_bot_versions[0] == "v7"
    assert played.result.seats[0].decisions > 0 and played.result.seats[0].strikes == 0
    assert proxy.greeted.is_set() and proxy.streams == 1 and process.poll() is None
    log = (sockets / "bot.log").read_text()
    assert "opening a stream to referee" in log and log.count("opening a stream") == 1, log  # no referee dialled


def test_the_node_kit_bot_plays_through_the_socket(arena: ArenaThread, sockets: Path) -> None:
    """A bot in another language dials the ``unix:`` address with its own gRPC library."""
    bot_id, token = arena.register()
    proxy = start_proxy(arena, sockets / "n.sock", Upstream(arena.arena.address, token, "node-v1", capacity=1))
    log = (sockets / "node.log").open("wb")
    process = subprocess.Popen(node_kit(), env={"PATH": os.environ["PATH"], "PITCH_REFEREE": proxy.address,
                                                "PITCH_BOT_TOKEN": "placeholder"},
                               stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_until(lambda: process.poll() is None and bool(getattr(listed(arena, bot_id), "connected", False)), 30,
                   "the node kit bot to connect through the proxy")
        others = [arena.connect("random") for _ in range(2)]
        played: arena_pb2.RunMatchResponse = arena.call(arena.arena.run_match("cutthroat", [bot_id, *others],
                                                                              seed=4, games=1), timeout=60)
        assert played.result.completed and played.seat_bot_versions[0] == "node-v1"
        assert played.result.seats[0].decisions > 0 and played.result.seats[0].strikes == 0
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)
        log.close()
        arena.call(proxy.stop())


async def raw_stream(address: str, messages: list[bot_pb2.BotMessage], linger_s: float = 0.3
                     ) -> tuple[list[bot_pb2.RefereeMessage], grpc.StatusCode, str]:
    """Open a stream on ``address``, send ``messages``, wait ``linger_s`` (for the answers)
    and end it; what came back and the status."""

    async def requests() -> AsyncIterator[bot_pb2.BotMessage]:
        for message in messages:
            yield message
        await asyncio.sleep(linger_s)

    async with grpc.aio.insecure_channel(address) as channel:
        call = bot_pb2_grpc.BotServiceStub(channel).Connect(requests(), metadata=(("authorization", "Bearer x"),))
        got: list[bot_pb2.RefereeMessage] = []
        try:
            async for message in call:
                got.append(message)
        except grpc.aio.AioRpcError as exc:
            return got, exc.code(), exc.details() or ""
        return got, await call.code(), await call.details()


def test_a_wrong_host_token_is_unavailable_to_the_bot_not_unauthenticated(arena: ArenaThread, sockets: Path) -> None:
    proxy = start_proxy(arena, sockets / "b.sock", Upstream(arena.arena.address, "not-a-token", "v1", capacity=1))
    try:
        got, code, details = arena.call(raw_stream(proxy.address, [bot_pb2.BotMessage(hello=HELLO)], linger_s=0))
        assert (got, code) == ([], grpc.StatusCode.UNAVAILABLE) and "token" in details, details
        assert proxy.refused_upstream == 1
    finally:
        arena.call(proxy.stop())


def test_during_a_check_the_stream_plays_the_checks_practice_matches_alone(arena: ArenaThread,
                                                                          sockets: Path) -> None:
    """The check's token goes upstream and its practice request is added after the welcome;
    the bot's own practice requests and second hello never reach the referee (it would
    start the one, answer the other with an error the check would count)."""
    bot_id, token = arena.register()
    proxy = start_proxy(arena, sockets / "d.sock", Upstream(arena.arena.address, "not-a-token", "v1", capacity=2))
    observer = PracticeObserver.for_requests(practice_requests(["cutthroat"], games=1, seed=0))
    proxy.check = (observer, token)
    own = bot_pb2.BotMessage(practice=bot_pb2.PracticeRequest(preset="partnership"))
    try:
        got, code, _ = arena.call(raw_stream(proxy.address, [bot_pb2.BotMessage(hello=HELLO), own,
                                                             bot_pb2.BotMessage(hello=HELLO), own], linger_s=1))
    finally:
        arena.call(proxy.stop())
    assert code == grpc.StatusCode.OK and got[0].welcome.bot_id == bot_id and observer.welcomed
    started = [message.match_started for message in got if message.HasField("match_started")]
    assert [(m.ruleset.name, m.seat) for m in started] == [("cutthroat", 0)]
    assert observer.practice == [] and observer.errors == [] and not any(m.HasField("error") for m in got)


def test_the_socket_serves_nothing_but_bounded_bot_streams(arena: ArenaThread, sockets: Path) -> None:
    """Other RPCs are unimplemented; streams are bounded in number, rate, size and time to
    hello; a first message that does not parse is refused by the proxy itself."""
    _, token = arena.register()
    proxy = start_proxy(arena, sockets / "c.sock", Upstream(arena.arena.address, token, "v1", capacity=1),
                        max_streams=1, streams_per_minute=3, hello_timeout_s=0.3)

    async def attempts() -> list[tuple[grpc.StatusCode, str]]:
        async with grpc.aio.insecure_channel(proxy.address) as channel:
            try:
                await arena_pb2_grpc.ArenaServiceStub(channel).ListBots(arena_pb2.ListBotsRequest())
            except grpc.aio.AioRpcError as exc:
                statuses = [(exc.code(), "")]
            held = asyncio.create_task(raw_stream(proxy.address, [bot_pb2.BotMessage(hello=HELLO)]))
            await asyncio.wait_for(proxy.greeted.wait(), 5)
            statuses.append((await raw_stream(proxy.address, [bot_pb2.BotMessage(hello=HELLO)]))[1:])  # a second
            got, code, _ = await held
            assert got and got[0].HasField("welcome") and code == grpc.StatusCode.OK
            huge = bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="x" * (MAX_BOT_MESSAGE_BYTES + 1)))
            statuses.append((await raw_stream(proxy.address, [huge]))[1:])
            statuses.append((await raw_stream(proxy.address, [], linger_s=2))[1:])  # no hello
            statuses.append((await raw_stream(proxy.address, [bot_pb2.BotMessage(hello=HELLO)]))[1:])  # fifth
            return statuses

    try:
        statuses = arena.call(attempts())
    finally:
        arena.call(proxy.stop())
    assert [code for code, _ in statuses] == [grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.RESOURCE_EXHAUSTED,
                                              grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.DEADLINE_EXCEEDED,
                                              grpc.StatusCode.RESOURCE_EXHAUSTED], statuses
    assert "at most 1 streams at once" in statuses[1][1] and "no hello within 0.3 s" in statuses[3][1]
    assert "at most 3 new streams per minute" in statuses[4][1]
