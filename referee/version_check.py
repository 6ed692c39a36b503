"""The arena's compliance check of a remote bot's new version, run by the referee it says
hello to, before the version plays any arena match.

A hosted version is checked by its bot host before it connects (:mod:`hosting.check`); a
remote bot's process connects by itself, so the arena checks it here, over the bot's own
stream: the first time a bot owned by an author's account says hello with a version it
never used, the version is allocated with a pending check (:mod:`store.version_checks`),
welcomed with ``Welcome.checking`` set, and the referee plays on that stream the practice
matches ``pitch-bot check --referee`` asks (one of each preset of
:data:`pitch_sdk.checks.compliance.COVERAGE`, one at a time, against its house bots, never
rated nor recorded).  The referee's strikes are the check's problems, as they are the
author's own check's.

While it is checked the version is seated in no arena match: the fleet's directory does
not list it, a seat naming it is refused with FAILED_PRECONDITION saying why, and a seat
naming the bot alone goes to another of its versions.  Then:

* passed: the verdict and report are kept on the version, it is listed in the directory,
  becomes its bot's current version if it is the newest, and waits for its automatic SPRT
  against its predecessor (:mod:`competitions.version_tests`);
* failed (a strike of any kind, matches left unfinished after ``version_check_s``): the
  report is kept for the owner (``pitch-bot status``, the version's page), the stream ends
  with FAILED_PRECONDITION, and every later hello with that version is refused
  (``REFUSAL_REASON_VERSION_REJECTED``): the fix is a new version, checked anew;
* cut short by something that says nothing about the bot (it disconnected, the referee is
  stopping, the store out of reach): the check stays pending, runs again a few times while
  the bot stays connected, and at its next hello.

A referee checks at most :data:`CHECKS_AT_ONCE` versions at once, one per author at a time,
so one author's burst of new versions never holds the others' checks back.

Operator-registered bots (no account) are the operator's own and are not checked; the
switch ``PITCH_VERSION_CHECK=0`` turns the check off for an arena's referees.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
import redis

from pitch_sdk.checks.compliance import COVERAGE, ComplianceReport, practice_requests, report_practice
from pitch_sdk.clock import bank_after, timed_out
from pitch_sdk.proto.pitch.v1 import bot_pb2, game_pb2
from pitch_sdk.rules import RulesError
from pitch_sdk.rules.replay import GameLog
from referee.admission import RequestRefused, build_ruleset
from referee.arena import Arena
from referee.config import echo
from referee.match import Match
from referee.sessions import HousePresence, Presence
from store.hosted import HostedVersions
from store.redis_store import BotRecord
from store.version_checks import VersionChecks
from store.versions import CheckState

log = logging.getLogger("pitch.referee")

CHECKS_AT_ONCE = 4
"""Versions one referee checks at once (each plays one practice match at a time): a burst
of new versions takes at most this many of its match slots; the others wait, connected."""
BUSY_RETRY_S = 1.0
"""How long a check waits before asking again for a match slot the referee had not free."""
CLAIM_TTL_S = 30.0
"""How long a referee's claim on a version's check lasts unless renewed (a SIGKILLed
referee's check is taken up by the next hello elsewhere after this long)."""
POLL_S = 1.0
"""How often a stream whose version another referee is checking looks for the verdict."""
CHECK_TRIES = 3
"""Times a check cut short by the referee's side (the store, a refused match) is run again
while its bot stays connected; then it waits for the bot's next hello."""
RETRY_S = 5.0
"""The pause before a check runs again."""


@dataclass(frozen=True)
class CheckVerdict:
    """How a check of a version ended (``state`` ``None``: cut short, still pending)."""

    state: CheckState | None
    summary: str
    report: str


class VersionChecker:
    """Runs the checks of the versions connected to one referee (see the module docstring)."""

    def __init__(self, arena: Arena, holder: str) -> None:
        self.arena = arena
        self.checks = VersionChecks(arena.versions)
        self.holder = holder
        """This referee's name on the claims it takes."""
        self.running: dict[str, asyncio.Task[None]] = {}
        """The check task of each version being checked here, by seat key."""
        self._at_once = asyncio.Semaphore(CHECKS_AT_ONCE)
        self._authors: dict[str, tuple[asyncio.Lock, list[int]]] = {}
        """Per author (the owning account's name): the lock its checks take one at a time,
        and how many checks hold or wait for it (a one-item list; dropped at zero)."""

    def start(self, presence: Presence) -> None:
        """Check ``presence``'s version unless a check of it runs here already (a stream
        that reconnected during its check resumes the same one)."""
        key = presence.key
        if key in self.running and not self.running[key].done():
            return
        task = asyncio.create_task(self._run(presence), name=f"version-check-{key}")
        self.running[key] = task
        task.add_done_callback(lambda _: self.running.pop(key, None) if self.running.get(key) is task else None)

    async def stop(self) -> None:
        """Cancel the checks in progress (a stopping referee: they stay pending)."""
        tasks = list(self.running.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    @contextlib.asynccontextmanager
    async def _author_turn(self, author: str) -> AsyncIterator[None]:
        """One check at a time per author: a burst of new versions from one account queues
        behind itself while other authors' checks take the referee's free check slots."""
        lock, users = self._authors.setdefault(author, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if users[0] == 0:
                del self._authors[author]

    async def _run(self, presence: Presence) -> None:
        verdict = CheckVerdict(None, "not run", "")
        for attempt in range(CHECK_TRIES):
            if attempt:
                await asyncio.sleep(RETRY_S)
            if not presence.connected:
                break
            try:
                async with self._author_turn(presence.bot.owner.lower()), self._at_once:
                    verdict = await self._claimed_check(presence)
            except redis.RedisError as exc:
                verdict = CheckVerdict(None, f"the store cannot be reached ({exc})", "")
            if verdict.state is not None:
                break
        if verdict.state is None:
            log.info("check of %r not finished: %s; it runs again at the bot's next hello", presence.label,
                     verdict.summary)
            return
        log.info("check of %r: %s", presence.label, verdict.summary)
        if verdict.state == CheckState.PASSED:
            presence.checking = False
            bot_id = presence.bot.bot_id
            with contextlib.suppress(redis.RedisError):  # else the fleet's next heartbeat reads it
                current = await asyncio.to_thread(self.arena.versions.current, bot_id)  # this one, if the newest
                if current is not None:
                    self.arena.registry.current[bot_id] = current
            if presence.connected and self.arena.fleet is not None:
                self.arena.fleet.bot_connected(presence)  # placeable from now on
        elif presence.session is not None:
            presence.session.end(grpc.StatusCode.FAILED_PRECONDITION, rejection(presence.version, verdict.summary))

    async def _claimed_check(self, presence: Presence) -> CheckVerdict:
        """Wait for the claim on the version's check (another referee may be checking it:
        then take its verdict), play the check, settle it; the claim is given up after."""
        bot_id, version = presence.bot.bot_id, presence.version
        while not await asyncio.to_thread(self.checks.claim, bot_id, version, self.holder, CLAIM_TTL_S):
            found = await asyncio.to_thread(self.checks.get, bot_id, version)
            if found is not None and found.state != CheckState.PENDING:
                return CheckVerdict(found.state, found.summary, found.report)
            if not presence.connected:
                return CheckVerdict(None, "the bot left while another referee checked the version", "")
            await asyncio.sleep(POLL_S)
        try:
            found = await asyncio.to_thread(self.checks.get, bot_id, version)
            if found is not None and found.state != CheckState.PENDING:  # settled before our claim
                return CheckVerdict(found.state, found.summary, found.report)
            verdict = await self._play(presence)
            if verdict.state is not None and not await asyncio.to_thread(
                    self.checks.settle, bot_id, version, verdict.state == CheckState.PASSED, verdict.summary,
                    verdict.report):
                found = await asyncio.to_thread(self.checks.get, bot_id, version)
                if found is not None:  # another referee's verdict stands
                    return CheckVerdict(found.state, found.summary, found.report)
            return verdict
        finally:
            await asyncio.to_thread(self.checks.release, bot_id, version, self.holder)

    async def _play(self, presence: Presence) -> CheckVerdict:
        """Play the check's practice matches on the version's stream, one at a time."""
        arena = self.arena
        loop = asyncio.get_running_loop()
        deadline = loop.time() + arena.config.version_check_s
        requests = practice_requests(COVERAGE, games=1, seed=0)
        report = ComplianceReport()
        results: list[bot_pb2.MatchResult] = []
        strikes: list[bot_pb2.Strike] = []
        renewed = loop.time()
        for request in requests:
            match = await self._play_one(presence, request, deadline)
            if match is None:
                if not presence.connected:
                    return CheckVerdict(None, "the bot disconnected during its check", "")
                if loop.time() < deadline:
                    return CheckVerdict(None, "the referee could not run the check's matches (stopping)", "")
                break
            results.append(match.result or bot_pb2.MatchResult())
            seat = match.seats[request.seat]
            strikes += [strike for strike in seat.strike_log if strike.reason != bot_pb2.STRIKE_REASON_DISCONNECTED]
            _count_decisions(report, match, request.seat)
            if loop.time() - renewed > CLAIM_TTL_S / 3:
                renewed = loop.time()
                await asyncio.to_thread(self.checks.claim, presence.bot.bot_id, presence.version, self.holder,
                                        CLAIM_TTL_S)
        report_practice(report, results, strikes, [], len(requests), f"in {arena.config.version_check_s:g} s")
        state = CheckState.PASSED if report.passed else CheckState.FAILED
        return CheckVerdict(state, report.summary(), report.as_text())

    async def _play_one(self, presence: Presence, request: bot_pb2.PracticeRequest,
                        deadline: float) -> Match | None:
        """One of the check's matches, played to its end by ``deadline`` (the event loop's
        clock); played again if the bot dropped its stream during it and came back (a
        disconnection says nothing about its answers).  ``None`` when it could not be
        played: the bot left, the referee is stopping, or the deadline came first."""
        loop = asyncio.get_running_loop()
        while presence.connected and loop.time() < deadline:
            try:
                match = await self._start(presence, request)
            except RequestRefused as refused:
                if refused.code != grpc.StatusCode.RESOURCE_EXHAUSTED:
                    return None
                await asyncio.sleep(BUSY_RETRY_S)  # the referee is full: wait for a slot
                continue
            task = self.arena.tasks[match.spec.match_id]
            try:
                await asyncio.wait_for(asyncio.shield(task), timeout=max(0.0, deadline - loop.time()))
            except TimeoutError:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
                return None
            if match.seats[request.seat].status != game_pb2.SEAT_STATUS_DISCONNECTED:
                return match
        return None

    async def _start(self, presence: Presence, request: bot_pb2.PracticeRequest) -> Match:
        """Start one of the check's practice matches: the version in its seat, house bots
        in the others."""
        arena = self.arena
        match_id = f"check-{uuid.uuid4().hex}"
        players = (await asyncio.to_thread(build_ruleset, request.preset, request.options_json)).players
        seats: list[Presence] = [HousePresence(arena.house) for _ in range(players)]
        seats[request.seat] = presence
        spec = await arena.match_spec(match_id, request.preset, request.options_json, seats, request.seed,
                                      request.games, None, None)
        arena.start(spec, record=False)
        return arena.matches[match_id]


def needs_check(arena: Arena, bot: BotRecord, version: str) -> bool:
    """Whether a hello with ``version`` is to be checked here: the arena's switch is on, the
    version is new, and the bot is an author's (not the operator's, not a house bot such as
    a hosted version's check identity) and not hosted (its host checks its versions)."""
    if not arena.config.version_check or arena.versions.rated_of(bot.bot_id, version) is not None:
        return False
    store = arena.store
    return (arena.accounts.account_of(bot.bot_id) is not None and bot.bot_id not in store.house_bots()
            and HostedVersions(store).get(bot.bot_id, version) is None)


def rejection(version: str, summary: str) -> str:
    """What a bot is told of its version that failed its check."""
    return (f"version {echo(version)!r} failed the arena's compliance check ({summary}); it never plays: fix the "
            "bot and connect with a new version (the report: pitch-bot status, or the version's page)")


def _count_decisions(report: ComplianceReport, match: Match, seat: int) -> None:
    """Note in ``report`` each decision the checked seat was asked in ``match``, by kind,
    with how long it took (from the match's game logs, which time every move)."""
    spec = match.spec
    for text in match.game_logs:
        try:
            game = GameLog.from_dict(json.loads(text))
        except (RulesError, ValueError):
            continue
        bank = float(spec.bank_ms)
        for index, (mover, action) in enumerate(game.moves):
            if mover != seat:
                continue
            entry = report.kinds[action.kind]
            entry.asked += 1
            ms = game.decision_ms[index] if index < len(game.decision_ms) else None
            if ms is None:
                continue
            entry.slowest_ms = max(entry.slowest_ms, float(ms))
            if not timed_out(ms, spec.per_decision_ms, bank):
                report.timed(action.kind, ms, spec.per_decision_ms, bank)  # a warning when paid from the bank
            bank = bank_after(ms, spec.per_decision_ms, bank)
