"""``pitch-arena demo``: a whole arena on this machine, from nothing to a leaderboard.

Every part is the real one, as a separate process, started with the same commands a
deployment uses: a Redis server (a private one unless ``REDIS_URL`` is set), a referee
(or a fleet of ``--referees N``, each bot connected to all of them), the web arena
(``pitch-arena web``), one ``pitch-bot run`` process per connected bot registered through
the referee's admin API, the last ``--hosted N`` bots (one by default) submitted as an
author would (an account signed up, a bot created and a package submitted through the web
API) and run by a bot host (``pitch-arena bot-host``) in its sandbox, and a Celery worker.
The demo launches a round robin between the bots through Celery, follows it from Redis, prints the preset's leaderboard,
keeps the arena up for the browser until Ctrl-C (``--stop-after`` ends it after the
leaderboard instead), and stops every process, also when interrupted.

The default line-up is two of each reference bot (four entrants suit every preset: four
seats at most), and the default preset is cutthroat, so the round robin is quick by
design: its 12 matches seat every three of the four, each three includes a heuristic
bot, and a heuristic bot ends a game in about 7 hands.  A game without one runs long
(random bots bid and play at random: partnership games of random partners run for
hundreds of hands, to the hand limit), which made the partnership round robin of the
same bots take 87-158 s.
"""

from __future__ import annotations

import secrets
import shutil
import socket
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from cli.local_arena import LocalArena, free_port
from cli.views import leaderboard_table
from cli.watch import follow
from competitions.config import WorkerConfig
from competitions.queue import make_app
from competitions.ratings.leaderboard import Leaderboard
from competitions.referee_client import RefereeClient
from competitions.tournaments import control as tournament
from competitions.tournaments.schedule import round_robin
from competitions.tournaments.store import TournamentStore
from pitch_sdk.arena_api.client import ArenaApi
from pitch_sdk.bots import BUILTIN_BOTS, BotLoadError, load_bot
from pitch_sdk.packages.archive import pack
from store.fleet import FleetDirectory
from store.redis_store import Store
from web.config import WebConfig

DEFAULT_LINEUP = ("heuristic", "random", "random", "heuristic")
"""The last (the second heuristic bot) is hosted by default."""
#: The demo's preset (see the module docstring for why).
DEFAULT_PRESET = "cutthroat"
#: Where the demo serves the web arena when the port is free.
DEFAULT_WEB_ADDRESS = "127.0.0.1:8080"


@dataclass(frozen=True)
class Entrant:
    """A bot process of the demo: its registered name and what it runs."""

    name: str
    spec: str


def lineup(specs: Sequence[str]) -> list[Entrant]:
    """Names for the bot processes: each bot's own ``name`` (what ``pitch-bot`` shows for
    it: ``my-bot`` for a ``mybot.py:MyBot`` whose ``name = "my-bot"``), numbered when the
    line-up holds it more than once (``heuristic-1``, ``heuristic-2``), since registered
    names are unique.  Loads each bot (a :class:`BotLoadError` for one that does not load)."""
    names = [load_bot(spec).name for spec in specs]
    counts, seen = Counter(names), Counter[str]()
    entrants = []
    for spec, name in zip(specs, names, strict=True):
        seen[name] += 1
        entrants.append(Entrant(f"{name}-{seen[name]}" if counts[name] > 1 else name, spec))
    return entrants


def hosted_package(spec: str, folder: Path) -> bytes:
    """A package of the bot ``spec`` (a built-in name or ``file.py:Class``) as an author would
    submit it; :class:`BotLoadError` for a ``module:Class``, which need not exist in a sandbox."""
    if spec in BUILTIN_BOTS:
        cls = BUILTIN_BOTS[spec]
        source = folder / f"hosted_{spec}.py"
        source.write_text(f"from {cls.__module__} import {cls.__name__}\n\n\n"
                          f"class Hosted({cls.__name__}):\n    \"\"\"The built-in {spec} bot, hosted.\"\"\"\n")
        return pack(source, "Hosted")
    where, _, class_name = spec.rpartition(":")
    if not where.endswith(".py"):
        raise BotLoadError(f"only a built-in bot or file.py:Class can be hosted by the demo, not {spec!r}")
    return pack(Path(where), class_name)


def host_entrants(console: Console, url: str, entrants: Sequence[Entrant], folder: Path) -> dict[str, str]:
    """Submit ``entrants`` through the web API as one author would: sign up, create each bot,
    submit its package; their names by bot id."""
    api = ArenaApi(url)
    api.token = api.sign_up(f"demo-{secrets.token_hex(3)}", secrets.token_urlsafe(16))["token"]
    names = {}
    for entrant in entrants:
        created = api.create_bot(entrant.name, description=f"hosted: {entrant.spec}")
        submitted = api.submit(entrant.name, hosted_package(entrant.spec, folder), version="hosted-1")
        names[str(created["bot_id"])] = entrant.name
        console.print(f"  hosted   {entrant.name}: submitted as version {submitted['version']} "
                      f"(sha256 {str(submitted['sha256'])[:12]}…)")
    return names


def count_matches(preset: str, entrants: int, games: int) -> int:
    """How many matches the round robin has (and a :class:`ScheduleError` now, before any
    process starts, if it cannot be scheduled)."""
    return len(round_robin("plan", [str(i) for i in range(entrants)], preset, games=games).matches)


def web_address(preferred: str = DEFAULT_WEB_ADDRESS) -> str:
    """``preferred`` if its port is free on loopback, else a free loopback port."""
    host, _, port = preferred.rpartition(":")
    with socket.socket() as probe:
        try:
            probe.bind((host, int(port)))
        except OSError:
            return f"127.0.0.1:{free_port()}"
    return preferred


def run_demo(console: Console, preset: str, games: int, seed: int, entrants: Sequence[Entrant],
             redis_url: str | None, concurrency: int, keep_up: bool = True, referees: int = 1,
             hosted: int = 1) -> None:
    """Start the arena and its web face, play the round robin, print the leaderboard; then
    keep everything up for the browser until Ctrl-C (unless ``keep_up`` is false), and
    stop every process.  The last ``hosted`` entrants are hosted (none when bubblewrap is
    missing: the demo says so and connects them instead)."""
    if hosted and shutil.which("bwrap") is None:
        console.print("[yellow]bubblewrap (bwrap) is not installed: every bot connects as a process "
                      "(scripts/ensure-sandbox.sh installs it)[/]")
        hosted = 0
    remote, sandboxed = list(entrants[:len(entrants) - hosted]), list(entrants[len(entrants) - hosted:])
    matches = count_matches(preset, len(entrants), games)
    began = time.monotonic()
    console.print(f"[bold]Pitch Arena demo[/]: a {preset} round robin of {len(entrants)} bot processes, "
                  f"{matches} matches of {games} game{'s' if games != 1 else ''}, through a Celery worker")
    prefix, admin_token = f"demo-{secrets.token_hex(4)}:", secrets.token_hex(16)
    with tempfile.TemporaryDirectory(prefix="pitch-demo-") as logs, LocalArena(Path(logs)) as arena:
        if redis_url is None:
            redis_url = arena.start_redis()
            console.print("  redis    a private redis-server for this run")
        else:
            console.print(f"  redis    {redis_url}, keys under {prefix}")
        addresses = [arena.start_referee(redis_url, prefix, admin_token, {"PITCH_SHUTDOWN_GRACE_S": "1"},
                                         name=f"referee-{n + 1}" if referees > 1 else "referee")
                     for n in range(referees)]
        address = addresses[0]
        console.print(f"  referee  listening on {', '.join(addresses)}" +
                      (" (one fleet: each match goes to the least busy)" if referees > 1 else ""))
        referee = RefereeClient(address, admin_token, match_timeout_s=60)
        artifacts = Path(logs) / "artifacts"
        web = WebConfig(address=web_address(), redis_url=redis_url, store_prefix=prefix, referee=address,
                        admin_token=admin_token)
        url = arena.start_web({**web.to_env(), "PITCH_ARTIFACTS_DIR": str(artifacts)}, web.address)
        names: dict[str, str] = {}
        for seed_offset, entrant in enumerate(remote):
            registered = referee.register(entrant.name, owner="demo", description=f"pitch-bot run {entrant.spec}")
            names[registered.bot_id] = entrant.name
            arena.start_bot(entrant.name, entrant.spec, address, registered.token, seed + seed_offset)
        console.print(f"  bots     {', '.join(names.values())}: one process each, connected over gRPC"
                      + (f" to all {referees} referees" if referees > 1 else ""))
        if sandboxed:
            names.update(host_entrants(console, url, sandboxed, Path(logs)))
            arena.start_bot_host(redis_url, prefix, address, artifacts, len(sandboxed))
            console.print(f"  bot host runs {len(sandboxed)} hosted bot(s), each in a bubblewrap sandbox")
        store = Store.from_url(redis_url, prefix)
        arena.wait_fleet(FleetDirectory(store), list(names), referees)
        config = WorkerConfig(redis_url=redis_url, store_prefix=prefix, referee=address, admin_token=admin_token)
        arena.start_worker(config, "demo-worker", concurrency)
        console.print(f"  worker   a Celery worker with {concurrency} pool processes")
        tournaments = TournamentStore(store)
        schedule = tournament.create(tournaments, preset, list(names), games=games, seed=seed)
        tournament.launch(make_app(config), tournaments, schedule.tournament_id)
        console.print(f"  web      {url}/  (live progress: {url}/tournaments/{schedule.tournament_id})")
        done = follow(console, tournaments, schedule.tournament_id, check=arena.check)
        board = Leaderboard(store, preset, config.elo)
        console.print(leaderboard_table(preset, *board.standings(len(names)), names))
        if done.not_played:
            console.print(f"[yellow]{done.not_played} match(es) could not be played[/]")
        console.print(f"{done.played} matches played in {time.monotonic() - began:.1f}s")
        if keep_up:
            console.print(f"[bold]the web arena stays up at {url}/[/] (admin token for its forms: {admin_token}); "
                          "press Ctrl-C to stop every process")
            _serve_until_interrupted(arena)
        console.print("stopping every process")
    console.print("every process stopped")


def _serve_until_interrupted(arena: LocalArena) -> None:
    """Wait for Ctrl-C (or SIGTERM, which the CLI turns into one), failing early if any
    process of the arena exits meanwhile."""
    try:
        while True:
            arena.check()
            time.sleep(0.5)
    except KeyboardInterrupt:
        return
