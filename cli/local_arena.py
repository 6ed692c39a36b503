"""A whole arena on this machine, as separate processes: what ``pitch-arena demo`` runs.

Redis (a private one unless a URL is given), a referee process, one ``pitch-bot run``
process per bot and Celery worker processes: the same commands compose runs, each
logging to its own file.  :meth:`LocalArena.close` stops them in reverse order of start
(workers, bots, referee, Redis; the processes of one kind at once), each with the signal it
shuts down cleanly on and a grace period before its whole session is killed, so a finished demo and an interrupted
one both end with nothing left running.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType

import grpc

from competitions.config import WorkerConfig
from competitions.referee_client import RefereeClient
from store.children import owned_child
from store.fleet import FleetDirectory
from store.redis_server import RedisServer
from store.tls import Tls
from store.tls import channel as tls_channel

BIN = Path(sys.executable).parent
#: How long a process may take to stop after its stop signal before it is killed.
STOP_GRACE_S = 10.0


class ServiceError(RuntimeError):
    """A process that exited, or never became ready; the message ends with its log."""


def free_port() -> int:
    """A free loopback TCP port (for the referee)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Service:
    """One started process: its log file, and how to stop it."""

    def __init__(self, name: str, argv: list[str], env: Mapping[str, str], log_dir: Path,
                 stop_signal: int = signal.SIGTERM) -> None:
        self.name = name
        self.stop_signal = stop_signal
        self.log_path = log_dir / f"{name}.log"
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(**owned_child(argv), env={**os.environ, **env}, stdin=subprocess.DEVNULL,
                                            stdout=log, stderr=subprocess.STDOUT)

    def check(self) -> None:
        """Raise :class:`ServiceError` if the process has exited."""
        code = self.process.poll()
        if code is not None:
            raise ServiceError(f"{self.name} exited with status {code}:\n{self.tail()}")

    def tail(self, lines: int = 15) -> str:
        """The end of the process's log."""
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> int:
        """Ask the process to stop; after the grace period, SIGKILL its whole session (a
        Celery worker's pool processes too).  Returns its exit status."""
        self.ask_to_stop()
        return self.wait_stopped(time.monotonic() + STOP_GRACE_S)

    def ask_to_stop(self) -> None:
        """Send the stop signal, if the process still runs; :meth:`wait_stopped` waits for it."""
        if self.process.poll() is None:
            self.process.send_signal(self.stop_signal)

    def wait_stopped(self, deadline: float) -> int:
        """Wait for the process to exit until ``deadline`` (``time.monotonic``), then SIGKILL
        its whole session.  Returns its exit status."""
        try:
            self.process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        return self.process.returncode

    # ------------------------------------------------ chaos: kill -9 and restart (bench/chaos.py)
    def kill(self) -> None:
        """SIGKILL the process's whole session at once, with no grace: what a machine or
        container loss looks like to the rest of the arena (a Celery worker's pool
        processes die with it, unacknowledged tasks stay behind in Redis)."""
        if self.process.poll() is None:  # alive, so its group exists
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    @property
    def argv(self) -> list[str]:
        """The command this service runs, without the owned-child launcher in front of it,
        so :meth:`LocalArena.restart` can start exactly the same command again."""
        launcher = owned_child([])["args"]
        args = [str(arg) for arg in self.process.args]  # type: ignore[union-attr]
        return args[len(launcher):] if args[:len(launcher)] == launcher else args


def wait_for(condition: Callable[[], bool], timeout: float, what: str, services: list[Service]) -> None:
    """Poll ``condition`` until true; fail early if one of ``services`` exits."""
    deadline = time.monotonic() + timeout
    while not condition():
        for service in services:
            service.check()
        if time.monotonic() > deadline:
            raise ServiceError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(0.1)


def _answers(url: str) -> bool:
    """Whether an HTTP GET of ``url`` succeeds now."""
    try:
        with urllib.request.urlopen(url, timeout=1) as response:
            return bool(response.status == 200)
    except OSError:
        return False


class LocalArena:
    """Processes started one by one and stopped together; a context manager."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.redis: RedisServer | None = None
        self.services: list[Service] = []
        self.relay_token = secrets.token_hex(24)
        """The relay token of the referees started here (one fleet's own, not the admin token)."""

    def start_redis(self) -> str:
        """Start a private Redis for this arena; its URL."""
        self.redis = RedisServer()
        return self.redis.url

    def start_referee(self, redis_url: str, prefix: str, admin_token: str, env: Mapping[str, str],
                      name: str = "referee") -> str:
        """``pitch-arena referee`` on a free loopback port; its address once it accepts calls.
        Referees started with the same Redis and prefix are one arena's fleet (give each
        its own ``name``: it names the log)."""
        address = f"127.0.0.1:{free_port()}"
        referee = self._start(name, [str(BIN / "pitch-arena"), "referee", "--address", address],
                              {"REDIS_URL": redis_url, "PITCH_STORE_PREFIX": prefix, "PITCH_ADMIN_TOKEN": admin_token,
                               "PITCH_RELAY_TOKEN": self.relay_token, **env})
        with tls_channel(address, Tls.from_env({**os.environ, **env})) as channel:
            ready = grpc.channel_ready_future(channel)
            wait_for(ready.done, 30, "the referee", [referee])
        return address

    def start_bot(self, name: str, spec: str, referee: str, token: str, seed: int) -> Service:
        """``pitch-bot run SPEC`` (the token goes by environment, not on the command line);
        Ctrl-C is how a bot stops cleanly."""
        return self._start(f"bot-{name}", [str(BIN / "pitch-bot"), "run", spec, "--referee", referee,
                                           "--seed", str(seed)], {"PITCH_BOT_TOKEN": token},
                           signal.SIGINT)

    def start_bot_host(self, redis_url: str, prefix: str, referee: str, artifacts: Path, slots: int,
                       env: Mapping[str, str] | None = None) -> Service:
        """``pitch-arena bot-host`` running up to ``slots`` hosted versions, each in its sandbox,
        playing through ``referee``; its unpacked packages and sockets in the arena's log folder
        (``env``: more of its settings)."""
        return self._start("bot-host", [str(BIN / "pitch-arena"), "bot-host", "--referee", referee,
                                        "--slots", str(slots)],
                           {"REDIS_URL": redis_url, "PITCH_STORE_PREFIX": prefix, "PITCH_ARTIFACTS_DIR": str(artifacts),
                            "PITCH_HOST_DIR": str(self.log_dir / "bot-host"), **(env or {})})

    def wait_connected(self, client: RefereeClient, bot_ids: list[str], timeout: float = 60) -> None:
        """Wait until every bot in ``bot_ids`` is connected to the referee."""
        wanted = set(bot_ids)
        wait_for(lambda: wanted <= set(client.connected_bots()), timeout, "the bots to connect", self.services)

    def wait_fleet(self, directory: FleetDirectory, bot_ids: list[str], referees: int, timeout: float = 60) -> None:
        """Wait until ``referees`` referees are live and every bot in ``bot_ids`` is connected
        to each of them (the fleet directory says so)."""
        wait_for(lambda: len(directory.hosting(bot_ids)) >= referees, timeout,
                 f"the bots to connect to {referees} referee(s)", self.services)

    def start_worker(self, config: WorkerConfig, name: str, concurrency: int) -> Service:
        """``pitch-arena worker`` with ``concurrency`` pool processes.  It is stopped with
        Celery's cold shutdown (SIGQUIT): an interrupted run does not wait for its running
        matches, which stay unacknowledged in Redis and would go to the next worker."""
        return self._start(name, [str(BIN / "pitch-arena"), "worker", "--concurrency", str(concurrency),
                                  "--name", f"{name}@%h", "--loglevel", "INFO", "--", "--without-gossip",
                                  "--without-mingle", "--without-heartbeat"], config.to_env(), signal.SIGQUIT)

    def start_web(self, env: Mapping[str, str], address: str | None = None) -> str:
        """``pitch-arena web`` on ``address`` (default: a free loopback port), configured by
        ``env`` (``WebConfig.to_env()``); its base URL once it answers."""
        address = address or f"127.0.0.1:{free_port()}"
        web = self._start("web", [str(BIN / "pitch-arena"), "web", "--address", address, "--loglevel", "warning"],
                          env)
        url = f"http://{address}"
        wait_for(lambda: _answers(f"{url}/healthz"), 30, "the web arena", [web])
        return url

    def check(self) -> None:
        """Raise :class:`ServiceError` if any process has exited."""
        for service in self.services:
            service.check()

    def _start(self, name: str, argv: list[str], env: Mapping[str, str],
               stop_signal: int = signal.SIGTERM) -> Service:
        service = Service(name, argv, env, self.log_dir, stop_signal)
        self.services.append(service)
        return service

    def close(self) -> None:
        """Stop every process, last started first (one kind at a time), then Redis.  Ctrl-C
        and SIGTERM are ignored meanwhile, so a second one cannot leave half the arena running."""
        main = threading.current_thread() is threading.main_thread()
        previous = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM)} if main else {}
        try:
            while self.services:
                self._stop_kind()
            if self.redis is not None:
                self.redis.stop()
                self.redis = None
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _stop_kind(self) -> None:
        """Stop the last started service together with the services started just before it
        that stop on the same signal: one kind (the workers, the bots, a fleet's referees),
        none of which waits on another, so they are signalled at once and share one grace
        period (a Celery worker alone takes about two seconds to stop its pool, and the
        kinds still stop in reverse order of start)."""
        kind = self.services[-1].stop_signal
        group: list[Service] = []
        while self.services and self.services[-1].stop_signal == kind:
            group.append(self.services.pop())
        for service in group:
            service.ask_to_stop()
        deadline = time.monotonic() + STOP_GRACE_S
        for service in group:
            service.wait_stopped(deadline)

    # ------------------------------------------------ chaos: kill -9 and restart (bench/chaos.py)
    def start_persistent_redis(self, persist_dir: Path) -> str:
        """Start a private Redis that keeps its data in an append-only file in
        ``persist_dir`` (fsync every second), so a SIGKILL and :meth:`restart_redis` bring
        it back at the same URL with what it had written up to about a second before."""
        persist_dir.mkdir(parents=True, exist_ok=True)  # redis-server does not create its --dir
        self.redis = RedisServer(persist_dir=str(persist_dir))
        return self.redis.url

    def kill_redis(self) -> None:
        """SIGKILL the Redis server (no shutdown save: only its append-only file remains)."""
        if self.redis is not None and self.redis.process.poll() is None:
            self.redis.process.kill()
            self.redis.process.wait()

    def restart_redis(self) -> None:
        """Start Redis again after :meth:`kill_redis`, at the same URL, reloading its data."""
        if self.redis is not None:
            self.redis.resume()

    def start_beat(self, config: WorkerConfig) -> Service:
        """``pitch-arena beat``: the sweep that sends again matches whose lease lapsed or
        whose task the broker lost (and the automated round robins, if configured); its
        schedule file goes with the logs."""
        return self._start("beat", [str(BIN / "pitch-arena"), "beat", "--schedule",
                                    str(self.log_dir / "celerybeat-schedule")], config.to_env())

    def restart(self, service: Service, env: Mapping[str, str]) -> Service:
        """Start ``service``'s command again with ``env`` (what it was started with: a
        :class:`Service` does not keep its environment), after killing it if it still runs.
        The old log is kept as ``NAME.N.log`` (N = 1, 2, ... by incarnation); the new
        process takes the old one's place, so :meth:`close` stops it in the same order."""
        service.kill()
        incarnation = 1
        while (kept := self.log_dir / f"{service.name}.{incarnation}.log").exists():
            incarnation += 1
        if service.log_path.exists():
            service.log_path.rename(kept)
        fresh = Service(service.name, service.argv, env, self.log_dir, service.stop_signal)
        self.services[self.services.index(service)] = fresh
        return fresh

    def __enter__(self) -> LocalArena:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()
