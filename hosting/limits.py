"""What one sandboxed bot may use: the bounds a bot host enforces with cgroups where the
host allows and with rlimits always."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Limits:
    """One sandbox's bounds.  The defaults fit a Python bot that plays through the SDK (about
    40 MB resident) with room for a search, and let a 2-core host hold dozens of bots."""

    memory_mb: int = 256
    """Resident memory of every process together: a bot's search tables fit, a balloon is
    killed long before the host swaps."""
    cpu_cores: float = 0.5
    """A CPU quota: half a core answers a decision within the referee's clock, and one bot
    spinning cannot take a core that its neighbours' matches need."""
    pids: int = 64
    """Processes and threads together: the Python SDK's gRPC threads and a few workers, while a
    fork bomb stops at a few dozen processes instead of exhausting the host's process table."""
    open_files: int = 256
    """Descriptors per process: a bot needs a socket and a handful of files, and the kernel's
    per-descriptor memory stays small."""
    tmp_mb: int = 64
    """The private writable /tmp (a tmpfs, charged to the host's memory): scratch space for a
    bot's caches, never the host's disk."""
    file_size_mb: int = 64
    """The largest file a bot may write anywhere (RLIMIT_FSIZE): bounds what reaches the one
    host directory a bot can write to, its socket directory."""
    output_kb: int = 64
    """How much of a bot's stdout and stderr the host keeps (the last KiB): enough for a
    traceback and the lines before it, bounded however much the bot prints."""

    def __post_init__(self) -> None:
        for field in fields(self):
            if not getattr(self, field.name) > 0:
                raise ValueError(f"a sandbox limit must be positive: {field.name}={getattr(self, field.name)!r}")
