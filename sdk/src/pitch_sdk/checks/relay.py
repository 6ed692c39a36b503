"""``pitch-bot check --command``: the compliance check of a bot process in any language.

The check cannot call a Node or Go bot's code the way it calls a Python bot, so it talks to
the process over the protocol instead: it serves a relay on a loopback port and starts the
command with ``PITCH_REFEREE`` set to the relay and ``PITCH_BOT_TOKEN`` to the bot's token
(the variables ``pitch-bot run`` and the starter kits read). The relay passes the bot's
stream to the referee unchanged, adds the check's practice requests after the referee's
welcome (as many at a time as the bot's hello says it plays at once), and notes on the way
what the Python check learns from its own client: decisions asked by kind, how long each
answer took, strikes, refused requests and results. So a kit's bot is checked by the same
referee rules into the same report, with no check code in the kit.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field

import grpc

from pitch_sdk.checks.compliance import COVERAGE, ComplianceReport, practice_requests, report_practice
from pitch_sdk.proto.pitch.v1 import bot_pb2, bot_pb2_grpc
from pitch_sdk.protocol import wire
from pitch_sdk.protocol.batching import unbatched
from pitch_sdk.remote.tls import PLAINTEXT, ChannelSecurity
from pitch_sdk.rules import DecisionKind

#: Seconds the bot process gets to stop after SIGTERM before it is killed.
STOP_GRACE_S = 5.0
#: Characters of the bot's standard error quoted when it exits before the check ends.
STDERR_TAIL = 2000


@dataclass
class PracticeObserver:
    """What a relay saw pass between the bot and the referee, and the practice requests
    still to send (as many at once as the capacity the bot's hello declared).  Any relay of
    a bot's stream can hold one: this module's for ``pitch-bot check --command``, a bot
    host's proxy for the arena's check of a hosted version (:mod:`hosting.check`)."""

    report: ComplianceReport
    practice: list[bot_pb2.PracticeRequest]
    requested: int = 0
    """Practice matches the check asks for in all (see :meth:`for_requests`)."""
    capacity: int = 1
    at_once: int = 1024
    """Practice matches the referee runs for the bot at once (its welcome says; a referee
    that does not say has no such bound)."""
    in_flight: int = 0
    asked_at: dict[str, tuple[float, DecisionKind, int, int]] = field(default_factory=dict)
    """Per pending decision id: when it was asked, its kind, its time per decision and bank."""
    results: list[bot_pb2.MatchResult] = field(default_factory=list)
    strikes: list[bot_pb2.Strike] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    welcomed: bool = False
    """Whether the referee welcomed the bot (a check the referee never answered says
    nothing about the bot)."""
    refusal: bot_pb2.Refusal | None = None
    """The referee's refusal of the bot's hello, if it refused it."""

    @classmethod
    def for_requests(cls, requests: Sequence[bot_pb2.PracticeRequest]) -> PracticeObserver:
        """An observer that asks for ``requests``, with an empty report."""
        return cls(ComplianceReport(), list(requests), len(requests))

    @property
    def finished(self) -> bool:
        """Whether every practice match asked for ended (played or refused)."""
        return len(self.results) + len(self.errors) >= self.requested

    def complete(self, cut_short: str, problems: Sequence[str] = ()) -> ComplianceReport:
        """The report of what was seen (see :func:`report_practice`), with ``problems`` of
        the bot process itself (it exited, said no hello, ...)."""
        report = report_practice(self.report, self.results, self.strikes, self.errors, self.requested, cut_short)
        if self.refusal is not None:
            report.problem("hello refused", self.refusal.message)
        for problem in problems:
            report.problem("bot process", problem)
        return report

    def from_referee(self, message: bot_pb2.RefereeMessage) -> list[bot_pb2.BotMessage]:
        """Note a referee message; the messages to add to the bot's stream."""
        kind = message.WhichOneof("message")
        if kind == "decision_request":
            request = message.decision_request
            decision_kind = wire.kind_from_pb(request.kind)
            self.report.kinds[decision_kind].asked += 1
            self.asked_at[request.decision_id] = (time.perf_counter(), decision_kind, request.time_budget_ms,
                                                  request.time_bank_ms)
        elif kind == "strike":
            self.strikes.append(message.strike)
        elif kind == "error":
            self.errors.append(message.error.message)
            self.in_flight -= 1
        elif kind == "match_ended":
            self.results.append(message.match_ended.result)
            self.in_flight -= 1
        elif kind == "refusal":
            self.refusal = message.refusal
        elif kind == "welcome":
            self.welcomed = True
            if message.welcome.practice_matches_at_once:
                self.at_once = message.welcome.practice_matches_at_once
        if kind in ("welcome", "error", "match_ended"):
            return self._next_practice()
        return []

    def _next_practice(self) -> list[bot_pb2.BotMessage]:
        """Practice requests up to the bot's capacity and the referee's bound on practice
        matches at once (a reconnection resumes those in flight)."""
        count = max(0, min(len(self.practice), min(self.capacity, self.at_once) - self.in_flight))
        sent, self.practice = self.practice[:count], self.practice[count:]
        self.in_flight += count
        return [bot_pb2.BotMessage(practice=request) for request in sent]

    def from_bot(self, message: bot_pb2.BotMessage) -> None:
        """Note the capacity a hello declares; time an answer from its request's arrival."""
        if message.WhichOneof("message") == "hello":
            self.capacity = max(1, message.hello.capacity)
        elif message.WhichOneof("message") == "decision":
            asked = self.asked_at.pop(message.decision.decision_id, None)
            if asked is not None:
                start, kind, per_decision_ms, bank_ms = asked
                elapsed = (time.perf_counter() - start) * 1000
                entry = self.report.kinds[kind]
                entry.slowest_ms = max(entry.slowest_ms, elapsed)
                self.report.timed(kind, elapsed, per_decision_ms, bank_ms)


class _Relay(bot_pb2_grpc.BotServiceServicer):
    """Passes every stream of the bot on to the referee, noting what goes by."""

    def __init__(self, upstream: bot_pb2_grpc.BotServiceAsyncStub, observed: PracticeObserver) -> None:
        self.upstream = upstream
        self.observed = observed

    async def Connect(self, request_iterator: AsyncIterator[bot_pb2.BotMessage],
                      context: grpc.aio.ServicerContext[bot_pb2.BotMessage, bot_pb2.RefereeMessage],
                      ) -> AsyncIterator[bot_pb2.RefereeMessage]:
        outbox: asyncio.Queue[bot_pb2.BotMessage | None] = asyncio.Queue()
        metadata = tuple((key, value) for key, value in context.invocation_metadata() or ()
                         if key == "authorization")

        async def forward() -> None:
            async for message in request_iterator:
                for inner in unbatched(message):
                    self.observed.from_bot(inner)
                outbox.put_nowait(message)
            outbox.put_nowait(None)

        async def upstream_messages() -> AsyncIterator[bot_pb2.BotMessage]:
            while (message := await outbox.get()) is not None:
                yield message

        call = self.upstream.Connect(upstream_messages(), metadata=metadata)
        reader = asyncio.create_task(forward())
        try:
            async for message in call:
                for inner in unbatched(message):
                    for added in self.observed.from_referee(inner):
                        outbox.put_nowait(added)
                yield message
        except grpc.aio.AioRpcError as exc:  # the bot sees the referee's own status
            await context.abort(exc.code(), exc.details() or "")
        finally:
            reader.cancel()
            call.cancel()


async def _check(command: Sequence[str], address: str, token: str, observed: PracticeObserver, timeout_s: float,
                 security: ChannelSecurity) -> list[str]:
    """Serve the relay, run the bot's process until every practice match ended (or it
    exits, or the time is up), stop it; problems with the process itself."""
    problems: list[str] = []
    async with security.channel(address) as channel:  # the bot process speaks plaintext to the local relay
        server = grpc.aio.server()
        bot_pb2_grpc.add_BotServiceServicer_to_server(_Relay(bot_pb2_grpc.BotServiceStub(channel), observed),
                                                       server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        env = {**os.environ, "PITCH_REFEREE": f"127.0.0.1:{port}", "PITCH_BOT_TOKEN": token}
        with tempfile.TemporaryFile() as stderr:
            process = await asyncio.create_subprocess_exec(*command, env=env, stdin=asyncio.subprocess.DEVNULL,
                                                           stdout=asyncio.subprocess.DEVNULL, stderr=stderr,
                                                           start_new_session=True)
            deadline = time.monotonic() + timeout_s
            while not observed.finished and process.returncode is None and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            if process.returncode is not None:
                stderr.seek(0)
                tail = stderr.read().decode(errors="replace")[-STDERR_TAIL:].strip()
                problems.append(f"exited with status {process.returncode} before the check ended: {tail}")
            else:
                await _stop(process)
        await server.stop(grace=None)
    return problems


async def _stop(process: asyncio.subprocess.Process) -> None:
    """SIGTERM the bot's process (its clean stop), then kill its whole group if it lingers."""
    process.send_signal(signal.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), STOP_GRACE_S)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()


def check_process(command: str, address: str, token: str, games: int = 1, seed: int = 0,
                  timeout_s: float = 300.0, presets: Sequence[str] = COVERAGE,
                  security: ChannelSecurity = PLAINTEXT) -> ComplianceReport:
    """Check the bot that ``command`` (a shell-like command line, run without a shell) starts,
    through practice matches of ``presets`` with a referee (over ``security``), as
    ``check_remote`` checks a Python bot."""
    argv = shlex.split(command)
    if not argv:
        raise ValueError("the bot's command is empty")
    observed = PracticeObserver.for_requests(practice_requests(presets, games, seed))
    problems = asyncio.run(_check(argv, address, token, observed, timeout_s, security))
    return observed.complete("before the bot process exited" if problems else f"in {timeout_s:.0f} s", problems)
