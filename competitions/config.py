"""The workers' settings, from ``PITCH_*`` environment variables (and ``REDIS_URL``).

One frozen dataclass, as for the referee, so every limit has a name, a default and a
documented variable; a worker, beat and the process that launches tournaments must agree
on ``redis_url`` and ``store_prefix`` (they name the broker queue and every key).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

from competitions.ratings.model import EloConfig
from competitions.tournaments.retries import RetryLimits
from store.settings import settings_from_env, settings_to_env

#: Environment variable for each setting.
ENVIRONMENT = {
    "redis_url": "REDIS_URL",
    "store_prefix": "PITCH_STORE_PREFIX",
    "referee": "PITCH_REFEREE",
    "admin_token": "PITCH_ADMIN_TOKEN",
    "match_timeout_s": "PITCH_MATCH_TIMEOUT_S",
    "match_retries": "PITCH_MATCH_RETRIES",
    "fleet_wait_s": "PITCH_FLEET_WAIT_S",
    "retry_backoff_s": "PITCH_RETRY_BACKOFF_S",
    "retry_backoff_max_s": "PITCH_RETRY_BACKOFF_MAX_S",
    "visibility_timeout_s": "PITCH_VISIBILITY_TIMEOUT_S",
    "restore_interval_s": "PITCH_RESTORE_INTERVAL_S",
    "requeue_interval_s": "PITCH_REQUEUE_INTERVAL_S",
    "lease_s": "PITCH_MATCH_LEASE_S",
    "auto_presets": "PITCH_AUTO_PRESETS",
    "auto_interval_s": "PITCH_AUTO_INTERVAL_S",
    "auto_games": "PITCH_AUTO_GAMES",
    "auto_ladder_presets": "PITCH_AUTO_LADDER_PRESETS",
    "auto_sprt": "PITCH_AUTO_SPRT",
    "auto_sprt_preset": "PITCH_AUTO_SPRT_PRESET",
    "auto_sprt_elo0": "PITCH_AUTO_SPRT_ELO0",
    "auto_sprt_elo1": "PITCH_AUTO_SPRT_ELO1",
    "auto_sprt_alpha": "PITCH_AUTO_SPRT_ALPHA",
    "auto_sprt_beta": "PITCH_AUTO_SPRT_BETA",
    "auto_sprt_max_games": "PITCH_AUTO_SPRT_MAX_GAMES",
    "auto_sprt_per_author": "PITCH_AUTO_SPRT_PER_AUTHOR",
    "elo_initial": "PITCH_ELO_INITIAL",
    "elo_k": "PITCH_ELO_K",
    "elo_provisional_games": "PITCH_ELO_PROVISIONAL_GAMES",
    "fleet_ttl_s": "PITCH_FLEET_TTL_S",
    "alive_file": "PITCH_WORKER_ALIVE_FILE",
    "alive_interval_s": "PITCH_WORKER_ALIVE_INTERVAL_S",
}


@dataclass(frozen=True)
class WorkerConfig:
    """Everything a worker, beat, or a tournament launcher can be told."""

    redis_url: str = "redis://127.0.0.1:6379/0"
    """Redis for the store, the Celery broker and the result backend."""
    store_prefix: str = "pitch:"
    """Prefix of every key (the referee's ``PITCH_STORE_PREFIX``); Celery's keys live under
    ``{store_prefix}celery:``."""
    referee: str = "127.0.0.1:50051"
    """host:port of a referee of the arena: admin calls go there; matches go to any live
    referee of the fleet directory (there too while the directory is empty)."""
    admin_token: str = ""
    """The referee's admin token (ArenaService calls)."""
    match_timeout_s: float = 1800.0
    """Deadline of one RunMatch call; on expiry the task retries and joins the running match."""
    match_retries: int = 5
    """Retries of a match whose bot is offline before it is recorded as not played (and,
    counted apart, retries after a referee's internal fault)."""
    fleet_wait_s: float = 3600.0
    """How long a match waits while the fleet turns it away as busy (no room for it, a
    referee stopping, restarting or unreachable) before it is recorded as not played:
    nobody's absence, so it waits rather than spend the offline bot's retries."""
    retry_backoff_s: float = 5.0
    """First retry delay; it doubles with each retry."""
    retry_backoff_max_s: float = 300.0
    """Longest retry delay."""
    visibility_timeout_s: float = 2400.0
    """How long a task taken by a worker stays invisible to others before Redis hands it out
    again (a worker died): longer than a match plus the longest retry delay."""
    restore_interval_s: float = 10.0
    """How often a worker looks for tasks of dead workers past the visibility timeout."""
    requeue_interval_s: float = 10.0
    """How often the workers' supervisor (:mod:`workers.supervisor`) looks for matches with
    no live task (lost by the broker, or their worker killed while taking, starting or
    playing them) and sends them again, ahead of the queue."""
    lease_s: float = 15.0
    """How long a match stays its worker's without renewal: the worker renews its lease every
    third of it while the referee plays the match, so a killed worker's match is sent
    again about ``lease_s + requeue_interval_s`` after the kill, not after the visibility
    timeout.  It is also how long a task a worker took may go without starting (and
    leasing) its match before the sweep counts it as lost."""
    auto_presets: str = ""
    """Comma-separated presets of the automated round robins (beat); empty: none."""
    auto_interval_s: float = 3600.0
    """Seconds between automated round robins of a preset."""
    auto_games: int = 1
    """Games per match of the automated round robins and ladders."""
    auto_ladder_presets: str = ""
    """Comma-separated presets played as endless ladders by beat (matchmaking among the
    connected bots instead of round robins: :mod:`competitions.ladder.control`); empty: none."""
    auto_sprt: bool = True
    """Every new version of a bot is tested against its predecessor by an SPRT the workers
    start by themselves (:mod:`competitions.version_tests`); off: ``PITCH_AUTO_SPRT=0``."""
    auto_sprt_preset: str = "partnership"
    """The preset of the automatic SPRTs (a two-sided one) of a bot whose owner chose no
    two-sided preset; otherwise the first two-sided one chosen is played
    (:mod:`competitions.version_tests.control`)."""
    auto_sprt_elo0: float = 0.0
    """H0 of the automatic SPRTs: the new version is at most this much stronger (normalized Elo)."""
    auto_sprt_elo1: float = 10.0
    """H1 of the automatic SPRTs: the new version is at least this much stronger."""
    auto_sprt_alpha: float = 0.05
    """The automatic SPRTs' false positive rate."""
    auto_sprt_beta: float = 0.05
    """The automatic SPRTs' false negative rate."""
    auto_sprt_max_games: int = 2000
    """The automatic SPRTs' game cap (no verdict there)."""
    auto_sprt_per_author: int = 1
    """Automatic SPRTs one author (a bot's owner) may have running at once; more wait their
    turn, so one author's burst of versions never holds the fleet from the others."""
    elo_initial: float = 1500.0
    """A new bot's rating (see :class:`competitions.ratings.model.EloConfig`)."""
    elo_k: float = 16.0
    """The live Elo K-factor per game."""
    elo_provisional_games: int = 30
    """Leaderboard rows of bots with fewer games are marked provisional."""
    fleet_ttl_s: float = 10.0
    """The referees' directory TTL (``PITCH_FLEET_TTL_S``, the same for every process):
    a referee whose heartbeat is older is not offered matches."""
    alive_file: str = ""
    """A file the worker touches every ``alive_interval_s`` while it consumes, for a liveness
    check (``pitch-arena worker-alive``, :mod:`workers.alive`); empty: none."""
    alive_interval_s: float = 5.0
    """How often a consuming worker touches ``alive_file``."""

    def __post_init__(self) -> None:
        for name in ("match_timeout_s", "retry_backoff_s", "visibility_timeout_s", "restore_interval_s",
                     "requeue_interval_s", "auto_interval_s", "lease_s", "fleet_ttl_s", "fleet_wait_s",
                     "alive_interval_s"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.auto_sprt_per_author < 1 or self.auto_sprt_max_games < 2:
            raise ValueError("auto_sprt_per_author must be at least 1 and auto_sprt_max_games at least 2")
        if self.match_retries < 0 or self.auto_games < 1:
            raise ValueError("match_retries must not be negative and auto_games must be at least 1")
        if self.visibility_timeout_s <= self.match_timeout_s + self.retry_backoff_max_s:
            raise ValueError(f"visibility_timeout_s ({self.visibility_timeout_s}) must exceed match_timeout_s + "
                             f"retry_backoff_max_s ({self.match_timeout_s + self.retry_backoff_max_s}), or "
                             "Redis hands running matches to a second worker")

    @property
    def celery_prefix(self) -> str:
        """Prefix of Celery's broker and result keys: inside the store's prefix, so two
        arenas (or two test runs) on one Redis never take each other's tasks."""
        return f"{self.store_prefix}celery:"

    @property
    def celery_url(self) -> str:
        """``redis_url`` as Celery spells it (``unix://path?db=N`` becomes
        ``redis+socket://path?virtual_host=N``)."""
        parts = urlsplit(self.redis_url)
        if parts.scheme != "unix":
            return self.redis_url
        db = parse_qs(parts.query).get("db", ["0"])[0]
        return f"redis+socket://{parts.path}?virtual_host={db}"

    @property
    def elo(self) -> EloConfig:
        """The rating parameters every worker and the CLI must share."""
        return EloConfig(initial=self.elo_initial, k=self.elo_k, provisional_games=self.elo_provisional_games)

    @property
    def presets(self) -> tuple[str, ...]:
        """The automated round robins' presets."""
        return tuple(p.strip() for p in self.auto_presets.split(",") if p.strip())

    @property
    def ladder_presets(self) -> tuple[str, ...]:
        """The automated ladders' presets."""
        return tuple(p.strip() for p in self.auto_ladder_presets.split(",") if p.strip())

    @property
    def retry_limits(self) -> RetryLimits:
        """The bounds of a match's retries (see :mod:`competitions.tournaments.retries`)."""
        return RetryLimits(retries=self.match_retries, fleet_wait_s=self.fleet_wait_s)

    def retry_delay(self, retries: int) -> float:
        """Delay before retry number ``retries + 1`` (exponential, capped)."""
        return float(min(self.retry_backoff_s * 2 ** retries, self.retry_backoff_max_s))

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> WorkerConfig:
        """Settings from ``env`` (default ``os.environ``), then the overrides that are not ``None``."""
        return settings_from_env(cls, ENVIRONMENT, os.environ if env is None else env, overrides)

    def to_env(self) -> dict[str, str]:
        """The environment that reproduces these settings in another process."""
        return settings_to_env(self, ENVIRONMENT)
