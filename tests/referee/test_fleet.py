"""Several referees on one Redis: the fleet directory, the fleet in the welcome, and one
run per match id fleet-wide (real referees on loopback, real Redis, SDK bot clients)."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

import grpc
import pytest

from cli.local_arena import LocalArena
from pitch_sdk.proto.pitch.v1 import arena_pb2_grpc, bot_pb2, game_pb2
from pitch_sdk.remote.client import BotClient
from pitch_sdk.remote.fleet import FleetBot
from referee.admission import RequestRefused
from referee.capacity import FleetSeats
from referee.config import RefereeConfig
from referee.fleet import advertised_address
from referee.sessions import Presence, Session
from store.redis_store import BotRecord
from store.seat_keys import seat_key
from store.seats import SeatLedger, SeatNeed, SeatRefusal, SeatUsage
from tests.referee.bots import FirstLegalBot, GatedBot, SteadyBot
from tests.referee.harness import (
    FAST,
    RawBot,
    connect_everywhere,
    directory,
    eventually,
    played_here,
    run,
    running_arena,
    sdk_seat,
)
from tests.referee.harness import Arena as HarnessArena


def test_each_referee_announces_itself_and_leaves_the_directory_when_it_stops(redis_url: str) -> None:
    """Two referees on one prefix are both live, with their address, capacity and running
    count; a bot's stream is listed under the referee it is open to; the welcome lists the
    whole fleet and names the referee; a stopped referee is gone from the directory."""
    prefix = f"fleet-{uuid.uuid4().hex[:8]}:"
    fleet = directory(redis_url, prefix)

    async def scenario() -> None:
        async with running_arena(redis_url, prefix, max_matches=7, **FAST) as first:
            async with running_arena(redis_url, prefix, **FAST) as second:
                await eventually(lambda: len(fleet.live()) == 2)
                by_address = {e.address: e for e in fleet.live()}
                assert set(by_address) == {first.address, second.address}
                assert by_address[first.address].capacity == 7 and by_address[first.address].running == 0
                registered = await first.register()
                welcomes: list[bot_pb2.Welcome] = []

                def keep(bot: RawBot, message: bot_pb2.RefereeMessage) -> None:
                    if message.HasField("welcome"):
                        welcomes.append(message.welcome)

                bot = await RawBot(second, registered.token, bot_pb2.Hello(protocol_versions=["pitch.v1"]),
                                   keep).started()
                assert sorted(welcomes[0].fleet) == sorted([first.address, second.address])
                assert welcomes[0].referee_address == second.address
                await eventually(lambda: [e.address for e in fleet.hosting([registered.bot_id])]
                                 == [second.address])
                bot.close()
                await eventually(lambda: fleet.hosting([registered.bot_id]) == [])
            await eventually(lambda: [e.address for e in fleet.live()] == [first.address])

    run(scenario())


def test_a_referee_that_stops_beating_expires_from_the_directory(redis_url: str) -> None:
    """A referee that dies writes nothing more: its entry, its bots and its claims expire
    after the TTL (what a SIGKILL leaves; the end-to-end test kills a real process)."""
    fleet = directory(redis_url, f"fleet-{uuid.uuid4().hex[:8]}:", ttl_s=0.5)
    fleet.announce("dead", "127.0.0.1:1", 4, 1, ["bot-a"], [])
    assert fleet.claim("m-1", "dead") == "dead"
    assert fleet.claim("m-1", "other") == "dead"
    assert [e.referee_id for e in fleet.hosting(["bot-a"])] == ["dead"]
    time.sleep(0.7)
    assert fleet.live() == [] and fleet.hosting(["bot-a"]) == [] and fleet.placements(["bot-a"]) == []
    assert fleet.claim("m-1", "other") == "other"


def test_the_bots_index_of_referees_forgets_referees_that_left(redis_url: str) -> None:
    """Placement reads each bot's set of referees (``fleet:bot:{id}``), not every referee's
    set of bots.  The index follows streams opening and closing and a heartbeat's rewrite;
    a stopping referee leaves it at once; a dead one counts no more after the TTL and is
    deleted from it by the next read once the live set pruned it; a referee that comes
    back after that is told so by its heartbeat (it then rewrites its bots)."""
    fleet = directory(redis_url, f"fleet-{uuid.uuid4().hex[:8]}:", ttl_s=0.5)

    def index(bot_id: str) -> set[str]:
        return {str(r) for r in fleet.client.smembers(fleet.key("bot", bot_id))}

    assert fleet.announce("a", "h:1", 4, 0, ["x", "y"]) is True  # a first heartbeat
    assert fleet.announce("b", "h:2", 4, 0, ["x"]) is True
    assert fleet.announce("a", "h:1", 4, 0, None) is False
    fleet.bot_connected("b", "z")
    fleet.bot_disconnected("a", "y")
    assert (index("x"), index("y"), index("z")) == ({"a", "b"}, set(), {"b"})
    fleet.announce("a", "h:1", 4, 0, ["y"])  # a rewrite after a Redis error: x left meanwhile
    assert (index("x"), index("y")) == ({"b"}, {"a"})
    fleet.withdraw("a")
    assert index("y") == set() and fleet.placements(["y"]) == []
    time.sleep(0.6)  # b stops beating: dead
    assert fleet.placements(["x"]) == [] and index("x") == {"b"}  # not live, not yet pruned
    assert fleet.announce("c", "h:3", 4, 0, ["w"]) is True
    time.sleep(0.5)
    fleet.announce("c", "h:3", 4, 0, None)  # prunes b from the live set (older than twice the TTL)
    assert fleet.hosting(["x", "z"]) == [] and index("x") == set() and index("z") == set()
    assert fleet.announce("b", "h:2", 4, 0, None) is True  # back after the prune: it must rewrite
    assert [e.referee_id for e in fleet.hosting(["w"])] == ["c"]


def test_a_workers_cached_live_list_is_read_again_once_it_is_old(redis_url: str) -> None:
    """A worker reads the live list once per ``live_cache_s``, not per placement: a referee
    that joined since is placed after the next read (the bots' index is read every time)."""
    prefix = f"fleet-{uuid.uuid4().hex[:8]}:"
    cached, fresh = directory(redis_url, prefix), directory(redis_url, prefix)
    cached.live_cache_s = 0.3
    fresh.announce("first", "h:1", 4, 1, ["a"])
    assert [e.referee_id for e in cached.place("m-1", ["a"])] == ["first"]
    fresh.announce("second", "h:2", 4, 0, ["a"])
    assert [e.referee_id for e in cached.place("m-1", ["a"])] == ["first"]
    assert [e.referee_id for e in fresh.place("m-1", ["a"])] == ["second", "first"]
    time.sleep(0.35)
    assert [e.referee_id for e in cached.place("m-1", ["a"])] == ["second", "first"]


def test_a_heartbeat_renews_only_the_claims_its_referee_holds(redis_url: str) -> None:
    """A match that runs longer than the TTL keeps its claim while its referee beats; a
    claim another referee took after a lapse is not taken back by the old holder."""
    fleet = directory(redis_url, f"fleet-{uuid.uuid4().hex[:8]}:", ttl_s=0.5)
    assert fleet.claim("long", "a") == "a" and fleet.claim("taken", "b") == "b"
    for _ in range(4):
        time.sleep(0.2)
        fleet.announce("a", "h:1", 4, 1, None, ["long", "taken"])
    assert fleet.holder("long") == "a" and fleet.holder("taken") == ""
    assert fleet.release("long", "b") is False and fleet.holder("long") == "a"
    assert fleet.release("long", "a") is True and fleet.holder("long") == ""


def test_placement_prefers_the_referee_with_most_seats_local_then_the_least_busy(redis_url: str) -> None:
    """Placement lists the referees with room, those where most of the match's seats have
    their bot connected first (all of them: no relay), then the fewest running matches; a
    match whose every bot is connected to some live referee is placeable even when no
    referee has them all (the others' seats are relayed), one with a bot connected nowhere
    is not."""
    fleet = directory(redis_url, f"fleet-{uuid.uuid4().hex[:8]}:")
    fleet.announce("busy", "h:1", 8, 5, ["a", "b"], [])
    fleet.announce("idle", "h:2", 8, 1, ["a", "b", "c"], [])
    fleet.announce("full", "h:3", 2, 2, ["a", "b"], [])
    fleet.announce("lacks-b", "h:4", 8, 0, ["a"], [])
    fleet.announce("only-d", "h:5", 8, 0, ["d"], [])
    assert [e.referee_id for e in fleet.placements(["a", "b", "a"])] == ["idle", "busy", "lacks-b", "only-d"]
    assert [e.referee_id for e in fleet.placements(["c"])] == ["idle", "lacks-b", "only-d", "busy"]
    assert [e.referee_id for e in fleet.placements(["d", "a", "a"])] == ["lacks-b", "idle", "busy", "only-d"]
    assert fleet.placements(["a", "e"]) == []
    assert [e.referee_id for e in fleet.hosting(["a", "b"])] == ["idle", "full", "busy"]
    assert fleet.connected_bots() == {"a", "b", "c", "d"}


def test_one_match_id_given_to_two_referees_runs_once(redis_url: str) -> None:
    """The same match id sent to two referees of one fleet at once is played by one of them
    only; the other waits on the claim and answers with the same recorded result (before
    the fleet, both played it: 476 decisions each)."""
    prefix = f"fleet-{uuid.uuid4().hex[:8]}:"

    async def scenario() -> None:
        async with running_arena(redis_url, prefix, **FAST) as first, \
                running_arena(redis_url, prefix, **FAST) as second:
            seats: list[str] = []
            clients: list[BotClient] = []
            for _ in range(4):
                registered = await first.register()
                seats.append(registered.bot_id)
                for arena in (first, second):
                    client = BotClient(FirstLegalBot, arena.address, registered.token)
                    arena.tasks.append(asyncio.create_task(client.run(arena.stop)))
                    clients.append(client)
            for client in clients:
                await asyncio.wait_for(client.connected.wait(), 10)
            match_id = f"m-{uuid.uuid4().hex[:8]}"
            answers = await asyncio.gather(
                first.run_match("partnership", seats, match_id=match_id, seed=3, games=1),
                second.run_match("partnership", seats, match_id=match_id, seed=3, games=1))
            assert answers[0].result == answers[1].result and answers[0].result.completed
            ran = [arena for arena in (first, second) if played_here(arena.server.arena, match_id)]
            assert len(ran) == 1
            decisions = sum(seat.decisions for seat in answers[0].result.seats)
            assert sum(client.decisions for client in clients) == decisions
            assert directory(redis_url, prefix).holder(match_id) == ""  # released once recorded

    run(scenario())


def test_an_sdk_bot_keeps_a_stream_on_every_live_referee(redis_url: str) -> None:
    """``pitch-bot run``'s FleetBot dials one address, opens a stream to the other referee
    the welcome lists, to a referee that joins later (a fleet update), and drops the
    stream of a referee that leaves; the bot plays a match placed on either referee."""
    prefix = f"fleet-{uuid.uuid4().hex[:8]}:"
    fleet = directory(redis_url, prefix)

    async def scenario() -> None:
        async with running_arena(redis_url, prefix, **FAST) as first, \
                running_arena(redis_url, prefix, **FAST) as second:
            registered = await first.register()
            bot = FleetBot(FirstLegalBot, first.address, registered.token, capacity=3)
            runner = asyncio.create_task(bot.run(first.stop))
            await eventually(lambda: {e.address for e in fleet.hosting([registered.bot_id])}
                             == {first.address, second.address})
            async with running_arena(redis_url, prefix, **FAST) as third:
                await eventually(lambda: third.address in {e.address for e in fleet.hosting([registered.bot_id])})
                assert sorted(c.address for c in bot.clients) == sorted([first.address, second.address, third.address])
                result = (await third.run_match("cutthroat", [registered.bot_id] * 3, seed=2)).result
                assert result.completed
            await eventually(lambda: sorted(c.address for c in bot.clients) == sorted([first.address, second.address]))
            result = (await second.run_match("cutthroat", [registered.bot_id] * 3, seed=3)).result
            assert result.completed
            first.stop.set()
            await asyncio.wait_for(runner, 10)
            assert bot.clients == []

    run(scenario())


def test_an_sdk_bot_finishes_its_match_on_a_referee_that_leaves_then_moves(redis_url: str) -> None:
    """A stopping referee leaves the directory at once and tells the bots the fleet without
    it, while it drains the match it runs; FleetBot keeps its stream there until the seats
    it plays on it end (before, it closed that stream at the fleet update, in the middle of
    the match, and the seats were disconnected), then closes it and plays on elsewhere."""
    prefix = f"fleet-{uuid.uuid4().hex[:8]}:"
    fleet = directory(redis_url, prefix)

    async def scenario() -> None:
        async with running_arena(redis_url, prefix, **FAST) as first:
            leaving = running_arena(redis_url, prefix, **FAST)
            second = await leaving.__aenter__()
            try:
                registered = await first.register()
                bot = FleetBot(SteadyBot, first.address, registered.token, capacity=3)
                runner = asyncio.create_task(bot.run(first.stop))
                await eventually(lambda: {e.address for e in fleet.hosting([registered.bot_id])}
                                 == {first.address, second.address})
                there = next(c for c in bot.clients if c.address == second.address)
                match = asyncio.create_task(second.run_match("cutthroat", [registered.bot_id] * 3, seed=4))
                await eventually(lambda: there.decisions >= 3)
                stopping = asyncio.create_task(second.server.stop())
                result = (await asyncio.wait_for(match, 30)).result
                await asyncio.wait_for(stopping, 15)
            finally:
                await leaving.__aexit__(None, None, None)
            assert result.completed and not result.forfeited
            assert all((s.status, s.strikes) == (game_pb2.SEAT_STATUS_OK, 0) for s in result.seats)
            assert [r.match_id for r in there.results] == [result.match_id] * 3  # each seat's match_ended reached it
            await eventually(lambda: [c.address for c in bot.clients] == [first.address])
            again = (await first.run_match("cutthroat", [registered.bot_id] * 3, seed=5,
                                           options_json='{"target": 1}')).result
            assert again.completed
            first.stop.set()
            await asyncio.wait_for(runner, 10)

    run(scenario())


def test_a_referee_advertises_where_others_reach_it() -> None:
    """The directory's address: the configured one; else the listen address with the bound
    port; for a wildcard listen address (compose's replicas), this host's name, which
    resolves on the compose network (an advertise address would be the same for every
    replica)."""
    assert advertised_address(RefereeConfig(address="127.0.0.1:0"), 4242) == "127.0.0.1:4242"
    assert advertised_address(RefereeConfig(address="0.0.0.0:50051"), 50051) == f"{socket.gethostname()}:50051"
    assert advertised_address(RefereeConfig(address="[::]:50051"), 50051) == f"{socket.gethostname()}:50051"
    assert advertised_address(RefereeConfig(address="0.0.0.0:50051", advertise_address="ref-7.example:9"),
                              50051) == "ref-7.example:9"


def test_an_sdk_bot_that_dials_a_shared_name_keeps_one_stream_per_referee(redis_url: str) -> None:
    """Dialled by another name than the one the referee announces (compose's service name
    resolves to any replica), the client takes the announced address for its reconnects and
    no second stream is opened to that referee: two referees, two streams, one session each."""
    prefix = f"fleet-{uuid.uuid4().hex[:8]}:"

    async def scenario() -> None:
        async with running_arena(redis_url, prefix, **FAST) as first, \
                running_arena(redis_url, prefix, **FAST) as second:
            registered = await first.register()
            shared_name = f"localhost:{first.server.port}"
            bot = FleetBot(FirstLegalBot, shared_name, registered.token)
            runner = asyncio.create_task(bot.run(first.stop))
            await eventually(lambda: sorted(c.address for c in bot.clients) == sorted([first.address, second.address])
                             and all(c.connected.is_set() for c in bot.clients))
            await asyncio.sleep(1.0)  # a second stream to the first referee would have replaced the first by now
            assert len(bot.clients) == 2
            for arena in (first, second):
                presence = arena.server.arena.registry.get(registered.bot_id)
                assert presence is not None and presence.connected
            first.stop.set()
            await asyncio.wait_for(runner, 10)

    run(scenario())


def test_the_seat_ledger_counts_live_referees_only(redis_url: str) -> None:
    """The ledger's scripts: a bot's seats on live referees are summed against its
    capacity (a relayed seat's: the one it declared to the referee holding its stream); all
    of a match's seats are taken or none; taking a match's seats again is idempotent; only
    the referee that took them gives them back; a dead referee's seats and declarations
    stop counting once it leaves the directory (its seats are then deleted)."""
    fleet = directory(redis_url, f"fleet-{uuid.uuid4().hex[:8]}:", ttl_s=0.5)
    ledger = SeatLedger(fleet)
    for referee_id in ("a", "b", "dying"):
        fleet.announce(referee_id, f"h:{referee_id}", 8, 0, [], [])
    fleet.bot_connected("a", "x", 2)
    fleet.bot_connected("dying", "z", 5)
    one, two = {"x": SeatNeed(1, 2)}, {"x": SeatNeed(2, 2), "y": SeatNeed(1, 4)}
    assert ledger.take("dying", "m-dying", one) is None
    assert ledger.take("a", "m-1", one) is None
    assert ledger.take("b", "m-2", two) == SeatRefusal("x", 2, 2, 2)
    assert ledger.entries("y") == {}  # nothing of a refused match is taken
    assert ledger.take("a", "m-1", one) is None and ledger.entries("x")["m-1"] == "a:1"  # idempotent
    ledger.release("b", "m-1", ["x"])
    assert "m-1" in ledger.entries("x")  # not b's to give back
    relayed = {"x": SeatNeed(1, 0, declared_to="a")}  # b plays x's seat through a's stream
    assert ledger.take("b", "m-3", relayed) == SeatRefusal("x", 2, 2, 1)
    assert ledger.take("b", "m-4", {"z": SeatNeed(1, 0, declared_to="dying")}) is None
    for _ in range(4):  # "dying" stops beating and expires; a and b live on
        time.sleep(0.2)
        fleet.announce("a", "h:a", 8, 1, None, [])
        fleet.announce("b", "h:b", 8, 0, None, [])
    assert ledger.take("b", "m-3", relayed) is None
    assert set(ledger.entries("x")) == {"m-1", "m-3"}  # the dead referee's seats are deleted
    assert ledger.take("b", "m-5", {"z": SeatNeed(1, 0, declared_to="dying")}) == SeatRefusal("z", 1, 0, 1)
    ledger.release("a", "m-1", ["x"])
    ledger.release("b", "m-3", ["x"])
    ledger.release("b", "m-4", ["z"])
    assert ledger.entries("x") == {} and ledger.entries("z") == {}


def test_a_bot_refused_by_a_stopping_referee_connects_again_once_it_takes_bots(redis_url: str) -> None:
    """A referee that is shutting down answers a hello with REFUSAL_REASON_SHUTTING_DOWN
    (bot.proto: the bot should connect to another referee or later).  The SDK's client
    keeps dialling with backoff and is welcomed once the referee (restarted, in production)
    takes bots again; it exited with "referee refused the bot" before, so a bot restarted
    while its referee drained died again at once (seven times in a row in a chaos run)."""

    async def scenario() -> None:
        async with running_arena(redis_url) as arena:
            arena.server.arena.accepting = False
            registered = await arena.register()
            client = BotClient(FirstLegalBot, arena.address, registered.token)
            task = asyncio.create_task(client.run(arena.stop))
            await asyncio.sleep(1.0)  # several hellos refused meanwhile
            assert not task.done(), task.exception() if task.done() else None
            assert not client.connected.is_set()
            arena.server.arena.accepting = True
            await asyncio.wait_for(client.connected.wait(), timeout=10)
            arena.stop.set()
            await asyncio.wait_for(task, timeout=10)

    run(scenario())


def test_a_draining_referee_is_offered_no_work_but_holds_its_seats_and_claims(redis_url: str) -> None:
    """The directory's side of a drain: a referee whose heartbeat says it drains stays in
    ``fleet:live`` for the ledger (its seats count, for takes and for the pages) and for its
    claims, while every read that chooses where new work goes leaves it out (the live list,
    placement, a match whose claim it holds, relays' hosts, connected bots); its final
    withdrawal removes it from both sets."""
    fleet = directory(redis_url, f"fleet-{uuid.uuid4().hex[:8]}:", ttl_s=5.0)
    ledger = SeatLedger(fleet)
    for referee_id in ("a", "b"):
        fleet.announce(referee_id, f"h:{referee_id}", 8, 0, ["x", "only-a"] if referee_id == "a" else ["x"],
                       [], {"x": 1})
    assert fleet.claim("m-1", "a") == "a"
    assert ledger.take("a", "m-1", {"x": SeatNeed(1, 1)}) is None
    assert fleet.announce("a", "h:a", 8, 1, None, ["m-1"], None, draining=True) is False
    assert [e.referee_id for e in fleet.live()] == ["b"] and fleet.live_ids() == ["b"]
    assert sorted(fleet.live_ids(draining=True)) == ["a", "b"]
    assert [e.referee_id for e in fleet.place("m-1", ["x"])] == ["b"]  # not even the claim's holder
    assert [e.referee_id for e in fleet.placements(["x"])] == ["b"] and fleet.placements(["only-a"]) == []
    assert [e.referee_id for e in fleet.hosting(["x"])] == ["b"] and fleet.hosting(["only-a"]) == []
    assert fleet.connected_bots() == {"x"}
    assert fleet.claim("m-1", "b") == "a"
    assert ledger.take("b", "m-2", {"x": SeatNeed(1, 1)}) == SeatRefusal("x", 1, 1, 1)
    assert ledger.usage(["x"]) == {"x": SeatUsage(1, 1)}
    fleet.withdraw("a")
    assert fleet.live_ids(draining=True) == ["b"] and fleet.client.zscore(fleet.key("draining"), "a") is None
    assert ledger.take("b", "m-2", {"x": SeatNeed(1, 1)}) is None


def test_the_seat_ledger_reports_each_bots_seats_and_capacity_fleet_wide(redis_url: str) -> None:
    """What the pages and the command line show: a bot's seats in use summed over the live
    referees (a dead referee's seats and streams not counted), its capacity the most its
    streams on live referees declared; for given bots or every connected one."""
    fleet = directory(redis_url, f"fleet-{uuid.uuid4().hex[:8]}:", ttl_s=0.5)
    ledger = SeatLedger(fleet)
    for referee_id in ("a", "b", "dying"):
        fleet.announce(referee_id, f"h:{referee_id}", 8, 0, [], [])
    fleet.bot_connected("a", "x", 3)
    fleet.bot_connected("b", "x", 3)
    fleet.bot_connected("dying", "y", 2)
    fleet.bot_connected("dying", "x", 9)
    assert ledger.take("a", "m-1", {"x": SeatNeed(1, 3)}) is None
    assert ledger.take("b", "m-2", {"x": SeatNeed(2, 3)}) is None
    assert ledger.take("dying", "m-3", {"y": SeatNeed(1, 2)}) is None
    assert ledger.usage(["x", "y", "unknown"]) == {
        "x": SeatUsage(3, 9), "y": SeatUsage(1, 2), "unknown": SeatUsage(0, 0)}
    assert ledger.usage() == {"x": SeatUsage(3, 9), "y": SeatUsage(1, 2)}
    for _ in range(4):  # "dying" stops beating and expires; a and b live on
        time.sleep(0.2)
        fleet.announce("a", "h:a", 8, 1, None, [])
        fleet.announce("b", "h:b", 8, 1, None, [])
    assert ledger.usage(["x", "y"]) == {"x": SeatUsage(3, 3), "y": SeatUsage(0, 0)}
    assert not ledger.usage(["y"])["y"].connected and ledger.usage() == {"x": SeatUsage(3, 3)}
    assert ledger.usage([]) == {}


def test_a_bots_capacity_holds_across_the_fleet(redis_url: str) -> None:
    """A bot of capacity 1 with a stream on each of two referees plays one match at a time
    on the fleet: while it plays on the first, a match needing it on the second is refused
    with RESOURCE_EXHAUSTED naming it (before the ledger, each referee counted its own seats
    only and both matches ran); once the first ends, the second runs; the streams declared
    the capacity in Redis, and every seat is given back."""
    prefix = f"fleet-{uuid.uuid4().hex[:8]}:"
    fleet = directory(redis_url, prefix)
    ledger = SeatLedger(fleet)
    gate = threading.Event()

    async def scenario() -> None:
        async with running_arena(redis_url, prefix, per_decision_ms=30_000, **FAST) as first, \
                running_arena(redis_url, prefix, per_decision_ms=30_000, **FAST) as second:
            try:
                name = f"one-seat-{uuid.uuid4().hex[:6]}"
                narrow = await first.register(name)
                await connect_everywhere([first, second], narrow.token, lambda: GatedBot(gate), capacity=1)
                seats = [narrow.bot_id]
                for _ in range(2):
                    other = await first.register()
                    await connect_everywhere([first, second], other.token, FirstLegalBot, capacity=4)
                    seats.append(other.bot_id)
                for arena in (first, second):  # the capacity each stream declared, for relayed seats
                    declared = fleet.key("capacity", arena.server.fleet.referee_id)
                    await eventually(lambda key=declared: fleet.client.hget(key, sdk_seat(narrow.bot_id)) == "1")
                sooner, later = f"m-{uuid.uuid4().hex[:8]}", f"m-{uuid.uuid4().hex[:8]}"
                playing = asyncio.create_task(first.run_match("cutthroat", seats, match_id=sooner, seed=1))
                await eventually(lambda: sooner in first.server.arena.tasks)
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await asyncio.wait_for(second.run_match("cutthroat", seats, match_id=later, seed=2), 10)
                assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert f"bot '{name}@0' plays 1 of its 1 seats on the referee fleet" in (refused.value.details() or "")
                gate.set()
                assert (await playing).result.completed
                assert (await second.run_match("cutthroat", seats, match_id=later, seed=2)).result.completed
                assert all(ledger.entries(sdk_seat(bot_id)) == {} for bot_id in seats)
            finally:
                gate.set()

    run(scenario())


@pytest.mark.slow  # a referee process starts (about 7 s in all)
def test_a_killed_referee_holds_no_capacity_once_it_leaves_the_directory(redis_url: str, tmp_path: Path) -> None:
    """A referee process SIGKILLed while it runs a match of a bot of capacity 1 never gives
    its seat back; the seat stops counting when the referee's entry expires (a TTL of 1 s),
    and the bot's next match runs on the survivor."""
    prefix = f"fleet-{uuid.uuid4().hex[:8]}:"
    ledger = SeatLedger(directory(redis_url, prefix))
    gate = threading.Event()

    async def scenario(processes: LocalArena) -> None:
        doomed = processes.start_referee(redis_url, prefix, "test-admin",
                                         {"PITCH_FLEET_TTL_S": "1", "PITCH_PER_DECISION_MS": "30000"}, name="doomed")
        async with running_arena(redis_url, prefix, fleet_ttl_s=1.0) as survivor, \
                grpc.aio.insecure_channel(doomed) as channel:
            elsewhere = HarnessArena(survivor.server, doomed, arena_pb2_grpc.ArenaServiceStub(channel), channel,
                                  survivor.stop, survivor.tasks)
            narrow = await survivor.register()
            await connect_everywhere([elsewhere, survivor], narrow.token, lambda: GatedBot(gate), capacity=1)
            seats = [narrow.bot_id]
            for _ in range(2):
                other = await survivor.register()
                await connect_everywhere([elsewhere, survivor], other.token, FirstLegalBot, capacity=4)
                seats.append(other.bot_id)
            playing = asyncio.create_task(elsewhere.run_match("cutthroat", seats, seed=1))
            await eventually(lambda: ledger.entries(sdk_seat(narrow.bot_id)) != {})
            later = f"m-{uuid.uuid4().hex[:8]}"
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await asyncio.wait_for(survivor.run_match("cutthroat", seats, match_id=later, seed=2), 10)
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            next(s for s in processes.services if s.name == "doomed").kill()
            with pytest.raises(grpc.aio.AioRpcError):
                await playing
            gate.set()
            deadline = time.monotonic() + 10
            while True:
                try:
                    result = (await survivor.run_match("cutthroat", seats, match_id=later, seed=2)).result
                    break
                except grpc.aio.AioRpcError as error:  # until the dead referee's entry expires
                    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and time.monotonic() < deadline
                    await asyncio.sleep(0.2)
            assert result.completed
            assert ledger.entries(sdk_seat(narrow.bot_id)) == {}

    try:
        with LocalArena(tmp_path) as processes:
            run(scenario(processes))
    finally:
        gate.set()


UNVERSIONED_X = seat_key("x", "")
"""The seat key of :func:`seated`'s bot ``x`` (its hello says no version)."""


def seated(bot_id: str, capacity: int) -> Presence:
    """A presence of ``bot_id`` with an open stream declaring ``capacity``."""
    presence = Presence(BotRecord(bot_id, f"name-{bot_id}", "owner", "", 0.0))
    presence.session = Session(bot_pb2.Hello(capacity=capacity))
    return presence


def test_seats_taken_for_a_cancelled_call_are_given_back(redis_url: str) -> None:
    """A RunMatch cancelled while Redis takes its seats (the script runs anyway) gives them
    back once Redis has answered; the seats of a match that started are never given back
    for a cancelled duplicate of it."""
    fleet = directory(redis_url, f"fleet-{uuid.uuid4().hex[:8]}:")
    fleet.announce("r", "h:r", 8, 0, [], [])
    seats = FleetSeats(SeatLedger(fleet), "r")
    ledger = seats.ledger

    async def scenario() -> None:
        for started in (False, True):
            if started:
                await seats.take("m-1", [seated("x", 2)])
            taking = asyncio.create_task(seats.take("m-1", [seated("x", 2)]))
            await asyncio.sleep(0)
            taking.cancel()
            with pytest.raises(asyncio.CancelledError):
                await taking
            await asyncio.sleep(0.2)  # the script has run by now, in its thread
            await eventually(lambda: not seats._giving_back)
            assert ledger.entries(UNVERSIONED_X) == ({"m-1": "r:1"} if started else {})
        await seats.release("m-1")
        assert ledger.entries(UNVERSIONED_X) == {}

    run(scenario())


def test_a_take_while_redis_is_unreachable_is_refused_unavailable() -> None:
    """No Redis: the match is refused with UNAVAILABLE (transient: placement tries the next
    referee), saying the store cannot be reached, not a crash of the call."""
    fleet = directory("redis://127.0.0.1:1/0", "fleet-unreachable:")
    seats = FleetSeats(SeatLedger(fleet), "r")
    with pytest.raises(RequestRefused) as refused:
        run(seats.take("m-1", [seated("x", 1)]))
    assert refused.value.code == grpc.StatusCode.UNAVAILABLE and seats.held == {}


def test_a_heartbeat_late_by_more_than_the_ttl_writes_back_the_expired_bots_and_capacities(
        redis_url: str) -> None:
    """A referee whose heartbeat came later than the directory's TTL (a stalled machine),
    but inside the live set's twice the TTL, finds its bots' set and their capacities
    expired while it still counts as live: its next heartbeats write them back.  Before,
    they were only renewed, so the bot's seats elsewhere were refused for good ("has no
    stream open to a live referee": 36 matches of a chaos run not played)."""
    prefix = f"fleet-{uuid.uuid4().hex[:8]}:"
    fleet = directory(redis_url, prefix)

    async def scenario() -> None:
        async with running_arena(redis_url, prefix, **FAST) as arena:
            bot_id, _ = await arena.connect(FirstLegalBot, capacity=3)
            referee_id = arena.server.fleet.referee_id
            declared, bots = fleet.key("capacity", referee_id), fleet.key("bots", referee_id)
            await eventually(lambda: fleet.client.hget(declared, sdk_seat(bot_id)) == "3")
            fleet.client.delete(declared, bots)  # what the TTL does to a late heartbeat's keys
            await eventually(lambda: fleet.client.hget(declared, sdk_seat(bot_id)) == "3", timeout=5)
            assert fleet.client.sismember(bots, bot_id) and fleet.client.sismember(bots, sdk_seat(bot_id))

    run(scenario())


def test_a_referee_writes_back_its_seats_a_take_deleted_while_it_looked_dead(redis_url: str) -> None:
    """A referee whose heartbeat came late looked dead to a take, which deleted its seats;
    its next heartbeat writes back those of the matches it still runs, and only those."""
    fleet = directory(redis_url, f"fleet-{uuid.uuid4().hex[:8]}:")
    fleet.announce("r", "h:r", 8, 0, [], [])
    seats = FleetSeats(SeatLedger(fleet), "r")
    ledger = seats.ledger

    async def scenario() -> None:
        await seats.take("running", [seated("x", 3), seated("x", 3)])
        await seats.take("ended", [seated("x", 3)])
        await seats.release("ended")
        fleet.client.delete(fleet.key("seats", UNVERSIONED_X))
        await seats.beat()
        assert ledger.entries(UNVERSIONED_X) == {"running": "r:2"}
        await seats.release("running")
        assert ledger.entries(UNVERSIONED_X) == {}

    run(scenario())


def test_a_burst_of_placements_within_the_cached_live_list_is_spread_over_equal_referees(redis_url: str) -> None:
    """A worker places many matches per read of the live list, whose running counts do not
    show the matches it just placed: those count too, and a tie between equally loaded
    referees is broken per match, not by referee id.  Before, the 20 matches of a burst on
    two idle referees all went to the first (which refused them once full)."""
    prefix = f"fleet-{uuid.uuid4().hex[:8]}:"
    worker, referees = directory(redis_url, prefix), directory(redis_url, prefix)
    worker.live_cache_s = 60
    referees.announce("one", "h:1", 16, 0, ["a", "b"])
    referees.announce("two", "h:2", 16, 0, ["a", "b"])
    first_choices = Counter(worker.place(f"m-{index}", ["a", "b"])[0].referee_id for index in range(20))
    assert first_choices == {"one": 10, "two": 10}
    assert {worker.place(f"m-{index}", ["a", "b"])[0].referee_id for index in range(40, 60)} == {"one", "two"}
    fresh = directory(redis_url, prefix)  # a directory that reads the list each time: the same referee
    assert len({fresh.place("m-same", ["a", "b"])[0].referee_id for _ in range(5)}) == 1  # for the same match


def test_a_draining_referees_seats_count_until_it_has_stopped(redis_url: str) -> None:
    """A referee told to stop drains the match it runs: placement, the relays and the fleet
    updates leave it out at once, but the seats of a bot of capacity 1 playing there still
    count fleet-wide, so a match needing the bot on the other referee is refused with
    RESOURCE_EXHAUSTED naming it (before, the draining referee's seats stopped counting as
    it left the directory, and the bot was given a second seat); once the drained match
    ended and the referee stopped, the other referee takes the bot's match."""
    prefix = f"fleet-{uuid.uuid4().hex[:8]}:"
    fleet = directory(redis_url, prefix)
    ledger = SeatLedger(fleet)
    gate = threading.Event()

    async def scenario() -> None:
        async with running_arena(redis_url, prefix, per_decision_ms=30_000, **FAST) as second:
            leaving = running_arena(redis_url, prefix, per_decision_ms=30_000, **FAST)
            first = await leaving.__aenter__()
            try:
                name = f"one-seat-{uuid.uuid4().hex[:6]}"
                narrow = await first.register(name)
                await connect_everywhere([first, second], narrow.token, lambda: GatedBot(gate), capacity=1)
                seats = [narrow.bot_id]
                for _ in range(2):
                    other = await first.register()
                    await connect_everywhere([first, second], other.token, FirstLegalBot, capacity=4)
                    seats.append(other.bot_id)
                await eventually(lambda: {e.address for e in fleet.hosting(seats)} == {first.address, second.address})
                sooner, later = f"m-{uuid.uuid4().hex[:8]}", f"m-{uuid.uuid4().hex[:8]}"
                playing = asyncio.create_task(first.run_match("cutthroat", seats, match_id=sooner, seed=1))
                await eventually(lambda: sooner in first.server.arena.tasks)
                stopping = asyncio.create_task(first.server.stop())
                await eventually(lambda: [e.address for e in fleet.live()] == [second.address])
                assert [e.address for e in fleet.place(later, seats)] == [second.address]
                assert [e.address for e in fleet.hosting([narrow.bot_id])] == [second.address]
                await eventually(lambda: second.server.fleet.addresses == [second.address])  # the bots' fleet
                assert fleet.holder(sooner) == first.server.fleet.referee_id  # its claim is kept
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await asyncio.wait_for(second.run_match("cutthroat", seats, match_id=later, seed=2), 5)
                assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert f"bot '{name}@0' plays 1 of its 1 seats on the referee fleet" in (refused.value.details() or "")
                assert ledger.usage([narrow.bot_id])[narrow.bot_id].in_use == 1
                gate.set()
                assert (await asyncio.wait_for(playing, 30)).result.completed
                await asyncio.wait_for(stopping, 15)
                assert fleet.holder(sooner) == "" and first.server.fleet.referee_id not in fleet.live_ids(draining=True)
                assert (await second.run_match("cutthroat", seats, match_id=later, seed=2)).result.completed
                assert all(ledger.entries(sdk_seat(bot_id)) == {} for bot_id in seats)
            finally:
                gate.set()
                await leaving.__aexit__(None, None, None)

    run(scenario())
