"""A whole arena as real processes for the web tests: a private Redis, a referee, bot
processes (one of them named like a script, to prove escaping), a Celery worker, a played
tournament, and the web service itself; plus headless Chromium (Debian's package) driven by
Playwright, and screenshots a reviewer can open."""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette

from cli.local_arena import LocalArena, free_port
from competitions.config import WorkerConfig
from competitions.queue import make_app
from competitions.referee_client import RefereeClient
from competitions.tournaments import control as tournament
from competitions.tournaments.store import TournamentStore
from store.fleet import FleetDirectory
from store.redis_store import Store
from store.seat_keys import seat_key
from store.versions import BotVersions
from web.config import WebConfig

CHROMIUM = "/usr/bin/chromium"
#: Chromium's flags on this closed network (no background connections, no sandbox as root).
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: A bot name that would run as a script if any page forgot to escape it.
HOSTILE_NAME = "<script>alert(1)</script>"
#: The line-up: (registered name, bot spec); four bots suit every four-seat preset.
LINEUP = (("heuristic-1", "heuristic"), (HOSTILE_NAME, "heuristic"), ("random-1", "random"), ("random-2", "random"))


@dataclass
class WebArena:
    """A running arena and its web service, as the tests see it."""

    url: str
    store: Store
    tournaments: TournamentStore
    referee: RefereeClient
    worker: WorkerConfig
    web: WebConfig
    local: LocalArena
    names: dict[str, str]
    """Bot id -> registered name."""
    tournament_id: str
    preset: str
    extra: dict[str, Any] = field(default_factory=dict)

    def bot_id(self, name: str) -> str:
        """The id of the bot registered as ``name``."""
        return next(bot_id for bot_id, known in self.names.items() if known == name)


@contextmanager
def web_arena(redis_url: str, log_dir: Path, preset: str = "partnership", games: int = 1) -> Iterator[WebArena]:
    """Start everything, play a round robin of :data:`LINEUP` to its table, start the web
    service; stop every process afterwards and delete the keys it wrote."""
    prefix = f"web-{os.getpid()}-{secrets.token_hex(3)}:"
    admin = secrets.token_urlsafe(12)
    store = Store.from_url(redis_url, prefix)
    with LocalArena(log_dir) as local:
        address = local.start_referee(redis_url, prefix, admin, {"PITCH_SHUTDOWN_GRACE_S": "1"})
        referee = RefereeClient(address, admin, match_timeout_s=60)
        names: dict[str, str] = {}
        for offset, (name, spec) in enumerate(LINEUP):
            registered = referee.register(name, owner="tests", description=f"pitch-bot run {spec}")
            names[registered.bot_id] = name
            local.start_bot(f"bot{offset}", spec, address, registered.token, seed=offset)
        local.wait_connected(referee, list(names))
        worker = WorkerConfig(redis_url=redis_url, store_prefix=prefix, referee=address, admin_token=admin)
        local.start_worker(worker, "web-worker", 2)
        tournaments = TournamentStore(store)
        schedule = tournament.create(tournaments, preset, list(names), games=games, seed=7)
        tournament.launch(make_app(worker), tournaments, schedule.tournament_id)
        deadline = time.monotonic() + 240
        while tournaments.table(schedule.tournament_id) is None:
            local.check()
            assert time.monotonic() < deadline, "the tournament did not finish in time"
            time.sleep(0.2)
        web = WebConfig(address="127.0.0.1:1", redis_url=redis_url, store_prefix=prefix, referee=address,
                        admin_token=admin, human_tables_per_client=8)  # every test's games come from one client
        url = local.start_web(web.to_env())
        web = WebConfig(**{**web.__dict__, "address": url.removeprefix("http://")})
        try:
            yield WebArena(url, store, tournaments, referee, worker, web, local, names, schedule.tournament_id, preset)
        finally:
            for key in store.client.scan_iter(f"{prefix}*"):
                store.client.delete(key)


def screenshot_dir() -> Path:
    """Where the run writes its screenshots (``PITCH_SCREENSHOTS``, else a temporary folder)."""
    folder = Path(os.environ.get("PITCH_SCREENSHOTS") or Path(os.environ.get("TMPDIR", "/tmp")) / "pitch-web-screens")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@contextmanager
def served(app: Starlette) -> Iterator[str]:
    """``app`` served over real HTTP on a loopback port by uvicorn in a thread of this
    process (server-sent events stream as they come, which Starlette's TestClient does not
    do); its URL.  Stopped afterwards."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, name="web", daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the web service did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def read_sse(url: str, count: int | None = None, messages: int | None = None) -> list[tuple[str, dict[str, Any]]]:
    """The server-sent messages of ``url`` as (event name, JSON data): until a ``result``
    or ``failure`` message (included), until they carried ``count`` match events, or until
    ``messages`` messages came; the connection is then dropped, as a spectator closing the
    tab would."""
    events: list[tuple[str, dict[str, Any]]] = []
    name = "message"
    with urllib.request.urlopen(url, timeout=30) as response:
        assert response.status == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        for raw in response:
            line = raw.decode().rstrip("\r\n")
            if line.startswith("event:"):
                name = line.removeprefix("event:").strip()
            elif line.startswith("data:"):
                events.append((name, json.loads(line.removeprefix("data:").strip())))
                if name in ("result", "failure"):
                    break
                if count is not None and sum(len(data.get("events", [])) for _, data in events) >= count:
                    break
                if messages is not None and len(events) >= messages:
                    break
    return events


def wait_in_page(page: Any, expression: str, timeout_ms: float = 30_000, arg: object = None) -> None:
    """Poll a JavaScript ``expression`` (a function of ``arg`` when given) until it is truthy.

    Playwright's ``wait_for_function`` evaluates its predicate with ``eval`` inside the page
    while it polls, which the arena's Content-Security-Policy (no ``unsafe-eval``) refuses;
    ``page.evaluate`` goes through the DevTools protocol, which the policy does not govern.
    Raises Playwright's ``TimeoutError`` after ``timeout_ms``, as ``wait_for_function`` does."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    deadline = time.monotonic() + timeout_ms / 1000
    while not (page.evaluate(expression, arg) if arg is not None else page.evaluate(expression)):
        if time.monotonic() > deadline:
            raise PlaywrightTimeout(f"{expression} was not true within {timeout_ms / 1000:.0f} s")
        time.sleep(0.05)


def two_versions_connected(store: Store, config: WorkerConfig, bot_id: str) -> None:
    """Versions 1 and 2 of the bot said hello and are listed connected on a referee of the
    directory, as the referee records them: what the sweep needs to start 2's SPRT against 1."""
    directory = FleetDirectory(store, config.fleet_ttl_s)
    directory.announce("referee", "127.0.0.1:1", 8, 0, [], [])
    for version in ("1", "2"):
        BotVersions(store).connected(bot_id, version)
        directory.bot_connected("referee", seat_key(bot_id, version), 4)
