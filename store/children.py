"""How the CLI starts the processes it owns, so none outlives it.

Each child gets its own session: the terminal's Ctrl-C reaches only the CLI, which then
stops its children in order (the worker before the bots it waits on, the referee before
the Redis it writes to) instead of all of them at once.  On Linux the kernel also sends a
child SIGTERM when the CLI dies without cleaning up (SIGKILL, a crash), so nothing is
left running even then.  (The kernel ties this to the thread that started the child:
start owned children from a thread that lives as long as they should, normally the main
one.)

The death signal is set by a small launcher (``python -m store.children PARENT_PID
COMMAND...``) that then execs the command, not by a ``preexec_fn``: that would make
Python fork with its fork hooks, which gRPC's threads in the parent do not survive; a
plain ``Popen`` spawns without them.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

_PR_SET_PDEATHSIG = 1


def owned_child(argv: Sequence[str]) -> dict[str, Any]:
    """``subprocess.Popen`` keyword arguments, ``args`` included, for a child this process owns."""
    if sys.platform != "linux":
        return {"args": list(argv), "start_new_session": True}
    return {"args": [sys.executable, "-m", "store.children", str(os.getpid()), *argv],
            "start_new_session": True}


def _launch(parent: int, command: list[str]) -> NoReturn:
    """Ask for SIGTERM when ``parent`` dies (or stop now if it already has), then become ``command``."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:
        sys.exit(f"parent {parent} is gone; not starting {command[0]}")
    os.execvp(command[0], command)


if __name__ == "__main__":
    _launch(int(sys.argv[1]), sys.argv[2:])
