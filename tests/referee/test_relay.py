"""Seats relayed between referees: a match seating bots that each keep one stream, to
different referees of one fleet, is placed, played and recorded once, each seat answered
by its own bot; the relay admits referees only and refuses malformed input; a host that
goes away disconnects the seat as a dropped stream does (real referees on loopback, real
Redis, bots on the raw generated stubs)."""

from __future__ import annotations

import asyncio
import logging
import re
import threading
import time
import uuid
from collections import Counter
from typing import Any

import grpc
import pytest

from cli.local_arena import free_port
from competitions.referee_client import FleetReferees
from competitions.tournaments.schedule import round_robin
from pitch_sdk.proto.pitch.v1 import bot_pb2, game_pb2, relay_pb2
from pitch_sdk.rules import preset
from referee.match import Match, MatchSpec
from referee.relay import RELAY_METHOD, RelayRefused, Relays, unbatched
from referee.relay_failures import HostFailures
from referee.relay_identity import RelayIdentity
from referee.sessions import HousePresence
from store.redis_store import BotRecord
from store.seat_keys import seat_key
from store.seats import SeatLedger
from tests.referee.bots import GatedBot
from tests.referee.harness import (
    ADMIN,
    FAST,
    Arena,
    RawBot,
    connect_everywhere,
    directory,
    eventually,
    played_here,
    run,
    running_arena,
)


class SingleStreamBot:
    """A bot on the raw stubs that opens exactly one stream, to one referee: it answers
    legal action 0 (after ``delay_s``) and notes which match and seat each request was for."""

    def __init__(self, arena: Arena, token: str, delay_s: float = 0.0, capacity: int = 2, junk: bool = False,
                 **hello: object) -> None:
        self.token = token
        self.delay_s = delay_s
        self.junk = junk
        """Also send, once, three answers nobody asked for (ignored answers): one with an
        unknown decision id of its seat, one naming another seat's decision (an
        impersonation attempt), one with its seat's decision id and another match id."""
        self.requests: Counter[tuple[str, int]] = Counter()
        self.ended: set[str] = set()
        self.hello = bot_pb2.Hello(protocol_versions=["pitch.v1"], capacity=capacity, **hello)  # type: ignore[arg-type]
        self.stream = RawBot(arena, token, self.hello, self._handle)

    def _handle(self, bot: RawBot, message: bot_pb2.RefereeMessage) -> None:
        for member in message.batch.messages if message.HasField("batch") else [message]:
            if member.HasField("decision_request"):
                request = member.decision_request
                self.requests[(request.match_id, request.seat)] += 1
                if self.junk:
                    self.junk = False
                    match_id, seat = request.match_id, request.seat
                    for stray_match, stray_id in ((match_id, f"{match_id}:{seat}:999999"),  # unknown
                                                  (match_id, f"{match_id}:{(seat + 1) % 3}:999998"),  # not its seat
                                                  ("elsewhere", f"{match_id}:{seat}:999997")):  # a wrong match id
                        bot.send(bot_pb2.BotMessage(decision=bot_pb2.Decision(
                            match_id=stray_match, decision_id=stray_id, legal_action_index=0)))
                answer = bot_pb2.BotMessage(decision=bot_pb2.Decision(
                    match_id=request.match_id, decision_id=request.decision_id, legal_action_index=0))
                if self.delay_s:
                    asyncio.get_running_loop().call_later(self.delay_s, bot.send, answer)
                else:
                    bot.send(answer)
            elif member.HasField("match_ended"):
                self.ended.add(member.match_ended.match_id)


async def single_stream_bots(first: Arena, second: Arena, far_delay_s: float = 0.0,
                             far_junk: bool = False) -> tuple[list[str], list[SingleStreamBot]]:
    """Three bots for a cutthroat match: ``near`` and ``other`` connected to the first
    referee only, ``far`` to the second only (answering after ``far_delay_s``, and once
    with a decision id nobody asked for if ``far_junk``)."""
    ids, bots = [], []
    far: dict[str, object] = {"batching": True, "skip_events": True, "delay_s": far_delay_s, "junk": far_junk}
    for arena, hello in ((first, {}), (second, far), (first, {})):
        registered = await first.register()
        bot = SingleStreamBot(arena, registered.token, **hello)  # type: ignore[arg-type]
        await bot.stream.started()
        ids.append(registered.bot_id)
        bots.append(bot)
    return ids, bots


def test_two_single_stream_bots_on_different_referees_play_a_match_placed_by_the_fleet(redis_url: str) -> None:
    """Before the relay no referee could seat them together (the match was retried, then
    recorded as not played).  Now placement picks the referee where most seats are local,
    the far bot's seat is relayed from the other referee, every seat's decisions are
    answered by its own bot over its one stream, and the match is recorded once."""
    prefix = f"relay-{uuid.uuid4().hex[:8]}:"
    fleet = directory(redis_url, prefix)

    async def scenario() -> None:
        async with running_arena(redis_url, prefix, **FAST) as first, \
                running_arena(redis_url, prefix, **FAST) as second:
            ids, bots = await single_stream_bots(first, second, far_junk=True)
            near, far, other = ids
            await eventually(lambda: [e.address for e in fleet.hosting([far])] == [second.address]
                             and [e.address for e in fleet.hosting([near, other])] == [first.address])
            with pytest.raises(grpc.aio.AioRpcError) as refused:  # a match that will not start frees its relays
                await first.run_match("partnership", ids)
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            host = second.server.arena.registry.get(far)
            assert host is not None
            await eventually(lambda: host.seats_in_use == 0 and not host.relayed)
            referees = FleetReferees(first.address, "test-admin", 60, fleet)
            schedule = round_robin(uuid.uuid4().hex[:8], ids, "cutthroat", games=1)
            match = schedule.matches[0]
            assert referees.addresses_for(match) == [first.address, second.address]  # two seats local, one
            recorded = await asyncio.to_thread(referees.run_match, schedule, match)
            assert recorded["completed"] and not recorded.get("forfeited")
            assert played_here(first.server.arena, match.match_id)
            assert not played_here(second.server.arena, match.match_id)
            result = (await first.run_match("cutthroat", list(match.seats), match_id=match.match_id)).result
            for seat in result.seats:
                bot = bots[ids.index(seat.bot_id)]
                assert seat.status == game_pb2.SEAT_STATUS_OK and seat.strikes == 0
                assert seat.ignored_answers == (3 if seat.bot_id == far else 0)  # counted as for a local seat
                assert seat.impersonation_attempts == (1 if seat.bot_id == far else 0)
                assert bot.requests[(match.match_id, seat.seat)] == seat.decisions > 0
            for bot_id, bot in zip(ids, bots, strict=True):  # no bot was asked for another's seat
                assert {seat for (_, seat) in bot.requests} == {s for s, b in enumerate(match.seats) if b == bot_id}
                assert match.match_id in bot.ended
            store = first.server.arena.store
            assert len(store.match_logs(match.match_id)) == 1 and store.aborted_matches(match.match_id) == []
            await eventually(lambda: host.seats_in_use == 0 and not host.pending and not host.relayed)

    run(scenario())


def test_a_match_id_sent_twice_to_one_referee_runs_once_holding_its_claim(
        redis_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Workers deliver a RunMatch twice (a retry, a resend, a message restored after a Redis
    restart): two calls for one match id reach the same referee at once, and a third its
    fleet peer.  The match is started once, on the first referee, which holds the match's
    fleet-wide claim for as long as it runs; all three calls answer with its result.

    Before, both calls on the first referee passed the claim (a claim already held is
    granted again); the second one's relay for the far bot was refused by the host ("is
    relayed for this bot already": the first call's relay held it), and its failure
    released the claim while the first call was still validating; the peer, waiting on
    the claim, took it and started the match as well, and the first call started it
    without a claim (the chaos benchmark's ``chaos3-cutthroat.3``).  The first call's
    validation is slowed here so that the peer has time to take a released claim."""
    prefix = f"relay-{uuid.uuid4().hex[:8]}:"
    fleet = directory(redis_url, prefix)
    match_id = f"dup-{uuid.uuid4().hex[:8]}"

    async def scenario() -> None:
        async with running_arena(redis_url, prefix, **FAST) as runner, \
                running_arena(redis_url, prefix, **FAST) as host:
            ids, _ = await single_stream_bots(runner, host, far_delay_s=0.01)  # the far bot's seat: from the host
            await eventually(lambda: [e.address for e in fleet.hosting([ids[1]])] == [host.address])
            arena = runner.server.arena
            assert arena.fleet is not None
            validate = arena.match_spec
            claimed = asyncio.Event()

            async def slow_validation(*args: Any, **kwargs: Any) -> MatchSpec:
                claimed.set()  # the first call claimed the match and opened its relay
                await asyncio.sleep(1.0)  # longer than the peer's claim poll (0.25 s)
                return await validate(*args, **kwargs)

            monkeypatch.setattr(arena, "match_spec", slow_validation)
            calls = [asyncio.create_task(runner.run_match("cutthroat", ids, match_id=match_id, seed=4))
                     for _ in range(2)]
            await asyncio.wait_for(claimed.wait(), 10)
            calls.append(asyncio.create_task(host.run_match("cutthroat", ids, match_id=match_id, seed=4)))
            await eventually(lambda: match_id in arena.matches or all(call.done() for call in calls))
            while match_id in arena.tasks:  # the claim is the runner's for as long as the match runs
                holder = await asyncio.to_thread(fleet.holder, match_id)
                task = arena.tasks.get(match_id)  # read after the holder: the match may have ended meanwhile
                assert holder == arena.fleet.referee_id or task is None or task.done()
                await asyncio.sleep(0.02)
            answers = [await asyncio.wait_for(call, 30) for call in calls]
            assert answers[0].result.completed and answers[1] == answers[0] and answers[2] == answers[0]
            assert played_here(arena, match_id) and not played_here(host.server.arena, match_id)
            assert len(arena.gates) == 0 and await asyncio.to_thread(fleet.holder, match_id) == ""

    with caplog.at_level(logging.INFO, logger="pitch.referee"):
        run(scenario())
    started = [r for r in caplog.records if r.getMessage().startswith(f"match {match_id} started")]
    assert len(started) == 1, [r.getMessage() for r in started]


def test_a_relayed_seat_counts_against_the_capacity_the_bot_declared_to_its_host(redis_url: str) -> None:
    """A bot of capacity 2 with one stream, to the second referee, plays a match there; a
    match on the first referee relaying its seat is its second seat, within its capacity:
    admitted (before, the relayed seat was counted against the seats it relays, 1, and the
    match was refused RESOURCE_EXHAUSTED); a third match needing it is refused
    RESOURCE_EXHAUSTED: the fleet never gives it more than the 2 seats it declared."""
    prefix = f"relay-{uuid.uuid4().hex[:8]}:"
    fleet = directory(redis_url, prefix)
    ledger = SeatLedger(fleet)
    gate = threading.Event()

    async def scenario() -> None:
        async with running_arena(redis_url, prefix, per_decision_ms=30_000, **FAST) as first, \
                running_arena(redis_url, prefix, per_decision_ms=30_000, **FAST) as second:
            try:
                single = await first.register()
                bot = SingleStreamBot(second, single.token, capacity=2)
                await bot.stream.started()
                seats = [single.bot_id]
                for _ in range(2):
                    gated = await first.register()
                    await connect_everywhere([first, second], gated.token, lambda: GatedBot(gate), capacity=4)
                    seats.append(gated.bot_id)
                await eventually(lambda: [e.address for e in fleet.hosting(seats)] == [second.address])
                there, relayed, third = (f"m-{uuid.uuid4().hex[:8]}" for _ in range(3))
                playing = [asyncio.create_task(second.run_match("cutthroat", seats, match_id=there, seed=1))]
                await eventually(lambda: there in second.server.arena.tasks)
                playing.append(asyncio.create_task(first.run_match("cutthroat", seats, match_id=relayed, seed=2)))
                await eventually(lambda: relayed in first.server.arena.tasks or playing[1].done())
                assert not playing[1].done(), "the relayed match was refused"
                assert sorted(ledger.entries(seat_key(single.bot_id, ""))) == sorted([there, relayed])
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await asyncio.wait_for(first.run_match("cutthroat", seats, match_id=third, seed=3), 10)
                assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                gate.set()
                for task in playing:
                    assert (await task).result.completed
                await eventually(lambda: ledger.entries(seat_key(single.bot_id, "")) == {})
            finally:
                gate.set()

    run(scenario())


RELAY = (("authorization", "Bearer test-relay"),)
"""The relay token of :func:`tests.referee.harness.running_arena`'s referees."""


async def relay_call(arena: Arena, messages: list[bytes],
                     metadata: tuple[tuple[str, str], ...] = RELAY) -> tuple[grpc.StatusCode, str]:
    """Send raw relay messages to ``arena``, half-close and read until the call ends: the
    first relay the host ended (its code and message; replies may come batched), else the
    call's status."""
    call = arena.channel.stream_stream(RELAY_METHOD, request_serializer=lambda raw: raw,
                                       response_deserializer=relay_pb2.RelayResponse.FromString)(metadata=metadata)
    ended: list[relay_pb2.RelayEnded] = []
    try:
        for message in messages:
            await call.write(message)
        await call.done_writing()
        while (reply := await asyncio.wait_for(call.read(), 10)) is not grpc.aio.EOF:
            assert isinstance(reply, relay_pb2.RelayResponse)
            ended.extend(member.ended for member in unbatched(reply) if member.HasField("ended"))
    except grpc.aio.AioRpcError as error:
        return error.code(), error.details() or ""
    if ended:
        code = next(status for status in grpc.StatusCode if status.value[0] == ended[0].code)
        return code, ended[0].message
    return await call.code(), await call.details()


def opening(bot_id: str, match_id: str = "m-1", seats: tuple[int, ...] = (0,)) -> bytes:
    return relay_pb2.RelayRequest(open=relay_pb2.RelayOpen(relay_id=1, bot_id=bot_id, match_id=match_id,
                                                           seats=seats)).SerializeToString()


def forwarding(message: bot_pb2.RefereeMessage, relay_id: int = 1) -> bytes:
    return relay_pb2.RelayRequest(forward=relay_pb2.RelayForward(relay_id=relay_id, message=message)
                                  ).SerializeToString()


def request(match_id: str = "m-1", seat: int = 0, decision_id: str = "m-1:0:1") -> bot_pb2.RefereeMessage:
    return bot_pb2.RefereeMessage(decision_request=bot_pb2.DecisionRequest(
        match_id=match_id, seat=seat, decision_id=decision_id))


def test_the_relay_admits_referees_only_and_refuses_malformed_input(redis_url: str) -> None:
    """No relay token (a bot's token and the admin token included) is UNAUTHENTICATED
    before anything is read;
    a message that does not parse, is too big, nests batches or reopens a relay id ends
    the call with INVALID_ARGUMENT; a bad open or forward ends its relay with
    INVALID_ARGUMENT, a bot not connected FAILED_PRECONDITION, seats past its capacity
    RESOURCE_EXHAUSTED; every message is short; none of it crashes or stalls the referee
    or leaves anything on the bot."""
    ok = grpc.StatusCode.OK
    invalid = grpc.StatusCode.INVALID_ARGUMENT

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            registered = await arena.register()
            bot = SingleStreamBot(arena, registered.token)  # capacity 2
            await bot.stream.started()
            absent = (await arena.register()).bot_id
            good = opening(registered.bot_id)
            nested = relay_pb2.RelayRequest(batch=relay_pb2.RelayRequests(messages=[relay_pb2.RelayRequest(
                batch=relay_pb2.RelayRequests())])).SerializeToString()
            cases: list[tuple[list[bytes], grpc.StatusCode, str, dict[str, object]]] = [
                ([good], grpc.StatusCode.UNAUTHENTICATED, "relay token", {"metadata": ()}),
                ([good], grpc.StatusCode.UNAUTHENTICATED, "relay token",
                 {"metadata": (("authorization", f"Bearer {registered.token}"),)}),
                ([good], grpc.StatusCode.UNAUTHENTICATED, "relay token", {"metadata": ADMIN}),
                ([b"\xff\xff\xff"], invalid, "undecodable", {}),
                ([b"\x00" * (3 * 1024 * 1024 + 16)], invalid, "over the limit", {}),
                ([nested], invalid, "batch inside a batch", {}),
                ([relay_pb2.RelayRequest().SerializeToString()], invalid, "an open, a forward or a close", {}),
                ([good, good], invalid, "open already", {}),
                ([forwarding(request(), relay_id=7)], ok, "", {}),  # an ended relay's late forward: ignored
                ([opening(registered.bot_id, seats=())], invalid, "distinct seats", {}),
                ([opening(registered.bot_id, seats=(1, 1))], invalid, "distinct seats", {}),
                ([opening(registered.bot_id, seats=(64,))], invalid, "out of range", {}),
                ([opening("b" * 5000)], invalid, "more than 128", {}),
                ([opening(registered.bot_id, match_id="")], invalid, "needs a bot_id", {}),
                ([opening(absent)], grpc.StatusCode.FAILED_PRECONDITION, "no stream here", {}),
                ([opening(registered.bot_id, seats=(0, 1, 2))], grpc.StatusCode.RESOURCE_EXHAUSTED, "seats", {}),
                ([good, forwarding(bot_pb2.RefereeMessage(welcome=bot_pb2.Welcome()))], invalid,
                 "match messages only", {}),
                ([good, forwarding(request(match_id="m-2", decision_id="m-2:0:1"))], invalid, "names match", {}),
                ([good, forwarding(request(seat=3))], invalid, "names seat 3", {}),
                ([good, forwarding(request(decision_id="elsewhere:0:1"))], invalid,
                 "does not start with the match id", {}),
                ([good, forwarding(request()), forwarding(request())], invalid, "already pending", {}),
            ]
            for messages, code, says, options in cases:
                status, details = await relay_call(arena, messages, **options)  # type: ignore[arg-type]
                assert (status, says in details) == (code, True), (messages[:2], status, details)
                assert len(details) < 400
            presence = arena.server.arena.registry.get(registered.bot_id)
            assert presence is not None and presence.connected
            assert presence.seats_in_use == 0 and not presence.pending and not presence.relayed
            assert not presence.resume_messages and not presence.watchers

    run(scenario())


@pytest.mark.parametrize("fault", ["host stops, bot gone", "host stops, bot back on the runner",
                                   "bot's stream to the host drops and comes back",
                                   "bot's stream to the host drops, bot moves to a third referee",
                                   "bot's stream to the host drops, bot moves to the runner"])
def test_a_relayed_seat_whose_stream_goes_away_is_a_dropped_stream(redis_url: str, fault: str) -> None:
    """In the middle of a relayed match, the far bot's way to the runner breaks: its host
    stops, or its own stream to the host drops.  The seat is disconnected, never struck,
    as a seat whose local stream dropped: a bot connected nowhere forfeits after the
    reconnect grace; one that reconnects within it (to the host, or to any other referee:
    here the runner itself, which then relays it from itself) resumes and the match ends
    normally.  A bot that leaves its host for another referee while the host stays up (a
    third one, or the runner) is followed there: the relay is opened again where the bot
    is (before, the runner waited on the host until the grace ran out, and the seat
    forfeited)."""
    prefix = f"relay-{uuid.uuid4().hex[:8]}:"
    fleet = directory(redis_url, prefix)

    async def scenario() -> None:
        async with running_arena(redis_url, prefix, **FAST) as first, \
                running_arena(redis_url, prefix, **FAST) as third:
            # a host that stops with no grace cuts its relays, as one that dies or whose grace ran out
            hosting = running_arena(redis_url, prefix, shutdown_grace_s=0, **FAST)
            second = await hosting.__aenter__()
            moves_to = {"comes back": second, "a third referee": third, "the runner": first}
            try:
                ids, bots = await single_stream_bots(first, second, far_delay_s=0.01)
                await eventually(lambda: len(fleet.hosting(ids)) == 0 and len(fleet.hosting([ids[1]])) == 1)
                running = asyncio.create_task(first.run_match("cutthroat", ids, seed=5))
                await eventually(lambda: sum(bots[1].requests.values()) >= 3)
                if fault.startswith("bot's stream"):
                    bots[1].stream.close()
                    await eventually(lambda: not second.server.arena.registry.get(ids[1]).connected)  # type: ignore[union-attr]
                    back = SingleStreamBot(next(a for end, a in moves_to.items() if fault.endswith(end)),
                                           bots[1].token, 0.01)
                    await back.stream.started()
            finally:
                if fault.startswith("host stops"):
                    await hosting.__aexit__(None, None, None)
            if fault == "host stops, bot back on the runner":
                back = SingleStreamBot(first, bots[1].token, 0.01)
                await back.stream.started()
            result = (await asyncio.wait_for(running, 30)).result
            far = result.seats[1]
            assert far.strikes == 0
            if fault == "host stops, bot gone":
                assert result.forfeited and result.forfeiting_party == 1
                assert far.status == game_pb2.SEAT_STATUS_FORFEITED
            else:  # disconnected if a decision came while it was away; OK if it was back by then
                assert result.completed and not result.forfeited
                assert far.status in (game_pb2.SEAT_STATUS_OK, game_pb2.SEAT_STATUS_DISCONNECTED)
                assert sum(back.requests.values()) > 0 and result.seats[1].decisions > 3
                assert far.ignored_answers == 0  # no decision answered twice, none answered late
            if not fault.startswith("host stops"):
                await hosting.__aexit__(None, None, None)

    run(scenario())


def test_a_stopping_host_drains_the_relayed_seat_until_its_match_ends(redis_url: str) -> None:
    """The referee holding a single-stream bot's stream is stopped mid-match (SIGTERM's
    path, :meth:`RefereeServer.stop`) while another referee runs a match seating the bot
    through it.  It drains: it leaves the fleet directory at once and takes no new relay,
    but keeps the bot's stream and the relay until the match ends, so the bot plays every
    decision itself (no disconnection, no strike, no fallback) and receives its
    ``match_ended``; only then does the host stop.  Before, the stop cut the relay within
    a second and the runner played the seat by fallback moves until the bot forfeited."""
    prefix = f"relay-{uuid.uuid4().hex[:8]}:"
    fleet = directory(redis_url, prefix)

    async def scenario() -> None:
        async with running_arena(redis_url, prefix, **FAST) as first:
            hosting = running_arena(redis_url, prefix, **FAST)
            second = await hosting.__aenter__()
            try:
                ids, bots = await single_stream_bots(first, second, far_delay_s=0.02)
                far = bots[1]
                await eventually(lambda: [e.address for e in fleet.hosting([ids[1]])] == [second.address])
                running = asyncio.create_task(first.run_match("cutthroat", ids, seed=5))
                await eventually(lambda: sum(far.requests.values()) >= 3)
                stopping = asyncio.create_task(second.server.stop())
                await eventually(lambda: fleet.hosting([ids[1]]) == [])  # left the directory at once
                result = (await asyncio.wait_for(running, 30)).result
                await asyncio.wait_for(stopping, 15)
            finally:
                await hosting.__aexit__(None, None, None)
            assert result.completed and not result.forfeited
            seat = result.seats[1]
            assert (seat.status, seat.strikes, seat.timeouts) == (game_pb2.SEAT_STATUS_OK, 0, 0)
            assert seat.decisions == far.requests[(result.match_id, 1)] > 3  # every one answered by the bot
            assert result.match_id in far.ended
            ended = far.stream.task.exception()  # its stream ended after the match, with the host, saying why
            assert isinstance(ended, grpc.aio.AioRpcError) and ended.code() == grpc.StatusCode.UNAVAILABLE
            assert "shutting down" in (ended.details() or "")

    run(scenario())


def test_relay_calls_to_a_downed_host_back_off_and_are_logged_in_summaries(
        redis_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """A host that died is still in the directory until its entry expires, and the seats
    relayed from it keep trying to open their relays: 60 attempts over about 1.5 s (real
    gRPC to a loopback port nobody listens on) make a few real calls (exponential backoff;
    the others are refused at once) and at most one warning per summary interval, naming
    how many calls failed and how many opens were refused.  Before, each attempt was a
    call and a warning line: up to 52 a second."""
    prefix = f"relay-{uuid.uuid4().hex[:8]}:"
    fleet = directory(redis_url, prefix, ttl_s=60)
    dead = f"127.0.0.1:{free_port()}"
    fleet.announce("dead-host", dead, 4, 0, ["far-bot"])
    logger = logging.getLogger("pitch.referee.relay")

    async def scenario() -> None:
        relays = Relays(RelayIdentity("test-relay"), fleet, HostFailures(logger, every_s=0.5, first_s=0.1, max_s=0.4))
        bot = BotRecord("far-bot", "far", "someone", "", 0.0)
        try:
            for _ in range(60):
                with pytest.raises(RelayRefused):
                    await relays.seat(bot, "m-down", [0])
                await asyncio.sleep(0.025)
        finally:
            await relays.close()

    with caplog.at_level(logging.INFO, logger="pitch.referee.relay"):
        started = time.monotonic()
        run(scenario())
        elapsed = time.monotonic() - started
    lines = [r.getMessage() for r in caplog.records if r.name == "pitch.referee.relay"]
    assert 1 <= len(lines) <= 1 + elapsed / 0.5, lines
    counts = [re.search(r"failed (\d+) time\(s\).*, (\d+) open\(s\) refused", line) for line in lines]
    assert all(counts), lines
    failed = sum(int(m.group(1)) for m in counts if m)
    refused = sum(int(m.group(2)) for m in counts if m)
    assert 2 <= failed <= 15 and refused >= 30, lines  # backed off: most attempts never made a call


class LateHouse(HousePresence):
    """A house seat that answers on the next turn of the event loop (a bot's answer comes
    later than its request), so that two runs' requests can both be pending at once."""

    def send_encoded(self, encoded: bytes) -> bool:
        asyncio.get_running_loop().call_soon(super().send_encoded, encoded)
        return True


def test_a_match_id_run_twice_on_one_bot_is_said_and_does_not_crash_the_match(
        caplog: pytest.LogCaptureFixture) -> None:
    """Should a match id still run twice at once on one bot's stream (the claim is there to
    prevent it), its decision ids clash in the bot's pending decisions: the other run takes
    or drops this one's.  The runs go on (a lost answer is a timeout), and the double run is
    logged as an error.  Before, the run whose pending decision was gone crashed with a
    ``KeyError`` and its RunMatch failed with INTERNAL."""
    rules = preset("cutthroat", {"target": 5})
    shared = LateHouse(BotRecord("shared", "shared", "someone", "", 0.0))

    def run_of_match() -> Match:
        seats = [shared, *(LateHouse(BotRecord(f"b{seat}", f"b{seat}", "someone", "", 0.0))
                           for seat in range(1, rules.players))]
        return Match(MatchSpec(match_id="twice", ruleset=rules, seats=tuple(seats), seed=3, games=1,
                               per_decision_ms=20, bank_ms=0, max_strikes=0, reconnect_grace_s=1.0))

    async def both() -> list[bot_pb2.MatchResult]:
        return list(await asyncio.gather(run_of_match().run(), run_of_match().run()))

    with caplog.at_level(logging.ERROR, logger="pitch.referee.match"):
        results = asyncio.run(both())
    assert all(result.completed for result in results)
    assert sum(seat.timeouts for result in results for seat in result.seats) >= 1  # one run's answer went missing
    said = [r.getMessage() for r in caplog.records if "runs twice at once" in r.getMessage()]
    assert 1 <= len(said) <= 2 and all(line.startswith("match twice:") for line in said), said
    assert shared.pending == {}
