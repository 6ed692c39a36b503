"""The referee against hostile and broken clients and an unreachable store.

Each test states the user-visible outcome: a store outage is UNAVAILABLE and a played
match's result survives it; undecodable or oversized input gets INVALID_ARGUMENT with a
short message (admin calls are authenticated before anything is parsed) and a rate-limited
log; every session the referee ends, ends with a status and a reason; echoes of client
input are truncated; ignored answers count per seat and match, against the seat that
sent them, impersonation attempts apart; a replaced stream and a
duplicate hello are told so.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from pitch_sdk.proto.pitch.v1 import arena_pb2, bot_pb2, bot_pb2_grpc, game_pb2, relay_pb2
from referee.config import MAX_ADMIN_REQUEST_BYTES
from referee.server import SERVICE_NAMES
from store.redis_server import RedisServer
from tests.referee.bots import FirstLegalBot, SteadyBot
from tests.referee.harness import ADMIN, Arena, RawBot, running_arena

HELLO = bot_pb2.Hello(bot_name="raw", protocol_versions=["pitch.v1"])
ADMIN_METHODS = ("RegisterBot", "ListBots", "RunMatch", "GetMatchLog", "ListMatches")
SHORT = 300
"""Longest status details a refusal may have (no echo of a client's value is longer)."""


def run(coroutine: object) -> object:
    """Run a test coroutine on a fresh event loop."""
    return asyncio.run(coroutine)  # type: ignore[arg-type]


async def refused(call: object, what: object = "") -> grpc.aio.AioRpcError:
    """The error a call ends with (the test fails, naming ``what``, if it succeeds)."""
    try:
        await call  # type: ignore[misc]
    except grpc.aio.AioRpcError as error:
        return error
    pytest.fail(f"not refused: {what}")


async def raw_connect(arena: Arena, token: str, frames: list[bytes],
                      wait_s: float = 10.0) -> tuple[list[bot_pb2.RefereeMessage], grpc.StatusCode, str]:
    """Open ``Connect`` with ``frames`` as the stream's raw messages, keep it open, and read
    until the referee ends it: the messages received, the status and its details."""
    connect = arena.channel.stream_stream("/pitch.v1.BotService/Connect", request_serializer=None,
                                          response_deserializer=bot_pb2.RefereeMessage.FromString)

    ended = asyncio.Event()

    async def requests() -> AsyncIterator[bytes]:
        for frame in frames:
            yield frame
        await ended.wait()  # the referee must end the stream

    call = connect(requests(), metadata=(("authorization", f"Bearer {token}"),))
    received: list[bot_pb2.RefereeMessage] = []

    async def read() -> None:
        async for message in call:
            received.append(message)

    with contextlib.suppress(grpc.aio.AioRpcError):
        await asyncio.wait_for(read(), wait_s)
    ended.set()
    await asyncio.sleep(0.01)  # the request iterator ends
    return received, await call.code(), await call.details() or ""


def hello_bytes(**fields: object) -> bytes:
    """An encoded hello speaking pitch.v1."""
    return bot_pb2.BotMessage(hello=bot_pb2.Hello(protocol_versions=["pitch.v1"], **fields)).SerializeToString()  # type: ignore[arg-type]


def admin_raw(arena: Arena, method: str, token: bool = True) -> object:
    """A unary ArenaService method taking raw bytes."""
    call = arena.channel.unary_unary(f"/pitch.v1.ArenaService/{method}", request_serializer=None,
                                     response_deserializer=None)
    return lambda payload: call(payload, metadata=ADMIN if token else ())


def test_store_outage_is_unavailable_and_a_played_match_is_kept_until_recorded() -> None:
    """With the arena's Redis stopped mid-match, the match still completes; RunMatch answers
    UNAVAILABLE saying the match was played and its result is kept; every other call that
    needs the store (and a bot's Connect) answers UNAVAILABLE naming Redis, never UNKNOWN.
    When a store is back, the referee records the kept result by itself and a retry of the
    same match id returns it."""

    async def scenario() -> None:
        with RedisServer() as first, RedisServer() as second:
            async with running_arena(first.url) as arena:
                seats = [(await arena.connect(SteadyBot))[0] for _ in range(3)]
                token = (await arena.register()).token
                match = asyncio.create_task(arena.run_match("cutthroat", seats, seed=2, match_id="outage",
                                                            options_json='{"target": 3}'))
                while not arena.server.arena.matches:
                    await asyncio.sleep(0.01)
                first.stop()  # the store goes away while the match is played
                error = await refused(match)
                assert error.code() == grpc.StatusCode.UNAVAILABLE, error.details()
                assert "was played" in error.details() and "Redis" in error.details()
                calls = [arena.admin.ListBots(arena_pb2.ListBotsRequest(), metadata=ADMIN),
                         arena.admin.GetMatchLog(arena_pb2.GetMatchLogRequest(match_id="outage"), metadata=ADMIN),
                         arena.admin.RegisterBot(arena_pb2.RegisterBotRequest(name="late"), metadata=ADMIN),
                         arena.run_match("cutthroat", seats, match_id="outage")]
                for call in calls:
                    error = await refused(call)
                    assert error.code() == grpc.StatusCode.UNAVAILABLE, error.details()
                    assert "the arena's store (Redis) cannot be reached" in error.details()
                # no hello written: the token is looked up first, and a hello written as the referee
                # ends the call can fail in the client's own core (INTERNAL), as seen under load
                _, code, details = await raw_connect(arena, token, [])
                assert code == grpc.StatusCode.UNAVAILABLE and "Redis" in details
                store = arena.server.arena.store
                store.client = second.client()  # a store is back
                for _ in range(600):  # the background recorder retries with backoff (up to 10 s apart)
                    if store.match_result("outage") is not None:
                        break
                    await asyncio.sleep(0.05)
                recorded = store.match_result("outage")
                assert recorded is not None and recorded["completed"]
                again = (await arena.run_match("cutthroat", seats, match_id="outage")).result
                assert again.completed and again.match_id == "outage" and not arena.server.arena.unrecorded

    run(scenario())


def test_undecodable_requests_get_invalid_argument_and_a_rate_limited_log(
        redis_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """Garbage as the first Connect message, a hello with bad UTF-8, and random bytes to
    every ArenaService method get INVALID_ARGUMENT with a short message and no Python
    exception text; without the admin token the same bytes get UNAUTHENTICATED (the token
    is checked before anything is parsed); a flood of them logs at most a few lines, none
    with a traceback."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            token = (await arena.register()).token
            for frame in (b"\xff\xff\xff", b"\x0a\x03\x0a\x01\xff"):
                received, code, details = await raw_connect(arena, token, [frame])
                assert not received and code == grpc.StatusCode.INVALID_ARGUMENT, (code, details)
                assert "undecodable pitch.v1.BotMessage" in details and len(details) < SHORT
            for method in ADMIN_METHODS:
                error = await refused(admin_raw(arena, method, token=False)(b"\xff\xff\xff"))  # type: ignore[operator]
                assert error.code() == grpc.StatusCode.UNAUTHENTICATED, method
                error = await refused(admin_raw(arena, method)(b"\xff\xff\xff"))  # type: ignore[operator]
                assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, method
                assert "undecodable pitch.v1." in error.details() and "Traceback" not in error.details()
                assert len(error.details()) < SHORT
            caplog.clear()
            flood = admin_raw(arena, "RunMatch")
            for _ in range(100):
                await refused(flood(b"\xff\xff\xff"))  # type: ignore[operator]
            assert len(caplog.records) <= 10, [r.getMessage() for r in caplog.records]
            assert not any(r.exc_info for r in caplog.records)

    with caplog.at_level(logging.INFO):
        run(scenario())


def test_oversized_input_is_refused_at_once_with_a_short_message(redis_url: str) -> None:
    """An 800 KB options list, a 1 MB bot name or match id, a 10 KB name, id or preset,
    deeply nested options, too many seats, absurd time controls: each is refused with
    INVALID_ARGUMENT and a message under 300 characters (long values are cut with an
    ellipsis), quickly; a hello with a huge name, version or capacity is refused as a bad
    hello."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            online = [(await arena.connect(FirstLegalBot))[0] for _ in range(3)]
            big_options = json.dumps({"points": ["high"] * 100_000})
            cases: list[tuple[object, str]] = [
                (arena.run_match("cutthroat", online, options_json=big_options), "over the limit"),
                (arena.run_match("cutthroat", online, options_json=json.dumps({"points": ["high"] * 1000})),
                 "more than 4096"),
                (arena.run_match("cutthroat", online, options_json="[" * 2000 + "]" * 2000), "not JSON"),
                (arena.run_match("cutthroat", online, options_json='{"a": [[[[1]]]]}'), "nests deeper"),
                (arena.run_match("cutthroat", online, options_json='{"target": 1000000000000000000000000000000}'),
                 "bad ruleset"),
                (arena.run_match("cutthroat", online, match_id="m" * 1_000_000), "over the limit"),
                (arena.run_match("cutthroat", online, match_id="m" * 10_000), "…"),
                (arena.run_match("c" * 10_000, online), "…"),
                (arena.run_match("cutthroat", ["b" * 10_000] * 3), "…"),
                (arena.run_match("cutthroat", online * 100), "more than 64"),
                (arena.run_match("cutthroat", online, time_control=bot_pb2.TimeControl(per_decision_ms=10**9)),
                 "time_control"),
                (arena.register("n" * 1_000_000), "over the limit"),
                (arena.register("n" * 10_000), "…"),
                (arena.admin.GetMatchLog(arena_pb2.GetMatchLogRequest(match_id="g" * 10_000), metadata=ADMIN), "…"),
            ]
            loop = asyncio.get_running_loop()
            for call, needle in cases:
                started = loop.time()
                error = await refused(call, needle)
                assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, (needle, error.code(), error.details()[:200])
                assert needle in error.details() and len(error.details()) < SHORT, error.details()
                assert loop.time() - started < 0.5
            assert len(big_options) > MAX_ADMIN_REQUEST_BYTES
            token = (await arena.register()).token
            for hello in (hello_bytes(bot_name="n" * 1000), hello_bytes(bot_version="v" * 1000),
                          hello_bytes(sdk="s" * 1000), hello_bytes(capacity=10**6),
                          hello_bytes(rulesets=["r"] * 1000), hello_bytes(bot_version="\x1b[2J\x1b[31mPWNED")):
                received, _, _ = await raw_connect(arena, token, [hello])
                assert [m.refusal.reason for m in received] == [bot_pb2.REFUSAL_REASON_BAD_HELLO]
                assert len(received[0].refusal.message) < SHORT, received[0].refusal.message

    run(scenario())


def test_bot_names_are_printable_and_bounded(redis_url: str) -> None:
    """RegisterBot refuses names with escapes, NUL or other control characters, empty or
    longer than 64 characters, or with a leading or trailing space, saying so; printable
    names (any script) are accepted."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            for name in ("a\x00b", "\x1b[2J\x1b[31mPWNED", "tab\there", "", " lead", "trail ", "x" * 65):
                error = await refused(arena.admin.RegisterBot(arena_pb2.RegisterBotRequest(name=name),
                                                              metadata=ADMIN), name)
                assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, name
                assert "1-64 printable characters" in error.details()
            for name in ("ok name", "élan-ボット", "x" * 64):
                assert (await arena.register(name)).bot_id

    run(scenario())


def test_every_session_the_referee_ends_says_why_and_is_logged_once(
        redis_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """After the welcome, an undecodable message, an oversized one or a batch inside a batch
    ends the stream with INVALID_ARGUMENT naming the problem, logged once per session; a
    practice request whose ruleset the protocol cannot carry ({"target": 10**30}) is
    answered with a RequestError and the session goes on."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            token = (await arena.register()).token
            nested = bot_pb2.BotMessage(batch=bot_pb2.BotMessages(messages=[
                bot_pb2.BotMessage(batch=bot_pb2.BotMessages())])).SerializeToString()
            oversized = bot_pb2.BotMessage(practice=bot_pb2.PracticeRequest(
                preset="cutthroat", options_json="x" * 300_000)).SerializeToString()
            for frame, needle in ((b"\xff\xff\xff", "undecodable"), (nested, "a batch inside a batch"),
                                  (oversized, "over the limit")):
                caplog.clear()
                received, code, details = await raw_connect(arena, token, [hello_bytes(bot_name="x"), frame])
                assert received[0].HasField("welcome")
                assert code == grpc.StatusCode.INVALID_ARGUMENT and needle in details, (code, details)
                ended = [r for r in caplog.records if "ended:" in r.getMessage()]
                assert len(ended) == 1 and needle in ended[0].getMessage()
            practice = bot_pb2.BotMessage(practice=bot_pb2.PracticeRequest(
                preset="cutthroat", options_json='{"target": 1000000000000000000000000000000}'))
            errors: list[str] = []

            def read(bot: RawBot, message: bot_pb2.RefereeMessage) -> bool | None:
                if message.HasField("error"):
                    errors.append(message.error.message)
                    bot.close()
                return None

            raw = await RawBot(arena, token, HELLO, read).started()
            raw.send(practice)
            await asyncio.wait_for(raw.task, 10)
            assert len(errors) == 1 and "bad ruleset" in errors[0]
            assert await raw.call.code() == grpc.StatusCode.OK  # the bot closed it

    with caplog.at_level(logging.INFO):
        run(scenario())


def test_illegal_action_echoes_are_truncated(redis_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """An answer whose action is 100 KB of text gets a strike whose message is short, and no
    log line repeats it."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            registered = await arena.register()
            others = [(await arena.connect(FirstLegalBot))[0] for _ in range(2)]
            strikes: list[str] = []

            def junk(bot: RawBot, message: bot_pb2.RefereeMessage) -> bool | None:
                if message.HasField("decision_request"):
                    request = message.decision_request
                    bot.send(bot_pb2.BotMessage(decision=bot_pb2.Decision(
                        match_id=request.match_id, decision_id=request.decision_id,
                        action=game_pb2.Action(text="x" * 100_000))))
                if message.HasField("strike"):
                    strikes.append(message.strike.message)
                if message.HasField("match_ended"):
                    bot.close()
                return None

            raw = await RawBot(arena, registered.token, HELLO, junk).started()
            await arena.run_match("cutthroat", [registered.bot_id, *others], seed=1,
                                  fault_policy=arena_pb2.FaultPolicy(max_strikes=2))
            await asyncio.wait_for(raw.task, 10)
            assert strikes and all(len(message) < SHORT for message in strikes), strikes
            assert all(len(r.getMessage()) < 2000 for r in caplog.records)

    with caplog.at_level(logging.INFO):
        run(scenario())


def test_ignored_answers_count_per_seat_and_match(redis_url: str) -> None:
    """A bot in two seats of a match answers one seat's requests twice: that seat's outcome
    counts the duplicates, its other seat's none; in the bot's next match, where it answers
    once, both seats count none (counts do not carry over between matches)."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            registered = await arena.register()
            other = (await arena.connect(FirstLegalBot))[0]
            twice = {"seat": 0}

            def answer(bot: RawBot, message: bot_pb2.RefereeMessage) -> bool | None:
                if message.HasField("decision_request"):
                    request = message.decision_request
                    decision = bot_pb2.BotMessage(decision=bot_pb2.Decision(
                        match_id=request.match_id, decision_id=request.decision_id, legal_action_index=0))
                    bot.send(decision)
                    if request.seat == twice["seat"]:
                        bot.send(decision)
                return None

            raw = await RawBot(arena, registered.token, bot_pb2.Hello(
                bot_name="two", protocol_versions=["pitch.v1"], capacity=2), answer).started()
            first = (await arena.run_match("cutthroat", [registered.bot_id, registered.bot_id, other], seed=3,
                                           options_json='{"target": 3}')).result
            twice["seat"] = -1
            second = (await arena.run_match("cutthroat", [registered.bot_id, registered.bot_id, other], seed=4,
                                            options_json='{"target": 3}')).result
            raw.close()
            assert first.seats[0].decisions - 1 <= first.seats[0].ignored_answers <= first.seats[0].decisions
            assert first.seats[0].ignored_answers > 0 and first.seats[1].ignored_answers == 0
            assert [s.ignored_answers for s in second.seats] == [0, 0, 0]

    run(scenario())


def test_every_stray_answer_counts_against_the_seat_that_sent_it(redis_url: str) -> None:
    """"Count every answer the referee ignored against the seat that sent it, and count
    impersonation attempts apart": a bot in seat 0 sends, before each real answer, one
    naming seat 1's decision, one with a malformed decision id of its match, one with a
    garbage decision id and its match's id, and one naming a match it does not play. Seat 0
    counts the first three as ignored, the first also as an impersonation attempt; the
    opponents' seats count nothing, and the fourth is in no result."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            registered = await arena.register()
            other = (await arena.connect(FirstLegalBot))[0]
            requests = {"count": 0}

            def answer(bot: RawBot, message: bot_pb2.RefereeMessage) -> bool | None:
                if message.HasField("decision_request"):
                    request = message.decision_request
                    match_id = request.match_id
                    number = int(request.decision_id.rsplit(":", 1)[1])
                    requests["count"] += 1
                    for stray_match, stray_id in ((match_id, f"{match_id}:1:{number + 1}"),
                                                  (match_id, f"{match_id}:not-a-number"),
                                                  (match_id, "garbage"),
                                                  ("elsewhere", "elsewhere:0:1")):
                        bot.send(bot_pb2.BotMessage(decision=bot_pb2.Decision(
                            match_id=stray_match, decision_id=stray_id, legal_action_index=0)))
                    bot.send(bot_pb2.BotMessage(decision=bot_pb2.Decision(
                        match_id=match_id, decision_id=request.decision_id, legal_action_index=0)))
                return None

            raw = await RawBot(arena, registered.token, bot_pb2.Hello(
                bot_name="stray", protocol_versions=["pitch.v1"]), answer).started()
            result = (await arena.run_match("cutthroat", [registered.bot_id, other, other], seed=5,
                                            options_json='{"target": 3}')).result
            raw.close()
            mine = result.seats[0]
            assert mine.decisions == requests["count"] > 0 and mine.strikes == 0
            assert mine.ignored_answers == 3 * requests["count"]
            assert mine.impersonation_attempts == requests["count"]
            assert [(s.ignored_answers, s.impersonation_attempts) for s in result.seats[1:]] == [(0, 0), (0, 0)]

    run(scenario())


def test_a_replaced_stream_and_a_duplicate_hello_are_told_why(redis_url: str) -> None:
    """A second connection with the same token ends the first stream with ABORTED naming the
    new session; a second hello on a stream is answered with a RequestError naming the
    session, and counted."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            registered = await arena.register()
            errors: list[str] = []

            def keep(bot: RawBot, message: bot_pb2.RefereeMessage) -> bool | None:
                if message.HasField("error"):
                    errors.append(message.error.message)
                return None

            old = await RawBot(arena, registered.token, HELLO, keep).started()
            new = await RawBot(arena, registered.token, HELLO, keep).started()
            with pytest.raises(grpc.aio.AioRpcError):
                await asyncio.wait_for(old.task, 10)
            presence = arena.server.arena.registry.get(registered.bot_id)
            assert presence is not None and presence.session is not None
            session_id = presence.session.session_id
            assert await old.call.code() == grpc.StatusCode.ABORTED
            details = await old.call.details()
            assert "replaced by a newer connection of the same bot" in details and session_id in details
            new.send(bot_pb2.BotMessage(hello=HELLO))
            for _ in range(100):
                if errors:
                    break
                await asyncio.sleep(0.02)
            assert len(errors) == 1 and "hello after the welcome" in errors[0] and session_id in errors[0]
            assert presence.ignored_messages == 1
            new.close()

    run(scenario())


def test_a_referee_stopped_while_its_store_is_down_records_the_played_match_when_the_store_returns() -> None:
    """A referee told to stop while Redis is down keeps the result of a match it played and
    records it when the store comes back within its shutdown grace, instead of logging it
    as lost at once (the match would be played again from its seed)."""

    async def scenario() -> None:
        with RedisServer() as first, RedisServer() as second:
            async with running_arena(first.url, shutdown_grace_s=8.0) as arena:
                seats = [(await arena.connect(SteadyBot))[0] for _ in range(3)]
                match = asyncio.create_task(arena.run_match("cutthroat", seats, seed=3, match_id="kept",
                                                            options_json='{"target": 3}'))
                while not arena.server.arena.matches:
                    await asyncio.sleep(0.01)
                first.stop()
                assert (await refused(match)).code() == grpc.StatusCode.UNAVAILABLE
                stopping = asyncio.create_task(arena.server.stop())
                await asyncio.sleep(1.0)
                assert not stopping.done(), "the referee stopped without waiting for its store"
                arena.server.arena.store.client = second.client()  # the store is back within the grace
                await asyncio.wait_for(stopping, 8.0)
                recorded = arena.server.arena.store.match_result("kept")
                assert recorded is not None and recorded["completed"]

    run(scenario())


FORWARDED = ("match_started", "decision_request", "events", "strike", "match_ended")
"""What a relay forwards to a bot: a match's messages."""


def forged_relay(bot_id: str, match_id: str = "forged") -> list[bytes]:
    """A relay's open for ``bot_id``'s seat 0, then a strike forwarded to it: what a holder
    of a stolen credential would send to make a bot believe it was penalised."""
    strike = bot_pb2.RefereeMessage(strike=bot_pb2.Strike(match_id=match_id, seat=0, strikes=1,
                                                          message="forged strike"))
    return [relay_pb2.RelayRequest(open=relay_pb2.RelayOpen(relay_id=1, bot_id=bot_id, match_id=match_id,
                                                            seats=[0])).SerializeToString(),
            relay_pb2.RelayRequest(forward=relay_pb2.RelayForward(relay_id=1, message=strike)).SerializeToString()]


def test_a_relay_opened_with_the_wrong_credential_is_refused_and_reaches_no_bot(redis_url: str) -> None:
    """The rule: a relay is opened by the arena's referees only, with the relay token, which
    is not the operator's admin token.  A relay opened with the admin token, a bot's token,
    a wrong token or none is UNAUTHENTICATED before anything is read, and the forged strike
    it carried never reaches the connected bot.  Before, the admin token opened a relay and
    the forged strike arrived on the bot's stream."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            registered = await arena.register()
            received: list[bot_pb2.RefereeMessage] = []
            raw = await RawBot(arena, registered.token, HELLO, lambda _, message: received.append(message)).started()
            relay = arena.channel.stream_stream("/pitch.v1.RelayService/Relay", request_serializer=None,
                                                response_deserializer=relay_pb2.RelayResponse.FromString)
            for credential in (ADMIN, (("authorization", f"Bearer {registered.token}"),),
                               (("authorization", "Bearer not-the-relay-token"),), ()):
                call = relay(metadata=credential)
                with contextlib.suppress(TimeoutError):  # a refusal comes at once, before any message is read
                    await asyncio.wait_for(asyncio.shield(call.initial_metadata()), 1)
                if not call.done():  # writing after the refusal would end the call in the client's core (INTERNAL)
                    for message in forged_relay(registered.bot_id):
                        await call.write(message)
                    await call.done_writing()
                await asyncio.sleep(0.2)  # what a relay had forwarded would be on the bot's stream by now
                assert [m for m in received if m.WhichOneof("message") in FORWARDED] == [], credential
                assert await asyncio.wait_for(call.code(), 10) == grpc.StatusCode.UNAUTHENTICATED, credential
                assert "relay token" in (await call.details() or "")
            raw.close()

    run(scenario())


def test_health_is_not_serving_while_the_store_is_out_of_reach_and_serving_once_it_returns() -> None:
    """The rule: while the store is out of reach (every call answers UNAVAILABLE), gRPC
    health reports NOT_SERVING for the server and for each service name, so an orchestrator
    stops routing here; once the store answers again, SERVING.  Before, health said
    SERVING all along."""
    names = ("", *SERVICE_NAMES)

    async def statuses(arena: Arena) -> set[int]:
        stub = health_pb2_grpc.HealthStub(arena.channel)
        return {(await stub.Check(health_pb2.HealthCheckRequest(service=name), timeout=5)).status for name in names}

    async def settle(arena: Arena, wanted: int) -> set[int]:
        for _ in range(200):  # heartbeats come every half second (a 1.5 s fleet TTL)
            if (seen := await statuses(arena)) == {wanted}:
                return seen
            await asyncio.sleep(0.05)
        return seen

    async def scenario() -> None:
        with RedisServer() as store:
            async with running_arena(store.url, fleet_ttl_s=1.5) as arena:
                assert await statuses(arena) == {health_pb2.HealthCheckResponse.SERVING}
                store.halt()
                assert await settle(arena, health_pb2.HealthCheckResponse.NOT_SERVING) == {
                    health_pb2.HealthCheckResponse.NOT_SERVING}
                store.resume()
                assert await settle(arena, health_pb2.HealthCheckResponse.SERVING) == {
                    health_pb2.HealthCheckResponse.SERVING}

    run(scenario())


async def open_and_close(arena: Arena, token: str) -> grpc.StatusCode | None:
    """Open a stream with ``token``, say hello, close it once welcomed, and read until the
    referee ends it: ``None`` when it was welcomed, else the status it was refused with.

    The hello goes through a request iterator, not ``call.write``: a write that loses the
    race with the referee's refusal fails in the client's own core (INTERNAL) and can end
    the call with that status instead of the referee's; an iterator's lost write does not."""
    welcomed = asyncio.Event()

    async def requests() -> AsyncIterator[bot_pb2.BotMessage]:
        yield bot_pb2.BotMessage(hello=HELLO)
        await welcomed.wait()  # then half-close

    call = bot_pb2_grpc.BotServiceStub(arena.channel).Connect(requests(),
                                                               metadata=(("authorization", f"Bearer {token}"),))
    try:
        first = await call.read()
        assert isinstance(first, bot_pb2.RefereeMessage) and first.HasField("welcome"), first
        welcomed.set()
        while await call.read() is not grpc.aio.EOF:
            pass
    except grpc.aio.AioRpcError as error:
        return error.code()
    finally:
        welcomed.set()
    return None


def test_a_practice_flood_from_one_token_leaves_the_tournament_room(redis_url: str) -> None:
    """Practice matches "get their own bounded share per bot and per referee (tournament
    matches always keep room)" and practice requests a per-token rate limit, "the refusal
    names the limit": a hello with capacity 1024 then a batch of 260 practice requests
    (the bot answering none of their decisions) starts two practice matches (per bot),
    refuses the rest naming the bound per bot or the requests per minute, and a tournament
    match asked right after is played.  The welcome tells the bot both limits.  (Before,
    the batch filled every match slot and RunMatch answered RESOURCE_EXHAUSTED.)"""

    async def scenario() -> None:
        async with running_arena(redis_url, max_matches=16, shutdown_grace_s=0.5) as arena:
            players = [(await arena.connect(FirstLegalBot))[0] for _ in range(3)]
            token = (await arena.register()).token
            answers: list[str] = []
            welcome: list[bot_pb2.Welcome] = []

            def count(bot: RawBot, message: bot_pb2.RefereeMessage) -> bool | None:
                for inner in message.batch.messages if message.HasField("batch") else [message]:
                    if inner.HasField("welcome"):
                        welcome.append(inner.welcome)
                    elif inner.HasField("error"):
                        answers.append(inner.error.message)
                    elif inner.HasField("match_started"):
                        answers.append("started")
                return None

            flood = await RawBot(arena, token, bot_pb2.Hello(bot_name="flood", protocol_versions=["pitch.v1"],
                                                             capacity=1024), count).started()
            assert welcome[0].practice_matches_at_once == 2 and welcome[0].practice_requests_per_minute == 20
            flood.send(bot_pb2.BotMessage(batch=bot_pb2.BotMessages(messages=[
                bot_pb2.BotMessage(practice=bot_pb2.PracticeRequest(preset="cutthroat", seed=n))
                for n in range(260)])))
            for _ in range(500):
                if len(answers) >= 260:
                    break
                await asyncio.sleep(0.02)
            assert answers.count("started") == 2, answers[:5]
            refusals = [a for a in answers if a != "started"]
            assert len(refusals) == 258
            assert sum("at most 2 at once per bot (PITCH_PRACTICE_PER_BOT=2)" in a for a in refusals) == 18
            assert sum("at most 20 practice requests per minute per bot token (PITCH_PRACTICE_PER_MINUTE=20)" in a
                       for a in refusals) == 240
            assert sum(m.practice for m in arena.server.arena.matches.values()) == 2
            result = (await arena.run_match("cutthroat", players, seed=1, options_json='{"target": 3}')).result
            assert result.completed
            flood.close()

    run(scenario())


def test_a_referee_with_few_slots_keeps_most_of_them_for_the_arena(redis_url: str) -> None:
    """Practice matches of every bot together hold at most the referee's share of its match
    slots (PITCH_PRACTICE_SHARE, 0.25 of 4: one), so three practising bots leave three
    slots to the arena; the refusal names the share."""

    async def scenario() -> None:
        async with running_arena(redis_url, max_matches=4, shutdown_grace_s=0.5) as arena:
            errors: list[str] = []

            def keep(bot: RawBot, message: bot_pb2.RefereeMessage) -> bool | None:
                if message.HasField("error"):
                    errors.append(message.error.message)
                return None

            bots = []
            for _ in range(3):
                bot = await RawBot(arena, (await arena.register()).token, HELLO, keep).started()
                bot.send(bot_pb2.BotMessage(practice=bot_pb2.PracticeRequest(preset="cutthroat")))
                bots.append(bot)
            for _ in range(250):
                if len(errors) >= 2:
                    break
                await asyncio.sleep(0.02)
            assert len(errors) == 2 and all("PITCH_PRACTICE_SHARE: at most 1 at once" in e for e in errors), errors
            assert len(arena.server.arena.tasks) == 1
            for bot in bots:
                bot.close()

    run(scenario())


def test_streams_per_token_are_rate_limited_and_logged_per_client(
        redis_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """Logs are rate limited "per client (token or peer)" and "every refusal" is logged
    "once per client per interval with a count"; every client-driven action gets a per-token
    rate limit, reconnects and hellos included.  One token opening and closing 40 streams is
    refused past PITCH_CONNECTS_PER_MINUTE (30) with RESOURCE_EXHAUSTED naming it, and its
    streams write at most 10 lines plus one refusal line (before: two lines a stream, and
    no limit); another client's fault is still logged after a third one's dozen faults
(before: the third one used up the minute's ten lines for everyone); 30 refused RunMatch calls
    from one peer log one line (before: none)."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            noisy = await arena.register("noisy-bot")
            codes = [await open_and_close(arena, noisy.token) for _ in range(40)]
            assert codes == [None] * 30 + [grpc.StatusCode.RESOURCE_EXHAUSTED] * 10, codes
            _, code, details = await raw_connect(arena, noisy.token, [hello_bytes(bot_name="x")])
            assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "at most 30 streams opened (hellos) per minute per bot token (PITCH_CONNECTS_PER_MINUTE=30)" \
                in details
            noisy_lines = [r.getMessage() for r in caplog.records if "noisy-bot" in r.getMessage()
                           or noisy.bot_id in r.getMessage()]
            assert len(noisy_lines) <= 11, noisy_lines
            assert sum("Connect refused (RESOURCE_EXHAUSTED)" in line for line in noisy_lines) == 1, noisy_lines
            garbage = (await arena.register("garbage-bot")).token
            for _ in range(12):  # its own faults use up its own lines only
                await raw_connect(arena, garbage, [hello_bytes(bot_name="x"), b"\xff\xff\xff"])
            quiet = (await arena.register("quiet-bot")).token
            await raw_connect(arena, quiet, [hello_bytes(bot_name="x"), b"\xff\xff\xff"])
            assert any("quiet-bot" in r.getMessage() and "undecodable" in r.getMessage() for r in caplog.records)
            caplog.clear()
            for _ in range(30):
                error = await refused(arena.run_match("cutthroat", ["nobody"] * 3))
                assert error.code() == grpc.StatusCode.NOT_FOUND
            logged = [r.getMessage() for r in caplog.records if "ArenaService.RunMatch refused" in r.getMessage()]
            assert len(logged) == 1 and "peer ipv4:127.0.0.1" in logged[0], logged

    with caplog.at_level(logging.INFO):
        run(scenario())
