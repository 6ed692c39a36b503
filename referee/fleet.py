"""This referee as a member of the arena's fleet: its entry in the Redis directory
(:mod:`store.fleet`), kept alive by a heartbeat, the bots connected to it, and
the fleet-wide claims of the matches it runs.  Each heartbeat also ends the streams of
bots the operator has disabled since they connected.

Redis is written off the event loop, one write at a time in the order they were made (a
bot that connects and disconnects at once must not end up listed), and never on the
decision path: a referee writes to the directory when a bot connects or disconnects, when
a match starts or ends, and every third of the TTL.  A write that fails (Redis is down) is
dropped, and the next heartbeat rewrites the whole entry.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import uuid
from collections.abc import Awaitable, Callable

import grpc
import redis

from pitch_sdk.proto.pitch.v1 import bot_pb2
from referee.admission import DISABLED
from referee.capacity import FleetSeats
from referee.config import RefereeConfig
from referee.sessions import Presence, Registry
from store.accounts import Accounts
from store.fleet import FleetDirectory
from store.redis_store import Store
from store.seats import SeatLedger
from store.versions import BotVersions

log = logging.getLogger("pitch.referee.fleet")

def advertised_address(config: RefereeConfig, port: int) -> str:
    """Where bots and workers reach this referee: the configured advertise address, else
    the listen address with the bound port (this host's name for a wildcard host)."""
    return config.advertise_address or _reachable(config.address, port)


def advertised_relay_address(config: RefereeConfig, port: int) -> str:
    """Where other referees reach this one's relay listener (empty without one), as
    :func:`advertised_address` for the main listener."""
    if not config.relay_address:
        return ""
    return config.relay_advertise_address or _reachable(config.relay_address, port)


def _reachable(listen: str, port: int) -> str:
    """A listen address with its bound port, this host's name for a wildcard host."""
    host = listen.rsplit(":", 1)[0]
    if host in ("0.0.0.0", "[::]", "::", ""):
        host = socket.gethostname()
    return f"{host}:{port}"


class FleetMember:
    """The directory entry of one running referee, and its match claims."""

    def __init__(self, config: RefereeConfig, store: Store, registry: Registry, running: Callable[[], int],
                 port: int, relay_port: int = 0, store_reachable: Callable[[bool], Awaitable[None]] | None = None,
                 ) -> None:
        """``registry`` holds the bots connected here; ``running`` counts the matches this
        referee runs now (both read at every heartbeat, for the directory entry);
        ``relay_port`` is the relay listener's (0: none); ``store_reachable`` is told after
        each heartbeat whether the store answered it."""
        self.referee_id = uuid.uuid4().hex[:12]
        self.directory = FleetDirectory(store, config.fleet_ttl_s)
        self.accounts = Accounts(store)
        self.versions = BotVersions(store)
        self.address = advertised_address(config, port)
        self.relay_address = advertised_relay_address(config, relay_port)
        self.store_reachable = store_reachable
        self.capacity = config.max_matches
        self.registry = registry
        self.running = running
        self.addresses: list[str] = [self.address]
        """Every live referee's address that takes new work (this one included until it
        drains), as of the last heartbeat: the fleet told to bots."""
        self.claimed: set[str] = set()
        """Match ids this referee holds the fleet-wide claim of."""
        self.seats = FleetSeats(SeatLedger(self.directory), self.referee_id)
        """The bots' seats this referee holds in the fleet-wide ledger."""
        self.left = False
        """Whether this referee is stopping: it drains (see :meth:`leave`), takes no new work."""
        self.withdrawn = False
        """Whether it has left the directory for good (:meth:`stop`)."""
        self._resync = True
        self._writes: asyncio.Queue[Callable[[], object]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        """Announce this referee and keep its entry alive until :meth:`stop`."""
        await self.beat()
        self._tasks = [asyncio.create_task(self._beating(), name="fleet-heartbeat"),
                       asyncio.create_task(self._writing(), name="fleet-writes")]
        log.info("referee %s in the fleet at %s (%d referee(s) live)", self.referee_id, self.address,
                 len(self.addresses))

    async def leave(self) -> None:
        """Drain: mark this referee draining in the directory at once, so that placement
        and the other referees' relays stop choosing it and the bots that take fleet
        updates are told the fleet without it (so they move; the SDK keeps a stream until
        the seats it plays on it end).  Its heartbeat goes on until :meth:`stop`, keeping
        it live for what it still holds: the claims of the matches running here (no other
        referee runs them meanwhile) and their seats in the fleet-wide ledger (a bot
        playing here is given no seat elsewhere beyond its capacity)."""
        if self.left:
            return
        self.left = True
        beating = self._tasks[0] if self._tasks else None
        if beating is not None:
            beating.cancel()
            await asyncio.gather(beating, return_exceptions=True)
        await self.beat()  # the first draining heartbeat marks it
        self._tasks[:1] = [asyncio.create_task(self._beating(), name="fleet-draining-heartbeat")]
        if self.address not in self.addresses:
            return  # the heartbeat told the bots
        self.addresses = [address for address in self.addresses if address != self.address]
        update = bot_pb2.RefereeMessage(fleet_update=bot_pb2.FleetUpdate(addresses=self.addresses))
        for presence in self.registry.connected():
            if presence.session is not None and presence.session.hello.fleet_updates:
                presence.send(update)

    async def stop(self) -> None:
        """Leave the directory for good (draining first if :meth:`leave` has not) and drop
        this referee's claims: its seats and claims stop counting."""
        await self.leave()
        self.withdrawn = True
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        try:
            await asyncio.to_thread(self.directory.withdraw, self.referee_id)
        except redis.RedisError as exc:
            log.warning("referee %s could not leave the fleet directory (%s); it expires", self.referee_id, exc)
        try:
            for match_id in list(self.claimed):
                await self.release(match_id)
        except redis.RedisError as exc:
            log.warning("referee %s could not release its match claims (%s); they expire", self.referee_id, exc)

    async def beat(self) -> None:
        """One heartbeat: renew the entry and the claims (marked draining once the referee
        is stopping), read the fleet, and tell the bots that asked when referees joined or
        left."""
        registry = self.registry
        connected = registry.playable() if self._resync else []
        declared = {p.key: p.capacity for p in connected} if self._resync else None
        listed = ({p.key for p in connected} | {p.bot.bot_id for p in connected}) if self._resync else None
        try:
            forgotten = await asyncio.to_thread(self.directory.announce, self.referee_id, self.address,
                                                self.capacity, self.running(), listed, sorted(self.claimed),
                                                declared, self.left, self.relay_address)
            live = await asyncio.to_thread(self.directory.live)
            await self.seats.beat()
            await self.end_disabled_streams()
            await self.read_current_versions()
        except redis.RedisError as exc:
            self._resync = True
            log.warning("fleet heartbeat failed (%s); retrying", exc)
            if self.store_reachable is not None:
                await self.store_reachable(False)
            return
        if self.store_reachable is not None:
            await self.store_reachable(True)
        self._resync = forgotten and declared is None  # readers may have pruned it from the bots' index
        addresses = sorted({entry.address for entry in live} | (set() if self.left else {self.address}))
        if addresses != self.addresses:
            log.info("fleet changed: %s", addresses)
            self.addresses = addresses
            update = bot_pb2.RefereeMessage(fleet_update=bot_pb2.FleetUpdate(addresses=addresses))
            for presence in registry.connected():
                if presence.session is not None and presence.session.hello.fleet_updates:
                    presence.send(update)

    async def end_disabled_streams(self) -> None:
        """End the stream of every bot connected here that the operator disabled (the bot or
        its account) since it connected: one check of all of them per heartbeat."""
        connected = self.registry.connected()
        if not connected:
            return
        playable = await asyncio.to_thread(self.accounts.playable, [p.bot.bot_id for p in connected])
        for presence in connected:
            if not playable.get(presence.bot.bot_id, True) and presence.session is not None:
                log.info("bot %r was disabled by the operator: ending its stream", presence.bot.name)
                presence.session.end(grpc.StatusCode.PERMISSION_DENIED, DISABLED)

    async def read_current_versions(self) -> None:
        """Learn each connected bot's current version again (its owner may have pinned
        another since it connected): a seat naming the bot alone goes to it.  One round trip
        for all of them per heartbeat."""
        bots = sorted({p.bot.bot_id for p in self.registry.connected()})
        if bots:
            self.registry.current.update(await asyncio.to_thread(self.versions.current_of, bots))

    async def _beating(self) -> None:
        while True:
            await asyncio.sleep(self.directory.ttl_s / 3)
            await self.beat()

    async def _writing(self) -> None:
        while True:
            write = await self._writes.get()
            try:
                await asyncio.to_thread(write)
            except redis.RedisError as exc:
                self._resync = True  # the next heartbeat rewrites the entry
                log.warning("fleet directory write failed (%s)", exc)

    def bot_connected(self, presence: Presence) -> None:
        """A version of a bot opened a stream here: list it (matches seating it, or the bot
        alone, may be placed here) with the capacity it declared (which bounds its seats
        fleet-wide)."""
        key, capacity = presence.key, presence.capacity
        if not self.withdrawn:  # a referee that left for good is listed nowhere
            self._writes.put_nowait(lambda: self.directory.bot_connected(self.referee_id, key, capacity))

    def bot_disconnected(self, presence: Presence) -> None:
        """A version's last stream here ended (the bot stays listed while another version
        of it is connected here)."""
        key = presence.key
        last = not any(p.playable for p in self.registry.versions(presence.bot.bot_id))
        if not self.withdrawn:
            self._writes.put_nowait(lambda: self.directory.bot_disconnected(self.referee_id, key, last))

    def running_changed(self) -> None:
        """A match started or ended: the count placement reads."""
        if not self.withdrawn:  # the entry is gone: a write would leave a key with no TTL
            self._writes.put_nowait(lambda: self.directory.set_running(self.referee_id, self.running()))

    async def claim(self, match_id: str) -> bool:
        """Claim ``match_id`` fleet-wide; ``False`` while another referee holds it."""
        holder = await asyncio.to_thread(self.directory.claim, match_id, self.referee_id)
        if holder != self.referee_id:
            return False
        self.claimed.add(match_id)
        return True

    async def release(self, match_id: str) -> None:
        """Give up the claim of ``match_id`` (it ended, or it never started)."""
        if match_id in self.claimed:
            self.claimed.discard(match_id)
            await asyncio.to_thread(self.directory.release, match_id, self.referee_id)
