"""``pitch-bot status BOT [VERSION]``: where a version stands in the arena's loop (its check,
its automatic SPRT against the bot's previous version, the verdict); ``--wait`` polls until
the loop is over and exits by the outcome, so an author's own CI can ask "is my new version
better?": 0 better (H1), 1 not better (H0), 2 rejected (its check failed, or it kept
crashing), 3 undecided (the game cap, a stalled test, nothing to test against); 4 when the
arena could not be asked."""

from __future__ import annotations

import json
import time
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.text import Text

from pitch_sdk.arena_api.client import ApiError, ArenaApi
from pitch_sdk.arena_api.commands import BotName, UrlOption, arena_client, fail

#: ``--wait``'s exit code per final state; see the module docstring.
EXIT_CODES = {"better": 0, "not-better": 1, "rejected": 2, "undecided": 3}
UNREACHABLE = 4
#: Consecutive failed polls ``--wait`` rides through (an arena restarting) before it gives up.
MAX_FAILED_POLLS = 10


def status(bot: BotName,
           version: Annotated[str | None, typer.Argument(help="The version (default: the bot's newest).")] = None,
           wait: Annotated[bool, typer.Option("--wait", help="Poll until the verdict; exit 0 better, 1 not "
                                                              "better, 2 rejected, 3 undecided.")] = False,
           as_json: Annotated[bool, typer.Option("--json", help="Print the status as JSON (with --wait: the "
                                                                 "final one).")] = False,
           interval: Annotated[float, typer.Option(min=1.0, help="Seconds between polls with --wait.")] = 10.0,
           timeout: Annotated[float, typer.Option(min=0.0, help="With --wait: give up after this many seconds "
                                                                "(0: never), exit 3.")] = 0.0,
           url: UrlOption = None) -> None:
    """Where a version of your bot stands: checking, waiting, its SPRT against the previous
    version (LLR, games, Elo), the verdict."""
    api = arena_client(url)
    found = _ask(api, bot, version)
    if not wait:
        _show(found, as_json)
        return
    version = found["version"]  # follow this one, even if a newer version comes meanwhile
    deadline = time.monotonic() + timeout if timeout else None
    shown = ""
    failures = 0
    while not found["final"]:
        line = _line(found)
        if line != shown:  # progress on standard error: standard output stays the answer
            Console(stderr=True, highlight=False).print(Text(line))
            shown = line
        if deadline is not None and time.monotonic() >= deadline:
            _show(found, as_json)
            raise typer.Exit(EXIT_CODES["undecided"])
        time.sleep(interval)
        try:
            found = api.status(bot, version)
            failures = 0
        except ApiError as refused:
            failures += 1
            if refused.status in (401, 403, 404) or failures > MAX_FAILED_POLLS:
                fail(str(refused), UNREACHABLE)
    _show(found, as_json)
    raise typer.Exit(EXIT_CODES[found["state"]])


def _ask(api: ArenaApi, bot: str, version: str | None) -> dict[str, Any]:
    try:
        return api.status(bot, version)
    except ApiError as refused:
        fail(str(refused), UNREACHABLE)


def _line(found: dict[str, Any]) -> str:
    return f"{found['version']}: {found['state']}: {found['detail']}"


def _show(found: dict[str, Any], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(found, sort_keys=True))
        return
    console = Console(highlight=False)
    console.print(Text(_line(found)))
    test = found.get("test")
    if test:  # an arena from before the authors' preset choice names no preset
        at = f" at {test['preset']}" if test.get("preset") else ""
        console.print(Text(f"  SPRT {test['run_id']}{at} against {test['predecessor']}: LLR {test['llr']:+.2f} in "
                           f"[{test['lower']:.2f}, {test['upper']:.2f}], {test['games']} of {test['max_games']} games, "
                           f"pairs {test['counts']}, Elo {test['elo']:+.1f} "
                           f"[{test['elo_lower']:+.1f}, {test['elo_upper']:+.1f}]"))
    report = (found.get("hosted") or {}).get("report") or (found.get("check") or {}).get("report")
    if report:  # the check's, by the version's host or, for a remote version, its referee
        console.print(Text(report))
