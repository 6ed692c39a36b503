"""``pitch-arena``: run the arena's services, register bots, run tournaments, read results.

Every command is configured like the services themselves, by ``REDIS_URL`` and the
``PITCH_*`` variables of :mod:`competitions.config` (``PITCH_REFEREE``, ``PITCH_ADMIN_TOKEN``,
``PITCH_STORE_PREFIX``, ...), so one environment serves a whole deployment.  Admin actions
(``register``, ``bots``) go through the referee's admin API; results are read from Redis
through the store modules.

Exit codes: 0 success; 1 a service failed or could not be reached; 2 the input was wrong;
130 interrupted.
"""

from __future__ import annotations

import os
import signal
from typing import Annotated

import grpc
import redis
import typer
from rich.console import Console

from cli import as_json, common, views
from cli.bot_host import bot_host
from cli.demo import DEFAULT_LINEUP, DEFAULT_PRESET, lineup, run_demo
from cli.ladder import ladder as ladder_command
from cli.local_arena import ServiceError
from cli.match import match as match_command
from cli.ready import ready as ready_command
from cli.sprt import sprt as sprt_command
from cli.switches import account_app, bot_app
from cli.watch import follow
from competitions.queue import make_app
from competitions.ratings.leaderboard import Leaderboard, boards, tournament_table
from competitions.tournaments import control as tournaments_api
from competitions.tournaments.schedule import ScheduleError
from competitions.tournaments.store import TournamentError, TournamentStore
from competitions.tournaments.table import NOT_PLAYED, PLAYED
from pitch_sdk.bots import BotLoadError
from referee.__main__ import main as referee_main
from store.data_dir import data_dir
from store.versions import BotVersions
from web.__main__ import main as web_main

app = typer.Typer(
    help="Pitch Arena: run the referee, workers and beat; register bots; run tournaments; show leaderboards and "
         "match logs.  Configured by REDIS_URL and PITCH_* variables.",
    no_args_is_help=True, add_completion=False)
app.command("referee")(referee_main)
app.command("web")(web_main)
app.command("match")(match_command)
app.command("sprt")(sprt_command)
app.command("ladder")(ladder_command)
app.command("ready")(ready_command)
app.add_typer(account_app, name="account")
app.add_typer(bot_app, name="bot")
app.command("bot-host")(bot_host)

#: Commands that pass what follows ``--`` to Celery (before it, an unknown option is an error).
PASS_THROUGH = {"allow_extra_args": True}
SeedOption = Annotated[int, typer.Option(min=0, help="Base seed: the same seed deals the same cards.")]
GamesOption = Annotated[int, typer.Option(min=1, help="Games per match.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON on standard output (keys in the README) "
                                                         "instead of a table.")]


@app.command(context_settings=PASS_THROUGH)
def worker(
    ctx: typer.Context,
    concurrency: Annotated[int, typer.Option(min=0, help="Matches played at once; 0: one per CPU.")] = 0,
    name: Annotated[str, typer.Option(help="Celery node name (%h: the host name).")] = "worker@%h",
    loglevel: Annotated[str, typer.Option(help="DEBUG, INFO, WARNING or ERROR.")] = "INFO",
) -> None:
    """Run a Celery worker that plays tournament matches.

    Run as many as you like, on any machine that reaches Redis and the referee.  Arguments
    after -- go to `celery worker`."""
    from workers import app as celery_app  # imported here: it reads the environment when imported

    argv = ["worker", f"--loglevel={loglevel}", "-n", name, *ctx.args]
    if concurrency:
        argv.append(f"--concurrency={concurrency}")
    raise typer.Exit(celery_app.run(celery_app.app, argv))


@app.command("worker-alive")
def worker_alive(
    max_age: Annotated[float, typer.Option(min=0, help="Seconds without a heartbeat after which the worker "
                                                       "counts as dead.")] = 60.0,
) -> None:
    """Exit 0 if this machine's worker is consuming, 1 if not: a liveness check.

    The worker touches PITCH_WORKER_ALIVE_FILE from its event loop while it consumes (every
    PITCH_WORKER_ALIVE_INTERVAL_S); a file older than --max-age, or none, means its consumer
    stopped or it lost the broker for good.  Needs neither Redis nor Celery."""
    from pathlib import Path

    from workers.alive import age

    config = common.worker_config()
    if not config.alive_file:
        common.fail("PITCH_WORKER_ALIVE_FILE is not set: the worker writes no heartbeat")
    seconds = age(Path(config.alive_file))
    if seconds is None or seconds > max_age:
        what = "no heartbeat file" if seconds is None else f"last heartbeat {seconds:.0f}s ago"
        common.fail(f"worker not consuming: {what} ({config.alive_file})", code=1)
    common.console().print(f"worker consuming: last heartbeat {seconds:.1f}s ago")


@app.command(context_settings=PASS_THROUGH)
def beat(
    ctx: typer.Context,
    schedule: Annotated[str | None, typer.Option(
        help="File where beat remembers when each entry last ran [PITCH_DATA_DIR/celerybeat-schedule].")] = None,
    loglevel: Annotated[str, typer.Option(help="DEBUG, INFO, WARNING or ERROR.")] = "INFO",
) -> None:
    """Run Celery beat: automated round robins of the connected bots.

    One round robin per preset of PITCH_AUTO_PRESETS every PITCH_AUTO_INTERVAL_S seconds.
    Run one beat per arena.  Its schedule file goes to the data directory (PITCH_DATA_DIR,
    default ~/.local/share/pitch-arena), not the working directory.  Arguments after -- go
    to `celery beat`."""
    from workers import app as celery_app  # imported here: it reads the environment when imported

    schedule = schedule or str(data_dir() / "celerybeat-schedule")
    if not celery_app.config.presets:
        Console(stderr=True).print("[yellow]PITCH_AUTO_PRESETS is empty: beat has nothing to schedule[/]")
    raise typer.Exit(celery_app.run(celery_app.app, ["beat", f"--schedule={schedule}", f"--loglevel={loglevel}",
                                                     *ctx.args]))


@app.command()
def register(
    name: Annotated[str, typer.Argument(help="The bot's display name (unique).")],
    owner: Annotated[str, typer.Option(help="Who runs the bot.")] = "",
    description: Annotated[str, typer.Option(help="What the bot is.")] = "",
) -> None:
    """Register a bot with the referee and print its token (this once only)."""
    config = common.worker_config()
    with common.reaching(config):
        registered = common.fleet_referee(config).register(name, owner, description)
    Console(stderr=True, highlight=False).print(
        f"registered {name} as {registered.bot_id}; its token follows (it is not shown again): "
        f"pitch-bot run BOT --referee {config.referee} --token TOKEN")
    typer.echo(registered.token)


@app.command()
def bots(as_json_output: JsonOption = False) -> None:
    """List the registered bots and whether each is connected now."""
    config = common.worker_config()
    with common.reaching(config):
        known = common.fleet_referee(config).bots()
    if as_json_output:
        typer.echo(as_json.dumps(as_json.bots(known)))
    else:
        common.console().print(views.bots_table(known))


@app.command()
def tournament(
    preset: Annotated[str | None, typer.Argument(help="Preset (see `pitch-bot variants`); omit with --resume.")]
    = None,
    bots: Annotated[list[str] | None, typer.Option(
        "--bots", "-b", help="Entrants by name or id, comma-separated or repeated; default: every connected bot "
                                 "that plays the preset.")]
    = None,
    team: Annotated[list[str] | None, typer.Option(
        help="A fixed partnership, e.g. --team alice,bob; repeat per team (default: every pairing).")] = None,
    games: GamesOption = 1,
    seed: SeedOption = 1,
    resume: Annotated[str | None, typer.Option(
        help="Resume tournament ID after any restart: sends only the matches without an outcome, then follows.")]
    = None,
    retry_not_played: Annotated[bool, typer.Option(help="With --resume: play the matches recorded as not "
                                                        "played again.")] = False,
    allow_offline: Annotated[bool, typer.Option(
        help="Enter bots that are not connected now (refused without it: their matches wait through the "
             "retries, then count as not played).")] = False,
    as_json_output: JsonOption = False,
) -> None:
    """Run a round robin through the Celery workers, then print its table.

    A live progress bar follows it.  Interrupting only stops following: the workers go on,
    and --resume picks it up again."""
    if (preset is None) == (resume is None):
        common.fail("give a PRESET for a new tournament, or --resume ID")
    config = common.worker_config()
    console = Console(stderr=True, highlight=False) if as_json_output else common.console()  # stdout: the JSON only
    store = common.open_store(config)
    tournaments = TournamentStore(store)
    celery = make_app(config)
    with common.reaching(config):
        if resume is None:
            assert preset is not None
            entrants, teams = common.entrants(common.fleet_referee(config), bots, team, config, allow_offline)
            if not bots and not team:  # every connected bot that plays it: not the arena's own house bots
                entrants = tournaments_api.default_entrants(store, entrants, preset)
            try:
                schedule = tournaments_api.create(tournaments, preset, entrants, games=games, seed=seed, teams=teams)
            except ScheduleError as exc:
                common.fail(str(exc))
            tournament_id = schedule.tournament_id
        else:
            tournament_id = resume
        try:
            sent = tournaments_api.launch(celery, tournaments, tournament_id, retry_not_played=retry_not_played)
        except TournamentError as exc:
            common.fail(str(exc))
        console.print(f"tournament {tournament_id}: {sent} match(es) sent to the workers")
        if sent and not celery.control.ping(timeout=1.0):
            console.print("[yellow]no worker answered: the matches wait in Redis until one starts "
                          "(pitch-arena worker)[/]")
        try:
            follow(console, tournaments, tournament_id)
        except KeyboardInterrupt:
            common.fail(f"stopped following; the workers go on: pitch-arena tournament --resume {tournament_id}", 130)
        table = tournaments.table(tournament_id)
        assert table is not None
        names = common.bot_names(store)
        schedule, outcomes = tournaments.plan(tournament_id), tournaments.outcomes(tournament_id)
        fitted = tournament_table((o["result"] for o in outcomes.values() if o["status"] == PLAYED), config.elo)
        if as_json_output:
            typer.echo(as_json.dumps(as_json.tournament(table, fitted, schedule, outcomes, names)))
            return
        console.print(views.results_table(table, fitted, names))
        if table["not_played"]:
            console.print(views.not_played_table(schedule, outcomes, names))
        if table.get("unrated"):
            console.print(views.unrated_table(schedule, outcomes, names))
        console.print(f"match logs: pitch-arena match-log {tournament_id}.0 … {tournament_id}.{table['matches'] - 1}")


@app.command()
def leaderboard(
    preset: Annotated[str, typer.Argument(help="The preset whose leaderboard to show.")],
    top: Annotated[int, typer.Option(min=1, help="Rows to show.")] = 20,
    all_versions: Annotated[bool, typer.Option(
        "--all-versions", help="A row per version of every bot (default: each bot's current version).")] = False,
    as_json_output: JsonOption = False,
) -> None:
    """Show a preset's leaderboard.

    Ranked by the order-independent Bradley–Terry rating (the same whatever order the
    matches finished in) with its 95% interval and likelihood of superiority over the next
    bot; beside it the live Elo (provisional marks), games and win rates.  Each version of a
    bot is rated apart; the table shows each bot's current version unless --all-versions."""
    config = common.worker_config()
    store = common.open_store(config)
    with common.reaching(config):
        try:
            board = Leaderboard(store, preset, config.elo, all_versions=all_versions)
        except ValueError as exc:
            common.fail(str(exc))
        fitted, live = board.standings(top)
        if not fitted:
            others = ", ".join(boards(store)) or "none yet"
            common.fail(f"no rated matches for {preset} (leaderboards: {others})", 1)
        shown = [row.bot_id for row in fitted]
        labels = BotVersions(store).labels(shown) if all_versions else store.bot_names(shown)
        names = {**common.bot_names(store), **labels}
        if as_json_output:
            typer.echo(as_json.dumps(as_json.leaderboard(preset, fitted, live, names)))
        else:
            common.console().print(views.leaderboard_table(preset, fitted, live, names))


@app.command("match-log")
def match_log(
    match_id: Annotated[str, typer.Argument(help="The match id (a tournament's are TOURNAMENT.INDEX).")],
    game: Annotated[int | None, typer.Option(min=1, help="Show only this game (1-based).")] = None,
    full: Annotated[bool, typer.Option(help="Every deal, bid, trick and point, instead of a line per hand "
                                             "(with --json: each game's whole log).")] = False,
    as_json_output: JsonOption = False,
) -> None:
    """Show a recorded match: its seats and games, then a line per hand.

    Bid and trump, where each point went, made or set, score changes and scores, replayed
    from its game logs with the rules engine; --full tells every deal, bid and trick."""
    config = common.worker_config()
    store = common.open_store(config)
    with common.reaching(config):
        result = store.match_result(match_id)
        if result is None:
            common.fail(_why_no_record(TournamentStore(store), match_id), 1)
        logs = store.match_logs(match_id)
        if game is not None and game > len(logs):
            common.fail(f"match {match_id} has {len(logs)} game log(s)")
        if as_json_output:
            typer.echo(as_json.dumps(as_json.match_log(result, logs, common.bot_names(store), game, full)))
            return
        console = common.console()
        for part in views.match_log(result, logs, common.bot_names(store), game, full):
            console.print(part)


def _why_no_record(tournaments: TournamentStore, match_id: str) -> str:
    """What to say of a match id without a recorded result: a tournament's match recorded
    as not played says why, one not played yet says so, anything else is unknown."""
    tournament_id, _, index = match_id.rpartition(".")
    outcome = None
    if index.isdigit() and tournament_id in tournaments.tournament_ids():
        outcome = tournaments.outcome(tournament_id, int(index))
        if outcome is None:
            return f"match {match_id} has not been played yet (pitch-arena tournament --resume {tournament_id})"
    if outcome is None or outcome["status"] != NOT_PLAYED:
        return f"no recorded match {views.shown(match_id)}"
    return (f"match {match_id} was not played after {outcome.get('attempts', 1)} attempt(s): "
            f"{views.shown(str(outcome.get('reason', 'no reason recorded')), views.REASON_CHARS)}.  To play it: "
            f"pitch-arena tournament --resume {tournament_id} --retry-not-played")


@app.command()
def demo(
    preset: Annotated[str, typer.Option(help="Preset of the round robin (cutthroat: every three of the default "
                                             "line-up include a heuristic bot, whose games end in about 7 hands).")]
    = DEFAULT_PRESET,
    games: GamesOption = 4,
    seed: SeedOption = 1,
    bot: Annotated[list[str] | None, typer.Option(
        help="A bot process to enter (built-in name, file.py:Class or module:Class); repeat per bot.  "
             f"Default: {' '.join(DEFAULT_LINEUP)}.")] = None,
    concurrency: Annotated[int, typer.Option(min=1, help="Matches the worker plays at once.")] = 2,
    referees: Annotated[int, typer.Option(min=1, max=16, help="Referee processes (one fleet).")] = 1,
    hosted: Annotated[int, typer.Option(min=0, help="How many of the line-up's bots (the last ones) are submitted "
                                                    "as an author would and hosted in sandboxes by a bot host.")] = 1,
    stop_after: Annotated[bool, typer.Option(
        "--stop-after", help="Stop every process after the leaderboard instead of keeping the web arena up.")]
    = False,
) -> None:
    """Run a round robin of bot processes on a local arena, with its web face.

    Starts Redis, a referee, one process per bot, a Celery worker and the web arena (its URL
    is printed), plays the round robin, prints the leaderboard, then keeps the arena up for
    the browser until Ctrl-C (or stops at once with --stop-after).  Uses REDIS_URL if set
    (under a fresh key prefix), else a private Redis for the run."""
    try:
        entrants = lineup(bot or list(DEFAULT_LINEUP))
    except BotLoadError as exc:
        common.fail(str(exc))
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # terminated: clean up as on Ctrl-C
    try:
        run_demo(common.console(), preset, games, seed, entrants, os.environ.get("REDIS_URL") or None, concurrency,
                 keep_up=not stop_after, referees=referees, hosted=min(hosted, len(entrants)))
    except ScheduleError as exc:
        common.fail(str(exc))
    except (ServiceError, grpc.RpcError, redis.RedisError) as exc:
        common.fail(str(exc), 1)
    except KeyboardInterrupt:
        common.fail("interrupted; every process was stopped", 130)
