"""Ladders on Celery: keep playing informative line-ups among the connected bots.

A round robin plays every line-up (C(n, 4)·3 pairings for a partnership field of n bots); a
ladder instead plays one line-up at a time, chosen by :mod:`competitions.ratings.matchmaking`
from the board's Bradley–Terry ratings and their intervals (close and uncertain first,
partners rotated), so a large field converges on far fewer matches.

Each *round* is a small tournament (:mod:`competitions.tournaments.control`): the chosen teams
as fixed partnerships, every rotation of the parties on the same deals (duplicate), so a
round is resumable, idempotent on its match ids, rated like any match and visible on the
tournament pages like any other.  :func:`step` plans rounds until ``parallel`` of them run;
it runs when a ladder starts, after each of its rounds ends (the final task of the round's
tournament sends it), and from beat's sweep (a lost step is taken up within
``requeue_interval_s``).  The ratings stay the order-independent Bradley–Terry fit of every
rated match: the ladder only chooses what to play.

Line-ups are drawn from the bots free now (connected, allowed, not in a running round of
the ladder) that play the ladder's preset (their owner chose it, or chose none:
:meth:`store.accounts.Accounts.playing`), by a random generator seeded with the ladder's
seed and the round number.  The choice is read at every round, so a bot enters or leaves
a ladder as its owner changes it.
"""

from __future__ import annotations

import contextlib
import logging
import random
import uuid
from collections.abc import Callable, Sequence
from dataclasses import replace

from celery import Celery

from competitions.ladder.store import LadderSpec, LadderStore
from competitions.ratings.leaderboard import Leaderboard
from competitions.ratings.matchmaking import Rating, next_lineup, ratings_from_rows
from competitions.ratings.model import DEFAULT_CONFIG, EloConfig
from competitions.tournaments import control as tournament
from competitions.tournaments.schedule import TOURNAMENT_ID, ScheduleError
from competitions.tournaments.store import TournamentError, TournamentStore
from pitch_sdk.rules import RulesError, preset
from store.accounts import Accounts
from store.versions import BotVersions

log = logging.getLogger("pitch.workers")
LADDER_STEP = "pitch.ladder_step"


def create(ladders: LadderStore, preset_name: str, *, matches: int, games: int = 1, seed: int = 0,
           parallel: int = 2, bots: Sequence[str] | None = None, ladder_id: str | None = None) -> LadderSpec:
    """Store a new ladder (refuses a bad one with :class:`ScheduleError`)."""
    spec = LadderSpec(ladder_id or f"ladder-{uuid.uuid4().hex[:10]}", preset_name, matches, games, seed, parallel,
                      None if bots is None else tuple(sorted(set(bots))))
    if not TOURNAMENT_ID.fullmatch(spec.ladder_id) or len(spec.ladder_id) > 48:
        raise ScheduleError(f"bad ladder id {spec.ladder_id!r}: use 1-48 letters, digits, '-' or '_'")
    if matches < 0 or games < 1 or parallel < 1 or seed < 0:
        raise ScheduleError("matches and seed must not be negative; games and parallel must be at least 1")
    try:
        rules = preset(preset_name)
    except RulesError as exc:
        raise ScheduleError(str(exc)) from None
    if bots is not None and len(set(bots)) < rules.players:
        raise ScheduleError(f"{preset_name} seats {rules.players} players; got {len(set(bots))} bot(s)")
    ladders.save_spec(spec)
    return spec


def start(app: Celery, ladder_id: str) -> None:
    """Have a worker take the ladder's next step."""
    app.signature(LADDER_STEP, (ladder_id,), immutable=True).apply_async()


def resume(app: Celery, ladders: LadderStore, tournaments: TournamentStore, ladder_id: str) -> int:
    """Resume a ladder after any restart: every unfinished round is launched again (only
    its matches without an outcome are sent), then a step is sent; returns the matches sent."""
    ladders.spec(ladder_id)
    sent = sum(tournament.launch(app, tournaments, round_id) for round_id in ladders.open_rounds(ladder_id)
               if tournaments.table(round_id) is None)
    start(app, ladder_id)
    return sent


def step(app: Celery, ladders: LadderStore, tournaments: TournamentStore, connected: Callable[[], Sequence[str]],
         ladder_id: str, config: EloConfig = DEFAULT_CONFIG) -> list[str]:
    """Plan and launch rounds until ``parallel`` run or the ladder's matches are planned;
    mark the ladder over once they are and every round ended.  ``connected`` gives the bots
    connected now (less the arena's house bots), asked only when a round is to be planned.
    Returns the new rounds' ids."""
    if ladders.finished(ladder_id):
        return []
    spec = ladders.spec(ladder_id)
    rules = preset(spec.preset)
    started: list[str] = []
    while True:
        open_rounds = ladders.open_rounds(ladder_id)
        running = [r for r in open_rounds if tournaments.table(r) is None]
        ladders.close_rounds(ladder_id, [r for r in open_rounds if r not in running])
        count, planned = ladders.round_count(ladder_id), ladders.planned(ladder_id)
        if spec.matches and planned >= spec.matches:
            if not running and ladders.finish(ladder_id):
                log.info("ladder %s finished: %d rounds, %d matches", ladder_id, count, planned)
            return started
        if len(running) >= spec.parallel:
            return started
        busy = {bot for r in running for bot in tournaments.plan(r).entrants}
        idle = [bot for bot in connected() if bot not in busy and (spec.bots is None or bot in spec.bots)]
        free = sorted(Accounts(ladders.store).playing(spec.preset, idle))  # one round trip
        if len(free) < rules.players:
            log.info("ladder %s waits: %d bot(s) free that play %s (%d more play other presets only), it seats %d",
                     ladder_id, len(free), spec.preset, len(idle) - len(free), rules.players)
            return started
        round_id = f"{ladder_id}-{count + 1}"
        lineup = next_lineup(_beliefs(ladders, spec, free, config), rules.players, rules.seating.team_size,
                             random.Random(f"{spec.seed}:{round_id}"), partnered=ladders.partnered(ladder_id))
        entrants = sorted({bot for team in lineup.teams for bot in team})
        # TournamentError: another step planned this round (or planned it and died): take it up
        with contextlib.suppress(TournamentError):
            tournament.create(tournaments, spec.preset, entrants, games=spec.games, seed=spec.seed + count,
                              teams=lineup.teams, tournament_id=round_id)
        plan = tournaments.plan(round_id)
        if not ladders.add_round(ladder_id, round_id, plan.teams, len(plan.matches)):
            return started  # another step noted it and launches it
        tournament.launch(app, tournaments, round_id)
        started.append(round_id)


def _beliefs(ladders: LadderStore, spec: LadderSpec, bots: Sequence[str], config: EloConfig) -> dict[str, Rating]:
    """Each free bot's rating belief: the Bradley–Terry row of its current version (the
    cached table: a large board is never refitted while a worker waits), else the prior."""
    rows = Leaderboard(ladders.store, spec.preset, config, all_versions=True).fitted_cached()
    current = BotVersions(ladders.store).current_of(list(bots))
    by_rated = {row.bot_id: row for row in rows}
    mine = [replace(by_rated[current.get(bot, bot)], bot_id=bot) for bot in bots if current.get(bot, bot) in by_rated]
    return ratings_from_rows(mine, bots, initial=config.initial)


def progress(ladders: LadderStore, tournaments: TournamentStore, ladder_id: str) -> tournament.Progress:
    """A ladder's progress as one tournament's: its matches so far against its target (the
    matches planned, for a ladder without one)."""
    spec = ladders.spec(ladder_id)
    played = not_played = running = total = 0
    for round_id in ladders.rounds(ladder_id):
        now = tournament.progress(tournaments, round_id)
        played, not_played, running, total = (played + now.played, not_played + now.not_played,
                                               running + now.in_progress, total + now.total)
    return tournament.Progress(ladder_id, spec.preset, max(spec.matches, total), played, not_played, running,
                               ladders.finished(ladder_id))

