"""A bot host's settings, from flags and ``PITCH_*`` environment variables (flags override
the environment, the environment the defaults), as the referee's are."""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hosting.limits import Limits
from store.settings import settings_from_env

#: Environment variable for each setting.
ENVIRONMENT = {
    "redis_url": "REDIS_URL",
    "store_prefix": "PITCH_STORE_PREFIX",
    "referee": "PITCH_REFEREE",
    "host_id": "PITCH_HOST_ID",
    "slots": "PITCH_HOST_SLOTS",
    "capacity": "PITCH_HOSTED_CAPACITY",
    "work_dir": "PITCH_HOST_DIR",
    "lease_s": "PITCH_HOST_LEASE_S",
    "poll_s": "PITCH_HOST_POLL_S",
    "hello_deadline_s": "PITCH_HOSTED_HELLO_S",
    "token_ttl_s": "PITCH_HOSTED_TOKEN_TTL_S",
    "memory_mb": "PITCH_SANDBOX_MEMORY_MB",
    "cpu_cores": "PITCH_SANDBOX_CPU_CORES",
    "pids": "PITCH_SANDBOX_PIDS",
    "backoff_s": "PITCH_HOSTED_BACKOFF_S",
    "max_backoff_s": "PITCH_HOSTED_MAX_BACKOFF_S",
    "check": "PITCH_HOSTED_CHECK",
    "check_timeout_s": "PITCH_HOSTED_CHECK_S",
    "auto_sprt": "PITCH_AUTO_SPRT",
}


def default_host_id() -> str:
    """This machine's name and a random suffix: unique per process, readable in listings."""
    return f"{socket.gethostname()[:40]}-{uuid.uuid4().hex[:6]}"


@dataclass(frozen=True)
class HostConfig:
    """Everything a bot host process can be told."""

    redis_url: str = "redis://127.0.0.1:6379/0"
    """The arena's Redis: hosted versions, leases, heartbeats, tokens."""
    store_prefix: str = "pitch:"
    """Prefix of every Redis key the arena uses."""
    referee: str = "127.0.0.1:50051"
    """The referee (host:port) this host's bots play through; a match placed on another
    referee of the fleet reaches them through it (a relay)."""
    host_id: str = ""
    """This host's id in the heartbeats and leases; empty: the machine's name and a random suffix."""
    slots: int = 4
    """Versions this host runs at once."""
    capacity: int = 4
    """Seats each hosted version may play at once (its hello says at most this)."""
    work_dir: str = ""
    """Where the host unpacks packages (by sha256, read-only) and keeps its sockets; empty:
    ``bot-host`` in the arena's data directory."""
    lease_s: float = 30.0
    """How long a version stays with a host that stopped renewing (a dead host's versions
    start elsewhere after this long); renewed every poll."""
    poll_s: float = 2.0
    """How often the host reads what should run and renews its leases, tokens and heartbeat."""
    hello_deadline_s: float = 30.0
    """How long a started bot may take to say hello before it is killed."""
    token_ttl_s: float = 120.0
    """Lifetime of a version's ephemeral bot token, renewed every poll (it lapses on its own
    when the host dies)."""
    memory_mb: int = Limits.memory_mb
    """Each sandbox's memory (see :class:`hosting.limits.Limits`)."""
    cpu_cores: float = Limits.cpu_cores
    """Each sandbox's CPU quota."""
    pids: int = Limits.pids
    """Each sandbox's processes and threads."""
    backoff_s: float = 1.0
    """The first wait before restarting a bot that crashed; it doubles per crash."""
    max_backoff_s: float = 60.0
    """The longest wait before a restart."""
    check: bool = True
    """Check each version (the compliance practice matches, :mod:`hosting.check`) before it
    plays its first arena match; off (``PITCH_HOSTED_CHECK=0``): versions play at once."""
    check_timeout_s: float = 300.0
    """How long a version's compliance check may take: its practice matches unfinished by
    then are a problem of the check."""
    auto_sprt: bool = True
    """The workers' switch of the automatic SPRTs (the same variable): while on, a bot's
    version stays running beside its newer one until the newer one's test is over (it is
    the test's opponent); off: a newer version replaces it at once."""

    def __post_init__(self) -> None:
        for name in ("slots", "capacity", "memory_mb", "pids"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("lease_s", "poll_s", "hello_deadline_s", "token_ttl_s", "cpu_cores", "backoff_s",
                     "max_backoff_s", "check_timeout_s"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.poll_s * 2 > self.lease_s:
            raise ValueError(f"lease_s ({self.lease_s:g}) must be at least twice poll_s ({self.poll_s:g}): a "
                             "lease is renewed every poll")
        if self.poll_s * 2 > self.token_ttl_s:
            raise ValueError(f"token_ttl_s ({self.token_ttl_s:g}) must be at least twice poll_s ({self.poll_s:g})")
        if ":" not in self.referee:
            raise ValueError(f"referee {self.referee[:60]!r} must be host:port")

    @property
    def limits(self) -> Limits:
        """Each sandbox's bounds."""
        return Limits(memory_mb=self.memory_mb, cpu_cores=self.cpu_cores, pids=self.pids)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> HostConfig:
        """Settings from ``env`` (default ``os.environ``), then the overrides that are not ``None``."""
        return settings_from_env(cls, ENVIRONMENT, os.environ if env is None else env, overrides)
