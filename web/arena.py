"""What the pages read: the arena's Redis through the project's store modules, and the
referees through ArenaService (connected bots, running matches, their event streams): every
live referee of the fleet, or ``PITCH_REFEREE`` alone without one (:mod:`web.referees`).

Pages run their store reads in Starlette's thread pool (plain ``def`` handlers), since the
store is synchronous redis-py; the event streams are asynchronous (``grpc.aio``, through
:meth:`ArenaReferees.aio_stub`) and are opened per spectator, on the event loop that serves them."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from competitions.ratings.leaderboard import Leaderboard
from competitions.ratings.model import RatingRow
from competitions.referee_client import RefereeClient
from competitions.tournaments.store import TournamentStore
from pitch_sdk.proto.pitch.v1 import arena_pb2, arena_pb2_grpc
from store.redis_store import Store
from web.config import WebConfig
from web.referees import ASK_TIMEOUT_S, ArenaReferees, RunningMatches

#: Seconds the list of bots (connected, seats) is reused between page views.
CONNECTED_TTL_S = 2.0

Bots = dict[str, arena_pb2.BotInfo]


@dataclass
class WebArena:
    """The store, the tournaments and the referees, as the web service reaches them."""

    config: WebConfig
    store: Store
    tournaments: TournamentStore = field(init=False)
    referee: RefereeClient = field(init=False)
    """``PITCH_REFEREE``: registrations, and people's games (their seats connect to it)."""
    referees: ArenaReferees = field(init=False)
    """Every live referee of the fleet (``PITCH_REFEREE`` alone without one): the live pages' reads."""
    _bots: tuple[float, Bots] | None = field(default=None, init=False)
    _names: dict[str, str] = field(default_factory=dict, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def __post_init__(self) -> None:
        self.tournaments = TournamentStore(self.store)
        self.referee = RefereeClient(self.config.referee, self.config.admin_token, match_timeout_s=ASK_TIMEOUT_S)
        self.referees = ArenaReferees(self.config.referee, self.config.admin_token, self.store,
                                      self.config.fleet_ttl_s)

    @classmethod
    def from_config(cls, config: WebConfig) -> WebArena:
        """Connect to the store and (lazily) the referee that ``config`` names."""
        return cls(config, Store.from_url(config.redis_url, config.store_prefix))

    def fitted_table(self, board: str) -> list[RatingRow]:
        """The board's order-independent Bradley–Terry table, from its cache: a page never
        waits for a large board's refit (a stale table is served and refitted in the background)."""
        return Leaderboard(self.store, board, self.config.elo).fitted_cached()

    @property
    def admin_metadata(self) -> tuple[tuple[str, str], ...]:
        """Call metadata carrying the admin token."""
        return self.referee.metadata

    def connected(self) -> Bots | None:
        """Every registered bot (connected or not) by id, connected if it has a stream on
        any live referee of the fleet, with its seats in use fleet-wide; ``None`` when
        neither Redis nor ``PITCH_REFEREE`` can be read (pages then say so instead of
        failing).  Reused for :data:`CONNECTED_TTL_S`: the read lists every registered bot,
        so repeating it on every page view of a large arena would cost each view the whole
        list."""
        with self._lock:
            if self._bots is not None and time.monotonic() - self._bots[0] < CONNECTED_TTL_S:
                return self._bots[1]
        listed = self.referees.bots()
        if listed is not None:
            with self._lock:
                self._bots = (time.monotonic(), listed)
        return listed

    def names(self, bot_ids: Iterable[str]) -> dict[str, str]:
        """The display names of ``bot_ids`` that are registered.  Names never change once
        registered, so each is read from the store once per process."""
        wanted = list(dict.fromkeys(bot_ids))
        missing = [bot for bot in wanted if bot not in self._names]
        if missing:
            found = self.store.bot_names(missing)
            with self._lock:
                self._names.update(found)
        return {bot: self._names[bot] for bot in wanted if bot in self._names}

    def running_matches(self) -> RunningMatches:
        """The matches every live referee plays now, oldest first, and how many referees did not answer."""
        return self.referees.running()

    def aio_stub(self) -> arena_pb2_grpc.ArenaServiceStub:
        """An asynchronous stub of ``PITCH_REFEREE`` on the serving event loop (people's games)."""
        return self.referees.aio_stub(self.config.referee)

    async def close(self) -> None:
        """Close the asynchronous channels (the synchronous ones close with the process)."""
        await self.referees.close()
