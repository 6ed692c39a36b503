"""``pitch-arena ladder``: matchmaking play among the connected bots, on the workers.

The ladder is stored in Redis and stepped by the Celery workers (:mod:`competitions.ladder.control`):
each round a line-up chosen from the ratings and their uncertainty, played as a small
duplicate tournament.  This command starts (or resumes) one and follows its matches against
the target, then prints the preset's leaderboard (live Elo and the order-independent
Bradley–Terry fit, each with its 95% interval).  Interrupting it only stops following.
"""

from __future__ import annotations

from typing import Annotated

import typer

from cli import common, views
from cli.watch import poll_until, progress_display
from competitions.ladder import control as ladder_control
from competitions.ladder.store import LadderStore
from competitions.queue import make_app
from competitions.ratings.leaderboard import Leaderboard
from competitions.tournaments.schedule import ScheduleError
from competitions.tournaments.store import TournamentError, TournamentStore


def ladder(
    preset: Annotated[str | None, typer.Argument(metavar="PRESET", help="Preset; omit with --resume.")] = None,
    matches: Annotated[int, typer.Option(min=1, help="Matches to play in all.")] = 20,
    bots: Annotated[list[str] | None, typer.Option(
        "--bots", "-b", help="Bots it may choose from, by name or id; default: every connected bot.")] = None,
    games: Annotated[int, typer.Option(min=1, help="Games per match.")] = 1,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the deals and of the line-up choice.")] = 1,
    parallel: Annotated[int, typer.Option(min=1, help="Rounds (line-ups) played at once.")] = 2,
    top: Annotated[int, typer.Option(min=1, help="Leaderboard rows shown at the end.")] = 20,
    resume: Annotated[str | None, typer.Option(help="Resume ladder ID after any restart, then follow.")] = None,
) -> None:
    """Play a ladder: line-ups chosen by rating closeness and uncertainty, partners rotated.

    Instead of every line-up of a round robin, each round plays the most informative one
    among the connected bots, so a large field converges in far fewer matches; the
    ratings stay the order-independent Bradley–Terry fit, shown with their intervals."""

    if (preset is None) == (resume is None):
        common.fail("give a PRESET for a new ladder, or --resume ID")
    config = common.worker_config()
    console = common.console()
    store = common.open_store(config)
    ladders, tournaments = LadderStore(store), TournamentStore(store)
    celery = make_app(config)
    with common.reaching(config):
        if resume is None:
            assert preset is not None
            allowed = common.entrants(common.fleet_referee(config), bots, None, config, False)[0] if bots else None
            try:
                spec = ladder_control.create(ladders, preset, matches=matches, games=games, seed=seed,
                                             parallel=parallel, bots=allowed)
            except ScheduleError as exc:
                common.fail(str(exc))
            ladder_id = spec.ladder_id
            ladder_control.start(celery, ladder_id)
        else:
            ladder_id = resume
            try:
                ladder_control.resume(celery, ladders, tournaments, ladder_id)
            except TournamentError as exc:
                common.fail(str(exc))
        board_name = ladders.spec(ladder_id).preset
        console.print(f"ladder {ladder_id}: its first step is sent to the workers")
        if not celery.control.ping(timeout=1.0):
            console.print("[yellow]no worker answered: the ladder waits in Redis until one starts "
                          "(pitch-arena worker)[/]")
        first = ladder_control.progress(ladders, tournaments, ladder_id)
        try:
            with progress_display(console, f"{board_name} {ladder_id}", first.total) as show:
                poll_until(lambda: ladder_control.progress(ladders, tournaments, ladder_id), show,
                           lambda now: now.finished, first)
        except KeyboardInterrupt:
            common.fail(f"stopped following; the workers go on: pitch-arena ladder --resume {ladder_id}", 130)
        fitted, live = Leaderboard(store, board_name, config.elo).standings(top)
        names = {**common.bot_names(store), **store.bot_names([row.bot_id for row in fitted])}
        console.print(views.leaderboard_table(board_name, fitted, live, names))
        rounds = ladders.rounds(ladder_id)
        listed = ", ".join(rounds[:3]) + (" …" if len(rounds) > 3 else "")
        console.print(f"{len(rounds)} round(s), each a tournament: {listed}")
