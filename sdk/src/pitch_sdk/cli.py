"""``pitch-bot``: play bots against each other, run scenarios, watch a game, list variants.

Exit codes: 0 success; 1 the game went wrong (a bot's illegal action or crash, a
scenario's illegal action); 2 the input was wrong (unknown bot, preset or option,
malformed scenario).
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.progress import Progress
from rich.text import Text

from pitch_sdk.arena_api.commands import add_commands
from pitch_sdk.arena_api.status import status
from pitch_sdk.bot import Bot
from pitch_sdk.bots import BUILTIN_BOTS, BotLoadError, load_bot
from pitch_sdk.checks.compliance import COVERAGE, RefereeUnreachable, check_locally, check_remote
from pitch_sdk.checks.relay import check_process
from pitch_sdk.display.render import compliance_table, match_table, variants_list, variants_table
from pitch_sdk.display.story import game_story
from pitch_sdk.harness.local import BotError, play_game, play_match
from pitch_sdk.harness.scenario import ScenarioError, load_scenario, run_scenario
from pitch_sdk.packages.archive import PackageError, pack
from pitch_sdk.packages.archive import inspect as inspect_package
from pitch_sdk.remote.client import ConnectionRefused
from pitch_sdk.remote.fleet import run_fleet_bot
from pitch_sdk.remote.tls import ChannelSecurity
from pitch_sdk.rules import RulesError, Ruleset, preset

app = typer.Typer(
    help="Pitch Arena bot tools: play bots locally, run scenarios, watch a game; your arena account and "
         "hosted bots.",
    no_args_is_help=True, add_completion=False)
add_commands(app)
app.command()(status)

BOT_HELP = f"Bots, one per seat: a built-in ({', '.join(BUILTIN_BOTS)}), file.py:Class or module:Class."
RulesetOption = Annotated[str, typer.Option("--ruleset", "-r", help="Preset name (see `pitch-bot variants`).")]
OptionsOption = Annotated[list[str] | None, typer.Option(
    "--option", "-o", help="Ruleset option key=value (value as JSON, else text); repeatable.")]
SeedOption = Annotated[int, typer.Option(help="Seed: the same seed replays the same games.")]
TlsOption = Annotated[bool, typer.Option("--tls", help="Speak TLS to the referees (system roots unless --tls-ca).")]
TlsCaOption = Annotated[str, typer.Option(envvar="PITCH_TLS_CA", help="PEM file of the arena's CA to trust "
                                                                    "(implies --tls).")]
TlsServerNameOption = Annotated[str, typer.Option(envvar="PITCH_TLS_SERVER_NAME", help="The name expected on the "
                                                  "referees' certificate, when it differs from the host dialled.")]
BudgetOption = Annotated[float | None, typer.Option(
    "--budget-ms", min=1, help="Milliseconds a searching bot (pimc) may think per decision; keep it well "
                               "under the referee's time per decision (2000 ms by default).")]


def _console() -> Console:
    return Console(highlight=False)


def _fail(message: str, code: int = 2) -> NoReturn:
    Console(stderr=True, highlight=False).print(Text.assemble(("error: ", "red"), message))
    raise typer.Exit(code)


def _ruleset(name: str, options: list[str] | None) -> Ruleset:
    values: dict[str, Any] = {}
    for item in options or []:
        key, equals, text = item.partition("=")
        if not equals or not key:
            _fail(f"--option {item!r} must look like key=value, e.g. target=11")
        try:
            values[key.strip()] = json.loads(text)
        except json.JSONDecodeError:
            values[key.strip()] = text
    try:
        return preset(name, values)
    except RulesError as exc:
        _fail(str(exc))


def _bots(specs: list[str], rules: Ruleset, budget_ms: float | None = None) -> list[Bot]:
    if len(specs) != rules.players:
        _fail(f"{rules.name} is played by {rules.players}: give {rules.players} bots, got {len(specs)}")
    try:
        return [load_bot(spec, budget_ms) for spec in specs]
    except BotLoadError as exc:
        _fail(str(exc))


@app.command()
def play(
    bots: Annotated[list[str], typer.Argument(help=BOT_HELP)],
    ruleset: RulesetOption = "partnership",
    games: Annotated[int, typer.Option(min=1, help="Number of games.")] = 200,
    seed: SeedOption = 1,
    option: OptionsOption = None,
    budget_ms: BudgetOption = None,
) -> None:
    """Play a match and print the results table (seats rotate every game)."""
    rules = _ruleset(ruleset, option)
    players = _bots(bots, rules, budget_ms)
    console = _console()
    try:
        if console.is_terminal:
            with Progress(console=console, transient=True) as bar:
                task = bar.add_task(f"{games} games of {rules.name}", total=games)
                result = play_match(rules, players, games, seed,
                                    progress=lambda done: bar.update(task, completed=done))
        else:
            result = play_match(rules, players, games, seed)
    except BotError as exc:
        _fail(str(exc), code=1)
    console.print(match_table(result))


@app.command()
def watch(
    bots: Annotated[list[str] | None, typer.Argument(help=BOT_HELP + " Default: heuristic everywhere.")] = None,
    ruleset: RulesetOption = "partnership",
    seed: SeedOption = 1,
    option: OptionsOption = None,
    budget_ms: BudgetOption = None,
) -> None:
    """Play one game and print it hand by hand: deal, bids, trump, tricks, points, scores."""
    rules = _ruleset(ruleset, option)
    players = _bots(bots or ["heuristic"] * rules.players, rules, budget_ms)
    try:
        state = play_game(rules, players, seed)
    except BotError as exc:
        _fail(str(exc), code=1)
    console = _console()
    for part in game_story(state, [bot.name for bot in players]):
        console.print(part)


@app.command()
def scenario(
    file: Annotated[str, typer.Argument(help="Scenario JSON file, or - for standard input.")],
) -> None:
    """Run a scenario (docs/scenarios.md) and print the result as JSON.

    Exit 1 if an action is illegal or unreadable, 2 if the scenario itself is malformed."""
    try:
        text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
        report = run_scenario(load_scenario(text))
    except (OSError, UnicodeDecodeError) as exc:
        report, code = _malformed(f"cannot read {file!r}: {exc}"), 2
    except ScenarioError as exc:
        report, code = _malformed(str(exc)), 2
    else:
        code = 0 if report["ok"] else 1
    typer.echo(json.dumps(report, indent=2))
    raise typer.Exit(code)


def _malformed(message: str) -> dict[str, Any]:
    return {"ok": False, "error": {"kind": "malformed-scenario", "message": message}}


@app.command()
def run(
    bot: Annotated[str, typer.Argument(help="The bot: a built-in name, file.py:Class or module:Class.")],
    referee: Annotated[str, typer.Option(envvar="PITCH_REFEREE", help="Referee address HOST:PORT.")],
    token: Annotated[str, typer.Option(envvar="PITCH_BOT_TOKEN", help="The bot's token from registration.")],
    capacity: Annotated[int, typer.Option(min=1, help="Seats to play at once, across matches.")] = 4,
    tensor: Annotated[bool, typer.Option(help="Ask for the dense observation tensor too.")] = False,
    seed: SeedOption = 0,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log every match and reconnection.")] = False,
    budget_ms: BudgetOption = None,
    tls: TlsOption = False,
    tls_ca: TlsCaOption = "",
    tls_server_name: TlsServerNameOption = "",
) -> None:
    """Connect a bot to the arena's referees and play until Ctrl-C, reconnecting when a stream
    drops (one stream per live referee, found through the one address given)."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        load_bot(bot)
    except BotLoadError as exc:
        _fail(str(exc))
    try:
        security = ChannelSecurity(tls, tls_ca, tls_server_name)
    except ValueError as exc:
        _fail(str(exc))
    try:
        run_fleet_bot(lambda: load_bot(bot, budget_ms), referee, token, capacity=capacity, observation_tensor=tensor,
                      seed=seed, security=security)
    except ConnectionRefused as exc:
        _fail(str(exc))


@app.command()
def check(
    bot: Annotated[str | None, typer.Argument(help="The bot: a built-in name, file.py:Class or module:Class "
                                                   "(or give --command).")] = None,
    command: Annotated[str | None, typer.Option(
        help="Check a bot process in any language instead (a starter kit's, e.g. \"node kits/node/bot.js\"): "
             "started with PITCH_REFEREE and PITCH_BOT_TOKEN set, it plays the practice matches through a "
             "relay; needs --referee.")] = None,
    referee: Annotated[str | None, typer.Option(help="Check over the protocol against this referee HOST:PORT "
                                                     "(practice matches); default: locally, no server.")] = None,
    token: Annotated[str | None, typer.Option(envvar="PITCH_BOT_TOKEN", help="The bot's token (with --referee).")]
    = None,
    games: Annotated[int, typer.Option(min=1, max=10, help="Games per preset.")] = 2,
    seed: SeedOption = 0,
    rulesets: Annotated[list[str] | None, typer.Option(
        "--ruleset", "-r", help="Check only these presets (repeatable); default: a set covering every "
                                "decision any preset asks.")] = None,
    budget_ms: BudgetOption = None,
    tls: TlsOption = False,
    tls_ca: TlsCaOption = "",
    tls_server_name: TlsServerNameOption = "",
) -> None:
    """Play the bot through every decision kind and report what it did wrong (exit 1 if anything)."""
    if (bot is None) == (command is None):
        _fail("give either a bot or --command")
    if command is not None and referee is None:
        _fail("--command needs --referee (and --token): the bot process plays practice matches there")
    try:
        if bot is not None:
            load_bot(bot)
        presets = tuple(rulesets or COVERAGE)
        for name in presets:
            preset(name)
    except (BotLoadError, RulesError) as exc:
        _fail(str(exc))
    factory = lambda: load_bot(bot or "", budget_ms)  # noqa: E731 - one fresh bot per seat
    if referee is None:
        report = check_locally(factory, games=games, seed=seed, presets=presets)
    else:
        if not token:
            _fail("--referee needs --token (or PITCH_BOT_TOKEN)")
        try:
            security = ChannelSecurity(tls, tls_ca, tls_server_name)
            if command is not None:
                report = check_process(command, referee, token, games=games, seed=seed, presets=presets,
                                       security=security)
            else:
                report = check_remote(factory, referee, token, games=games, seed=seed, presets=presets,
                                      security=security)
        except (ConnectionRefused, RefereeUnreachable, ValueError, OSError) as exc:
            _fail(str(exc))
    console = _console()
    console.print(compliance_table(report))
    for warning in report.warnings:
        console.print(Text.assemble(("warning: ", "yellow"), warning))
    for problem in report.problems:
        console.print(Text.assemble(("problem: ", "red"), problem))
    console.print(Text("PASS", style="green") if report.passed else Text("FAIL", style="red"))
    raise typer.Exit(0 if report.passed else 1)


@app.command("pack")
def pack_command(
    path: Annotated[Path, typer.Argument(help="The bot: a folder (with pitch-bot.json, or give --class), a Python "
                                              "file (give --class) or a built program such as the Go kit's.")],
    out: Annotated[Path | None, typer.Option("--output", "-o", help="Where to write the package; default "
                                                                    "NAME.tar.gz beside PATH.")] = None,
    bot_class: Annotated[str | None, typer.Option("--class", help="The Bot class of a Python bot: Name, or "
                                                                  "file.py:Name in a folder.")] = None,
) -> None:
    """Make the bot package the arena hosts (a gzip'd tar; the same files always give the same
    bytes) and print its sha256, file count and size."""
    try:
        data = pack(path, bot_class)
    except (PackageError, OSError) as exc:
        _fail(str(exc))
    target = out or path.resolve().parent / f"{path.resolve().stem or 'bot'}.tar.gz"
    target.write_bytes(data)
    info = inspect_package(data)
    console = _console()
    console.print(f"sha256  {info.sha256}")
    console.print(f"files   {info.files}")
    console.print(f"size    {info.packed_bytes:,} bytes ({info.unpacked_bytes:,} unpacked)")
    console.print(f"wrote   {target}")


@app.command()
def variants() -> None:
    """List the presets with their seed text and a summary (a table on a wide terminal,
    a few wrapped lines per preset on a narrow one)."""
    console = _console()
    table = variants_table()
    natural = console.measure(table, options=console.options.update(max_width=10_000)).maximum
    console.print(table if natural <= console.width else variants_list())
