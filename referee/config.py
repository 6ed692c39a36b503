"""The referee's settings, from flags and ``PITCH_*`` environment variables.

One frozen dataclass so every limit has a name, a default and a documented environment
variable; flags override the environment, the environment overrides the defaults.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pitch_sdk.clock import DEFAULT_BANK_MS, DEFAULT_PER_DECISION_MS
from store.settings import settings_from_env

#: Environment variable for each setting.
ENVIRONMENT = {
    "address": "PITCH_REFEREE_ADDRESS",
    "redis_url": "REDIS_URL",
    "admin_token": "PITCH_ADMIN_TOKEN",
    "per_decision_ms": "PITCH_PER_DECISION_MS",
    "bank_ms": "PITCH_BANK_MS",
    "max_strikes": "PITCH_MAX_STRIKES",
    "reconnect_grace_s": "PITCH_RECONNECT_GRACE_S",
    "hello_timeout_s": "PITCH_HELLO_TIMEOUT_S",
    "max_matches": "PITCH_MAX_MATCHES",
    "finished_matches_kept": "PITCH_FINISHED_MATCHES_KEPT",
    "shutdown_grace_s": "PITCH_SHUTDOWN_GRACE_S",
    "store_prefix": "PITCH_STORE_PREFIX",
    "data_dir": "PITCH_DATA_DIR",
    "max_bot_versions": "PITCH_MAX_BOT_VERSIONS",
    "advertise_address": "PITCH_REFEREE_ADVERTISE",
    "fleet_ttl_s": "PITCH_FLEET_TTL_S",
    "practice_share": "PITCH_PRACTICE_SHARE",
    "practice_per_bot": "PITCH_PRACTICE_PER_BOT",
    "practice_per_minute": "PITCH_PRACTICE_PER_MINUTE",
    "connects_per_minute": "PITCH_CONNECTS_PER_MINUTE",
    "version_check": "PITCH_VERSION_CHECK",
    "version_check_s": "PITCH_VERSION_CHECK_S",
    "relay_token": "PITCH_RELAY_TOKEN",
    "relay_address": "PITCH_RELAY_ADDRESS",
    "relay_advertise_address": "PITCH_RELAY_ADVERTISE",
    "relay_peer_name": "PITCH_RELAY_PEER_NAME",
    "relay_cert": "PITCH_RELAY_CERT",
    "relay_key": "PITCH_RELAY_KEY",
    "tls_ca": "PITCH_TLS_CA",
    "tls_cert": "PITCH_TLS_CERT",
    "tls_key": "PITCH_TLS_KEY",
    "tls_server_name": "PITCH_TLS_SERVER_NAME",
}


@dataclass(frozen=True)
class RefereeConfig:
    """Everything a referee process can be told."""

    address: str = "127.0.0.1:50051"
    """host:port to listen on (``[::]:50051`` for every interface)."""
    redis_url: str = ""
    """Redis holding bots and results; empty means the CLI starts a private one."""
    admin_token: str = ""
    """Bearer token for ArenaService calls; empty means one is generated and logged."""
    per_decision_ms: int = DEFAULT_PER_DECISION_MS
    """Default time per decision before the bank is used."""
    bank_ms: int = DEFAULT_BANK_MS
    """Default extra time a seat may spend over a whole match."""
    max_strikes: int = 3
    """Default strikes (timeouts, illegal answers) before the seat's party forfeits; 0: never."""
    reconnect_grace_s: float = 15.0
    """How long a disconnected bot's seats wait for it before its party forfeits."""
    hello_timeout_s: float = 10.0
    """How long a new stream may take to send its hello."""
    max_matches: int = 256
    """Matches run at once; more are refused with RESOURCE_EXHAUSTED."""
    finished_matches_kept: int = 256
    """Finished matches kept in memory (for StreamMatchEvents) for up to ten minutes, the
    newest first; older ones are only in the store (GetMatchLog).  Bounded so that memory
    and garbage-collection pauses do not grow with the rate of matches."""
    shutdown_grace_s: float = 10.0
    """On shutdown, how long running matches may take to finish before they are aborted."""
    store_prefix: str = "pitch:"
    """Prefix of every Redis key this arena uses."""
    data_dir: str = ""
    """Where the embedded Redis of a referee without ``redis_url`` keeps its data, so a
    restart keeps the bots and results; empty: the default of :mod:`store.data_dir`."""
    max_bot_versions: int = 1000
    """Versions a bot may have (each is rated apart); a hello with a new version past this
    is refused with RESOURCE_EXHAUSTED, so a bot that says a new version on every connection
    cannot grow the store without end.  0: no limit."""
    advertise_address: str = ""
    """host:port bots and workers reach this referee at, written to the fleet directory;
    empty: the listen address, with this host's name when it listens on every interface
    (a container's name resolves on its compose network)."""
    fleet_ttl_s: float = 10.0
    """How long the fleet directory keeps this referee (and its match claims) after its last
    heartbeat; it beats every third of it.  A SIGKILLed referee's matches may start again
    elsewhere after this long."""
    practice_share: float = 0.25
    """Share of ``max_matches`` practice matches may hold at once (at least one while it is
    above zero): the rest is always left to the arena's own matches.  0: no practice."""
    practice_per_bot: int = 2
    """Practice matches one bot may have running at once on this referee.  0: no practice."""
    practice_per_minute: int = 20
    """Practice requests one bot token may send a minute (a bucket refilled evenly, as full
    as this at first); more are refused before any work.  0: no limit."""
    connects_per_minute: int = 30
    """Streams one bot token may open a minute (each a hello: first connections and
    reconnections count alike); more are refused with RESOURCE_EXHAUSTED.  0: no limit."""
    version_check: bool = True
    """Check each new version of an author's bot before it plays (practice matches against
    house bots over its own stream, :mod:`referee.version_check`); off: new versions play
    at once.  Operator-registered bots (no account) are never checked."""
    version_check_s: float = 300.0
    """Time a version's check may take; matches unfinished then fail it."""
    relay_token: str = ""
    """The referees' own credential for ``RelayService``, given to referees only (never the
    admin token: whoever opens a relay writes to bots and reads their answers); empty: this
    referee neither opens nor accepts relays."""
    relay_address: str = ""
    """host:port of a listener that serves ``RelayService`` alone (with mutual TLS when
    ``relay_cert`` is set), written to the fleet directory; empty: the relay is served on
    ``address`` with the rest."""
    relay_advertise_address: str = ""
    """host:port other referees reach ``relay_address`` at; empty: derived from it as
    ``advertise_address`` is from ``address``."""
    relay_peer_name: str = "pitch-referee"
    """The name a relay caller's client certificate must carry (common name or subject
    alternative name), and the name this referee checks on a relay port's certificate."""
    relay_cert: str = ""
    """PEM certificate (chain) of this referee's relay identity, issued by ``tls_ca`` for
    ``relay_peer_name``: presented on the relay port and to the relay ports it calls."""
    relay_key: str = ""
    """PEM private key of ``relay_cert``."""
    tls_ca: str = ""
    """PEM certificate of the CA that issued the arena's certificates: what a relay caller's
    certificate must chain to, and what this referee trusts when it calls another."""
    tls_cert: str = ""
    """PEM server certificate (chain) for ``address``; set with ``tls_key``, the listener
    speaks TLS only."""
    tls_key: str = ""
    """PEM private key of ``tls_cert``."""
    tls_server_name: str = ""
    """The name this referee expects on another referee's server certificate when it relays
    through ``address`` (no relay port); empty: the host it dials."""

    def __post_init__(self) -> None:
        for name in ("per_decision_ms", "bank_ms", "max_strikes", "max_matches", "finished_matches_kept",
                     "max_bot_versions", "practice_per_bot", "practice_per_minute", "connects_per_minute"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative, got {getattr(self, name)}")
        if self.per_decision_ms == 0:
            raise ValueError("per_decision_ms must be positive")
        if not 0.0 <= self.practice_share <= 1.0:
            raise ValueError(f"practice_share must be between 0 and 1, got {self.practice_share}")
        if self.version_check_s <= 0:
            raise ValueError(f"version_check_s must be positive, got {self.version_check_s}")
        if self.fleet_ttl_s <= 0:
            raise ValueError(f"fleet_ttl_s must be positive, got {self.fleet_ttl_s}")
        if ":" not in self.address:
            raise ValueError(f"address {self.address!r} must be host:port")
        if self.relay_address and ":" not in self.relay_address:
            raise ValueError(f"relay_address {self.relay_address!r} must be host:port")
        if self.relay_token and self.relay_token == self.admin_token:
            raise ValueError("relay_token must differ from admin_token: the operator's token must not open relays")
        for cert, key in (("tls_cert", "tls_key"), ("relay_cert", "relay_key")):
            if bool(getattr(self, cert)) != bool(getattr(self, key)):
                raise ValueError(f"{cert} and {key} go together: set both or neither")
        if self.relay_cert and not (self.relay_address and self.tls_ca):
            raise ValueError("relay_cert (mutual TLS between referees) needs relay_address and tls_ca")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> RefereeConfig:
        """Settings from ``env`` (default ``os.environ``), then the overrides that are not ``None``."""
        return settings_from_env(cls, ENVIRONMENT, os.environ if env is None else env, overrides)


# ------------------------------------------------------------------ input bounds
# Every value a client sends is bounded before it is used, so that no request costs more
# than a small, fixed amount of the event loop's time and no reply or log line grows with
# what a client sent.  Generous for every legitimate use; each refusal names its bound.

MAX_ADMIN_REQUEST_BYTES = 64 * 1024
"""An encoded ArenaService request (the largest legitimate one is a few kilobytes)."""
MAX_BOT_MESSAGE_BYTES = 256 * 1024
"""An encoded BotMessage: a batch of answers for every seat of a bot of maximum capacity."""
MAX_BATCH_MESSAGES = 4096
"""Members of one ``BotMessage.batch``."""
MAX_CAPACITY = 1024
"""Seats a hello may declare."""
MAX_ID_CHARS = 128
"""A match id or bot id."""
MAX_NAME_CHARS = 64
"""A hello's bot name or version, a preset name, a protocol version."""
MAX_SDK_CHARS = 128
"""A hello's SDK description."""
MAX_LIST_ITEMS = 64
"""A hello's protocol versions and rulesets, a match's seats."""
MAX_OWNER_CHARS = 128
"""A registered bot's owner."""
MAX_DESCRIPTION_CHARS = 2000
"""A registered bot's description."""
MAX_OPTIONS_JSON_CHARS = 4096
"""A ruleset's options JSON (the largest legitimate one is a few hundred characters)."""
MAX_OPTIONS_DEPTH = 4
"""Nesting of a ruleset's options JSON (options are values or short lists of values)."""
MAX_OPTIONS_LIST_ITEMS = 64
"""Items of a list among a ruleset's options (point categories, ...)."""
MAX_TIME_MS = 3_600_000
"""A time control's per-decision time or bank."""
MAX_STRIKES = 1000
"""A fault policy's strikes before a forfeit."""
ECHO_CHARS = 80
"""How much of a client's value an error message or log line repeats."""
MAX_BOT_ERROR_TYPE_CHARS = 64
"""How much of a ``Decision.bot_error``'s type a strike's message repeats."""
MAX_BOT_ERROR_MESSAGE_CHARS = 120
"""How much of a ``Decision.bot_error``'s message a strike's message repeats."""


def echo(value: str, limit: int = ECHO_CHARS) -> str:
    """``value`` as an error reply or log line may repeat it: at most ``limit`` characters,
    an ellipsis marking a cut.  Callers format it with ``!r`` so control characters show
    escaped.  Unbounded echoes would let a client make status details overflow the
    caller's metadata limit (it would see RESOURCE_EXHAUSTED instead of the real error)
    or fill the log."""
    return value if len(value) <= limit else value[:limit] + "…"
