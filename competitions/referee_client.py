"""The workers' and the CLI's side of the referee's ArenaService: run a scheduled match,
register and list bots, ask whether it serves.

Synchronous gRPC (a Celery task runs one match at a time); the channel is opened on first
use, so a client built before the prefork pool forks is never shared across processes.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

import grpc
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc

from competitions.tournaments.schedule import Schedule, ScheduledMatch
from pitch_sdk.proto.pitch.v1 import arena_pb2, arena_pb2_grpc, bot_pb2
from store.fleet import FleetDirectory
from store.results import result_to_dict
from store.seats import SeatLedger
from store.tls import channel as tls_channel
from store.versions import stamp_fields


class Refusal(enum.Enum):
    """Why a referee could not play a match now, which decides how long a worker keeps
    trying (see :mod:`competitions.tournaments.retries`): each cause has a budget of its own."""

    ABSENT = "absent"
    """A seat's bot is not connected: only the bot's author can change that, so a few
    retries with backoff, then the match counts as not played."""
    BUSY = "busy"
    """The fleet has no room (the referee or a bot's seats are full), or the referee is
    stopping, restarting or unreachable: nobody's fault, so the match waits, bounded in
    time rather than in tries."""
    FAULT = "fault"
    """A referee fault, which may hide a played match (recording it as not played would
    lose it): a few retries, apart from the other causes."""


#: What a worker does with each status a referee can answer RunMatch with: retry later
#: for a :class:`Refusal` cause, or (``None``) record the match as not played now.  Every
#: code is listed, so a code is never classified by accident.  Give up at once on what
#: only a person can fix (a bad request, a wrong admin token, an unknown bot).
REFUSAL_OF: dict[grpc.StatusCode, Refusal | None] = {
    grpc.StatusCode.OK: None,  # not an error; listed for completeness
    grpc.StatusCode.CANCELLED: Refusal.BUSY,  # the call was cut (a referee restart): the match may run on
    grpc.StatusCode.UNKNOWN: Refusal.FAULT,  # an internal fault of unknown kind: maybe a played match
    grpc.StatusCode.INVALID_ARGUMENT: None,  # the schedule's request is wrong: it stays wrong
    grpc.StatusCode.DEADLINE_EXCEEDED: Refusal.BUSY,  # the call outlived its deadline: a retry joins the match
    grpc.StatusCode.NOT_FOUND: None,  # a seat's bot is not registered
    grpc.StatusCode.ALREADY_EXISTS: None,  # not answered by RunMatch (a match id returns its record)
    grpc.StatusCode.PERMISSION_DENIED: None,  # a person must change the configuration (or a bot is disabled)
    grpc.StatusCode.RESOURCE_EXHAUSTED: Refusal.BUSY,  # the referee or a bot's seats are full for now
    grpc.StatusCode.FAILED_PRECONDITION: Refusal.ABSENT,  # a bot is offline: it may reconnect
    grpc.StatusCode.ABORTED: Refusal.BUSY,  # the referee aborted the match (shutdown): play it again
    grpc.StatusCode.OUT_OF_RANGE: None,  # a bad request
    grpc.StatusCode.UNIMPLEMENTED: None,  # a referee without RunMatch: misconfigured
    grpc.StatusCode.INTERNAL: Refusal.FAULT,  # a referee fault: maybe a played match
    grpc.StatusCode.UNAVAILABLE: Refusal.BUSY,  # the referee, or its store, is down or restarting
    grpc.StatusCode.DATA_LOSS: Refusal.FAULT,  # the referee lost data: a retry reads the record or plays again
    grpc.StatusCode.UNAUTHENTICATED: None,  # a wrong admin token: a person must fix it
}


def refusal_of(error: grpc.RpcError) -> Refusal | None:
    """Why a RunMatch call failed (see :data:`REFUSAL_OF`), or ``None`` when retrying is
    pointless; a placement that found no referee says itself (:class:`NoRefereeFits`)."""
    if isinstance(error, NoRefereeFits):
        return error.refusal
    return REFUSAL_OF[error.code()]


class RefereeClient:
    """Admin calls to one referee."""

    def __init__(self, address: str, admin_token: str, match_timeout_s: float) -> None:
        self.address = address
        self.metadata = (("authorization", f"Bearer {admin_token}"),)
        self.match_timeout_s = match_timeout_s
        self._channel: grpc.Channel | None = None
        self._stub: arena_pb2_grpc.ArenaServiceStub | None = None

    @property
    def channel(self) -> grpc.Channel:
        """The channel to the referee, opened on first use."""
        if self._channel is None:
            self._channel = tls_channel(self.address)
        return self._channel

    @property
    def stub(self) -> arena_pb2_grpc.ArenaServiceStub:
        """The ArenaService stub, connected on first use."""
        if self._stub is None:
            self._stub = arena_pb2_grpc.ArenaServiceStub(self.channel)
        return self._stub

    def serving(self, timeout_s: float) -> bool:
        """Whether the referee's health service says it serves (``SERVING`` for the whole
        server); raises :class:`grpc.RpcError` when it does not answer in ``timeout_s``."""
        answer = health_pb2_grpc.HealthStub(self.channel).Check(health_pb2.HealthCheckRequest(service=""),
                                                                 timeout=timeout_s)
        return bool(answer.status == health_pb2.HealthCheckResponse.SERVING)

    def run_match(self, schedule: Schedule, match: ScheduledMatch) -> dict[str, Any]:
        """Run (or join, or fetch the record of) a scheduled match; its result as stored.

        Raises :class:`grpc.RpcError` when the referee refuses or cannot be reached."""
        response = self.stub.RunMatch(arena_pb2.RunMatchRequest(
            preset=schedule.preset, options_json=schedule.options_json, seat_bot_ids=list(match.seats),
            seed=match.seed, games=schedule.games, match_id=match.match_id),
            metadata=self.metadata, timeout=self.match_timeout_s)
        result = result_to_dict(response.result)
        if response.seat_rated_ids:  # as the referee stored it: with the versions that played
            seats = [seat.bot_id for seat in response.result.seats]
            result.update(stamp_fields(list(zip(seats, response.seat_bot_versions, response.seat_rated_ids,
                                                strict=True))))
        return result

    def register(self, name: str, owner: str = "", description: str = "") -> arena_pb2.RegisterBotResponse:
        """Register a bot: its id and its token (which the referee never shows again)."""
        return self.stub.RegisterBot(arena_pb2.RegisterBotRequest(name=name, owner=owner, description=description),
                                     metadata=self.metadata, timeout=30)

    def bots(self, timeout_s: float = 30) -> list[arena_pb2.BotInfo]:
        """Every registered bot, by name, and whether it is connected now."""
        return list(self.stub.ListBots(arena_pb2.ListBotsRequest(), metadata=self.metadata, timeout=timeout_s).bots)

    def connected_bots(self) -> list[str]:
        """Ids of the bots connected now."""
        return [bot.bot_id for bot in self.bots() if bot.connected]

    def play_match(self, preset: str, seat_bot_ids: Sequence[str], *, seed: int = 0, games: int = 1,
                   options_json: str = "", match_id: str = "") -> bot_pb2.MatchResult:
        """Run one match outside any tournament (``pitch-arena match``) and return its result.

        The referee records it like any other; with a ``match_id`` it already ran (or runs
        now), the call returns (or joins) that match instead of playing it again.  Raises
        :class:`grpc.RpcError` when the referee refuses or cannot be reached."""
        response = self.stub.RunMatch(arena_pb2.RunMatchRequest(
            preset=preset, options_json=options_json, seat_bot_ids=list(seat_bot_ids), seed=seed, games=games,
            match_id=match_id), metadata=self.metadata, timeout=self.match_timeout_s)
        return response.result


#: Refusals after which a match is offered to the next referee of the fleet at once: this
#: one is full, stopping or gone, or a seat's bot left it since the directory was read.
TRY_NEXT_REFEREE = frozenset({grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.UNAVAILABLE,
                              grpc.StatusCode.FAILED_PRECONDITION})


class NoRefereeFits(grpc.RpcError):
    """A seat's bot is connected to no live referee (:attr:`Refusal.ABSENT`), or no
    referee has room (:attr:`Refusal.BUSY`): FAILED_PRECONDITION, so the worker retries
    later."""

    def __init__(self, message: str, refusal: Refusal) -> None:
        super().__init__(message)
        self.message = message
        self.refusal = refusal

    def code(self) -> grpc.StatusCode:
        """The status a referee gives for an offline bot."""
        return grpc.StatusCode.FAILED_PRECONDITION

    def details(self) -> str:
        """What is missing."""
        return self.message


class FleetReferees(RefereeClient):
    """The workers' view of a referee fleet: each match goes to a live referee with room,
    where most of its seats' bots are connected (all: no relay), the least busy first (the
    fleet directory in Redis says which, :meth:`FleetDirectory.placements`); a seat whose bot
    is connected to another referee only is relayed from there.  A refusal that only means
    "not here" (:data:`TRY_NEXT_REFEREE`) sends it to the next.  A match some referee
    already runs goes to that referee (the call joins it).  Admin calls go to ``address``,
    which is also where matches go while the directory is empty (a referee that predates
    the fleet)."""

    def __init__(self, address: str, admin_token: str, match_timeout_s: float, directory: FleetDirectory) -> None:
        super().__init__(address, admin_token, match_timeout_s)
        self.admin_token = admin_token
        self.directory = directory
        self._clients: dict[str, RefereeClient] = {}

    def client_for(self, address: str) -> RefereeClient:
        """The client of the referee at ``address`` (one channel per referee and process)."""
        client = self._clients.get(address)
        if client is None:
            client = self._clients[address] = RefereeClient(address, self.admin_token, self.match_timeout_s)
        return client

    def addresses_for(self, match: ScheduledMatch) -> list[str]:
        """Where to offer ``match``, best first (see :meth:`FleetDirectory.place`)."""
        placed = [entry.address for entry in self.directory.place(match.match_id, match.seats)]
        if placed or self.directory.live(draining=True):  # a fleet, if only a stopping one: wait for it
            return placed
        return [self.address]

    def run_match(self, schedule: Schedule, match: ScheduledMatch) -> dict[str, Any]:
        """Run the match on the first referee of the fleet that takes it.

        Raises :class:`grpc.RpcError`: the last referee's refusal, or :class:`NoRefereeFits`."""
        addresses = self.addresses_for(match)
        if not addresses:
            connected = self.directory.connected_bots(versions=True)
            offline = sorted({seat for seat in match.seats if seat not in connected})
            if offline:
                raise NoRefereeFits(f"bot {', '.join(offline)} is not connected to any live referee", Refusal.ABSENT)
            raise NoRefereeFits(f"no live referee has room for match {match.match_id}: the fleet is full",
                               Refusal.BUSY)
        refusal: grpc.RpcError | None = None
        for address in addresses:
            try:
                return self.client_for(address).run_match(schedule, match)
            except grpc.RpcError as error:
                if error.code() not in TRY_NEXT_REFEREE:
                    raise
                refusal = error
        assert refusal is not None
        raise refusal

    def bots(self, timeout_s: float = 30) -> list[arena_pb2.BotInfo]:
        """Every registered bot (ListBots of ``address``), connected if it is connected to
        any live referee of the fleet, not only to ``address``, with the capacity its
        streams declared and the seats it plays fleet-wide (the seat ledger), not only
        ``address``'s."""
        known = super().bots(timeout_s)
        try:
            usage = SeatLedger(self.directory).usage([bot.bot_id for bot in known])
        except redis.RedisError:  # an operator's laptop may reach the referee but not Redis
            usage = {}
        for bot in known:
            seats = usage.get(bot.bot_id)
            if seats is not None and seats.connected:
                bot.connected, bot.capacity, bot.seats_in_use = True, seats.capacity, seats.in_use
        return known

    def connected_bots(self) -> list[str]:
        """Ids of the bots connected to any live referee of the fleet."""
        if not self.directory.live(draining=True):
            return super().connected_bots()
        return sorted(self.directory.connected_bots())
