"""Several referees on one Redis: the fleet directory, the fleet in the welcome, and one
run per match id fleet-wide (real referees on loopback, real Redis, SDK bot clients)."""

from __future__ import annotations

import asyncio
import socket
import time
import uuid

from pitch_sdk.proto.pitch.v1 import bot_pb2
from pitch_sdk.remote.client import BotClient
from pitch_sdk.remote.fleet import FleetBot
from referee.config import RefereeConfig
from referee.fleet import advertised_address
from tests.referee.bots import FirstLegalBot
from tests.referee.harness import FAST, RawBot, directory, eventually, played_here, run, running_arena


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
