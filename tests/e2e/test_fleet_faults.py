"""End to end: a referee of a two-referee fleet is SIGKILLed in the middle of a tournament.

Real processes (tests/workers and the demo use the same launcher): a private Redis, two
``pitch-arena referee`` processes on one prefix, four ``pitch-bot run`` processes that dial
the first referee only (they find the second through the fleet), and a Celery worker.
The first referee is killed while it runs matches; the bots keep playing on the second,
the killed referee's matches are played again there from their seed, and the tournament
ends with every match recorded exactly once."""

from __future__ import annotations

import secrets
import time
from pathlib import Path

import pytest

from cli.local_arena import LocalArena, wait_for
from competitions.config import WorkerConfig
from competitions.queue import make_app
from competitions.referee_client import RefereeClient
from competitions.tournaments import control as tournament
from competitions.tournaments.store import TournamentStore
from competitions.tournaments.table import PLAYED
from store.fleet import FleetDirectory
from store.redis_store import Store

pytestmark = pytest.mark.slow
TTL_S = 2.0


def test_a_killed_referee_s_matches_are_played_again_elsewhere_and_recorded_once(tmp_path: Path) -> None:
    """Kill -9 the referee the bots dialled while it runs matches: every match of the round
    robin ends PLAYED, each recorded once (the store's match index has one entry per
    match), the killed referee's running matches among them, started again on the other."""
    prefix, admin = f"fleet-e2e-{secrets.token_hex(3)}:", secrets.token_hex(8)
    env = {"PITCH_FLEET_TTL_S": str(TTL_S), "PITCH_SHUTDOWN_GRACE_S": "1", "PITCH_RECONNECT_GRACE_S": "3"}
    with LocalArena(tmp_path) as arena:
        redis_url = arena.start_redis()
        first = arena.start_referee(redis_url, prefix, admin, env, name="referee-1")
        second = arena.start_referee(redis_url, prefix, admin, env, name="referee-2")
        admin_client = RefereeClient(first, admin, match_timeout_s=30)
        bots = []
        for n in range(4):
            registered = admin_client.register(f"random-{n}")
            bots.append(registered.bot_id)
            arena.start_bot(f"random-{n}", "random", first, registered.token, seed=n)
        store = Store.from_url(redis_url, prefix)
        directory = FleetDirectory(store, TTL_S)
        arena.wait_fleet(directory, bots, referees=2)
        config = WorkerConfig(redis_url=redis_url, store_prefix=prefix, referee=first, admin_token=admin,
                              retry_backoff_s=0.5, retry_backoff_max_s=2, match_retries=30, fleet_ttl_s=TTL_S)
        arena.start_worker(config, "fleet-worker", concurrency=2)
        tournaments = TournamentStore(store)
        schedule = tournament.create(tournaments, "partnership", bots, games=1, seed=7,
                                     options={"target": 5})  # short games: the test stays lean
        tournament.launch(make_app(config), tournaments, schedule.tournament_id)

        killed_id = next(e.referee_id for e in directory.live() if e.address == first)
        match_ids = [m.match_id for m in schedule.matches]
        held: list[str] = []

        def first_runs_a_match() -> bool:
            held[:] = [m for m in match_ids if directory.holder(m) == killed_id and store.match_result(m) is None]
            return bool(held)

        wait_for(first_runs_a_match, 60, "a match running on the first referee", arena.services)
        victim = next(s for s in arena.services if s.name == "referee-1")
        victim.kill()
        killed_at = time.monotonic()
        held = [m for m in held if store.match_result(m) is None]  # not finished just before the kill
        assert held, "the first referee finished its matches before the kill: nothing to play again"

        def finished() -> bool:
            return tournaments.table(schedule.tournament_id) is not None

        wait_for(finished, 90, "the tournament to finish", [s for s in arena.services if s is not victim])
        outcomes = tournaments.outcomes(schedule.tournament_id)
        assert len(outcomes) == len(schedule.matches)
        assert all(o["status"] == PLAYED for o in outcomes.values()), outcomes
        assert store.client.zcard(f"{prefix}matches") == len(schedule.matches)  # each recorded once
        second_log = next(s for s in arena.services if s.name == "referee-2").log_path.read_text()
        for match_id in held:  # the killed referee's matches: played again on the second
            assert store.match_result(match_id) is not None
            assert f"match {match_id} started" in second_log
        assert [e.address for e in directory.live()] == [second]
        print(f"killed referee-1 with {len(held)} running match(es); finished "
              f"{time.monotonic() - killed_at:.1f}s later")
