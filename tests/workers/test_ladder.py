"""Ladders with real parts: a private redis-server, a real referee with SDK bots over loopback
gRPC and a real Celery worker, driven through ``pitch-arena ladder``."""

from __future__ import annotations

import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from competitions.config import WorkerConfig
from competitions.ladder import control
from competitions.ladder.store import LadderStore
from competitions.queue import make_app
from competitions.ratings.leaderboard import Leaderboard
from competitions.tournaments.schedule import ScheduleError
from competitions.tournaments.store import TournamentStore
from competitions.tournaments.table import PLAYED
from store.accounts import Accounts
from store.redis_store import Store
from tests.cli.test_cli import invoke, line_of
from tests.workers.celery_harness import (
    ArenaThread,
    WorkerProcess,
    arena_per_test,  # noqa: F401 (the fixture "arena": a referee of each test's own)
    wait_until,
)
from tests.workers.test_tournament import worker_config


def test_beat_steps_an_endless_ladder_per_configured_preset() -> None:
    beat = make_app(WorkerConfig(auto_ladder_presets="partnership, cutthroat", requeue_interval_s=5)).conf.beat_schedule
    assert beat["ladder-cutthroat"] == {"task": "pitch.auto_ladder", "schedule": 5.0, "args": ("cutthroat",),
                                        "options": {"expires": 5.0}}
    assert "ladder-partnership" in beat and not any(
        name.startswith("ladder-") for name in make_app(WorkerConfig()).conf.beat_schedule)


def test_a_ladder_that_cannot_run_is_refused(redis_url: str) -> None:
    ladders = LadderStore(Store.from_url(redis_url, f"test-{uuid.uuid4().hex[:8]}:"))
    with pytest.raises(ScheduleError, match="seats 4 players"):
        control.create(ladders, "partnership", matches=4, bots=["a", "b", "c"])
    with pytest.raises(ScheduleError, match="unknown preset"):
        control.create(ladders, "no-such-preset", matches=4)
    assert ladders.ladder_ids() == []


def test_a_ladder_draws_only_bots_that_play_its_preset(redis_url: str) -> None:
    """"Enters the version into the presets' ladders": a ladder's line-ups draw only the
    bots that play its preset (their owner chose it, or chose none, as every bot the
    operator registered); an author who chose other presets is left out even when the
    ladder has no one else to seat, and enters as soon as the choice includes its preset.
    The step launches its round on a real broker (no worker)."""
    config = worker_config(redis_url, f"ladder-presets-{uuid.uuid4().hex[:8]}:")
    store = Store.from_url(redis_url, config.store_prefix)
    ladders, tournaments = LadderStore(store), TournamentStore(store)
    accounts = Accounts(store)
    author = accounts.create(f"author-{uuid.uuid4().hex[:6]}", "author-password")
    operators = [store.register_bot(f"operators-{n}")[0].bot_id for n in range(3)]
    elsewhere = accounts.create_bot(author, "plays-cutthroat", presets=["cutthroat"])[0].bot_id
    chooser = accounts.create_bot(author, "plays-partnership", presets=["cutthroat", "partnership"])[0].bot_id
    app = make_app(config)
    try:
        control.create(ladders, "partnership", matches=0, parallel=2, ladder_id="presets")
        assert control.step(app, ladders, tournaments, lambda: [*operators, elsewhere], "presets") == []
        (round_id,) = control.step(app, ladders, tournaments, lambda: [*operators, elsewhere, chooser], "presets")
        assert set(tournaments.plan(round_id).entrants) == {*operators, chooser}
        accounts.set_presets(author, "plays-cutthroat", ["partnership"])
        accounts.set_presets(author, "plays-partnership", [])
        control.create(ladders, "partnership", matches=0, parallel=1, ladder_id="again")
        (again,) = control.step(app, ladders, tournaments, lambda: [*operators, elsewhere], "again")
        assert set(tournaments.plan(again).entrants) == {*operators, elsewhere}
    finally:
        for key in store.client.scan_iter(f"{store.prefix}*"):
            store.client.delete(key)


@pytest.mark.slow
def test_ladder_plays_rounds_of_chosen_lineups_with_rotating_partners(arena: ArenaThread, redis_url: str,
                                                                      tmp_path: Path) -> None:
    """`pitch-arena ladder partnership --matches 4` over four connected bots: the workers
    play two rounds, each one line-up as a duplicate pair of matches, the second with new
    partners; every match is rated, the ladder ends, and the leaderboard shows each bot
    with its Bradley–Terry interval."""
    bots = [arena.connect("heuristic") for _ in range(4)]
    config = worker_config(redis_url, arena.prefix, f"127.0.0.1:{arena.arena.server.port}")
    store = Store.from_url(redis_url, config.store_prefix)
    names = {bot: store.bot(bot).name for bot in bots}  # type: ignore[union-attr]
    env = {"REDIS_URL": redis_url, "PITCH_STORE_PREFIX": arena.prefix, "PITCH_ADMIN_TOKEN": "test-admin",
           "PITCH_REFEREE": f"127.0.0.1:{arena.arena.server.port}", "COLUMNS": "200", **config.to_env()}
    worker = WorkerProcess(config, "ladder", tmp_path)
    try:
        code, out, err = invoke(env, "ladder", "partnership", "--matches", "4", "--bots", ",".join(bots))
    finally:
        worker.stop()
        print(worker.log()[-3000:])
    assert code == 0, err + out
    ladders, tournaments = LadderStore(store), TournamentStore(store)
    ladder_id = ladders.ladder_ids()[0]
    rounds = ladders.rounds(ladder_id)
    assert ladders.finished(ladder_id) and rounds == [f"{ladder_id}-1", f"{ladder_id}-2"]
    plans = [tournaments.plan(r) for r in rounds]
    assert all(len(plan.matches) == 2 and plan.matches[0].seed == plan.matches[1].seed for plan in plans)
    partners = [{frozenset(team) for team in plan.teams} for plan in plans]
    assert partners[0].isdisjoint(partners[1]), "the second round keeps the first round's partners"
    assert ladders.partnered(ladder_id) == dict.fromkeys(partners[0] | partners[1], 1)
    played = [o for r in rounds for o in tournaments.outcomes(r).values()]
    assert len(played) == 4 and all(o["status"] == PLAYED for o in played)
    board = Leaderboard(store, "partnership")
    assert all(board.applied(o["match_id"]) for o in played)
    fitted = {row.bot_id: row for row in board.fitted()}
    for bot in bots:
        row = fitted[bot]
        assert row.lower is not None and row.upper is not None
        assert f" {row.lower:.0f}–{row.upper:.0f}" in line_of(out, names[bot])
    assert "2 round(s)" in out
    assert ladders.open_rounds(ladder_id) == [] and ladders.planned(ladder_id) == 4


@pytest.mark.slow
def test_beat_keeps_an_automated_ladder_playing(arena: ArenaThread, redis_url: str, tmp_path: Path) -> None:
    """With PITCH_AUTO_LADDER_PRESETS, beat creates the preset's endless ladder and keeps
    stepping it: rounds follow one another among the connected bots, each rated."""
    for _ in range(4):
        arena.connect("heuristic")
    config = replace(worker_config(redis_url, arena.prefix, f"127.0.0.1:{arena.arena.server.port}"),
                     auto_ladder_presets="partnership")
    store = Store.from_url(redis_url, config.store_prefix)
    ladders, tournaments = LadderStore(store), TournamentStore(store)
    worker = WorkerProcess(config, "beat", tmp_path, beat=True)
    try:
        wait_until(lambda: sum(tournaments.table(r) is not None for r in ladders.rounds("auto-ladder-partnership"))
                   >= 2, 60, "two rounds of the automated ladder")
    finally:
        worker.stop()
        print(worker.log()[-3000:])
    first = ladders.rounds("auto-ladder-partnership")[0]
    board = Leaderboard(store, "partnership")
    assert all(board.applied(o["match_id"]) for o in tournaments.outcomes(first).values())
    assert not ladders.finished("auto-ladder-partnership")
