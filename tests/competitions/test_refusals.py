"""How a worker treats each status a referee can answer RunMatch with: retried later, or
recorded as not played at once.  A real gRPC server on loopback answers every code."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc
import pytest

from competitions.referee_client import RETRY_ON, RefereeClient, is_transient
from competitions.tournaments import control
from competitions.tournaments.store import TournamentStore
from competitions.tournaments.table import NOT_PLAYED
from pitch_sdk.proto.pitch.v1 import arena_pb2_grpc
from store.redis_store import Store


class Refusing(arena_pb2_grpc.ArenaServiceServicer):
    """An ArenaService whose RunMatch answers the code a test sets."""

    code = grpc.StatusCode.UNKNOWN

    def RunMatch(self, request: Any, context: grpc.ServicerContext) -> Any:
        context.abort(self.code, f"refused with {self.code.name} for the test")


@pytest.fixture(scope="module")
def refusing() -> Iterator[tuple[Refusing, str]]:
    servicer = Refusing()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    arena_pb2_grpc.add_ArenaServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield servicer, f"127.0.0.1:{port}"
    server.stop(0)


@pytest.fixture()
def tournaments(redis_url: str) -> Iterator[TournamentStore]:
    store = Store.from_url(redis_url, f"refusal-{uuid.uuid4().hex[:8]}:")
    yield TournamentStore(store)
    for key in store.client.scan_iter(f"{store.prefix}*"):
        store.client.delete(key)


def test_every_status_code_has_a_stated_verdict() -> None:
    """No code is classified by accident: each one is listed."""
    assert set(RETRY_ON) == set(grpc.StatusCode)


@pytest.mark.parametrize("code", [c for c in grpc.StatusCode if c != grpc.StatusCode.OK], ids=lambda c: c.name)
def test_a_refusal_is_retried_or_recorded_as_its_verdict_says(code: grpc.StatusCode, refusing: tuple[Refusing, str],
                                                              tournaments: TournamentStore) -> None:
    """A transient code (UNKNOWN and INTERNAL among them: a referee's internal fault may hide
    a played match) defers the match; a final one records it as not played with the code."""
    servicer, address = refusing
    servicer.code = code
    schedule = control.create(tournaments, "cutthroat", ["a", "b", "c"], seed=1)
    referee = RefereeClient(address, "token", match_timeout_s=5)

    def play(final: bool) -> str:
        return control.play(tournaments, referee, schedule.tournament_id, 0, worker="test", attempt=1, final=final,
                            on_played=lambda store, result: None)

    if is_transient(code):
        with pytest.raises(control.MatchDeferred, match=code.name):
            play(False)
        assert tournaments.outcome(schedule.tournament_id, 0) is None
        assert play(True) == NOT_PLAYED  # the last attempt gives up, naming the code
    else:
        assert play(False) == NOT_PLAYED
    outcome = tournaments.outcome(schedule.tournament_id, 0)
    assert outcome is not None and outcome["reason"].startswith(f"{code.name}: refused with")


def test_unknown_and_internal_faults_are_retried() -> None:
    """The audit's case: a referee that answered UNKNOWN during a Redis restart had a played
    match recorded as not played."""
    assert is_transient(grpc.StatusCode.UNKNOWN) and is_transient(grpc.StatusCode.INTERNAL)
    assert not is_transient(grpc.StatusCode.INVALID_ARGUMENT) and not is_transient(grpc.StatusCode.UNAUTHENTICATED)
