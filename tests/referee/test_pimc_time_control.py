"""The PIMC bot under a referee's time control: the SDK fits its search budget
to the time each decision is given, so even a bot told to think for a minute answers in
time, over the real protocol."""

from __future__ import annotations

import asyncio

import pytest

from pitch_sdk.bots.loader import load_bot
from pitch_sdk.checks.compliance import ComplianceReport, check_remote
from tests.referee.harness import running_arena


@pytest.mark.slow
def test_pimc_told_to_think_a_minute_answers_within_a_short_time_control(redis_url: str) -> None:
    """600 ms per decision and a 10 s bank: a 60 s budget would strike on the first card;
    capped at half the decision's time, a practice match of partnership has no strike."""

    async def practice() -> ComplianceReport:
        async with running_arena(redis_url, per_decision_ms=600, bank_ms=10_000) as arena:
            token = (await arena.register()).token
            return await asyncio.get_running_loop().run_in_executor(None, lambda: check_remote(
                lambda: load_bot("pimc", 60_000), arena.address, token, games=1, presets=("partnership",)))

    report = asyncio.run(practice())
    assert report.matches == 1
    assert report.passed, report.problems
