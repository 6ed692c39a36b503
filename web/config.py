"""The web service's settings, from ``PITCH_*`` environment variables (and ``REDIS_URL``).

It reads the store with the same ``redis_url`` and ``store_prefix`` as the workers and the
referee, and calls the referee's ArenaService with the admin token, so one environment
serves the whole deployment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from competitions.ratings.model import EloConfig
from store.settings import settings_from_env, settings_to_env

#: Environment variable for each setting.
ENVIRONMENT = {
    "address": "PITCH_WEB_ADDRESS",
    "redis_url": "REDIS_URL",
    "store_prefix": "PITCH_STORE_PREFIX",
    "referee": "PITCH_REFEREE",
    "admin_token": "PITCH_ADMIN_TOKEN",
    "human_decision_ms": "PITCH_WEB_HUMAN_DECISION_MS",
    "human_bank_ms": "PITCH_WEB_HUMAN_BANK_MS",
    "max_human_matches": "PITCH_WEB_MAX_HUMAN_MATCHES",
    "human_tables_per_client": "PITCH_WEB_HUMAN_TABLES_PER_CLIENT",
    "human_abandon_s": "PITCH_WEB_HUMAN_ABANDON_S",
    "elo_initial": "PITCH_ELO_INITIAL",
    "elo_k": "PITCH_ELO_K",
    "elo_provisional_games": "PITCH_ELO_PROVISIONAL_GAMES",
    "fleet_ttl_s": "PITCH_FLEET_TTL_S",
}


@dataclass(frozen=True)
class WebConfig:
    """Everything the web service can be told."""

    address: str = "127.0.0.1:8080"
    """host:port to serve HTTP on."""
    redis_url: str = "redis://127.0.0.1:6379/0"
    """The arena's Redis (the store the workers and the referee write)."""
    store_prefix: str = "pitch:"
    """Prefix of every key (``PITCH_STORE_PREFIX``)."""
    referee: str = "127.0.0.1:50051"
    """host:port of the referee (ArenaService): the one the service registers bots with and
    plays people's games on, and the one its live pages ask while the fleet directory is
    empty (with a fleet they ask every live referee: :mod:`web.referees`)."""
    admin_token: str = ""
    """The referee's admin token: the service's own calls use it, and a person must give it
    for anything that changes the arena (registering a bot, starting a tournament)."""
    human_decision_ms: int = 120_000
    """Time a person has per decision (a bot's default is a few seconds)."""
    human_bank_ms: int = 300_000
    """A person's time bank over a whole match."""
    max_human_matches: int = 8
    """People's matches at once; more are refused until one ends."""
    human_tables_per_client: int = 2
    """People's games one client address may have running at once (one visitor cannot take
    every table)."""
    human_abandon_s: float = 90.0
    """A person's game whose person has gone (no page of it open, no answer) for this long is
    played out at once by the first legal action, so it frees its table."""
    elo_initial: float = 1500.0
    """The rating scale's anchor, as the workers use it (``PITCH_ELO_INITIAL``)."""
    elo_k: float = 16.0
    """The live Elo K-factor, as the workers use it."""
    elo_provisional_games: int = 30
    """Rows of bots with fewer games are marked provisional, as in the CLI."""
    fleet_ttl_s: float = 10.0
    """The referees' directory TTL (``PITCH_FLEET_TTL_S``, the same for every process): a
    referee whose heartbeat is older is not asked."""

    def __post_init__(self) -> None:
        host, _, port = self.address.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"PITCH_WEB_ADDRESS must be host:port, got {self.address!r}")
        if self.human_decision_ms <= 0 or self.human_bank_ms < 0 or self.max_human_matches < 0:
            raise ValueError("human_decision_ms must be positive, human_bank_ms and max_human_matches not negative")
        if self.human_tables_per_client < 1 or self.human_abandon_s <= 0:
            raise ValueError("human_tables_per_client must be at least 1 and human_abandon_s positive")
        if self.fleet_ttl_s <= 0:
            raise ValueError(f"PITCH_FLEET_TTL_S must be positive, got {self.fleet_ttl_s}")

    @property
    def elo(self) -> EloConfig:
        """The rating parameters, the same as the workers' (:attr:`WorkerConfig.elo`)."""
        return EloConfig(initial=self.elo_initial, k=self.elo_k, provisional_games=self.elo_provisional_games)

    @property
    def host(self) -> str:
        """The host part of :attr:`address` (brackets of an IPv6 literal removed)."""
        return self.address.rpartition(":")[0].strip("[]")

    @property
    def port(self) -> int:
        """The port part of :attr:`address`."""
        return int(self.address.rpartition(":")[2])

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> WebConfig:
        """Settings from ``env`` (default ``os.environ``), then the overrides that are not ``None``."""
        return settings_from_env(cls, ENVIRONMENT, os.environ if env is None else env, overrides)

    def to_env(self) -> dict[str, str]:
        """The environment that reproduces these settings in another process."""
        return settings_to_env(self, ENVIRONMENT)
