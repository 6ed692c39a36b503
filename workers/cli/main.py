"""``pitch-arena``: run the arena's services, register bots, run tournaments, read results.

Every command is configured like the services themselves, by ``REDIS_URL`` and the
``PITCH_*`` variables of :mod:`workers.config` (``PITCH_REFEREE``, ``PITCH_ADMIN_TOKEN``,
``PITCH_STORE_PREFIX``, ...), so one environment serves a whole deployment.  Admin actions
(``register``, ``bots``) go through the referee's admin API; results are read from Redis
through the store modules.

Exit codes: 0 success; 1 a service failed or could not be reached; 2 the input was wrong;
130 interrupted.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, NoReturn

import grpc
import redis
import typer
from rich.console import Console
from rich.text import Text

from pitch_sdk.bots import BotLoadError
from referee.__main__ import main as referee_main
from workers.celery.app import make_app
from workers.cli import as_json, views
from workers.cli.demo import DEFAULT_LINEUP, DEFAULT_PRESET, lineup, run_demo
from workers.cli.ladder import ladder as ladder_command
from workers.cli.match import match as match_command
from workers.cli.sprt import sprt as sprt_command
from workers.cli.watch import follow
from workers.config import WorkerConfig
from workers.data_dir import data_dir
from workers.processes.services import ServiceError
from workers.ratings.leaderboard import Leaderboard, boards, tournament_table
from workers.referee_client import FleetReferees, RefereeClient
from workers.storage.fleet import FleetDirectory
from workers.storage.store import Store
from workers.storage.versions import BotVersions
from workers.tournaments import control as tournaments_api
from workers.tournaments.schedule import ScheduleError
from workers.tournaments.store import TournamentError, TournamentStore
from workers.tournaments.table import NOT_PLAYED, PLAYED

app = typer.Typer(
    help="Pitch Arena: run the referee, workers and beat; register bots; run tournaments; show leaderboards and "
         "match logs.  Configured by REDIS_URL and PITCH_* variables.",
    no_args_is_help=True, add_completion=False)
app.command("referee")(referee_main)
app.command("match")(match_command)
app.command("sprt")(sprt_command)
app.command("ladder")(ladder_command)

#: Commands that pass what follows ``--`` to Celery (before it, an unknown option is an error).
PASS_THROUGH = {"allow_extra_args": True}
SeedOption = Annotated[int, typer.Option(min=0, help="Base seed: the same seed deals the same cards.")]
GamesOption = Annotated[int, typer.Option(min=1, help="Games per match.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON on standard output (keys in the README) "
                                                         "instead of a table.")]


def _console() -> Console:
    return Console(highlight=False)


def _fail(message: str, code: int = 2) -> NoReturn:
    Console(stderr=True, highlight=False).print(Text.assemble(("error: ", "red"), message))
    raise typer.Exit(code)


def _config() -> WorkerConfig:
    try:
        return WorkerConfig.from_env()
    except ValueError as exc:
        _fail(str(exc))


@contextmanager
def _reaching(config: WorkerConfig) -> Iterator[None]:
    """Turn an unreachable or refusing referee or Redis into a one-line error."""
    try:
        yield
    except grpc.RpcError as error:
        _fail(f"referee at {config.referee} (PITCH_REFEREE): {error.code().name}: {error.details()}", 1)
    except redis.RedisError as error:
        _fail(f"Redis at {config.redis_url} (REDIS_URL): {error}", 1)


def _store(config: WorkerConfig) -> Store:
    return Store.from_url(config.redis_url, config.store_prefix)


def _names(store: Store) -> dict[str, str]:
    return {bot.bot_id: bot.name for bot in store.bots()}


def _referee(config: WorkerConfig) -> FleetReferees:
    """The referee at PITCH_REFEREE, which counts a bot as connected when it is connected to
    any live referee of the fleet (``docs/fleet.md``)."""
    return FleetReferees(config.referee, config.admin_token, config.match_timeout_s,
                         FleetDirectory(_store(config), config.fleet_ttl_s))


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
    from workers.celery import app as celery_app  # imported here: it reads the environment when imported

    argv = ["worker", f"--loglevel={loglevel}", "-n", name, *ctx.args]
    if concurrency:
        argv.append(f"--concurrency={concurrency}")
    raise typer.Exit(celery_app.run(celery_app.app, argv))


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
    from workers.celery import app as celery_app  # imported here: it reads the environment when imported

    schedule = schedule or str(data_dir() / "celerybeat-schedule")
    if not celery_app.config.presets:
        Console(stderr=True).print("[yellow]PITCH_AUTO_PRESETS is empty: beat has nothing to schedule[/]")
    raise typer.Exit(celery_app.run(celery_app.app, ["beat", f"--schedule={schedule}", f"--loglevel={loglevel}",
                                                     *ctx.args]))


@app.command()
def web(
    address: Annotated[str | None, typer.Option(help="host:port to serve on [PITCH_WEB_ADDRESS, 127.0.0.1:8080]")]
    = None,
    loglevel: Annotated[str, typer.Option(help="debug, info, warning or error.")] = "info",
) -> None:
    """Serve the web arena: leaderboards, bots, tournaments, replays, live matches, play.

    Reads Redis (REDIS_URL, PITCH_STORE_PREFIX) and calls the referee (PITCH_REFEREE,
    PITCH_ADMIN_TOKEN) like every other service."""
    from web.config import WebConfig  # imported here: the other commands do not need the web stack
    from web.server import serve

    try:
        config = WebConfig.from_env(address=address)
    except ValueError as exc:
        _fail(str(exc))
    Console(stderr=True, highlight=False).print(f"web arena on http://{config.address}/")
    serve(config, loglevel.lower())


@app.command()
def register(
    name: Annotated[str, typer.Argument(help="The bot's display name (unique).")],
    owner: Annotated[str, typer.Option(help="Who runs the bot.")] = "",
    description: Annotated[str, typer.Option(help="What the bot is.")] = "",
) -> None:
    """Register a bot with the referee and print its token (this once only)."""
    config = _config()
    with _reaching(config):
        registered = _referee(config).register(name, owner, description)
    Console(stderr=True, highlight=False).print(
        f"registered {name} as {registered.bot_id}; its token follows (it is not shown again): "
        f"pitch-bot run BOT --referee {config.referee} --token TOKEN")
    typer.echo(registered.token)


@app.command()
def bots(as_json_output: JsonOption = False) -> None:
    """List the registered bots and whether each is connected now."""
    config = _config()
    with _reaching(config):
        known = _referee(config).bots()
    if as_json_output:
        typer.echo(as_json.dumps(as_json.bots(known)))
    else:
        _console().print(views.bots_table(known))


def _entrants(referee: RefereeClient, wanted: list[str] | None, teams: list[str] | None,
              config: WorkerConfig, allow_offline: bool) -> tuple[list[str], list[list[str]] | None]:
    """Bot ids of the entrants (and teams) from names or ids; default: every connected bot.

    An entrant that is not connected now is refused before anything is created, unless
    ``allow_offline``: its every match would wait through the workers' retries and then
    count as not played."""
    known = referee.bots()
    by_key = {key: bot for bot in known for key in (bot.bot_id, bot.name)}

    def resolve(items: list[str]) -> list[str]:
        keys = [key.strip() for item in items for key in item.split(",") if key.strip()]
        unknown = [key for key in keys if key not in by_key]
        if unknown:
            _fail(f"no registered bot named {', '.join(unknown)} (see `pitch-arena bots`)")
        offline = sorted({str(views.shown(by_key[key].name)) for key in keys if not by_key[key].connected})
        if offline:
            waits = sum(config.retry_delay(retry) for retry in range(config.match_retries))
            consequence = (f"each of their matches is retried for about {waits:.0f}s (PITCH_MATCH_RETRIES, "
                           "PITCH_RETRY_BACKOFF_S) and then counts as not played")
            if not allow_offline:
                _fail(f"not connected now: {', '.join(offline)}: {consequence}.  Start them (pitch-bot run BOT "
                      f"--referee {config.referee} --token TOKEN), or pass --allow-offline to run anyway")
            Console(stderr=True, highlight=False).print(
                Text(f"not connected now: {', '.join(offline)} ({consequence})", style="yellow"))
        return [by_key[key].bot_id for key in keys]

    fixed = [resolve([team]) for team in teams] if teams else None
    if wanted:
        return resolve(wanted), fixed
    if fixed:
        return sorted({bot for team in fixed for bot in team}), fixed
    return [bot.bot_id for bot in known if bot.connected], None


@app.command()
def tournament(
    preset: Annotated[str | None, typer.Argument(help="Preset (see `pitch-bot variants`); omit with --resume.")]
    = None,
    bots: Annotated[list[str] | None, typer.Option(
        "--bots", "-b", help="Entrants by name or id, comma-separated or repeated; default: every connected bot.")]
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
        _fail("give a PRESET for a new tournament, or --resume ID")
    config = _config()
    console = Console(stderr=True, highlight=False) if as_json_output else _console()  # stdout: the JSON only
    store = _store(config)
    tournaments = TournamentStore(store)
    celery = make_app(config)
    with _reaching(config):
        if resume is None:
            assert preset is not None
            entrants, teams = _entrants(_referee(config), bots, team, config, allow_offline)
            if not bots and not team:  # every connected bot: not the arena's own house bots
                entrants = tournaments_api.default_entrants(store, entrants)
            try:
                schedule = tournaments_api.create(tournaments, preset, entrants, games=games, seed=seed, teams=teams)
            except ScheduleError as exc:
                _fail(str(exc))
            tournament_id = schedule.tournament_id
        else:
            tournament_id = resume
        try:
            sent = tournaments_api.launch(celery, tournaments, tournament_id, retry_not_played=retry_not_played)
        except TournamentError as exc:
            _fail(str(exc))
        console.print(f"tournament {tournament_id}: {sent} match(es) sent to the workers")
        if sent and not celery.control.ping(timeout=1.0):
            console.print("[yellow]no worker answered: the matches wait in Redis until one starts "
                          "(pitch-arena worker)[/]")
        try:
            follow(console, tournaments, tournament_id)
        except KeyboardInterrupt:
            _fail(f"stopped following; the workers go on: pitch-arena tournament --resume {tournament_id}", 130)
        table = tournaments.table(tournament_id)
        assert table is not None
        names, schedule, outcomes = _names(store), tournaments.plan(tournament_id), tournaments.outcomes(tournament_id)
        fitted = tournament_table((o["result"] for o in outcomes.values() if o["status"] == PLAYED), config.elo)
        if as_json_output:
            typer.echo(as_json.dumps(as_json.tournament(table, fitted, schedule, outcomes, names)))
            return
        console.print(views.results_table(table, fitted, names))
        if table["not_played"]:
            console.print(views.not_played_table(schedule, outcomes, names))
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
    config = _config()
    store = _store(config)
    with _reaching(config):
        try:
            board = Leaderboard(store, preset, config.elo, all_versions=all_versions)
        except ValueError as exc:
            _fail(str(exc))
        fitted, live = board.standings(top)
        if not fitted:
            others = ", ".join(boards(store)) or "none yet"
            _fail(f"no rated matches for {preset} (leaderboards: {others})", 1)
        shown = [row.bot_id for row in fitted]
        names = {**_names(store), **(BotVersions(store).labels(shown) if all_versions else store.bot_names(shown))}
        if as_json_output:
            typer.echo(as_json.dumps(as_json.leaderboard(preset, fitted, live, names)))
        else:
            _console().print(views.leaderboard_table(preset, fitted, live, names))


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
    config = _config()
    store = _store(config)
    with _reaching(config):
        result = store.match_result(match_id)
        if result is None:
            _fail(_why_no_record(TournamentStore(store), match_id), 1)
        logs = store.match_logs(match_id)
        if game is not None and game > len(logs):
            _fail(f"match {match_id} has {len(logs)} game log(s)")
        if as_json_output:
            typer.echo(as_json.dumps(as_json.match_log(result, logs, _names(store), game, full)))
            return
        console = _console()
        for part in views.match_log(result, logs, _names(store), game, full):
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
        _fail(str(exc))
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # terminated: clean up as on Ctrl-C
    try:
        run_demo(_console(), preset, games, seed, entrants, os.environ.get("REDIS_URL") or None, concurrency,
                 keep_up=not stop_after, referees=referees)
    except ScheduleError as exc:
        _fail(str(exc))
    except (ServiceError, grpc.RpcError, redis.RedisError) as exc:
        _fail(str(exc), 1)
    except KeyboardInterrupt:
        _fail("interrupted; every process was stopped", 130)
