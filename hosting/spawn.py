"""Start a child process from a host that runs gRPC's threads, and watch it from asyncio.

uvloop (libuv) starts a child with ``fork`` and then ``exec``, and runs Python's fork hooks
and libuv's in the child in between.  In a bot host gRPC's threads are running at that
moment, and the child died with SIGSEGV before its ``exec`` now and then (more often under
load): the supervisor then marked a well-behaved bot failing.  CPython's ``subprocess``
starts the child with ``vfork`` (no fork handlers, no copy of the host's memory); the event
loop then watches the child's pidfd, readable once it has ended, and its output pipe, which
every loop supports.  Needs Linux 5.3 or later for ``pidfd_open`` (bubblewrap's user namespaces need
a recent kernel anyway).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence

OUTPUT_BUFFER = 1 << 16
"""How much of a child's output the stream holds before the pipe is paused."""


class Child:
    """A started child: its pid, its output stream (stdout and stderr together), its end."""

    def __init__(self, popen: subprocess.Popen[bytes], stdout: asyncio.StreamReader) -> None:
        self.pid = popen.pid
        self.stdout = stdout
        self._popen = popen
        self._pidfd = os.pidfd_open(popen.pid)
        loop = asyncio.get_running_loop()
        self._ended: asyncio.Future[int] = loop.create_future()
        loop.add_reader(self._pidfd, self._reap)

    @property
    def returncode(self) -> int | None:
        """The exit code, or minus the signal that killed it; ``None`` while it runs."""
        return self._ended.result() if self._ended.done() else None

    async def wait(self) -> int:
        """Wait for the child's end (it is reaped then) and return :attr:`returncode`."""
        return await asyncio.shield(self._ended)

    def kill(self) -> None:
        """SIGKILL the child, by its pidfd: never another process that took its pid."""
        if not self._ended.done():
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)

    def _reap(self) -> None:
        """The pidfd is readable: the child has ended; reap it (at once: it is a zombie)."""
        asyncio.get_running_loop().remove_reader(self._pidfd)
        os.close(self._pidfd)
        if not self._ended.done():
            self._ended.set_result(self._popen.wait())


async def spawn(argv: Sequence[str], env: Mapping[str, str], pass_fds: Sequence[int] = ()) -> Child:
    """Run ``argv`` in a new session with ``env`` only, no stdin, its stdout and stderr in
    one pipe, and ``pass_fds`` left open in it."""
    popen = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             env=dict(env), start_new_session=True, pass_fds=tuple(pass_fds))
    assert popen.stdout is not None
    try:
        reader = asyncio.StreamReader(limit=OUTPUT_BUFFER)
        await asyncio.get_running_loop().connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader),
                                                           popen.stdout)
        return Child(popen, reader)
    except BaseException:
        popen.kill()
        popen.wait()
        raise
