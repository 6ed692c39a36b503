"""What the ``pitch-arena`` subcommands share: the settings from the environment, one-line
errors with the documented exit codes, the store and the fleet's referee, and turning the
bot names a user typed into entrants.

Exit codes: 0 success; 1 a service failed or could not be reached; 2 the input was wrong;
130 interrupted.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import grpc
import redis
import typer
from rich.console import Console
from rich.text import Text

from cli import views
from competitions.config import WorkerConfig
from competitions.referee_client import FleetReferees, RefereeClient
from store.fleet import FleetDirectory
from store.redis_store import Store


def console() -> Console:
    """The console a command prints its tables on (no syntax highlighting: names are data)."""
    return Console(highlight=False)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``error: MESSAGE`` on standard error and exit with ``code`` (2: bad input)."""
    Console(stderr=True, highlight=False).print(Text.assemble(("error: ", "red"), message))
    raise typer.Exit(code)


def worker_config() -> WorkerConfig:
    """The arena's settings from the environment; a bad value is a one-line error."""
    try:
        return WorkerConfig.from_env()
    except ValueError as exc:
        fail(str(exc))


@contextmanager
def reaching(config: WorkerConfig) -> Iterator[None]:
    """Turn an unreachable or refusing referee or Redis into a one-line error."""
    try:
        yield
    except grpc.RpcError as error:
        fail(f"referee at {config.referee} (PITCH_REFEREE): {error.code().name}: {error.details()}", 1)
    except redis.RedisError as error:
        fail(f"Redis at {config.redis_url} (REDIS_URL): {error}", 1)


def open_store(config: WorkerConfig) -> Store:
    """The store at ``REDIS_URL`` under ``PITCH_STORE_PREFIX``."""
    return Store.from_url(config.redis_url, config.store_prefix)


def bot_names(store: Store) -> dict[str, str]:
    """Every registered bot's name by id, to show bots by name."""
    return {bot.bot_id: bot.name for bot in store.bots()}


def fleet_referee(config: WorkerConfig) -> FleetReferees:
    """The referee at PITCH_REFEREE, which counts a bot as connected when it is connected to
    any live referee of the fleet (``docs/fleet.md``)."""
    return FleetReferees(config.referee, config.admin_token, config.match_timeout_s,
                         FleetDirectory(open_store(config), config.fleet_ttl_s))


def entrants(referee: RefereeClient, wanted: list[str] | None, teams: list[str] | None,
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
            fail(f"no registered bot named {', '.join(unknown)} (see `pitch-arena bots`)")
        offline = sorted({str(views.shown(by_key[key].name)) for key in keys if not by_key[key].connected})
        if offline:
            waits = sum(config.retry_delay(retry) for retry in range(config.match_retries))
            consequence = (f"each of their matches is retried for about {waits:.0f}s (PITCH_MATCH_RETRIES, "
                           "PITCH_RETRY_BACKOFF_S) and then counts as not played")
            if not allow_offline:
                fail(f"not connected now: {', '.join(offline)}: {consequence}.  Start them (pitch-bot run BOT "
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
