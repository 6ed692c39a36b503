"""Protocol compliance checks: play a bot through every decision kind and say what it did
wrong, before it meets other bots (like fastchess's UCI compliance checker).

Locally the bot plays every seat of games of presets chosen to cover every decision kind
the engine asks today, and each answer is validated: an exception, an action that is not
among the legal ones, or an answer slower than the time budget is a problem.  Against a
referee the same presets are played as practice matches over the real protocol, and the
referee's strikes are the problems.
"""

from __future__ import annotations

import asyncio
import random
import time
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pitch_sdk import wire
from pitch_sdk.bot import Bot
from pitch_sdk.client import BotClient
from pitch_sdk.proto.pitch.v1 import bot_pb2
from pitch_sdk.rules import Action, DecisionKind, GameState, Observation, observe, preset

#: Presets whose games reach every decision the presets ask: bids and plays
#: (partnership), a declared trump and an exchange (cutthroat), no auction (simple),
#: re-deals after all pass (auction), passing leftovers and burning (ten-point), calling
#: a partner's card (five-handed), looking, taking lost cards and discarding (man-o-war),
#: forced bids, smudges and the dealer's pick (nine-five), a sub-trump and suitless
#: jokers (two-trump), double bids (oklahoma-ten) and the coke bid (scranton).
COVERAGE = ("partnership", "cutthroat", "simple", "auction", "ten-point", "five-handed", "man-o-war",
            "nine-five", "two-trump", "oklahoma-ten", "scranton")


@dataclass
class KindReport:
    """How a bot answered one decision kind."""

    asked: int = 0
    ok: int = 0
    slowest_ms: float = 0.0


@dataclass
class ComplianceReport:
    """Everything a check found."""

    kinds: dict[DecisionKind, KindReport] = field(default_factory=lambda: {k: KindReport() for k in DecisionKind})
    counts: dict[str, int] = field(default_factory=dict)
    """How often each kind of problem happened."""
    examples: dict[str, str] = field(default_factory=dict)
    """The first occurrence of each kind of problem, in full."""
    matches: int = 0

    @property
    def passed(self) -> bool:
        """No problem found, and at least one decision answered."""
        return not self.counts and any(r.asked for r in self.kinds.values())

    @property
    def problems(self) -> list[str]:
        """One line per kind of problem: how often, and its first occurrence."""
        return [f"{key} ({count}x), first: {self.examples[key]}" for key, count in self.counts.items()]

    def problem(self, key: str, text: str) -> None:
        """Record a problem of kind ``key`` (e.g. "play: illegal action")."""
        self.counts[key] = self.counts.get(key, 0) + 1
        self.examples.setdefault(key, text)


#: What :func:`_timed_act` returns for a bot that raised (already reported).  Not ``None``:
#: a bot that returns ``None`` gave no action, and must fail the check, not pass it.
_RAISED = object()


def _timed_act(bot: Bot, report: ComplianceReport, observation: Observation,
               legal: Sequence[Action]) -> tuple[object, float]:
    start = time.perf_counter()
    try:
        action: object = bot.act(observation, legal)
    except Exception as exc:  # a bot's crash is exactly what we report
        where = traceback.extract_tb(exc.__traceback__)[-1]
        report.problem(f"{legal[0].kind}: raised {type(exc).__name__}",
                       f"{exc} ({where.filename}:{where.lineno})")
        return _RAISED, (time.perf_counter() - start) * 1000
    return action, (time.perf_counter() - start) * 1000


def check_locally(bot_factory: Callable[[], Bot], games: int = 2, seed: int = 0,
                  budget_ms: float = 2000.0, presets: Sequence[str] = COVERAGE) -> ComplianceReport:
    """Play ``games`` games of each of ``presets`` with the bot in every seat."""
    report = ComplianceReport()
    for name in presets:
        rules = preset(name, max_hands=8)
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
                action, elapsed = _timed_act(bots[seat], report, observe(state, seat), legal)
                entry.slowest_ms = max(entry.slowest_ms, elapsed)
                if elapsed > budget_ms:
                    report.problem(f"{kind}: too slow", f"{elapsed:.0f} ms, over the {budget_ms:.0f} ms budget")
                answered = next((a for a in legal if a == action), None) if action is not _RAISED else None
                if action is not _RAISED and answered is None:
                    report.problem(f"{kind}: illegal action", f"returned {action!r}; legal: "
                                   f"{', '.join(map(str, legal[:12]))}")
                elif answered is not None and elapsed <= budget_ms:
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
        entry = self.report.kinds[legal_actions[0].kind]
        entry.asked += 1
        start = time.perf_counter()
        try:
            return self.inner.act(observation, legal_actions)
        except Exception as exc:
            self.report.problem(f"{legal_actions[0].kind}: raised {type(exc).__name__}", str(exc))
            raise
        finally:
            entry.slowest_ms = max(entry.slowest_ms, (time.perf_counter() - start) * 1000)


def check_remote(bot_factory: Callable[[], Bot], address: str, token: str, games: int = 1, seed: int = 0,
                 timeout_s: float = 300.0, presets: Sequence[str] = COVERAGE) -> ComplianceReport:
    """Play practice matches of each of ``presets`` through a referee."""
    report = ComplianceReport()
    requests = [bot_pb2.PracticeRequest(preset=name, seed=seed, games=games, seat=index % preset(name).players,
                                        options_json='{"max_hands": 8}')
                for index, name in enumerate(presets)]

    async def play() -> BotClient:
        client = BotClient(lambda: _CountingBot(bot_factory(), report), address, token, capacity=len(requests),
                           practice=requests)
        stop = asyncio.Event()
        runner = asyncio.create_task(client.run(stop))
        deadline = time.monotonic() + timeout_s
        while len(client.results) + len(client.errors) < len(requests) and time.monotonic() < deadline:
            if runner.done():
                runner.result()  # raises ConnectionRefused and the like
            await asyncio.sleep(0.05)
        stop.set()
        await runner
        return client

    client = asyncio.run(play())
    for message in client.errors:
        report.problem("practice match refused", message)
    for strike in client.strikes:
        reason = bot_pb2.StrikeReason.Name(strike.reason).removeprefix("STRIKE_REASON_").lower().replace("_", " ")
        report.problem(f"{wire.kind_from_pb(strike.fallback.kind)}: strike for {reason}",
                       f"{strike.message} (match {strike.match_id})")
    if len(client.results) + len(client.errors) < len(requests):
        report.problem("practice matches unfinished",
                       f"only {len(client.results)} of {len(requests)} ended in {timeout_s:.0f} s")
    report.matches = len(client.results)
    struck = Counter(wire.kind_from_pb(strike.fallback.kind) for strike in client.strikes)
    for kind, entry in report.kinds.items():
        entry.ok = entry.asked - struck[kind]
    return report
