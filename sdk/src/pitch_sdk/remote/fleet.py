"""Connecting a bot to every referee of an arena (``pitch-bot run``).

An arena may run several referee processes; a match is placed on the referee where most
of its seats' bots have a stream open (a seat whose bot has none there is relayed from a
referee where it has one, at about 2.5x the referee CPU of a local decision: keeping a
stream on every referee avoids that).  :class:`FleetBot` dials the one address it is given, learns
the live referees from the welcome (``Welcome.fleet``) and from later fleet updates, and
keeps one :class:`~pitch_sdk.remote.client.BotClient` on each: a referee that joins gets a
stream, one that leaves (stopped, or dead past the directory's TTL) has its stream
dropped, once the seats this bot plays on it have ended (a stopping referee leaves the
directory first and drains its matches, so the bot finishes them there).  When a
referee dies, its matches are played again on another referee, where this bot is
already connected: nothing to do but keep the other streams.

The address given may be a shared name that resolves to any referee (compose's
``referee`` service): the client that dialled it then keeps the address the referee gave
in its welcome, so every referee has exactly one stream from this bot.  Each stream
declares the bot's whole capacity, and the referees bound the seats it plays on all of
them together by it (a fleet-wide ledger in Redis, see ``docs/fleet.md``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass

from pitch_sdk.bot import Bot
from pitch_sdk.remote.client import BotClient, ConnectionRefused

log = logging.getLogger("pitch.bot.fleet")


@dataclass
class _Member:
    """One referee's client and its task."""

    client: BotClient
    stop: asyncio.Event
    task: asyncio.Task[None] | None = None
    leaving: bool = False
    """Its referee left the arena while this bot played seats there: the stream stays
    until they end (a stopping referee drains its matches), then closes."""


class FleetBot:
    """A bot process's streams to every live referee of one arena."""

    def __init__(self, bot_factory: Callable[[], Bot], address: str, token: str, **options: object) -> None:
        self.bot_factory = bot_factory
        self.address = address
        self.token = token
        self.options = options
        self.members: list[_Member] = []
        self.connected = asyncio.Event()
        """Set once any referee has welcomed the bot."""
        self._stop = asyncio.Event()

    @property
    def clients(self) -> list[BotClient]:
        """The clients of the referees this bot has streams to (or is dialling)."""
        return [member.client for member in self.members]

    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Keep a stream on every live referee until ``stop`` is set; dial the given address
        again whenever no stream is left.  Raises :class:`ConnectionRefused` when a referee
        refuses the bot for good (a wrong token)."""
        self._stop = stop or asyncio.Event()
        first = True
        try:
            while not self._stop.is_set():
                if not self.members:
                    self._start(self.address, practice=first)
                    first = False
                await self._wait_for_a_change()
                self._reap()
                self._let_go()
        finally:
            for member in self.members:
                member.stop.set()
            tasks = [member.task for member in self.members if member.task is not None]
            if tasks:
                await asyncio.gather(*tasks, return_exceptions=True)
            self.members = []

    def _start(self, address: str, practice: bool = False) -> None:
        options = dict(self.options)
        if not practice:
            options.pop("practice", None)  # practice matches are asked of one referee only
        client = BotClient(self.bot_factory, address, self.token, **options)  # type: ignore[arg-type]
        client.on_fleet = self._on_fleet
        member = _Member(client, asyncio.Event())
        member.task = asyncio.create_task(client.run(member.stop), name=f"referee-{address}")
        self.members.append(member)
        log.info("opening a stream to referee %s", address)

    async def _wait_for_a_change(self) -> None:
        """Until a client ends, ``stop`` is set, or a second passes (new referees are started
        by :meth:`_on_fleet` meanwhile)."""
        waiter = asyncio.create_task(self._stop.wait())
        tasks = {member.task for member in self.members if member.task is not None}
        try:
            await asyncio.wait({waiter, *tasks}, timeout=1.0, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
        if any(client.connected.is_set() for client in self.clients):
            self.connected.set()

    def _reap(self) -> None:
        """Forget the clients that ended; a refusal for good ends the whole bot."""
        for member in [m for m in self.members if m.task is not None and m.task.done()]:
            self.members.remove(member)
            assert member.task is not None
            if not member.task.cancelled() and isinstance(member.task.exception(), ConnectionRefused):
                raise member.task.exception()  # type: ignore[misc]

    def _on_fleet(self, client: BotClient, addresses: list[str]) -> None:
        """A referee told ``client`` the live referees: open a stream to each new one, drop
        the streams of referees that left, and make the client that dialled a shared name
        keep the address its referee gave (or drop it, when that referee has a stream)."""
        if client.address != client.referee_address:
            if any(other.address == client.referee_address for other in self.clients if other is not client):
                self._stop_client(client)  # a second stream to a referee this bot is on already
            else:
                client.address = client.referee_address  # reconnect to this referee, not the shared name
        held = {other.address for other in self.clients}
        for address in addresses:
            if address not in held:
                self._start(address)
        live = set(addresses)
        for member in self.members:
            if member.client.address in live:
                member.leaving = False  # back (or never gone)
            elif not member.stop.is_set() and not member.leaving:
                member.leaving = True
                if member.client.seats:
                    log.info("referee %s left the arena; closing its stream once the %d seat(s) played there end",
                             member.client.address, len(member.client.seats))
        self._let_go()

    def _let_go(self) -> None:
        """Close the streams of the referees that left once no seat is played on them (or
        the stream is gone): leaving in the middle of a match would lose its seats."""
        for member in self.members:
            if member.leaving and not member.stop.is_set() and (
                    not member.client.seats or not member.client.connected.is_set()):
                log.info("referee %s left the arena; closing its stream", member.client.address)
                member.stop.set()

    def _stop_client(self, client: BotClient) -> None:
        for member in self.members:
            if member.client is client:
                member.stop.set()


def run_fleet_bot(bot_factory: Callable[[], Bot], address: str, token: str, **options: object) -> None:
    """Play on every referee of the arena reached at ``address`` until Ctrl-C (blocking;
    ``pitch-bot run``)."""
    bot = FleetBot(bot_factory, address, token, **options)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(bot.run())
