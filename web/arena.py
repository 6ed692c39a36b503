"""What the pages read: the arena's Redis through the project's store modules, and the
referee through ArenaService (connected bots, running matches, their event streams).

Pages run their store reads in Starlette's thread pool (plain ``def`` handlers), since the
store is synchronous redis-py; the event streams are asynchronous (``grpc.aio``, through
:meth:`WebArena.aio_stub`) and are opened per spectator, on the event loop that serves them."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

import grpc

from pitch_sdk.proto.pitch.v1 import arena_pb2, arena_pb2_grpc
from web.config import WebConfig
from workers.ratings.leaderboard import Leaderboard
from workers.ratings.model import RatingRow
from workers.referee_client import RefereeClient
from workers.storage.store import Store
from workers.tournaments.store import TournamentStore

#: Seconds a page waits for the referee before it shows what it has without it.
REFEREE_TIMEOUT_S = 2.0
#: Seconds the referee's list of bots is reused between page views.
CONNECTED_TTL_S = 2.0


@dataclass
class WebArena:
    """The store, the tournaments and the referee, as the web service reaches them."""

    config: WebConfig
    store: Store
    tournaments: TournamentStore = field(init=False)
    referee: RefereeClient = field(init=False)
    _aio_channel: grpc.aio.Channel | None = field(default=None, init=False)
    _connected: tuple[float, dict[str, arena_pb2.BotInfo]] | None = field(default=None, init=False)
    _names: dict[str, str] = field(default_factory=dict, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def __post_init__(self) -> None:
        self.tournaments = TournamentStore(self.store)
        self.referee = RefereeClient(self.config.referee, self.config.admin_token, match_timeout_s=REFEREE_TIMEOUT_S)

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

    def connected(self) -> dict[str, arena_pb2.BotInfo] | None:
        """The referee's view of every registered bot (connected or not), by id; ``None``
        when the referee cannot be reached (pages then say so instead of failing).

        Kept for :data:`CONNECTED_TTL_S`: ListBots lists every registered bot, so asking it
        on every page view of a large arena would cost each view the whole list."""
        with self._lock:
            if self._connected is not None and time.monotonic() - self._connected[0] < CONNECTED_TTL_S:
                return self._connected[1]
        try:
            bots = self.referee.stub.ListBots(arena_pb2.ListBotsRequest(), metadata=self.admin_metadata,
                                             timeout=REFEREE_TIMEOUT_S).bots
        except grpc.RpcError:
            return None
        listed = {bot.bot_id: bot for bot in bots}
        with self._lock:
            self._connected = (time.monotonic(), listed)
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

    def running_matches(self) -> list[arena_pb2.RunningMatch] | None:
        """The matches the referee plays now, oldest first; ``None`` when it cannot be reached."""
        try:
            return list(self.referee.stub.ListMatches(arena_pb2.ListMatchesRequest(), metadata=self.admin_metadata,
                                                      timeout=REFEREE_TIMEOUT_S).matches)
        except grpc.RpcError:
            return None

    def aio_stub(self) -> arena_pb2_grpc.ArenaServiceStub:
        """An asynchronous ArenaService stub on the serving event loop (opened on first use)."""
        if self._aio_channel is None:
            self._aio_channel = grpc.aio.insecure_channel(self.config.referee)
        return arena_pb2_grpc.ArenaServiceStub(self._aio_channel)

    async def close(self) -> None:
        """Close the asynchronous channel (the synchronous one closes with the process)."""
        if self._aio_channel is not None:
            await self._aio_channel.close()
            self._aio_channel = None
