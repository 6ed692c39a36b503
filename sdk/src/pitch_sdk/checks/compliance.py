"""Protocol compliance checks: play a bot through every decision kind and say what it did
wrong, before it meets other bots (like fastchess's UCI compliance checker).

Locally the bot plays every seat of games of presets chosen to cover every decision kind
the engine asks today, and each answer is validated: an exception, an action that is not
among the legal ones, or an answer later than the referee's time control allows (its time
per decision and then the bank: :mod:`pitch_sdk.clock`) is a problem.  Against a referee
the same presets are played as practice matches over the real protocol, one at a time,
and the referee's strikes are the problems (for a bot in any language, ``check_relay`` plays
them through the bot's own process).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from pitch_sdk.bot import Bot
from pitch_sdk.clock import DEFAULT_BANK_MS, DEFAULT_PER_DECISION_MS, Clock, bank_after, timed_out
from pitch_sdk.proto.pitch.v1 import bot_pb2
from pitch_sdk.protocol import wire
from pitch_sdk.remote.answering import where
from pitch_sdk.remote.client import BotClient
from pitch_sdk.remote.tls import PLAINTEXT, ChannelSecurity
from pitch_sdk.rules import Action, DecisionKind, GameState, Observation, Ruleset, observe, preset

#: Presets whose games reach every decision the presets ask: bids and plays
#: (partnership), a declared trump and an exchange (cutthroat), no auction (simple),
#: re-deals after all pass (auction), passing leftovers and burning (ten-point), calling
#: a partner's card (five-handed), looking, taking lost cards and discarding (man-o-war),
#: forced bids, smudges and the dealer's pick (nine-five), a sub-trump and suitless
#: jokers (two-trump), double bids (oklahoma-ten) and the coke bid (scranton); with
#: :data:`COVERAGE_OPTIONS`, keeping or mucking a hand without point cards.
COVERAGE = ("partnership", "cutthroat", "simple", "auction", "ten-point", "five-handed", "man-o-war",
            "nine-five", "two-trump", "oklahoma-ten", "scranton")
#: Options the check plays over some presets, for decisions only an option asks: seed
#: 004's muck (no preset's text turns it on), as a new hand in partnership and as a re-deal
#: in auction pitch.  Their first games at seed 0 ask it of the seat a remote check plays
#: (``PracticeRequest.seat``) too.
COVERAGE_OPTIONS: Mapping[str, Mapping[str, object]] = {
    "partnership": {"muck": "new-hand"},
    "auction": {"muck": "redeal"},
}
#: Hands per checked game: enough to meet each decision, few enough to stay quick.
CHECK_HANDS = 8
#: The kinds of problem a remote check reports about the practice matches themselves rather
#: than the bot's answers: the referee refused one (it was busy, say), or some had not ended
#: when the check stopped.
REFUSED = "practice match refused"
UNFINISHED = "practice matches unfinished"


def check_options(name: str) -> dict[str, object]:
    """The options a check plays ``name`` with: its coverage options and the hand cap."""
    return {**COVERAGE_OPTIONS.get(name, {}), "max_hands": CHECK_HANDS}


def check_rules(name: str) -> Ruleset:
    """The ruleset a check plays for preset ``name``."""
    return preset(name, check_options(name))


@dataclass
class KindReport:
    """How a bot answered one decision kind."""

    asked: int = 0
    ok: int = 0
    slowest_ms: float = 0.0
    over_budget: int = 0
    """Answers in time but over the time per decision (paid from the bank)."""


@dataclass
class ComplianceReport:
    """Everything a check found."""

    kinds: dict[DecisionKind, KindReport] = field(default_factory=lambda: {k: KindReport() for k in DecisionKind})
    counts: dict[str, int] = field(default_factory=dict)
    """How often each kind of problem happened."""
    examples: dict[str, str] = field(default_factory=dict)
    """The first occurrence of each kind of problem, in full."""
    warnings: list[str] = field(default_factory=list)
    """Every answer over the time per decision, with the bank left after it: not a problem
    yet, but a bot that keeps doing it times out once its bank is gone, so the draining
    is shown before the timeouts (an "ok" answer says nothing of it)."""
    matches: int = 0

    @property
    def passed(self) -> bool:
        """No problem found, and at least one decision answered."""
        return not self.counts and any(r.asked for r in self.kinds.values())

    @property
    def problems(self) -> list[str]:
        """One line per kind of problem: how often, and its first occurrence."""
        return [f"{key} ({count}x), first: {self.examples[key]}" for key, count in self.counts.items()]

    @property
    def decisions(self) -> int:
        """Decisions the bot was asked."""
        return sum(entry.asked for entry in self.kinds.values())

    def summary(self) -> str:
        """One line: passed or failed, with the decisions asked and the problems found."""
        problems = sum(self.counts.values())
        return (f"compliance check {'passed' if self.passed else 'failed'}: {self.matches} matches, "
                f"{self.decisions} decisions, {problems} problem{'' if problems == 1 else 's'}")

    def as_text(self) -> str:
        """The report as plain text (where no table can be drawn: the arena's record of a
        hosted version, its owner's terminal): the summary, each problem, each decision kind
        asked, then the warnings, most telling first."""
        lines = [self.summary(), *(f"problem: {problem}" for problem in self.problems)]
        lines += [f"{kind.value}: asked {entry.asked}, ok {entry.ok}, over time {entry.over_budget}, slowest "
                  f"{entry.slowest_ms:.1f} ms" for kind, entry in self.kinds.items() if entry.asked]
        lines += [f"warning: {warning}" for warning in self.warnings]
        return "\n".join(lines)

    def problem(self, key: str, text: str) -> None:
        """Record a problem of kind ``key`` (e.g. "play: illegal action")."""
        self.counts[key] = self.counts.get(key, 0) + 1
        self.examples.setdefault(key, text)

    def timed(self, kind: DecisionKind, elapsed_ms: float, per_decision_ms: float, bank_ms: float) -> None:
        """Note an answer's time: one over ``per_decision_ms`` but within the bank of
        ``bank_ms`` is a warning showing the bank before and after it (a timeout, over
        both, is the caller's problem to report)."""
        if elapsed_ms <= per_decision_ms or timed_out(elapsed_ms, per_decision_ms, bank_ms):
            return
        self.kinds[kind].over_budget += 1
        self.warnings.append(f"{kind}: {elapsed_ms:.0f} ms, {elapsed_ms - per_decision_ms:.0f} ms over the "
                             f"{per_decision_ms:.0f} ms per decision; bank {bank_ms:.0f} -> "
                             f"{bank_after(elapsed_ms, per_decision_ms, bank_ms):.0f} ms")


#: What :func:`_timed_act` returns for a bot that raised (already reported).  Not ``None``:
#: a bot that returns ``None`` gave no action, and must fail the check, not pass it.
_RAISED = object()


def _timed_act(bot: Bot, report: ComplianceReport, observation: Observation, legal: Sequence[Action],
               clock: Clock) -> tuple[object, float]:
    bot.clock = clock
    try:
        action: object = bot.act(observation, legal)
    except Exception as exc:  # a bot's crash is exactly what we report
        report.problem(f"{legal[0].kind}: raised {type(exc).__name__}", f"{exc} ({where(exc)})")
        return _RAISED, clock.elapsed_ms()
    return action, clock.elapsed_ms()


def check_locally(bot_factory: Callable[[], Bot], games: int = 2, seed: int = 0,
                  presets: Sequence[str] = COVERAGE, per_decision_ms: int = DEFAULT_PER_DECISION_MS,
                  bank_ms: int = DEFAULT_BANK_MS) -> ComplianceReport:
    """Play ``games`` games of each of ``presets`` with the bot in every seat.

    Time is kept as the referee keeps it (:mod:`pitch_sdk.clock`): ``per_decision_ms``
    per decision, then each seat's bank of ``bank_ms`` for the games of a preset (a
    practice match plays them as one match); a decision over both is a timeout.  The
    defaults are the referee's, under which practice matches play, so a bot passes the
    local check exactly when its time passes the remote one."""
    report = ComplianceReport()
    for name in presets:
        rules = check_rules(name)
        banks = [float(bank_ms)] * rules.players
        for game in range(games):
            state = GameState.new(rules, seed=seed * 1000 + game, dealer=game % rules.players)
            bots = [bot_factory() for _ in range(rules.players)]
            for seat, bot in enumerate(bots):
                bot.start_game(rules, seat, random.Random(seed + seat))
            while not state.is_over:
                seat = state.to_move
                legal = state.legal_actions()
                kind = state.decision().kind
                entry = report.kinds[kind]
                entry.asked += 1
                clock = Clock(per_decision_ms, banks[seat])
                action, elapsed = _timed_act(bots[seat], report, observe(state, seat), legal, clock)
                entry.slowest_ms = max(entry.slowest_ms, elapsed)
                late = timed_out(elapsed, per_decision_ms, banks[seat])
                report.timed(kind, elapsed, per_decision_ms, banks[seat])
                if late:
                    report.problem(f"{kind}: timeout", f"{elapsed:.0f} ms, over the {per_decision_ms} ms per "
                                   f"decision plus the {banks[seat]:.0f} ms left in the bank")
                banks[seat] = bank_after(elapsed, per_decision_ms, banks[seat])
                answered = next((a for a in legal if a == action), None) if action is not _RAISED else None
                if action is not _RAISED and answered is None:
                    report.problem(f"{kind}: illegal action", f"returned {action!r}; legal: "
                                   f"{', '.join(map(str, legal[:12]))}")
                elif answered is not None and not late:
                    entry.ok += 1
                state.apply(answered if answered is not None else legal[0])
            report.matches += 1
    return report


class _CountingBot(Bot):
    """Wraps a bot to count and time its decisions by kind (client side)."""

    def __init__(self, inner: Bot, report: ComplianceReport) -> None:
        super().__init__()
        self.inner = inner
        self.name = inner.name
        self.report = report

    def start_game(self, ruleset: object, seat: int, rng: object) -> None:
        self.inner.start_game(ruleset, seat, rng)  # type: ignore[arg-type]

    @property
    def budget_ms(self) -> float | None:
        """The wrapped bot's search budget, which the client fits to each decision."""
        return self.inner.budget_ms

    @budget_ms.setter
    def budget_ms(self, value: float | None) -> None:
        self.inner.budget_ms = value

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        kind = legal_actions[0].kind
        entry = self.report.kinds[kind]
        entry.asked += 1
        clock = self.inner.clock = self.clock
        start = time.perf_counter()
        try:
            action = self.inner.act(observation, legal_actions)
        except Exception as exc:
            self.report.problem(f"{kind}: raised {type(exc).__name__}", str(exc))
            raise
        finally:
            elapsed = (time.perf_counter() - start) * 1000
            entry.slowest_ms = max(entry.slowest_ms, elapsed)
        self.report.timed(kind, elapsed, clock.per_decision_ms, clock.bank_ms)  # as the request stated them
        return action


def practice_requests(presets: Sequence[str], games: int, seed: int) -> list[bot_pb2.PracticeRequest]:
    """One practice match per preset, the bot's seat turning from one preset to the next."""
    return [bot_pb2.PracticeRequest(preset=name, seed=seed, games=games, seat=index % preset(name).players,
                                    options_json=json.dumps(check_options(name)))
            for index, name in enumerate(presets)]


def report_practice(report: ComplianceReport, results: Sequence[bot_pb2.MatchResult],
                    strikes: Sequence[bot_pb2.Strike], errors: Sequence[str], requested: int,
                    cut_short: str) -> ComplianceReport:
    """Complete ``report`` (its kinds' ``asked`` already counted) from what the referee said
    about the practice matches: refused requests, strikes, and matches left unfinished
    (``cut_short`` says what ended the check before them, e.g. "in 300 s")."""
    for message in errors:
        report.problem(REFUSED, message)
    for strike in strikes:
        reason = bot_pb2.StrikeReason.Name(strike.reason).removeprefix("STRIKE_REASON_").lower().replace("_", " ")
        report.problem(f"{wire.kind_from_pb(strike.fallback.kind)}: strike for {reason}",
                       f"{strike.message} (match {strike.match_id})")
    if len(results) + len(errors) < requested:
        report.problem(UNFINISHED,
                       f"only {len(results)} of {requested} ended {cut_short}")
    report.matches = len(results)
    struck = Counter(wire.kind_from_pb(strike.fallback.kind) for strike in strikes)
    for kind, entry in report.kinds.items():
        entry.ok = entry.asked - struck[kind]
    return report


class RefereeUnreachable(RuntimeError):
    """No referee accepted the check's connection in time (the client alone would keep
    retrying, as a bot left running should)."""


def check_remote(bot_factory: Callable[[], Bot], address: str, token: str, games: int = 1, seed: int = 0,
                 timeout_s: float = 300.0, presets: Sequence[str] = COVERAGE,
                 connect_timeout_s: float = 5.0, security: ChannelSecurity = PLAINTEXT) -> ComplianceReport:
    """Play a practice match of each of ``presets`` through a referee (over ``security``),
    one at a time (as the local check plays one decision at a time: a slow bot then spends
    the same time in both, rather than waiting remotely for threads its other matches hold); raises
    :class:`RefereeUnreachable` if the referee does not welcome the bot within
    ``connect_timeout_s``."""
    report = ComplianceReport()
    requests = practice_requests(presets, games, seed)
    deadline = time.monotonic() + timeout_s

    async def play(request: bot_pb2.PracticeRequest) -> BotClient:
        client = BotClient(lambda: _CountingBot(bot_factory(), report), address, token, capacity=1,
                           practice=[request], security=security)
        stop = asyncio.Event()
        runner = asyncio.create_task(client.run(stop))
        welcomed = asyncio.create_task(client.connected.wait())
        await asyncio.wait({welcomed, runner}, timeout=connect_timeout_s, return_when=asyncio.FIRST_COMPLETED)
        if not welcomed.done():
            welcomed.cancel()
            stop.set()
            await runner  # raises ConnectionRefused (a rejected token) and the like
            raise RefereeUnreachable(f"no referee answered at {address} within {connect_timeout_s:g} s: is it "
                                     "running, and is HOST:PORT right?")
        while not (client.results or client.errors) and time.monotonic() < deadline:
            if runner.done():
                runner.result()  # raises ConnectionRefused and the like
            await asyncio.sleep(0.02)
        stop.set()
        await runner
        return client

    async def play_all() -> list[BotClient]:
        return [await play(request) for request in requests if time.monotonic() < deadline]

    clients = asyncio.run(play_all())
    return report_practice(report, [result for client in clients for result in client.results],
                           [strike for client in clients for strike in client.strikes],
                           [message for client in clients for message in client.errors], len(requests),
                           f"in {timeout_s:.0f} s")
