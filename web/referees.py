"""The arena's referees as the web service reads them: every live referee of the fleet
directory in Redis (:mod:`store.fleet`), or ``PITCH_REFEREE`` alone while the
directory is empty (a lone referee, or one that predates the fleet) or Redis cannot be read.

Each referee answers ListMatches and StreamMatchEvents for itself only (its own running
matches), so a page that shows the whole arena's matches asks every live referee at once
(gRPC futures, :data:`ASK_TIMEOUT_S` each) and merges the answers.  A referee that does not
answer in time is counted as silent: the calls run at once, so stuck referees cost a page
one deadline in all, and the page says what is missing rather than fail.  The bots'
connection facts need no referee: the directory and the seat ledger hold them fleet-wide
(:func:`fleet_bots`), so that read costs the same few Redis round trips at 1 or 100
referees (asking each referee's ListBots would pull every registered bot once per referee).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import grpc
import redis

from pitch_sdk.proto.pitch.v1 import arena_pb2, arena_pb2_grpc
from store.fleet import DEFAULT_TTL_S, FleetDirectory, RefereeEntry
from store.redis_store import Store
from store.seats import SeatLedger, SeatUsage
from store.tls import aio_channel
from store.tls import channel as tls_channel
from store.versions import BotVersions

#: Seconds a page waits for a referee before it shows what the others answered.
ASK_TIMEOUT_S = 2.0

Request = TypeVar("Request")
Response = TypeVar("Response")
Answer = TypeVar("Answer")


@dataclass(frozen=True)
class Answers(Generic[Answer]):
    """What the referees asked answered: each answer by the referee's address, and the
    addresses that did not answer (down, stuck, or gone since the directory was read)."""

    by_address: dict[str, Answer]
    silent: list[str]

    @property
    def asked(self) -> int:
        """Referees asked."""
        return len(self.by_address) + len(self.silent)


@dataclass(frozen=True)
class LiveMatch:
    """A running match and the referee that runs it (where its spectators' streams come from)."""

    address: str
    match: arena_pb2.RunningMatch


@dataclass(frozen=True)
class RunningMatches:
    """Every running match of the referees that answered, oldest first."""

    matches: list[LiveMatch]
    asked: int
    silent: int

    @property
    def reachable(self) -> bool:
        """Whether any referee answered (else nothing can be said of what runs)."""
        return self.asked > self.silent


class RefereesUnreachable(Exception):
    """A referee that may run the match asked for did not answer."""


def fleet_bots(store: Store, usage: Mapping[str, SeatUsage]) -> dict[str, arena_pb2.BotInfo]:
    """Every registered bot as the fleet's Redis shows it, without asking a referee:
    connected if a live referee records its stream (``fleet:capacity:{referee}``), its
    capacity the one its streams declared (each declares the bot's whole capacity), its
    seats in use the ledger's fleet-wide count (``fleet:seats:{bot}``), its version and
    rated id the current version its last hello recorded (what ListBots reads too)."""
    records = store.bots()
    versions = BotVersions(store)
    current = versions.current_of([record.bot_id for record in records])
    connected = [record.bot_id for record in records if record.bot_id in usage and usage[record.bot_id].connected]
    labels = versions.records(current[bot_id] for bot_id in connected if bot_id in current)
    bots: dict[str, arena_pb2.BotInfo] = {}
    for record in records:
        seats = usage.get(record.bot_id)
        online = seats is not None and seats.connected
        version = labels.get(current.get(record.bot_id, ""))
        bots[record.bot_id] = arena_pb2.BotInfo(
            bot_id=record.bot_id, name=record.name, owner=record.owner, connected=online,
            capacity=seats.capacity if seats is not None and online else 0,
            seats_in_use=seats.in_use if seats is not None and online else 0,
            bot_version=version.version if online and version is not None else "",
            rated_id=current.get(record.bot_id, ""))
    return bots


class ArenaReferees:
    """Reads of the arena's referees for the pages: running matches, connected bots, the
    referee that runs a match.  Synchronous calls (pages read in Starlette's thread pool)
    except the spectators' streams, which are ``grpc.aio`` on the serving event loop.  One
    channel per referee address, opened on first use and kept (an idle channel to a
    referee that left costs no traffic)."""

    def __init__(self, address: str, admin_token: str, store: Store, fleet_ttl_s: float = DEFAULT_TTL_S,
                 timeout_s: float = ASK_TIMEOUT_S) -> None:
        self.address = address
        """``PITCH_REFEREE``: the referee asked while the directory is empty."""
        self.store = store
        self.directory = FleetDirectory(store, fleet_ttl_s)
        self.ledger = SeatLedger(self.directory)
        self.metadata = (("authorization", f"Bearer {admin_token}"),)
        self.timeout_s = timeout_s
        self._stubs: dict[str, arena_pb2_grpc.ArenaServiceStub] = {}
        self._stubs_lock = threading.Lock()  # pages read from several threads of the pool
        self._aio_channels: dict[str, grpc.aio.Channel] = {}

    # ------------------------------------------------------------ which referees
    def live(self) -> list[RefereeEntry]:
        """The fleet's live referees, the draining ones included (the pages read the
        matches they still run; they send no work); none when Redis cannot be read (the
        pages then ask ``PITCH_REFEREE`` alone, as before the fleet)."""
        try:
            return self.directory.live(draining=True)
        except redis.RedisError:
            return []

    def addresses(self, entries: list[RefereeEntry] | None = None) -> list[str]:
        """Where to ask (of ``entries``, default :meth:`live`): every live referee, or
        ``PITCH_REFEREE`` when there is none."""
        entries = self.live() if entries is None else entries
        return sorted({entry.address for entry in entries}) or [self.address]

    def holder_address(self, match_id: str, entries: list[RefereeEntry]) -> str | None:
        """The address of the live referee whose claim says it runs ``match_id``, if any."""
        try:
            holder = self.directory.holder(match_id)
        except redis.RedisError:
            return None
        return next((entry.address for entry in entries if holder and entry.referee_id == holder), None)

    # ------------------------------------------------------------ asking them
    def stub(self, address: str) -> arena_pb2_grpc.ArenaServiceStub:
        """The synchronous stub of the referee at ``address``."""
        with self._stubs_lock:
            stub = self._stubs.get(address)
            if stub is None:
                stub = self._stubs[address] = arena_pb2_grpc.ArenaServiceStub(tls_channel(address))
            return stub

    def ask(self, addresses: Sequence[str],
            method: Callable[[arena_pb2_grpc.ArenaServiceStub], grpc.UnaryUnaryMultiCallable[Request, Response]],
            request: Request) -> Answers[Response]:
        """Call ``method`` on every referee of ``addresses`` at once; each has
        :attr:`timeout_s` to answer."""
        calls = {address: method(self.stub(address)).future(request, metadata=self.metadata,
                                                              timeout=self.timeout_s)
                 for address in addresses}
        answered: dict[str, Response] = {}
        silent: list[str] = []
        for address, call in calls.items():
            try:
                answered[address] = call.result()
            except grpc.RpcError:
                silent.append(address)
        return Answers(answered, silent)

    def running(self, addresses: Sequence[str] | None = None) -> RunningMatches:
        """The matches the referees (default: every one) run now, oldest first."""
        answers = self.ask(self.addresses() if addresses is None else addresses,
                           lambda stub: stub.ListMatches, arena_pb2.ListMatchesRequest())
        matches = [LiveMatch(address, match) for address, answer in answers.by_address.items()
                   for match in answer.matches]
        matches.sort(key=lambda live: (live.match.started_unix, live.match.match_id))
        return RunningMatches(matches, answers.asked, len(answers.silent))

    def find_running(self, match_id: str) -> LiveMatch | None:
        """Match ``match_id`` if a referee runs it now: asked first of the referee whose
        claim names it (one call), else of every live referee; ``None`` when every one
        answered and none runs it.  Raises :class:`RefereesUnreachable` when the claim's
        holder, or any referee while none lists the match, did not answer (it may run it)."""
        entries = self.live()
        holder = self.holder_address(match_id, entries)
        if holder is not None:
            at_holder = self.running([holder])
            found = next((live for live in at_holder.matches if live.match.match_id == match_id), None)
            if found is not None:
                return found
            if at_holder.silent:
                raise RefereesUnreachable(match_id)
        everywhere = self.running(self.addresses(entries))
        found = next((live for live in everywhere.matches if live.match.match_id == match_id), None)
        if found is None and everywhere.silent:
            raise RefereesUnreachable(match_id)
        return found

    def stream_sources(self, match_id: str, running_on: str | None) -> list[str]:
        """Where to ask for a match's event stream, in order: the referee that runs it
        (``running_on``, else the one its claim names), then every other live referee (a
        finished match streams from the referee that ran it, while it keeps it)."""
        entries = self.live()
        first = running_on or self.holder_address(match_id, entries)
        rest = [address for address in self.addresses(entries) if address != first]
        return [first, *rest] if first else rest

    def bots(self) -> dict[str, arena_pb2.BotInfo] | None:
        """Every registered bot, connected if it has a stream on any live referee.  With a
        fleet in the directory, read from Redis alone (:func:`fleet_bots`: a few round
        trips, however many referees); without one, or when Redis cannot be read, the
        ListBots of ``PITCH_REFEREE`` (its own streams and seats).  ``None`` when neither
        answered."""
        try:
            usage = self.ledger.usage()
            if usage or self.directory.live_ids(draining=True):  # a fleet (with or without connected bots)
                return fleet_bots(self.store, usage)
        except redis.RedisError:
            pass
        answer = self.ask([self.address], lambda stub: stub.ListBots, arena_pb2.ListBotsRequest())
        listed = answer.by_address.get(self.address)
        return None if listed is None else {bot.bot_id: bot for bot in listed.bots}

    # ------------------------------------------------------------ streams
    def aio_stub(self, address: str) -> arena_pb2_grpc.ArenaServiceStub:
        """An asynchronous stub of the referee at ``address``, on the serving event loop."""
        channel = self._aio_channels.get(address)
        if channel is None:
            channel = self._aio_channels[address] = aio_channel(address)
        return arena_pb2_grpc.ArenaServiceStub(channel)

    async def close(self) -> None:
        """Close the asynchronous channels (the synchronous ones close with the process)."""
        channels, self._aio_channels = list(self._aio_channels.values()), {}
        for channel in channels:
            await channel.close()
