"""What the ``pitch-arena`` subcommands share: the settings from the environment, one-line
errors with the documented exit codes, the store and the fleet's referee, and turning the
bot names a user typed into entrants.

Exit codes: 0 success; 1 a service failed or could not be reached; 2 the input was wrong;
130 interrupted.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import NoReturn

import grpc
import redis
import typer
from rich.console import Console
from rich.text import Text

from cli import views
from competitions.config import WorkerConfig
from competitions.referee_client import FleetReferees
from pitch_sdk.proto.pitch.v1 import arena_pb2
from store.fleet import FleetDirectory
from store.redis_store import Store
from store.seat_keys import names_version, seat_key


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


def seat_of(key: str, by_key: Mapping[str, arena_pb2.BotInfo]) -> tuple[arena_pb2.BotInfo, str] | None:
    """The bot and seat a name, an id or ``NAME@VERSION`` (``ID@VERSION``) names: the bot
    alone (its newest connected version) or that version of it (:mod:`store.seat_keys`).
    A whole key that is a bot's name wins (a name may contain ``@``); else the last ``@``
    splits the version off."""
    if key in by_key:
        return by_key[key], by_key[key].bot_id
    name, separator, version = key.rpartition("@")
    if separator and name in by_key and version:
        return by_key[name], seat_key(by_key[name].bot_id, version)
    return None


def entrants(referee: FleetReferees, wanted: list[str] | None, teams: list[str] | None,
             config: WorkerConfig, allow_offline: bool, versions: bool = False,
             ) -> tuple[list[str], list[list[str]] | None]:
    """Seats of the entrants (and teams) from names or ids, and with ``versions`` also
    ``NAME@VERSION`` for one version of a bot; default: every connected bot.

    An entrant that is not connected now is refused before anything is created, unless
    ``allow_offline``: its every match would wait through the workers' retries and then
    count as not played."""
    known = referee.bots()
    by_key = {key: bot for bot in known for key in (bot.bot_id, bot.name)}

    def resolve(items: list[str]) -> list[str]:
        keys = [key.strip() for item in items for key in item.split(",") if key.strip()]
        found = {key: seat_of(key, by_key) for key in keys}
        unknown = [key for key, seat in found.items() if seat is None]
        if unknown:
            fail(f"no registered bot named {', '.join(unknown)} (see `pitch-arena bots`)")
        seats = {key: seat for key, seat in found.items() if seat is not None}
        versioned = sorted(key for key, (_, seat) in seats.items() if names_version(seat))
        if versioned and not versions:
            fail(f"{', '.join(versioned)}: this command takes bots, not versions of them (an SPRT or a match does)")
        live = referee.directory.connected_bots(versions=True) if versioned else set()
        offline = sorted({str(views.shown(key if names_version(seat) else bot.name))
                          for key, (bot, seat) in seats.items()
                          if not (seat in live if names_version(seat) else bot.connected)})
        if offline:
            waits = sum(config.retry_delay(retry) for retry in range(config.match_retries))
            consequence = (f"each of their matches is retried for about {waits:.0f}s (PITCH_MATCH_RETRIES, "
                           "PITCH_RETRY_BACKOFF_S) and then counts as not played")
            if not allow_offline:
                fail(f"not connected now: {', '.join(offline)}: {consequence}.  Start them (pitch-bot run BOT "
                      f"--referee {config.referee} --token TOKEN), or pass --allow-offline to run anyway")
            Console(stderr=True, highlight=False).print(
                Text(f"not connected now: {', '.join(offline)} ({consequence})", style="yellow"))
        return [seats[key][1] for key in keys]

    fixed = [resolve([team]) for team in teams] if teams else None
    if wanted:
        return resolve(wanted), fixed
    if fixed:
        return sorted({bot for team in fixed for bot in team}), fixed
    return [bot.bot_id for bot in known if bot.connected], None
