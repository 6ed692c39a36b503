"""The arena's compliance check of a hosted version, run by its bot host before the version
plays its first arena match.

The version's sandbox is started once for the check.  The sandboxed bot dials its proxy as
always; the proxy, holding a :class:`pitch_sdk.checks.relay.PracticeObserver`, adds the
practice matches ``pitch-bot check --referee`` asks (one of each preset of
:data:`pitch_sdk.checks.compliance.COVERAGE`) to the bot's stream and notes what passes,
so the referee plays them against its house bots over the real protocol, never rated nor
recorded, and its strikes are the check's problems.

Why a check identity (:func:`store.hosted.check_id`) rather than the bot's own token: the
protocol has no practice-only stream (a hello declares at least one seat, and every
connected bot is one the ladders, round robins and ``RunMatch`` may seat), and the arena
places a match on a bot id.  The check's stream is the check identity's, so no arena match
can be placed on the version until it passed and its real stream opens; the identity is a
house bot (no automatic competition enters it), listed nowhere, and ends with the check.

A check ends in one of three verdicts: passed; failed (the bot's doing: strikes, illegal
actions, timeouts, matches left unfinished, the process exiting, no hello); or
inconclusive, which says nothing about the bot: the bot said hello but the referee never
welcomed it (it could not be reached, was stopping, or refused the check's token), or
the referee refused some of the check's practice matches and the bot did nothing wrong in
the others (the requests are the host's own, well formed: a refusal is the referee's load,
its practice share or its match limit).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum

from hosting.config import HostConfig
from hosting.proxy import BotProxy
from hosting.sandbox import Sandbox
from pitch_sdk.checks.compliance import COVERAGE, REFUSED, UNFINISHED, practice_requests
from pitch_sdk.checks.relay import PracticeObserver
from pitch_sdk.proto.pitch.v1 import bot_pb2
from store.hosted import HostedVersions

POLL_S = 0.05
"""How often the check looks whether the practice matches ended, or the bot did."""
IDENTITY_SLACK_S = 60.0
"""How long the check identity outlives the check's own deadlines (a host that dies mid-check
leaves it to expire)."""


class Verdict(StrEnum):
    """How a compliance check ended."""

    PASSED = "passed"
    FAILED = "failed"
    INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True)
class CheckOutcome:
    """What a compliance check found."""

    verdict: Verdict
    summary: str
    """One line, for the version's status detail."""
    report: str
    """The report as plain text (see :meth:`ComplianceReport.as_text`)."""
    output: bytes
    """The output's tail of the check's sandbox."""


async def check_version(proxy: BotProxy, start: Callable[[], Awaitable[Sandbox]], versions: HostedVersions,
                        bot_id: str, version: str, config: HostConfig) -> CheckOutcome:
    """Start the sandbox (``start``) and have it play the practice matches through
    ``proxy`` under the version's check identity; the sandbox is stopped and the identity
    ended before this returns, whatever happened (cancellation included)."""
    lifetime_s = config.check_timeout_s + config.hello_deadline_s + IDENTITY_SLACK_S
    token = await asyncio.to_thread(versions.open_check, bot_id, version, lifetime_s)
    if token is None:
        return CheckOutcome(Verdict.INCONCLUSIVE, "compliance check not run: the bot is not registered", "", b"")
    observer = PracticeObserver.for_requests(practice_requests(COVERAGE, games=1, seed=0))
    proxy.greeted.clear()
    proxy.check = (observer, token)
    sandbox: Sandbox | None = None
    try:
        try:
            sandbox = await start()
        except Exception as error:  # a version that cannot start fails its check, saying why
            problems, cut_short = [f"cannot start: {str(error)[:200]}"], "before the bot started"
        else:
            problems, cut_short = await _watch(observer, proxy, sandbox, config)
    finally:
        proxy.check = None
        if sandbox is not None:
            await sandbox.stop(grace_s=0.5)
        await asyncio.to_thread(versions.close_check, bot_id, version, token)
    output = sandbox.output_tail() if sandbox is not None else b""
    refusal = observer.refusal
    if (proxy.greeted.is_set() and not observer.welcomed and not problems
            and (refusal is None or refusal.reason == bot_pb2.REFUSAL_REASON_SHUTTING_DOWN)):
        summary = ("compliance check not finished: the referee did not welcome the bot (unreachable, stopping, or "
                   "it refused the check's token); the version waits for another try")
        return CheckOutcome(Verdict.INCONCLUSIVE, summary, summary, output)
    report = observer.complete(cut_short, problems)
    if observer.errors and set(report.counts) <= {REFUSED, UNFINISHED}:
        summary = (f"compliance check not finished: the referee refused {len(observer.errors)} of its practice "
                   "matches (busy); the version waits for another try")
        return CheckOutcome(Verdict.INCONCLUSIVE, summary, f"{summary}\n{report.as_text()}", output)
    return CheckOutcome(Verdict.PASSED if report.passed else Verdict.FAILED, report.summary(), report.as_text(),
                        output)


async def _watch(observer: PracticeObserver, proxy: BotProxy, sandbox: Sandbox,
                 config: HostConfig) -> tuple[list[str], str]:
    """Wait for every practice match to end, the bot to exit, its hello deadline or the
    check's; the bot process's problems, and what cut the practice short if anything did."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    ended = asyncio.ensure_future(sandbox.wait())
    try:
        while not observer.finished:
            if ended.done():
                return [f"exited during the check: {ended.result().reason}"], "before the bot exited"
            if observer.refusal is not None:
                return [], "before the referee refused the hello"
            elapsed = loop.time() - started
            if not proxy.greeted.is_set() and elapsed > config.hello_deadline_s:
                return [f"no hello within {config.hello_deadline_s:g} s"], "before the bot said hello"
            if elapsed > config.check_timeout_s:
                return [], f"in {config.check_timeout_s:g} s"
            await asyncio.sleep(POLL_S)
        return [], ""
    finally:
        ended.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await ended
