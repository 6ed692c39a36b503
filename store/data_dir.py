"""Where a single-machine arena keeps its state between runs: ``PITCH_DATA_DIR``.

A referee started without ``REDIS_URL`` keeps its embedded Redis there (so a restart keeps
the registered bots, their tokens and every result), and ``pitch-arena beat`` keeps its
schedule file there (instead of the working directory).  The default follows the XDG base
directory convention: ``$XDG_DATA_HOME/pitch-arena``, else ``~/.local/share/pitch-arena``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

#: The environment variable that chooses the data directory.
DATA_DIR_VARIABLE = "PITCH_DATA_DIR"


def data_dir(chosen: str | None = None, env: Mapping[str, str] | None = None) -> Path:
    """The data directory (created if missing): ``chosen`` (a flag), else ``PITCH_DATA_DIR``,
    else the XDG default."""
    env = os.environ if env is None else env
    if chosen:
        path = Path(chosen)
    elif env.get(DATA_DIR_VARIABLE):
        path = Path(env[DATA_DIR_VARIABLE])
    else:
        base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        path = Path(base) / "pitch-arena"
    path = path.expanduser().absolute()
    path.mkdir(parents=True, exist_ok=True)
    return path
