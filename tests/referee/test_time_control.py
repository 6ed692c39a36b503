"""Time control as a bot author sees it: the clock reaches the bot, the
match log records the time each move took, and the local and remote checks keep time the
same way, so they give a slow bot the same verdict.

The referee runs on loopback with a small time control (100 ms per decision) so that slow
bots stay quick to test."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Sequence
from typing import ClassVar

from pitch_sdk.bot import Bot
from pitch_sdk.checks.compliance import ComplianceReport, check_locally, check_remote
from pitch_sdk.proto.pitch.v1 import arena_pb2
from pitch_sdk.rules import Action, Observation
from tests.referee.bots import FirstLegalBot, SteadyBot
from tests.referee.harness import ADMIN, running_arena

PER_DECISION_MS = 100


class BankSpender(Bot):
    """Takes 150 ms over its first two decisions (50 ms of bank each), then answers at once;
    notes the clock it was handed at every decision."""

    name = "bank-spender"
    clocks: ClassVar[list[tuple[int, float]]] = []

    def __init__(self) -> None:
        super().__init__()
        self.decided = 0

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        self.clocks.append((self.clock.per_decision_ms, self.clock.bank_ms))
        self.decided += 1
        if self.decided <= 2:
            time.sleep(0.15)
        return legal_actions[0]


class BankBreaker(Bot):
    """Takes 250 ms over each of its first four decisions: more than the 100 ms per decision
    and the 200 ms bank allow by the second."""

    name = "bank-breaker"

    def __init__(self) -> None:
        super().__init__()
        self.decided = 0

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        self.decided += 1
        if self.decided <= 4:
            time.sleep(0.25)
        return legal_actions[0]


def both_checks(factory: type[Bot], bank_ms: int, redis_url: str) -> tuple[ComplianceReport, ComplianceReport]:
    """The local check and the remote one (a referee under the same time control)."""

    async def remote() -> ComplianceReport:
        async with running_arena(redis_url, per_decision_ms=PER_DECISION_MS, bank_ms=bank_ms) as arena:
            token = (await arena.register()).token
            return await asyncio.to_thread(check_remote, factory, arena.address, token, games=1,
                                           presets=("cutthroat",))

    local = check_locally(factory, games=1, presets=("cutthroat",), per_decision_ms=PER_DECISION_MS, bank_ms=bank_ms)
    return local, asyncio.run(remote())


def test_a_bot_using_its_bank_passes_both_checks_and_sees_its_clock(redis_url: str) -> None:
    """A bot slower than the time per decision but within its bank passed the
    remote check and failed the local one (which ignored the bank).  Both now keep the
    referee's time (per decision, then the bank) and pass it; inside `act` the bot reads
    the time control and what is left of its bank from `self.clock`. Both checks flag every
    answer over the time per decision with the bank before and after it."""
    BankSpender.clocks.clear()
    local, remote = both_checks(BankSpender, 1000, redis_url)
    assert local.passed, local.problems
    assert remote.passed, remote.problems
    assert BankSpender.clocks, "the bot was never asked"
    assert {per_decision for per_decision, _ in BankSpender.clocks} == {PER_DECISION_MS}
    banks = [bank for _, bank in BankSpender.clocks]
    assert max(banks) == 1000 and min(banks) < 950  # the first slow answers were paid from the bank
    assert min(banks) > 500  # and never exhausted
    # "Flag every answer over the budget, with the bank's draining shown": each slow answer
    # (two per seat the bot played: every seat locally, the practice seat remotely)
    for report, slow in ((local, 2 * 3), (remote, 2)):
        assert len(report.warnings) >= slow, report.warnings
        assert sum(entry.over_budget for entry in report.kinds.values()) == len(report.warnings)
        drained = [int(m.group(1)) for w in report.warnings if (m := re.search(r"bank 1000 -> (\d+) ms", w))]
        assert drained and all(800 < left < 960 for left in drained), report.warnings  # 50 ms or so each


def test_a_bot_running_out_of_bank_fails_both_checks_with_timeouts(redis_url: str) -> None:
    """A bot over its time per decision and its whole bank fails both checks, each naming
    the timeout; the answer that spent the bank first is a warning showing the bank left."""
    local, remote = both_checks(BankBreaker, 200, redis_url)
    assert not local.passed and not remote.passed
    for report in (local, remote):  # the answer that drained the bank is flagged before the timeout
        assert any(re.search(r"\d+ ms over the 100 ms per decision; bank 200 -> \d+ ms", w) for w in report.warnings), \
            report.warnings
    assert any("timeout" in problem for problem in local.problems), local.problems
    assert any("strike for timeout" in problem for problem in remote.problems), remote.problems


def test_the_match_log_records_the_time_of_every_move(redis_url: str) -> None:
    """GetMatchLog's game logs carry `decision_ms`: by move, the milliseconds its bot took
    on the referee's clock (a 20 ms bot's moves at least 20)."""

    async def scenario() -> dict[str, object]:
        async with running_arena(redis_url) as arena:
            steady, _ = await arena.connect(SteadyBot)
            others = [(await arena.connect(FirstLegalBot))[0] for _ in range(3)]
            result = (await arena.run_match("partnership", [steady, *others], seed=5,
                                            options_json='{"target": 3}')).result
            logs = await arena.admin.GetMatchLog(arena_pb2.GetMatchLogRequest(match_id=result.match_id),
                                                 metadata=ADMIN)
            return json.loads(logs.game_logs_json[0])  # type: ignore[no-any-return]

    log = asyncio.run(scenario())
    moves, times = log["moves"], log["decision_ms"]
    assert isinstance(moves, list) and isinstance(times, list)
    assert len(times) == len(moves) and all(isinstance(ms, int) for ms in times)
    assert all(ms >= 20 for (seat, _), ms in zip(moves, times, strict=True) if seat == 0)
