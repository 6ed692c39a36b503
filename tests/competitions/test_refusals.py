"""How a worker treats each status a referee can answer RunMatch with: retried later, or
recorded as not played at once.  A real gRPC server on loopback answers every code."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc
import pytest

from competitions.referee_client import REFUSAL_OF, NoRefereeFits, RefereeClient, Refusal, refusal_of
from competitions.tournaments import control
from competitions.tournaments.retries import RetryBudget, RetryLimits
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


LIMITS = RetryLimits(retries=2, fleet_wait_s=60)


def test_every_status_code_has_a_stated_verdict() -> None:
    """No code is classified by accident: each one is listed."""
    assert set(REFUSAL_OF) == set(grpc.StatusCode)


@pytest.mark.parametrize("code", [c for c in grpc.StatusCode if c != grpc.StatusCode.OK], ids=lambda c: c.name)
def test_a_refusal_is_retried_or_recorded_as_its_verdict_says(code: grpc.StatusCode, refusing: tuple[Refusing, str],
                                                              tournaments: TournamentStore) -> None:
    """A transient code (UNKNOWN and INTERNAL among them: a referee's internal fault may hide
    a played match) defers the match and charges its cause's budget; once that budget is
    spent the match is recorded as not played, naming the code and the budget; a final
    code records it at once."""
    servicer, address = refusing
    servicer.code = code
    schedule = control.create(tournaments, "cutthroat", ["a", "b", "c"], seed=1)
    referee = RefereeClient(address, "token", match_timeout_s=5)

    def play(budget: RetryBudget) -> str:
        return control.play(tournaments, referee, schedule.tournament_id, 0, worker="test", attempt=1,
                            budget=budget, limits=LIMITS, on_played=lambda store, result: None)

    cause = REFUSAL_OF[code]
    if cause is not None:
        with pytest.raises(control.MatchDeferred, match=code.name) as deferred:
            play(RetryBudget())
        assert deferred.value.refusal is cause and deferred.value.budget.tries(cause) == 1
        assert tournaments.outcome(schedule.tournament_id, 0) is None
        spent = RetryBudget(absent=2, faults=2, busy=9, waiting_since=0.0)
        assert play(spent) == NOT_PLAYED  # the cause's budget is spent: it gives up, naming the code
        outcome = tournaments.outcome(schedule.tournament_id, 0)
        assert outcome is not None and outcome["gave_up"]
    else:
        assert play(RetryBudget()) == NOT_PLAYED
    outcome = tournaments.outcome(schedule.tournament_id, 0)
    assert outcome is not None and outcome["reason"].startswith(f"{code.name}: refused with")


def test_unknown_and_internal_faults_are_retried() -> None:
    """The audit's case: a referee that answered UNKNOWN during a Redis restart had a played
    match recorded as not played."""
    assert REFUSAL_OF[grpc.StatusCode.UNKNOWN] is REFUSAL_OF[grpc.StatusCode.INTERNAL] is Refusal.FAULT
    assert REFUSAL_OF[grpc.StatusCode.INVALID_ARGUMENT] is None and REFUSAL_OF[grpc.StatusCode.UNAUTHENTICATED] is None


def test_each_cause_spends_its_own_budget() -> None:
    """A busy fleet (no room, a referee restarting: RESOURCE_EXHAUSTED, UNAVAILABLE) does
    not spend the retries of an absent bot (FAILED_PRECONDITION): it waits, bounded in
    time; the absent bot's retries and the referee's faults are counted apart."""
    budget = RetryBudget()
    for _ in range(50):  # far more busy refusals than retries: still waiting within the time bound
        budget = budget.charged(Refusal.BUSY, now=1000.0)
    assert budget.exhausted(Refusal.BUSY, LIMITS, now=1059.0) is None
    assert budget.exhausted(Refusal.ABSENT, LIMITS) is None and budget.exhausted(Refusal.FAULT, LIMITS) is None
    assert budget.exhausted(Refusal.BUSY, LIMITS, now=1060.0) == "the fleet stayed busy or down for 60s"
    budget = budget.charged(Refusal.ABSENT).charged(Refusal.ABSENT)
    assert budget.exhausted(Refusal.ABSENT, LIMITS) == "a bot stayed offline through 2 retries"
    assert budget.exhausted(Refusal.FAULT, LIMITS) is None
    assert RetryBudget.from_dict(budget.to_dict()) == budget and RetryBudget.from_dict(None) == RetryBudget()


def test_a_placement_that_finds_no_room_is_busy_and_one_that_finds_no_bot_is_absent() -> None:
    """The fleet's own refusals say their cause: a full fleet waits, an offline bot is absent."""
    assert refusal_of(NoRefereeFits("the fleet is full", Refusal.BUSY)) is Refusal.BUSY
    assert refusal_of(NoRefereeFits("bot x is not connected", Refusal.ABSENT)) is Refusal.ABSENT
