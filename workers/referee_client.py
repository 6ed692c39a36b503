"""The workers' and the CLI's side of the referee's ArenaService: run a scheduled match,
register and list bots.

Synchronous gRPC (a Celery task runs one match at a time); the channel is opened on first
use, so a client built before the prefork pool forks is never shared across processes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import grpc

from pitch_sdk.proto.pitch.v1 import arena_pb2, arena_pb2_grpc, bot_pb2
from referee.match import result_to_dict
from workers.storage.versions import stamp_fields
from workers.tournaments.schedule import Schedule, ScheduledMatch

#: What a worker does with each status a referee can answer RunMatch with: ``True`` retry
#: later (with backoff; recorded as not played only after the last retry), ``False`` record
#: the match as not played now.  Every code is listed, so a code is never classified by
#: accident.  Retry what may clear up by itself or what the worker cannot tell from a played
#: match (an internal fault: recording a played match as not played loses it); give up at
#: once on what only a person can fix (a bad request, a wrong admin token, an unknown bot).
RETRY_ON: dict[grpc.StatusCode, bool] = {
    grpc.StatusCode.OK: False,  # not an error; listed for completeness
    grpc.StatusCode.CANCELLED: True,  # the call was cut (a referee restart): the match may run on
    grpc.StatusCode.UNKNOWN: True,  # an internal fault of unknown kind: maybe a played match
    grpc.StatusCode.INVALID_ARGUMENT: False,  # the schedule's request is wrong: it stays wrong
    grpc.StatusCode.DEADLINE_EXCEEDED: True,  # the call outlived its deadline: a retry joins the match
    grpc.StatusCode.NOT_FOUND: False,  # a seat's bot is not registered
    grpc.StatusCode.ALREADY_EXISTS: False,  # not answered by RunMatch (a match id returns its record)
    grpc.StatusCode.PERMISSION_DENIED: False,  # a person must change the configuration
    grpc.StatusCode.RESOURCE_EXHAUSTED: True,  # the referee or a bot's seats are full for now
    grpc.StatusCode.FAILED_PRECONDITION: True,  # a bot is offline: it may reconnect
    grpc.StatusCode.ABORTED: True,  # the referee aborted the match (shutdown): play it again
    grpc.StatusCode.OUT_OF_RANGE: False,  # a bad request
    grpc.StatusCode.UNIMPLEMENTED: False,  # a referee without RunMatch: misconfigured
    grpc.StatusCode.INTERNAL: True,  # a referee fault: maybe a played match
    grpc.StatusCode.UNAVAILABLE: True,  # the referee, or its store, is down or restarting
    grpc.StatusCode.DATA_LOSS: True,  # the referee lost data: a retry reads the record or plays again
    grpc.StatusCode.UNAUTHENTICATED: False,  # a wrong admin token: a person must fix it
}


def is_transient(code: grpc.StatusCode) -> bool:
    """Whether a RunMatch refusal with ``code`` is worth retrying (see :data:`RETRY_ON`)."""
    return RETRY_ON[code]


class RefereeClient:
    """Admin calls to one referee."""

    def __init__(self, address: str, admin_token: str, match_timeout_s: float) -> None:
        self.address = address
        self.metadata = (("authorization", f"Bearer {admin_token}"),)
        self.match_timeout_s = match_timeout_s
        self._stub: arena_pb2_grpc.ArenaServiceStub | None = None

    @property
    def stub(self) -> arena_pb2_grpc.ArenaServiceStub:
        """The ArenaService stub, connected on first use."""
        if self._stub is None:
            self._stub = arena_pb2_grpc.ArenaServiceStub(grpc.insecure_channel(self.address))
        return self._stub

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

    def bots(self) -> list[arena_pb2.BotInfo]:
        """Every registered bot, by name, and whether it is connected now."""
        return list(self.stub.ListBots(arena_pb2.ListBotsRequest(), metadata=self.metadata, timeout=30).bots)

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
