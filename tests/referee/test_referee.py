"""The referee over real gRPC on loopback, with SDK bot clients and a private Redis.

Each test states the user-visible outcome it checks: a full match agrees with a local
replay, faults (timeout, illegal action, disconnect, bad token) have their defined result,
and malformed admin requests get a clear error instead of crashing the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import socket
import time
import weakref
from collections.abc import AsyncIterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

from pitch_sdk.bots.loader import load_bot
from pitch_sdk.proto.pitch.v1 import arena_pb2, bot_pb2, bot_pb2_grpc, game_pb2
from pitch_sdk.protocol.decision_times import bucket_of
from pitch_sdk.rules import GameLog, replay
from tests.referee.bots import FirstLegalBot, IllegalBot, SlowBot, SteadyBot
from tests.referee.harness import ADMIN, RawBot, answer_first, running_arena


def run(coroutine: object) -> object:
    """Run a test coroutine on a fresh event loop."""
    return asyncio.run(coroutine)  # type: ignore[arg-type]





def test_partnership_match_is_recorded_and_replays_identically(redis_url: str) -> None:
    """A match of heuristic and random bots ends with every seat OK, its result stored
    once, and each game's log replaying locally to the same scores."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            seats = [(await arena.connect(lambda s=spec: load_bot(s)))[0]
                     for spec in ("heuristic", "random", "heuristic", "random")]
            response = await arena.run_match("partnership", seats, seed=11, games=2)
            result = response.result
            assert result.completed and not result.forfeited
            assert [s.status for s in result.seats] == [game_pb2.SEAT_STATUS_OK] * 4
            assert all(s.decisions > 0 and s.strikes == 0 for s in result.seats)
            assert sum(result.party_wins) == 2
            logs = await arena.admin.GetMatchLog(arena_pb2.GetMatchLogRequest(match_id=result.match_id),
                                                 metadata=ADMIN)
            assert len(logs.game_logs_json) == 2
            for game, text in zip(result.games, logs.game_logs_json, strict=True):
                state = replay(GameLog.from_dict(json.loads(text)))
                assert state.is_over
                assert list(state.scores) == list(game.scores)
                assert state.winner == (game.winner if game.has_winner else None)
            again = await arena.run_match("partnership", seats, match_id=result.match_id)
            assert again.result == result  # the same match id returns the recorded result

    run(scenario())


def test_one_bot_may_hold_several_seats_up_to_its_capacity(redis_url: str) -> None:
    """The same bot plays all three cutthroat seats; a fourth seat beyond its capacity
    is refused with RESOURCE_EXHAUSTED naming the bot."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            bot_id, _ = await arena.connect(FirstLegalBot, capacity=3)
            result = (await arena.run_match("cutthroat", [bot_id] * 3, seed=5)).result
            assert result.completed and [s.status for s in result.seats] == [game_pb2.SEAT_STATUS_OK] * 3
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await arena.run_match("partnership", [bot_id] * 4)
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "capacity" not in refused.value.details() or "seats" in refused.value.details()

    run(scenario())


def test_concurrent_matches_share_connected_bots(redis_url: str) -> None:
    """Two matches at once over the same four bot connections both complete."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            seats = [(await arena.connect(FirstLegalBot, capacity=2))[0] for _ in range(4)]
            first, second = await asyncio.gather(arena.run_match("partnership", seats, seed=1),
                                                 arena.run_match("partnership", seats[::-1], seed=2))
            assert first.result.completed and second.result.completed
            assert first.result.match_id != second.result.match_id

    run(scenario())


def test_timeout_earns_strikes_fallback_moves_and_forfeit(redis_url: str) -> None:
    """A bot slower than its time control gets a strike and a fallback move per late
    answer; at max_strikes its party forfeits and its seat ends FORFEITED."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            slow, _ = await arena.connect(SlowBot)
            others = [(await arena.connect(FirstLegalBot))[0] for _ in range(3)]
            result = (await arena.run_match(
                "partnership", [slow, *others], seed=3,
                time_control=bot_pb2.TimeControl(per_decision_ms=50, bank_ms=0),
                fault_policy=arena_pb2.FaultPolicy(max_strikes=2))).result
            assert result.forfeited and result.forfeiting_party == 0
            assert result.seats[0].status == game_pb2.SEAT_STATUS_FORFEITED
            assert result.seats[0].strikes == 2
            assert [s.status for s in result.seats[1:]] == [game_pb2.SEAT_STATUS_OK] * 3

    run(scenario())


def test_timeouts_without_forfeit_mark_the_seat_timed_out(redis_url: str) -> None:
    """With forfeits off (max_strikes 0) a slow seat finishes the match TIMED_OUT."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            slow, _ = await arena.connect(SlowBot)
            others = [(await arena.connect(FirstLegalBot))[0] for _ in range(3)]
            result = (await arena.run_match(
                "partnership", [slow, *others], seed=3, options_json='{"target": 3}',
                time_control=bot_pb2.TimeControl(per_decision_ms=50, bank_ms=0),
                fault_policy=arena_pb2.FaultPolicy(max_strikes=0))).result
            assert result.completed and not result.forfeited
            assert result.seats[0].status == game_pb2.SEAT_STATUS_TIMED_OUT
            assert result.seats[0].strikes > 0

    run(scenario())


def test_illegal_action_is_struck_and_replaced(redis_url: str) -> None:
    """An illegal card is never applied: the seat gets ILLEGAL strikes and the match's
    log (which replays cleanly) holds only legal moves."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            cheat, _ = await arena.connect(IllegalBot)
            others = [(await arena.connect(FirstLegalBot))[0] for _ in range(3)]
            response = await arena.run_match(
                "partnership", [cheat, *others], seed=4, options_json='{"target": 3}',
                fault_policy=arena_pb2.FaultPolicy(max_strikes=0))
            result = response.result
            assert result.seats[0].status == game_pb2.SEAT_STATUS_ILLEGAL and result.seats[0].strikes >= 6
            logs = await arena.admin.GetMatchLog(arena_pb2.GetMatchLogRequest(match_id=result.match_id),
                                                 metadata=ADMIN)
            assert replay(GameLog.from_dict(json.loads(logs.game_logs_json[0]))).is_over

    run(scenario())


def test_missing_and_wrong_tokens_are_unauthenticated(redis_url: str) -> None:
    """No token, or an unknown one, ends Connect with UNAUTHENTICATED before any
    message is read; the admin API also refuses calls without the admin token."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            stub = bot_pb2_grpc.BotServiceStub(arena.channel)

            async def silent() -> object:
                await asyncio.Event().wait()  # never sends: the token alone must decide
                yield bot_pb2.BotMessage()

            for metadata in ((), (("authorization", "Bearer not-a-token"),), (("authorization", "token"),)):
                call = stub.Connect(silent(), metadata=metadata)
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    async for _ in call:
                        pass
                assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
                assert "token" in refused.value.details()
            with pytest.raises(grpc.aio.AioRpcError) as admin:
                await arena.admin.ListBots(arena_pb2.ListBotsRequest())
            assert admin.value.code() == grpc.StatusCode.UNAUTHENTICATED

    run(scenario())


def test_the_bearer_scheme_is_read_in_any_case(redis_url: str) -> None:
    """RFC 7235, section 2.1: "It uses a case-insensitive token as a means to identify the
    authentication scheme": a bot token and the admin token are taken after `bearer` and
    `BEARER` as after `Bearer`."""

    async def hello_then_wait() -> AsyncIterator[bot_pb2.BotMessage]:
        yield bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="any-case", protocol_versions=["pitch.v1"]))
        await asyncio.Event().wait()  # the stream stays open until the call is cancelled

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            for scheme in ("bearer", "BEARER", "bEaReR"):
                listed = await arena.admin.ListBots(arena_pb2.ListBotsRequest(),
                                                    metadata=(("authorization", f"{scheme} test-admin"),))
                assert listed is not None, scheme
                token = (await arena.register()).token
                call = bot_pb2_grpc.BotServiceStub(arena.channel).Connect(
                    hello_then_wait(), metadata=(("authorization", f"{scheme}  {token}"),))
                first = await call.read()
                assert first.HasField("welcome"), (scheme, first)
                call.cancel()

    run(scenario())


def test_hello_negotiation_refuses_unknown_protocol_and_non_hello(redis_url: str) -> None:
    """A hello without pitch.v1, or a first message that is not a hello, gets a refusal
    that says why, then the stream ends."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            token = (await arena.register()).token
            stub = bot_pb2_grpc.BotServiceStub(arena.channel)
            metadata = (("authorization", f"Bearer {token}"),)
            openings = [
                bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="x", protocol_versions=["pitch.v9"])),
                bot_pb2.BotMessage(decision=bot_pb2.Decision(match_id="m", decision_id="d")),
            ]
            for opening, reason in zip(openings, (bot_pb2.REFUSAL_REASON_PROTOCOL_VERSION,
                                                  bot_pb2.REFUSAL_REASON_BAD_HELLO), strict=True):
                async def first(message: bot_pb2.BotMessage = opening) -> object:
                    yield message

                replies = [m async for m in stub.Connect(first(), metadata=metadata)]
                assert len(replies) == 1 and replies[0].refusal.reason == reason
                assert replies[0].refusal.supported_protocol_versions == ["pitch.v1"]

    run(scenario())


def test_stale_unknown_and_duplicate_answers_are_ignored_and_counted(redis_url: str) -> None:
    """A hand-written client answers every request twice and also sends an answer for
    a decision id that never existed: only the first answer counts, the others are
    ignored and counted on the seat that sent them, the unknown id (which names no seat,
    but the answer names the seat's match) too."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            registered = await arena.register()
            others = [(await arena.connect(FirstLegalBot))[0] for _ in range(2)]
            def answer_twice(bot: RawBot, message: bot_pb2.RefereeMessage) -> None:
                if message.HasField("decision_request"):
                    request = message.decision_request
                    decision = bot_pb2.Decision(match_id=request.match_id, decision_id=request.decision_id,
                                                legal_action_index=0)
                    bot.send(bot_pb2.BotMessage(decision=decision))
                    bot.send(bot_pb2.BotMessage(decision=decision))
                    bot.send(bot_pb2.BotMessage(decision=bot_pb2.Decision(
                        match_id=request.match_id, decision_id="no-such-id", legal_action_index=0)))
                if message.HasField("match_ended"):
                    bot.close()

            raw = await RawBot(arena, registered.token, bot_pb2.Hello(
                bot_name="dup", protocol_versions=["pitch.v1"], capacity=1), answer_twice).started()
            result = (await arena.run_match("cutthroat", [registered.bot_id, *others], seed=9,
                                            options_json='{"target": 3}')).result
            await asyncio.wait_for(raw.task, 10)
            mine = result.seats[0]
            assert mine.status == game_pb2.SEAT_STATUS_OK and mine.strikes == 0
            # The last decision's two extra answers may arrive after the result is made.
            assert 2 * mine.decisions - 2 <= mine.ignored_answers <= 2 * mine.decisions
            assert mine.impersonation_attempts == 0

    run(scenario())


def test_bot_that_never_returns_forfeits_after_the_grace_window(redis_url: str) -> None:
    """A bot whose stream drops mid-match and does not come back within the grace window
    makes its party forfeit, and its seat ends FORFEITED."""

    async def scenario() -> None:
        async with running_arena(redis_url, reconnect_grace_s=0.5) as arena:
            registered = await arena.register()
            others = [(await arena.connect(FirstLegalBot))[0] for _ in range(3)]
            def quit_on_first_request(bot: RawBot, message: bot_pb2.RefereeMessage) -> bool:
                if message.HasField("decision_request"):
                    bot.call.cancel()  # the bot process "crashes" mid-match
                    return False
                return True

            raw = await RawBot(arena, registered.token, bot_pb2.Hello(
                bot_name="quitter", protocol_versions=["pitch.v1"]), quit_on_first_request).started()
            result = (await arena.run_match("partnership", [registered.bot_id, *others], seed=2)).result
            await raw.task
            assert result.forfeited and result.forfeiting_party == 0
            assert result.seats[0].status == game_pb2.SEAT_STATUS_FORFEITED
            listing = await arena.admin.ListBots(arena_pb2.ListBotsRequest(), metadata=ADMIN)
            assert {b.bot_id: b.connected for b in listing.bots}[registered.bot_id] is False

    run(scenario())


def test_bot_that_reconnects_within_grace_resumes_its_seat(redis_url: str) -> None:
    """The SDK client drops its stream mid-match and reconnects by itself: the referee
    re-sends the match and the pending decision, and the match completes without a
    forfeit; the seat's status records the disconnection."""

    async def scenario() -> None:
        async with running_arena(redis_url, reconnect_grace_s=5.0) as arena:
            flaky_id, flaky = await arena.connect(FirstLegalBot)
            others = [(await arena.connect(FirstLegalBot))[0] for _ in range(3)]
            match = asyncio.create_task(arena.run_match("partnership", [flaky_id, *others], seed=6,
                                                        options_json='{"target": 5}'))
            while flaky.decisions < 3:
                await asyncio.sleep(0.01)
            presence = arena.server.arena.registry.get(flaky_id)
            assert presence is not None and presence.session is not None
            presence.session.close()  # the referee side drops the stream
            result = (await match).result
            assert result.completed and not result.forfeited
            assert result.seats[0].status in (game_pb2.SEAT_STATUS_OK, game_pb2.SEAT_STATUS_DISCONNECTED)
            assert result.seats[0].strikes == 0

    run(scenario())


def test_bad_admin_requests_get_clear_errors(redis_url: str) -> None:
    """Unknown preset, bad options, wrong seat count, unknown or offline bots, and a
    duplicate bot name each get a status code and a message naming the problem."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            online = [(await arena.connect(FirstLegalBot))[0] for _ in range(3)]
            offline = (await arena.register("offline-bot")).bot_id
            cases = [
                (dict(preset="no-such", seat_bot_ids=online), grpc.StatusCode.INVALID_ARGUMENT, "no-such"),
                (dict(preset="cutthroat", seat_bot_ids=online, options_json="{"), grpc.StatusCode.INVALID_ARGUMENT,
                 "bad ruleset"),
                (dict(preset="cutthroat", seat_bot_ids=online, options_json='{"tarrget": 3}'),
                 grpc.StatusCode.INVALID_ARGUMENT, "tarrget"),
                (dict(preset="partnership", seat_bot_ids=online), grpc.StatusCode.INVALID_ARGUMENT, "4 seats"),
                (dict(preset="cutthroat", seat_bot_ids=[*online[:2], "nobody"]), grpc.StatusCode.NOT_FOUND, "nobody"),
                (dict(preset="cutthroat", seat_bot_ids=[*online[:2], offline]), grpc.StatusCode.FAILED_PRECONDITION,
                 "offline-bot"),
            ]
            for fields, code, needle in cases:
                with pytest.raises(grpc.aio.AioRpcError) as error:
                    await arena.admin.RunMatch(arena_pb2.RunMatchRequest(**fields), metadata=ADMIN)
                assert error.value.code() == code, fields
                assert needle in error.value.details(), error.value.details()
            with pytest.raises(grpc.aio.AioRpcError) as duplicate:
                await arena.register("offline-bot")
            assert duplicate.value.code() == grpc.StatusCode.ALREADY_EXISTS
            with pytest.raises(grpc.aio.AioRpcError) as missing:
                await arena.admin.GetMatchLog(arena_pb2.GetMatchLogRequest(match_id="nope"), metadata=ADMIN)
            assert missing.value.code() == grpc.StatusCode.NOT_FOUND
            # the server is still healthy after all of that
            assert (await arena.run_match("cutthroat", online, seed=1, options_json='{"target": 3}')).result.completed

    run(scenario())


def test_spectator_stream_and_events_hide_hands(redis_url: str) -> None:
    """StreamMatchEvents replays a match's public events ending with its result, and no
    spectator event carries a player's cards before they are played."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            seats = [(await arena.connect(FirstLegalBot))[0] for _ in range(3)]
            result = (await arena.run_match("cutthroat", seats, seed=8, match_id="watch-me",
                                            options_json='{"target": 3}')).result
            events = [e async for e in arena.admin.StreamMatchEvents(
                arena_pb2.StreamMatchEventsRequest(match_id="watch-me"), metadata=ADMIN)]
            assert events[-1].result == result
            kinds = {e.event.WhichOneof("event") for e in events[:-1]}
            assert {"hand_dealt", "bid", "trump", "play", "trick", "hand_result"} <= kinds
            assert all(len(e.event.hand_dealt.hand) == 0 for e in events if e.event.HasField("hand_dealt"))

    run(scenario())


def test_only_the_newest_finished_matches_stay_streamable(redis_url: str) -> None:
    """With ``finished_matches_kept`` = 1 the referee keeps only the newest finished match in
    memory: the older one's stream is NOT_FOUND (its record is still in the store), the
    newer one still replays its events and result."""

    async def scenario() -> None:
        async with running_arena(redis_url, finished_matches_kept=1) as arena:
            seats = [(await arena.connect(FirstLegalBot))[0] for _ in range(3)]
            for match_id in ("older", "newer"):
                await arena.run_match("cutthroat", seats, seed=8, match_id=match_id, options_json='{"target": 3}')
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                [e async for e in arena.admin.StreamMatchEvents(
                    arena_pb2.StreamMatchEventsRequest(match_id="older"), metadata=ADMIN)]
            assert refused.value.code() == grpc.StatusCode.NOT_FOUND
            assert arena.server.arena.store.match_result("older") is not None
            events = [e async for e in arena.admin.StreamMatchEvents(
                arena_pb2.StreamMatchEventsRequest(match_id="newer"), metadata=ADMIN)]
            assert events[-1].HasField("result") and len(events) > 10
            assert list(arena.server.arena.finished) == ["newer"] and not arena.server.arena.matches

    run(scenario())


def test_health_reflection_and_garbage_bytes(redis_url: str) -> None:
    """Health reports SERVING, reflection lists the services, and raw garbage on the port
    does not take the server down."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            health = health_pb2_grpc.HealthStub(arena.channel)
            status = await health.Check(health_pb2.HealthCheckRequest(service="pitch.v1.BotService"))
            assert status.status == health_pb2.HealthCheckResponse.SERVING
            with socket.create_connection(("127.0.0.1", arena.server.port), timeout=5) as raw:
                raw.sendall(b"\x00\xffGET / HTTP/1.1\r\n\r\n" + bytes(range(256)) * 8)
                raw.settimeout(2)
                with contextlib.suppress(TimeoutError):
                    raw.recv(1024)
            status = await health.Check(health_pb2.HealthCheckRequest(service=""))
            assert status.status == health_pb2.HealthCheckResponse.SERVING
            with grpc.insecure_channel(arena.address) as channel:  # reflection, as grpcurl uses it
                services = await asyncio.to_thread(lambda: ProtoReflectionDescriptorDatabase(channel).get_services())
            assert {"pitch.v1.BotService", "pitch.v1.ArenaService", "grpc.health.v1.Health"} <= set(services)

    run(scenario())



def test_shutdown_aborts_running_matches_explicitly_and_records_them(redis_url: str) -> None:
    """Stopping the referee mid-match waits the shutdown grace, then aborts the match: the
    attempt is kept (completed=false, with its logs) but not recorded as the match's
    result, so a tournament's retry of the same match id plays it again; nothing is lost
    or counted twice."""

    async def scenario() -> None:
        async with running_arena(redis_url, shutdown_grace_s=0.3) as arena:
            seats = [(await arena.connect(SteadyBot))[0] for _ in range(4)]
            match = asyncio.create_task(arena.run_match("partnership", seats, games=50, match_id="long-one"))
            match.add_done_callback(lambda task: task.exception())  # the call ends with the server
            while not arena.server.arena.matches:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.3)
            await arena.server.stop()
            store = arena.server.arena.store
            assert store.match_result("long-one") is None  # not counted as played: a retry replays it
            [aborted] = store.aborted_matches("long-one")
            assert not aborted["result"].get("completed", False) and len(aborted["result"].get("games", [])) < 50
            assert aborted["game_logs"]  # the unfinished game is kept for the record
            assert arena.server.arena.accepting is False

    run(scenario())


def test_a_graceful_stop_logs_no_error_and_says_stopped_once(redis_url: str,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    """SIGTERM's path, called twice at once, mid-match, with SDK bots connected: the match
    is aborted at the grace, the streams end, and the log has no ERROR, no traceback and
    one ``referee stopped``; the stop takes the grace and little more (the streams are
    ended by the referee, not cancelled at the server's own grace)."""

    async def scenario() -> float:
        async with running_arena(redis_url, shutdown_grace_s=0.3) as arena:
            seats = [(await arena.connect(SteadyBot))[0] for _ in range(4)]
            match = asyncio.create_task(arena.run_match("partnership", seats, games=50))
            match.add_done_callback(lambda task: task.exception())  # the call ends with the server
            while not arena.server.arena.matches:
                await asyncio.sleep(0.01)
            started = time.monotonic()
            await asyncio.gather(arena.server.stop(), arena.server.stop())
            return time.monotonic() - started

    with caplog.at_level(logging.INFO):
        took = run(scenario())
    assert isinstance(took, float) and took < 0.3 + 0.5
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info] == []
    assert [r.getMessage() for r in caplog.records].count("referee stopped") == 1


def test_skip_events_bot_gets_requests_but_no_event_messages(redis_url: str) -> None:
    """A hello with skip_events receives match_started, decision requests and
    match_ended but no events; a default bot in the same match receives events, riding on
    its decision requests (one message per decision) and in a last batch at the end."""

    async def scenario() -> tuple[set[str], set[str]]:
        async with running_arena(redis_url) as arena:
            raws: list[RawBot] = []
            riding: dict[int, int] = {}

            def count_events(bot: RawBot, message: bot_pb2.RefereeMessage) -> bool | None:
                if message.HasField("decision_request"):
                    riding[id(bot)] = riding.get(id(bot), 0) + len(message.decision_request.events)
                return answer_first(bot, message)

            seats: list[str] = []
            for skip in (True, False, False):
                registered = await arena.register()
                raws.append(await RawBot(arena, registered.token, bot_pb2.Hello(
                    bot_name="raw", protocol_versions=["pitch.v1"], skip_events=skip), count_events).started())
                seats.append(registered.bot_id)
            result = (await arena.run_match("cutthroat", seats, seed=3, options_json='{"target": 3}')).result
            await asyncio.wait_for(asyncio.gather(*(raw.task for raw in raws)), 10)
            assert riding[id(raws[0])] == 0 and riding[id(raws[1])] > 0
            assert result.completed and all(s.status == game_pb2.SEAT_STATUS_OK for s in result.seats)
            return raws[0].kinds, raws[1].kinds

    skipping, default = run(scenario())
    assert skipping == {"welcome", "match_started", "decision_request", "match_ended"}
    assert "events" in default


def test_batching_bot_gets_ready_messages_as_one_batch_and_may_answer_in_one(redis_url: str) -> None:
    """A hello with ``batching`` lets the referee send the messages that are ready at once
    as one ``batch`` (a bot in all four seats gets the four ``match_started`` together);
    the bot answers each batch with one batch of decisions, in which a hello (answered with
    a RequestError), an unknown decision id and a duplicate answer are ignored, the
    duplicate counted on its seat's outcome; the match plays exactly as the same seed
    does for a bot without the flag, which never receives a batch."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            sizes: list[int] = []

            def answer_in_batches(bot: RawBot, message: bot_pb2.RefereeMessage) -> bool | None:
                inner = list(message.batch.messages) if message.HasField("batch") else [message]
                if message.HasField("batch"):
                    sizes.append(len(inner))
                assert not any(m.HasField("batch") for m in inner), "a batch inside a batch"
                answers = [bot_pb2.BotMessage(decision=bot_pb2.Decision(
                    match_id=m.decision_request.match_id, decision_id=m.decision_request.decision_id,
                    legal_action_index=0)) for m in inner if m.HasField("decision_request")]
                if answers:
                    junk = [bot_pb2.BotMessage(hello=bot_pb2.Hello(bot_name="again")),
                            bot_pb2.BotMessage(decision=bot_pb2.Decision(decision_id="no-such-id")), answers[0]]
                    bot.send(bot_pb2.BotMessage(batch=bot_pb2.BotMessages(messages=[*answers, *junk])))
                if any(m.HasField("match_ended") for m in inner):
                    bot.close()
                return None

            results, kinds = [], []
            for batching, handler in ((True, answer_in_batches), (False, answer_first)):
                registered = await arena.register()
                raw = await RawBot(arena, registered.token, bot_pb2.Hello(
                    bot_name="raw", protocol_versions=["pitch.v1"], capacity=4, batching=batching),
                    handler).started()
                results.append((await arena.run_match("partnership", [registered.bot_id] * 4, seed=5,
                                                      options_json='{"target": 5}')).result)
                await asyncio.wait_for(raw.task, 10)
                kinds.append(raw.kinds)
            batched, single = results
            assert sizes and max(sizes) >= 4, sizes
            assert "batch" in kinds[0] and "batch" not in kinds[1]
            assert batched.completed and batched.games and all(s.status == game_pb2.SEAT_STATUS_OK and s.strikes == 0
                                             for s in batched.seats)
            assert [g.scores for g in batched.games] == [g.scores for g in single.games]
            assert sum(s.decisions for s in batched.seats) == sum(s.decisions for s in single.seats)
            assert sum(s.ignored_answers for s in batched.seats) > 0 and single.seats[0].ignored_answers == 0

    run(scenario())


def test_a_burn_among_millions_of_sets_is_sent_as_a_rule(redis_url: str) -> None:
    """Seed 003: "Any cards remaining are given to the bidder"; with two-card hands and no
    refill the bidder then burns all but six of most of the pack, a choice among millions
    of sets.  The referee asks it by the card-set rule without a list (listing would take
    minutes and gigabytes), the SDK offers the sets lazily, and the match completes."""
    options = {"players": 3, "hand_size": 2, "deal_batch": 1, "exchange": "discard-non-trumps",
               "refill_to": 0, "leftovers_to_bidder": True, "burn_to": 6, "trump_selection": "declare",
               "target": 3}

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            bots = [(await arena.connect(FirstLegalBot))[0] for _ in range(3)]
            result = (await asyncio.wait_for(arena.run_match(
                "ipitch", bots, seed=1, options_json=json.dumps(options)), 60)).result
            assert result.completed and not result.forfeited
            assert [s.status for s in result.seats] == [game_pb2.SEAT_STATUS_OK] * 3
            assert all(s.strikes == 0 for s in result.seats)

    run(scenario())


def test_seat_outcomes_record_time_used_and_timeouts(redis_url: str) -> None:
    """Each seat's outcome carries its timeouts, its total time and a histogram of its
    answered decisions' times: a bot taking 20 ms a decision has every answer counted, in
    buckets of 20 ms or more; a bot that times out has its timeouts counted apart."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            steady, _ = await arena.connect(SteadyBot)
            slow, _ = await arena.connect(SlowBot)
            first = [(await arena.connect(FirstLegalBot))[0] for _ in range(2)]
            result = (await arena.run_match(
                "partnership", [steady, slow, *first], seed=3, options_json='{"target": 3}',
                time_control=bot_pb2.TimeControl(per_decision_ms=150, bank_ms=0),
                fault_policy=arena_pb2.FaultPolicy(max_strikes=0))).result
            steady_seat, slow_seat = result.seats[0], result.seats[1]
            assert steady_seat.timeouts == 0 and steady_seat.decisions > 0
            assert sum(steady_seat.decision_time_histogram) == steady_seat.decisions
            assert all(count == 0 for count in steady_seat.decision_time_histogram[:bucket_of(20)])
            assert steady_seat.time_used_ms >= 20 * steady_seat.decisions
            assert slow_seat.timeouts > 0 and slow_seat.timeouts == slow_seat.strikes
            assert sum(slow_seat.decision_time_histogram) < slow_seat.decisions + slow_seat.timeouts

    run(scenario())


def test_list_matches_shows_running_matches_with_public_facts_only(redis_url: str) -> None:
    """ListMatches names each running match's preset, seats and game; a finished match
    leaves the list; the call needs the admin token."""

    async def scenario() -> None:
        # live-1 plays on in the referee after its caller gives up; stopping the referee
        # need not wait the default ten seconds' grace for it to finish.
        async with running_arena(redis_url, shutdown_grace_s=0.1) as arena:
            seats = [(await arena.connect(SteadyBot))[0] for _ in range(4)]
            task = asyncio.ensure_future(arena.run_match("partnership", seats, seed=5, games=1, match_id="live-1"))
            for _ in range(100):
                running = (await arena.admin.ListMatches(arena_pb2.ListMatchesRequest(), metadata=ADMIN)).matches
                if running:
                    break
                await asyncio.sleep(0.05)
            assert [m.match_id for m in running] == ["live-1"]
            live = running[0]
            assert live.preset == "partnership" and list(live.seat_bot_ids) == seats
            assert len(live.seat_names) == 4 and live.games == 1 and live.game == 1 and not live.practice
            assert live.started_unix > 0
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await arena.admin.ListMatches(arena_pb2.ListMatchesRequest())
            assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            await arena.run_match("partnership", seats, seed=5, options_json='{"target": 1}', match_id="live-2")
            after = (await arena.admin.ListMatches(arena_pb2.ListMatchesRequest(), metadata=ADMIN)).matches
            assert "live-2" not in [m.match_id for m in after]

    run(scenario())


def test_a_finished_match_is_released_once_it_leaves_the_kept_ones(redis_url: str) -> None:
    """Only the kept finished matches stay alive in the referee: an older one (and its whole
    event log) is freed as soon as newer ones push it out, not held by a timer for the
    ten-minute streaming TTL (which grew memory match after match at a high match rate)."""

    async def scenario() -> None:
        async with running_arena(redis_url, finished_matches_kept=1) as arena:
            seats = [(await arena.connect(FirstLegalBot))[0] for _ in range(3)]
            await arena.run_match("cutthroat", seats, seed=8, match_id="first", options_json='{"target": 3}')
            first = weakref.ref(arena.server.arena.finished["first"])
            for match_id in ("second", "third"):
                await arena.run_match("cutthroat", seats, seed=8, match_id=match_id, options_json='{"target": 3}')
            gc.collect()
            assert first() is None, gc.get_referrers(first())
            assert list(arena.server.arena.finished) == ["third"]

    run(scenario())
