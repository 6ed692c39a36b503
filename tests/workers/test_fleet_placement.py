"""The workers' placement of matches on a referee fleet: two real referees on one Redis
(each on its own event loop), SDK bots, and the synchronous fleet client the Celery task
uses."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from competitions.config import WorkerConfig
from competitions.referee_client import FleetReferees, NoRefereeFits
from competitions.tournaments.schedule import round_robin
from store.fleet import FleetDirectory
from store.redis_store import Store
from store.seats import SeatLedger, SeatNeed
from tests.cli.test_cli import invoke
from tests.referee.harness import sdk_seat
from tests.workers.celery_harness import ArenaThread, WorkerProcess, referee_fleet, wait_until


@pytest.fixture()
def fleet(redis_url: str) -> Iterator[tuple[ArenaThread, ArenaThread]]:
    """Two referees sharing one key prefix: one arena, two referee processes' worth."""
    with referee_fleet(redis_url) as referees:
        yield referees


def client(redis_url: str, first: ArenaThread) -> FleetReferees:
    directory = FleetDirectory(Store.from_url(redis_url, first.prefix))
    return FleetReferees(first.arena.address, "test-admin", 60, directory)


def ran_on(arena: ArenaThread, match_id: str) -> bool:
    """Whether the referee ran ``match_id`` itself (the start counters are per process, and
    both referees of these tests share one)."""
    state = arena.arena.server.arena
    return match_id in state.finished or match_id in state.matches


def test_a_match_goes_where_every_seat_is_connected_and_the_least_busy_referee(
        redis_url: str, fleet: tuple[ArenaThread, ArenaThread]) -> None:
    """A bot that connects to one referee only (here the second) has its matches placed
    there first (every seat local, no relay); bots connected to both referees play on
    either."""
    first, second = fleet
    both = [first.register() for _ in range(3)]
    for _, token in both:
        first.connect_registered(token, "random")
        second.connect_registered(token, "random")
    lonely_id, lonely_token = second.register()
    second.connect_registered(lonely_token, "random")
    referees = client(redis_url, first)
    wait_until(lambda: len(referees.directory.hosting([lonely_id, *(b for b, _ in both)])) == 1
               and len(referees.directory.hosting([b for b, _ in both])) == 2, 10, "the directory to list the bots")
    schedule = round_robin(uuid.uuid4().hex[:8], [lonely_id, *(b for b, _ in both)], "cutthroat", games=1)
    with_lonely = next(m for m in schedule.matches if lonely_id in m.seats)
    without = next(m for m in schedule.matches if lonely_id not in m.seats)
    assert referees.addresses_for(with_lonely) == [second.arena.address, first.arena.address]  # all seats local
    assert set(referees.addresses_for(without)) == {first.arena.address, second.arena.address}
    result = referees.run_match(schedule, with_lonely)
    assert result["completed"] and ran_on(second, with_lonely.match_id) and not ran_on(first, with_lonely.match_id)
    assert set(referees.connected_bots()) == {lonely_id, *(b for b, _ in both)}


def test_a_full_referee_refuses_and_the_match_goes_to_the_next(
        redis_url: str, fleet: tuple[ArenaThread, ArenaThread]) -> None:
    """When the directory is behind (it shows room on a referee that has none), that
    referee refuses with RESOURCE_EXHAUSTED and the same call offers the match to the next
    referee, which plays it."""
    first, second = fleet
    bots = [first.register() for _ in range(3)]
    for _, token in bots:
        first.connect_registered(token, "random")
        second.connect_registered(token, "random")
    first.arena.server.arena.config = first.arena.server.arena.config.__class__(
        **{**first.arena.server.arena.config.__dict__, "max_matches": 0})  # full from now on
    referees = client(redis_url, first)
    seats = [b for b, _ in bots]
    wait_until(lambda: len(referees.directory.hosting(seats)) == 2, 10, "both referees listed")
    first_id = first.arena.server.fleet.referee_id
    referees.directory.client.hset(f"{first.prefix}fleet:referee:{first_id}", mapping={"capacity": 9999})
    schedule = round_robin(uuid.uuid4().hex[:8], seats, "cutthroat", games=1)
    match = schedule.matches[0]
    assert referees.addresses_for(match)[0] == first.arena.address  # most room, so offered first
    result = referees.run_match(schedule, match)
    assert result["completed"] and ran_on(second, match.match_id) and not ran_on(first, match.match_id)


def test_bots_connected_to_different_referees_play_through_a_relay(
        redis_url: str, fleet: tuple[ArenaThread, ArenaThread]) -> None:
    """Bots that each connected to one referee, not all the same one, are seated together:
    the match goes to the referee where most of its seats are connected and the other
    bot's seat is relayed (before the relay it was refused and retried, then recorded as
    not played); a bot connected to no referee is still a transient refusal naming it."""
    first, second = fleet
    one_id, one_token = first.register()
    first.connect_registered(one_token, "random")
    other_id, other_token = second.register()
    second.connect_registered(other_token, "random")
    third_id, third_token = first.register()
    first.connect_registered(third_token, "random")
    offline_id, _ = first.register()
    referees = client(redis_url, first)
    wait_until(lambda: referees.directory.connected_bots() == {one_id, other_id, third_id}, 10, "bots listed")
    schedule = round_robin(uuid.uuid4().hex[:8], [one_id, other_id, third_id], "cutthroat", games=1)
    match = schedule.matches[0]
    result = referees.run_match(schedule, match)
    assert result["completed"] and ran_on(first, match.match_id) and not ran_on(second, match.match_id)
    assert all(seat["decisions"] > 0 and seat.get("strikes", 0) == 0 for seat in result["seats"])
    with_offline = round_robin(uuid.uuid4().hex[:8], [one_id, other_id, offline_id], "cutthroat", games=1)
    with pytest.raises(NoRefereeFits) as refused:
        referees.run_match(with_offline, with_offline.matches[0])
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert f"bot {offline_id} is not connected to any live referee" in refused.value.details()


def test_the_cli_counts_a_bot_connected_to_any_referee_as_connected(
        redis_url: str, fleet: tuple[ArenaThread, ArenaThread], tmp_path: Path) -> None:
    """PITCH_REFEREE names the first referee, the entrants are connected to the second only:
    `pitch-arena bots` shows them connected, with the capacity they declared and the seats
    they play fleet-wide (the ledger's), and `pitch-arena tournament` accepts them (its
    up-front offline check used to ask the first referee alone and refuse them), and a
    worker plays their match on the second."""
    first, second = fleet
    entrants = [second.connect("random") for _ in range(3)]  # cutthroat: three seats, three rotations
    lonely = first.register()[0]  # registered, connected nowhere: still offline
    env = {"REDIS_URL": redis_url, "PITCH_STORE_PREFIX": first.prefix, "PITCH_ADMIN_TOKEN": "test-admin",
           "PITCH_REFEREE": first.arena.address, "PITCH_MATCH_RETRIES": "0", "COLUMNS": "200"}
    directory = FleetDirectory(Store.from_url(redis_url, first.prefix))
    wait_until(lambda: set(entrants) <= directory.connected_bots(), 10, "the directory to list the bots")
    ledger = SeatLedger(directory)
    on_second = next(e.referee_id for e in directory.live() if e.address == second.arena.address)
    held = sdk_seat(entrants[0])  # the ledger counts each version's seats
    assert ledger.take(on_second, "held-on-second", {held: SeatNeed(1, 1)}) is None  # as a running match
    code, out, err = invoke(env, "bots", "--json")
    ledger.release(on_second, "held-on-second", [held])
    assert code == 0, err
    listed = {bot["bot_id"]: bot for bot in json.loads(out)}
    assert all(listed[bot]["connected"] for bot in entrants) and listed[lonely]["connected"] is False
    declared = second.arena.server.arena.registry.get(entrants[0]).capacity  # what its stream told the second
    seats = [(listed[bot]["seats_in_use"], listed[bot]["capacity"]) for bot in entrants]
    assert seats == [(1, declared), (0, declared), (0, declared)]  # fleet-wide, not the first referee's
    worker = WorkerProcess(WorkerConfig.from_env(env), "fleet-cli", tmp_path)
    try:
        code, out, err = invoke(env, "tournament", "cutthroat", "--bots", ",".join(entrants), "--json")
    finally:
        worker.stop()
    assert code == 0, (out, err, worker.log()[-3000:])
    assert "not connected" not in err
    played = json.loads(out)
    assert played["played"] == played["matches"] == 3
    match_ids = [f"{played['tournament_id']}.{index}" for index in range(3)]
    assert all(ran_on(second, match_id) and not ran_on(first, match_id) for match_id in match_ids)
