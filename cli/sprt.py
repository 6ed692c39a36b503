"""``pitch-arena sprt``: a sequential probability ratio test between two bots, on the workers.

The run is planned in Redis and played by the Celery workers in duplicate pairs
(:mod:`competitions.sprt.control`); this command only starts (or resumes) it and follows it
from Redis: the LLR between its bounds and the games against the cap, live.  Interrupting
it only stops following; ``--resume ID`` follows again (and plays again what a restart or
an offline bot left unplayed).

Exit codes as for every command (:mod:`cli.main`): 0 a verdict (or the cap) was
reached; 1 the run stalled (a match not played), or a service could not be reached; 2 the
input was wrong.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from cli import common
from cli.watch import poll_until
from competitions.queue import make_app
from competitions.sprt import control as sprt_control
from competitions.sprt.plan import MAX_GAMES, SprtSpec
from competitions.sprt.store import SprtStore
from competitions.tournaments.schedule import ScheduleError
from competitions.tournaments.store import TournamentError
from store.seat_keys import bot_of_seat, seat_label

ShowProgress = Callable[[sprt_control.SprtProgress, str | None], None]


def sprt(
    new: Annotated[str | None, typer.Argument(
        metavar="NEW", help="The bot under test, by name or id; NAME@VERSION for one version of it.")] = None,
    old: Annotated[str | None, typer.Argument(
        metavar="OLD", help="The bot it is compared with (NAME@VERSION: another version of the same bot).")] = None,
    preset: Annotated[str, typer.Option(help="A two-sided preset (partnership presets).")] = "partnership",
    elo0: Annotated[float, typer.Option(help="H0: NEW is this much stronger (normalized Elo).")] = 0.0,
    elo1: Annotated[float, typer.Option(help="H1: NEW is this much stronger (normalized Elo).")] = 10.0,
    alpha: Annotated[float, typer.Option(help="False positive rate (H1 accepted when H0 holds).")] = 0.05,
    beta: Annotated[float, typer.Option(help="False negative rate (H0 accepted when H1 holds).")] = 0.05,
    partner: Annotated[str | None, typer.Option(
        help="A fixed partner for both sides (default: each bot partners itself).")] = None,
    max_games: Annotated[int, typer.Option(min=2, max=MAX_GAMES, help="The game cap: stop there without a "
                                                                      "verdict.")] = 2000,
    parallel: Annotated[int, typer.Option(
        min=1, help="Duplicate pairs played at once (each takes 4 seats of a self-partnered bot: raise it with the "
                    "bots' --capacity).")] = 1,
    seed: Annotated[int, typer.Option(min=0, help="Base seed: the same seed deals the same cards.")] = 1,
    options: Annotated[str, typer.Option(help="Options over the preset as a JSON object.")] = "",
    resume: Annotated[str | None, typer.Option(
        help="Resume run ID: plays again what is missing or was not played, then follows.")] = None,
) -> None:
    """Test whether NEW is stronger than OLD: an SPRT over duplicate pairs, on the workers.

    Pairs of one-game matches on the same deals with the sides swapped, fed to the
    pentanomial SPRT (as fishtest runs it); stops when the LLR reaches a bound (H1: NEW is
    at least elo1 stronger; H0: at most elo0) or at the game cap, and records the verdict.
    A live bar shows the LLR between its bounds."""

    if (new is None or old is None) and resume is None:
        common.fail("give NEW and OLD for a new run, or --resume ID")
    config = common.worker_config()
    console = common.console()
    sprts = SprtStore(common.open_store(config))
    celery = make_app(config)
    with common.reaching(config):
        if resume is None:
            assert new is not None and old is not None
            try:
                overrides = json.loads(options) if options else {}
            except json.JSONDecodeError as exc:
                common.fail(f"--options is not JSON: {exc}")
            if not isinstance(overrides, dict):
                common.fail("--options must be a JSON object")
            ids, _ = common.entrants(common.fleet_referee(config), [new, old, *([partner] if partner else [])], None,
                                     config, False, versions=True)
            spec = SprtSpec(f"sprt-{uuid.uuid4().hex[:10]}", preset, ids[0], ids[1], ids[2] if partner else None,
                            elo0, elo1, alpha, beta, max_games, seed, overrides, parallel)
            try:
                sprt_control.create(sprts, spec)
            except ScheduleError as exc:
                common.fail(str(exc))
            run_id = spec.run_id
        else:
            run_id = resume
        try:
            sent = sprt_control.launch(celery, sprts, run_id)
        except TournamentError as exc:
            common.fail(str(exc))
        console.print(f"SPRT {run_id}: {sent} match(es) sent to the workers")
        if sent and not celery.control.ping(timeout=1.0):
            console.print("[yellow]no worker answered: the matches wait in Redis until one starts "
                          "(pitch-arena worker)[/]")
        first = sprt_control.progress(sprts, run_id)
        names = sprts.store.bot_names([bot_of_seat(first.spec.new), bot_of_seat(first.spec.old)])
        label = f"{seat_label(first.spec.new, names)} vs {seat_label(first.spec.old, names)}"
        try:
            with _display(console, label, first.spec.max_games) as show:
                final = poll_until(lambda: sprt_control.progress(sprts, run_id), show,
                                   lambda p: p.finished or p.stalled_reason is not None, first)
        except KeyboardInterrupt:
            common.fail(f"stopped following; the workers go on: pitch-arena sprt --resume {run_id}", 130)
    if final.verdict is None:
        common.fail(f"SPRT {run_id} stalled: {final.stalled_reason}; play it again with "
                    f"pitch-arena sprt --resume {run_id}",
              1)
    console.print(verdict_line(run_id, final.verdict))


def verdict_line(run_id: str, verdict: dict[str, Any]) -> str:
    """How a finished run ended, in one line."""
    outcome = {"H1": "H1 accepted: NEW is stronger", "H0": "H0 accepted: NEW is not stronger"}.get(
        str(verdict["verdict"]), "no verdict: the game cap was reached")
    return (f"SPRT {run_id}: {outcome} (LLR {verdict['llr']:.2f} in [{verdict['lower']:.2f}, "
            f"{verdict['upper']:.2f}], {verdict['games']} games, pentanomial {verdict['counts']}, "
            f"Elo {verdict['elo']:+.1f} [{verdict['elo_lower']:+.1f}, {verdict['elo_upper']:+.1f}])")


def _llr_text(now: sprt_control.SprtProgress) -> str:
    status = now.standing.status
    return f"LLR {status.llr:+.2f} in [{status.lower:.2f}, {status.upper:.2f}]"


def _status_text(now: sprt_control.SprtProgress, note: str | None) -> str:
    if note is not None:
        return note
    status = now.standing.status
    words = [f"Elo {status.elo.elo:+.0f}", f"pairs {list(status.counts)}", f"{now.running} running"]
    if now.stalled_reason:
        words.append(f"stalled: {now.stalled_reason}")
    return ", ".join(words)


@contextmanager
def _display(console: Console, label: str, max_games: int) -> Iterator[ShowProgress]:
    """Two live bars on a terminal (the LLR from its lower to its upper bound, the games
    against the cap), else a printed line whenever the counted games change."""
    if console.is_terminal:
        columns = (TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[status]}"),
                   TimeElapsedColumn())
        with Progress(*columns, console=console) as bars:
            llr = bars.add_task("LLR", total=1.0, status="")
            games = bars.add_task("games", total=max_games, status="")

            def update(now: sprt_control.SprtProgress, note: str | None) -> None:
                status = now.standing.status
                span = status.upper - status.lower
                bars.update(llr, description=f"{label}: {_llr_text(now)}",
                            completed=min(1.0, max(0.0, (status.llr - status.lower) / span)), status="")
                bars.update(games, description=f"{status.games}/{max_games} games",
                            completed=status.games, status=_status_text(now, note))

            yield update
        return
    shown: list[tuple[int, bool, bool]] = []

    def show(now: sprt_control.SprtProgress, note: str | None) -> None:
        key = (now.standing.status.games, note is not None, now.stalled_reason is not None)
        if not shown or shown[-1] != key:
            shown.append(key)
            console.print(f"{label}: {now.standing.status.games}/{max_games} games, {_llr_text(now)} "
                          f"({_status_text(now, note)})")

    yield show
