"""Chaos benchmark: a whole arena under SIGKILLs of its workers, bots, referee and Redis.

Every part is real, as its own process, on loopback (Redis on a Unix socket in the run's
directory, never the machine's Redis): a private ``redis-server`` with append-only
persistence (fsync every second), a referee, ``--bots`` ``pitch-bot run heuristic``
processes, ``--workers`` Celery workers (``pitch-arena worker``) and one ``pitch-arena
beat`` whose sweep re-sends matches whose lease lapsed or whose task was lost.  Short
leases and sweeps (``PITCH_MATCH_LEASE_S=3``, ``PITCH_REQUEUE_INTERVAL_S=2``) keep recovery
within seconds.  Round robins (cutthroat, and partnership to 11 points) are launched until
``--matches`` are scheduled; then, every ``--interval`` seconds (jittered, from ``--seed``:
the same seed gives the same kinds, targets and times), one process is SIGKILLed (its whole
process group) and started again ``--down`` seconds later: workers most often, then bots,
the referee and Redis (restarted from its append-only file: up to about a second of writes
may be lost, and the report says how many records went with them).  The run ends when every
tournament has its table, or at ``--time-limit``; every process it started is stopped on
the way out (Ctrl-C and SIGTERM included) and the logs stay in the printed directory.

What is checked, from Redis and the referee's logs, after the run:

* ``recorded_once``: played matches whose match id has one record (result, entry in the
  finished-matches index), whose tournament outcome carries that same result, that were
  rated once, and that the referee did not play again after recording them;
* ``recorded_twice``, by way of showing it: an outcome whose result differs from the match
  record (two results for one id), a match id twice in a bot's rating history, a bot whose
  conduct totals count more matches than its recorded matches (a record applied twice), a
  table whose games do not add up, a match the referee started twice in one run or again
  after it had been recorded (a start after a referee kill that interrupted it is a
  restart, reported apart);
* ``lost`` (no outcome at the end) and ``not_played`` (grouped by reason);
* per leaderboard: rating updates (the applied set) against matches played, and the Elo sum
  (sum of rating - initial over the board's bots, zero-sum by construction);
* recovery after each kind of kill, median and range: a worker, until every match it held a
  lease on has an outcome or was started again; a bot, until it is connected again and until
  a match with it in a seat is recorded after that; the referee and Redis, until the next match is
  recorded after the restart (all timed from the kill).

Run: ``.venv/bin/python bench/chaos.py [--matches 300] [--bots 6] [--workers 3]
[--interval 8] [--seed 1] [--time-limit 1200] [--json]``; ``--kinds worker,bot,referee,redis``
fixes the order of the kills instead, and the run then lasts until each of them has happened
(the short test uses it: on a loaded machine its matches could all end before the last kill).  A text report goes to
stderr, the JSON report (``--json``) to stdout.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import secrets
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import FrameType
from typing import Any

import grpc
import redis

from cli.local_arena import LocalArena, Service, wait_for
from competitions.config import WorkerConfig
from competitions.queue import make_app
from competitions.ratings.leaderboard import Leaderboard
from competitions.referee_client import RefereeClient
from competitions.tournaments import control as tournament
from competitions.tournaments.schedule import Schedule
from competitions.tournaments.store import TournamentStore
from competitions.tournaments.table import PLAYED
from store.redis_store import Store

KINDS = ("worker", "bot", "referee", "redis")
#: Relative frequency of each kind of kill in a seeded schedule: workers most often.
WEIGHTS = (4, 2, 1, 1)
#: The round robins launched in turn until enough matches are scheduled (partnership to 11
#: points: half the hands of its default 21, so its matches are about as short as cutthroat's).
PLANS: tuple[tuple[str, dict[str, Any]], ...] = (("cutthroat", {}), ("partnership", {"target": 11}))
#: Worker settings: short lease and sweep (recovery in seconds), quick retries, and enough of
#: them that a referee restart does not turn matches into "not played"; the visibility
#: timeout exceeds a match plus the longest retry delay, as WorkerConfig requires.
WORKER_SETTINGS: dict[str, Any] = {"lease_s": 3.0, "requeue_interval_s": 2.0, "match_timeout_s": 120.0,
                                   "match_retries": 8, "retry_backoff_s": 1.0, "retry_backoff_max_s": 8.0,
                                   "visibility_timeout_s": 300.0, "restore_interval_s": 5.0}
#: A referee log line saying a match began (``referee/service.py``), with its time stamp.
STARTED = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) \S+ \S+: match (\S+) started:")
POLL_S = 0.25
#: How long a worker may stay up after Celery logged "Unrecoverable error" before it counts as wedged.
WEDGED_AFTER_S = 5.0
#: The ways a match can show it was recorded (or played) twice; see the module docstring.
CHECKS = ("outcome_result_differs_from_record", "played_without_its_record", "rated_twice",
          "conduct_counts_differ_from_records", "table_does_not_add_up", "referee_started_twice_in_one_run",
          "referee_played_again_after_recording")


class Interrupted(Exception):
    """SIGTERM, turned into an exception so the arena is stopped on the way out."""


@dataclass
class Kill:
    """One executed kill: what, when (``time.time()``), and how the arena recovered."""

    kind: str
    target: str
    at: float
    restarted: float | None = None
    bot_id: str = ""
    """Bot kills: the bot's id."""
    held: list[str] = field(default_factory=list)
    """Worker kills: the matches (tournament:index) the worker held a lease on."""
    lost_writes: dict[str, int] = field(default_factory=dict)
    """Redis kills: records present just before the kill and missing after the restart."""
    recovery_s: float | None = None
    reconnected_s: float | None = None
    """Bot kills: until the referee lists the bot connected again."""
    note: str = ""

    def to_dict(self, began: float) -> dict[str, Any]:
        """The JSON form, times relative to the start of the chaos."""
        return {"kind": self.kind, "target": self.target, "at_s": round(self.at - began, 2),
                "down_s": None if self.restarted is None else round(self.restarted - self.at, 2),
                "held": self.held, "lost_writes": self.lost_writes,
                "recovery_s": None if self.recovery_s is None else round(self.recovery_s, 3),
                "reconnected_s": None if self.reconnected_s is None else round(self.reconnected_s, 3),
                "note": self.note}


def spread(values: list[float]) -> dict[str, float | int | None]:
    """Median and range (the project's way of reporting figures)."""
    if not values:
        return {"n": 0, "median": None, "min": None, "max": None}
    return {"n": len(values), "median": round(statistics.median(values), 3), "min": round(min(values), 3),
            "max": round(max(values), 3)}


def plan_tournaments(tournaments: TournamentStore, bots: list[str], matches: int, seed: int) -> list[Schedule]:
    """Round robins of every bot, in turn from :data:`PLANS`, until ``matches`` are scheduled."""
    schedules: list[Schedule] = []
    while sum(len(s.matches) for s in schedules) < matches:
        preset, options = PLANS[len(schedules) % len(PLANS)]
        schedules.append(tournament.create(tournaments, preset, bots, games=1, seed=seed + len(schedules),
                                           options=options, tournament_id=f"chaos{len(schedules)}-{preset}"))
    return schedules


def kill_schedule(rng: random.Random, kinds: list[str] | None, interval: float, count: int) -> Iterator[
        tuple[float, str]]:
    """Offsets (from the start of the chaos) and kinds of the kills: ``kinds`` in order, or
    drawn with :data:`WEIGHTS`; ``interval`` apart, each jittered by up to a quarter of it."""
    for number in range(count if kinds is None else len(kinds)):
        kind = rng.choices(KINDS, WEIGHTS)[0] if kinds is None else kinds[number]
        yield interval * (number + 1) + rng.uniform(-0.25, 0.25) * interval, kind


class Chaos:
    """The running arena, its kills, and the measurements taken while it runs."""

    def __init__(self, arena: LocalArena, args: argparse.Namespace, log_dir: Path) -> None:
        self.arena = arena
        self.args = args
        self.log_dir = log_dir
        self.rng = random.Random(args.seed)
        self.prefix, self.admin = "chaos:", secrets.token_urlsafe(16)
        self.redis_url = arena.start_persistent_redis(log_dir / "redis-data")
        self.referee_env = {"REDIS_URL": self.redis_url, "PITCH_STORE_PREFIX": self.prefix,
                            "PITCH_ADMIN_TOKEN": self.admin, "PITCH_SHUTDOWN_GRACE_S": "1",
                            "PITCH_RECONNECT_GRACE_S": str(args.reconnect_grace)}
        self.address = arena.start_referee(self.redis_url, self.prefix, self.admin, self.referee_env)
        self.referee = next(s for s in arena.services if s.name == "referee")
        self.client = RefereeClient(self.address, self.admin, match_timeout_s=60)
        self.bots: dict[str, Service] = {}
        self.bot_env: dict[str, dict[str, str]] = {}
        self.bot_names: dict[str, str] = {}
        for number in range(args.bots):
            registered = self.client.register(f"heuristic-{number + 1}", owner="chaos")
            self.bot_names[registered.bot_id] = f"heuristic-{number + 1}"
            self.bot_env[registered.bot_id] = {"PITCH_BOT_TOKEN": registered.token}
            self.bots[registered.bot_id] = arena.start_bot(f"heuristic-{number + 1}", "heuristic", self.address,
                                                           registered.token, args.seed + number)
        arena.wait_connected(self.client, list(self.bots))
        self.config = WorkerConfig(redis_url=self.redis_url, store_prefix=self.prefix, referee=self.address,
                                   admin_token=self.admin, **WORKER_SETTINGS)
        self.workers = [arena.start_worker(self.config, f"worker-{n + 1}", args.concurrency)
                        for n in range(args.workers)]
        self.beat = arena.start_beat(self.config)
        self.store = Store.from_url(self.redis_url, self.prefix)
        self.tournaments = TournamentStore(self.store)
        self.kills: list[Kill] = []
        self.exits: list[dict[str, Any]] = []
        self.down: set[str] = set()
        self.unrecoverable: dict[int, float] = {}
        self.began = 0.0

    # ----------------------------------------------------------------- keys read directly
    def _key(self, *parts: str) -> str:
        """A key of the store's documented layout (``store/redis_store.py``), read with
        cheap commands (HKEYS, MGET) so polling several times a second does not parse every
        outcome."""
        return self.prefix + ":".join(parts)

    def open_matches(self, schedules: list[Schedule]) -> dict[str, list[int]]:
        """Per tournament, the indices without an outcome."""
        pipe = self.store.client.pipeline(transaction=False)
        for schedule in schedules:
            pipe.hkeys(self._key("tournament", schedule.tournament_id, "outcomes"))
        done = pipe.execute()
        return {s.tournament_id: [m.index for m in s.matches if str(m.index) not in set(d)]
                for s, d in zip(schedules, done, strict=True)}

    def holders(self, schedules: list[Schedule]) -> dict[str, str]:
        """``tournament:index`` -> the lease holder (``worker-1@host#attempt``) of every open match."""
        keys = [(tid, i) for tid, indices in self.open_matches(schedules).items() for i in indices]
        if not keys:
            return {}
        values = self.store.client.mget([self._key("tournament", tid, "lease", str(i)) for tid, i in keys])
        return {f"{tid}:{i}": str(v) for (tid, i), v in zip(keys, values, strict=True) if v is not None}

    def counts(self) -> dict[str, int]:
        """Records that a Redis restart could lose: match results in the index, outcomes,
        rating updates."""
        pipe = self.store.client.pipeline(transaction=False)
        pipe.zcard(self._key("matches"))
        tournament_ids = self.tournaments.tournament_ids()
        for tid in tournament_ids:
            pipe.hlen(self._key("tournament", tid, "outcomes"))
        for preset, _ in PLANS:
            pipe.scard(self._key("elo", preset, "applied"))
        found = pipe.execute()
        return {"match_records": int(found[0]), "outcomes": sum(int(n) for n in found[1:1 + len(tournament_ids)]),
                "rating_updates": sum(int(n) for n in found[1 + len(tournament_ids):])}

    def first_record_after(self, moment: float, bot: str | None = None) -> float | None:
        """When the first match recorded after ``moment`` was recorded (one with ``bot`` in a
        seat, if given)."""
        key = self._key("matches") if bot is None else self._key("bot-matches", bot)
        first = self.store.client.zrangebyscore(key, moment, "+inf", start=0, num=1, withscores=True)
        return float(first[0][1]) if first else None

    # ----------------------------------------------------------------- kills
    def kill(self, kind: str, schedules: list[Schedule]) -> Kill:
        """SIGKILL one process of ``kind`` (a seeded choice among its kind)."""
        if kind == "worker":  # one holding a match if any does, else any: a kill of an idle worker tests little
            holders = self.holders(schedules)
            busy = [w for w in self.workers if any(h.startswith(f"{w.name}@") for h in holders.values())]
            service = self.rng.choice(busy or self.workers)
            held = sorted(m for m, holder in holders.items() if holder.startswith(f"{service.name}@"))
            event = Kill(kind, service.name, time.time(), held=held)
            service.kill()
        elif kind == "bot":
            bot_id = self.rng.choice(sorted(self.bots))
            event = Kill(kind, self.bots[bot_id].name, time.time(), bot_id=bot_id)
            self.bots[bot_id].kill()
        elif kind == "referee":
            event = Kill(kind, "referee", time.time())
            self.referee.kill()
        else:
            before = self.counts()
            event = Kill(kind, "redis", time.time(), lost_writes=before)  # replaced by the loss after the restart
            self.arena.kill_redis()
        self.down.add(event.target)
        return event

    def restart(self, event: Kill) -> None:
        """Start the killed process again (same command, same environment)."""
        if event.kind == "worker":
            index = next(i for i, w in enumerate(self.workers) if w.name == event.target)
            self.workers[index] = self.arena.restart(self.workers[index], self.config.to_env())
        elif event.kind == "bot":
            self.bots[event.bot_id] = self.arena.restart(self.bots[event.bot_id], self.bot_env[event.bot_id])
        elif event.kind == "referee":
            self.referee = self.arena.restart(self.referee, self.referee_env)
        else:
            self.arena.restart_redis()
            after = self.counts()
            event.lost_writes = {name: max(0, count - after[name]) for name, count in event.lost_writes.items()}
        event.restarted = time.time()
        self.down.discard(event.target)

    def wedged(self, service: Service) -> bool:
        """A worker whose log says "Unrecoverable error" and that is still running
        :data:`WEDGED_AFTER_S` later: Celery stopped consuming but the process did not exit
        (seen after Redis restarts), so it only holds its matches until a supervisor kills it."""
        if service not in self.workers or "Unrecoverable error" not in service.log_path.read_text(errors="replace"):
            return False
        first = self.unrecoverable.setdefault(id(service), time.time())
        return time.time() - first > WEDGED_AFTER_S

    def restart_exited(self) -> None:
        """A process that exited without being killed, or a wedged worker, is a finding:
        note it and start it again (what a supervisor with a liveness check would do)."""
        services = [*self.workers, *self.bots.values(), self.referee, self.beat]
        for service in services:
            if service.name in self.down:
                continue
            code = service.process.poll()
            if code is None and not self.wedged(service):
                continue
            status = code if code is not None else f"wedged: alive {WEDGED_AFTER_S:.0f}s after 'Unrecoverable error'"
            self.exits.append({"service": service.name, "status": status, "at_s": round(time.time() - self.began, 2),
                               "log_tail": service.tail(8)})
            env = (self.config.to_env() if service in self.workers or service is self.beat else
                   self.referee_env if service is self.referee else
                   self.bot_env[next(b for b, s in self.bots.items() if s is service)])
            fresh = self.arena.restart(service, env)
            kept = max(self.log_dir.glob(f"{service.name}.*.log"), key=lambda p: int(p.name.split(".")[-2]))
            self.exits[-1]["log"] = str(kept)  # the old incarnation's log, kept by the restart
            if service is self.referee:
                self.referee = fresh
            elif service is self.beat:
                self.beat = fresh
            elif service in self.workers:
                self.workers[self.workers.index(service)] = fresh
            else:
                self.bots[next(b for b, s in self.bots.items() if s is service)] = fresh

    def measure(self, event: Kill, schedules: list[Schedule]) -> None:
        """Fill in ``event``'s recovery once the arena has recovered from it."""
        if event.restarted is None or event.recovery_s is not None:
            return
        if event.kind == "worker":
            if not event.held:
                event.note = "held no match"
                return
            times = [self._resumed(match, event.at) for match in event.held]
            if all(t is not None for t in times):
                event.recovery_s = max(t for t in times if t is not None) - event.at
        elif event.kind == "bot":
            if event.reconnected_s is None and event.bot_id in self.client.connected_bots():
                event.reconnected_s = time.time() - event.at
            if event.reconnected_s is not None:  # a match it finished after coming back
                recorded = self.first_record_after(event.at + event.reconnected_s, event.bot_id)
                if recorded is not None:
                    event.recovery_s = recorded - event.at
        else:
            recorded = self.first_record_after(event.restarted)
            if recorded is not None:
                event.recovery_s = recorded - event.at

    def _resumed(self, match: str, moment: float) -> float | None:
        """When match ``tournament:index`` got an outcome or was started again after ``moment``;
        ``moment`` itself when it was recorded before (its lease had not been released yet at the
        kill: nothing was left to recover, and waiting for a later event would wait for ever)."""
        tid, index = match.rsplit(":", 1)
        outcome = self.tournaments.outcome(tid, int(index))
        if outcome and float(outcome["recorded"]) <= moment:
            return moment
        started = self.tournaments.started(tid).get(int(index), 0.0)
        times = [t for t in (float(outcome["recorded"]) if outcome else None, started) if t is not None and t > moment]
        return min(times) if times else None

    # ----------------------------------------------------------------- the run
    def run(self, schedules: list[Schedule]) -> float:
        """Launch the tournaments and kill on schedule until every table is written or the
        time limit; the wall time."""
        app = make_app(self.config)
        self.began = time.time()
        for schedule in schedules:
            tournament.launch(app, self.tournaments, schedule.tournament_id)
        # the kill clock starts at the first recorded match: killing a worker still importing
        # Celery, or a bot before its first match, would test only the start-up
        wait_for(lambda: self.store.client.zcard(self._key("matches")) > 0, 120, "the first recorded match",
                 self.arena.services)
        chaos_began = time.time()
        kinds = self.args.kinds.split(",") if self.args.kinds else None
        planned = list(kill_schedule(self.rng, kinds, self.args.interval, self.args.max_kills))
        restarts: list[Kill] = []
        deadline = self.began + self.args.time_limit
        while time.time() < deadline:
            now = time.time()
            try:
                for event in [e for e in restarts if now >= e.at + self.args.down]:
                    restarts.remove(event)
                    self.restart(event)
                if planned and now >= chaos_began + planned[0][0] and not restarts:
                    _, kind = planned.pop(0)
                    event = self.kill(kind, schedules)
                    self.kills.append(event)
                    restarts.append(event)
                    print(f"[{now - self.began:6.1f}s] killed {event.target}", file=sys.stderr)
                self.restart_exited()
                for event in self.kills:
                    self.measure(event, schedules)
                kills_owed = kinds is not None and bool(planned)
                finished = not restarts and not kills_owed and all(
                    self.tournaments.table(s.tournament_id) is not None for s in schedules)
            except (redis.RedisError, grpc.RpcError):  # Redis or the referee is down: that is the point
                finished = False
            if finished:
                break
            time.sleep(POLL_S)
        for event in restarts:  # the time limit came first: leave nothing killed for the report
            self.restart(event)
        wall = time.time() - self.began
        wait_for(lambda: _answers(self.store), 30, "Redis", [])
        last = self.store.client.zrevrange(self._key("matches"), 0, 0, withscores=True)
        for event in self.kills:
            if event.recovery_s is not None:
                continue
            if not last or float(last[0][1]) < (event.restarted or event.at):
                event.note = "no match was left to record after it"
            elif event.kind == "bot" and self.first_record_after(event.restarted or event.at, event.bot_id) is None:
                event.note = "none of the bot's matches was left to record after it came back"
        return wall

    # ----------------------------------------------------------------- the report
    def report(self, schedules: list[Schedule], wall: float) -> dict[str, Any]:
        """Every figure of the run, from Redis and the referee's logs."""
        store = self.store
        starts = self.referee_starts()
        kills_of_referee = sorted(k.at for k in self.kills if k.kind == "referee")
        played: dict[str, dict[str, Any]] = {}
        not_played: Counter[str] = Counter()
        examples: dict[str, str] = {}
        lost: list[str] = []
        tables_ok, tables = 0, 0
        doubles: dict[str, list[str]] = {check: [] for check in CHECKS}
        for schedule in schedules:
            outcomes = self.tournaments.outcomes(schedule.tournament_id)
            for match in schedule.matches:
                outcome = outcomes.get(match.index)
                if outcome is None:
                    lost.append(match.match_id)
                elif outcome["status"] == PLAYED:
                    played[match.match_id] = {"board": schedule.preset, "outcome": outcome}
                else:
                    reason = str(outcome.get("reason", ""))
                    code = reason.split(":", 1)[0] or "no reason"
                    not_played[code] += 1
                    examples.setdefault(code, reason)
            table = self.tournaments.table(schedule.tournament_id)
            if table is not None:
                tables += 1
                count = sum(1 for o in outcomes.values() if o["status"] == PLAYED)
                seats = len(schedule.matches[0].seats)
                games = sum(r["games"] for r in table["rows"])
                if table["played"] == count and games == seats * schedule.games * count:
                    tables_ok += 1
                else:
                    doubles["table_does_not_add_up"].append(schedule.tournament_id)
        ids = list(played)
        records = dict(zip(ids, [store.match_result(m) for m in ids], strict=True))
        pipe = store.client.pipeline(transaction=False)
        for match_id in ids:
            pipe.zscore(self._key("matches"), match_id)
        indexed = dict(zip(ids, pipe.execute(), strict=True))
        for match_id, entry in played.items():
            if records[match_id] is None or indexed[match_id] is None:
                doubles["played_without_its_record"].append(match_id)
            elif entry["outcome"]["result"] != records[match_id]:
                doubles["outcome_result_differs_from_record"].append(match_id)
        replays = self.classify_starts(starts, kills_of_referee, indexed)
        doubles["referee_started_twice_in_one_run"] = replays["same_run"]
        doubles["referee_played_again_after_recording"] = replays["after_recorded"]
        boards: dict[str, Any] = {}
        for preset in sorted({entry["board"] for entry in played.values()}):
            board = Leaderboard(store, preset, self.config.elo)
            mine = [m for m, e in played.items() if e["board"] == preset]
            applied = [m for m in mine if board.applied(m)]
            rows = board.top(len(self.bots))
            rated: Counter[str] = Counter()
            for bot in self.bots:
                for match_id, times in Counter(p.match_id for p in board.history(bot)).items():
                    rated[match_id] = max(rated[match_id], times)
            doubles["rated_twice"] += sorted(m for m, times in rated.items() if times > 1)
            boards[preset] = {"played": len(mine), "rating_updates": len(applied),
                              "applied_total": int(store.client.scard(self._key("elo", preset, "applied"))),
                              "elo_sum": round(sum(r.rating - board.config.initial for r in rows), 9),
                              "bots": len(rows)}
        for bot in self.bots:
            conduct, recorded = store.bot_conduct(bot).matches, store.bot_match_count(bot)
            if conduct != recorded:
                doubles["conduct_counts_differ_from_records"].append(f"{self.bot_names[bot]}: {conduct} vs {recorded}")
        incomplete = sorted(set(doubles["played_without_its_record"]))  # a record cut short, not a double
        twice = sorted({m for kind, found in doubles.items()
                        if kind not in ("conduct_counts_differ_from_records", "played_without_its_record")
                        for m in found if m in played} - set(incomplete))
        recovery = {kind: spread([k.recovery_s for k in self.kills if k.kind == kind and k.recovery_s is not None])
                    for kind in KINDS}
        for kind in KINDS:
            recovery[kind]["unrecovered"] = sum(1 for k in self.kills if k.kind == kind and k.recovery_s is None
                                                and not k.note)
        recovery["bot_reconnect"] = spread([k.reconnected_s for k in self.kills if k.reconnected_s is not None])
        lost_writes: Counter[str] = Counter()
        for event in self.kills:
            if event.kind == "redis":
                lost_writes.update(event.lost_writes)
        scheduled = sum(len(s.matches) for s in schedules)
        return {
            "scheduled": scheduled, "tournaments": len(schedules), "tables": tables, "tables_add_up": tables_ok,
            "played": len(played), "recorded_once": len(played) - len(twice) - len(incomplete),
            "recorded_twice": len(twice), "recorded_incomplete": len(incomplete),
            "recorded_twice_by_check": {k: v for k, v in sorted(doubles.items())},
            "lost": len(lost), "lost_ids": lost[:50],
            "not_played": sum(not_played.values()),
            "not_played_by_reason": {code: {"count": n, "example": examples[code]} for code, n in not_played.items()},
            "referee_restarted_after_kill": len(replays["after_kill"]),
            "aborted_attempts": sum(len(store.aborted_matches(m.match_id)) for s in schedules for m in s.matches),
            "boards": boards,
            "rating_updates": sum(b["rating_updates"] for b in boards.values()),
            "rating_updates_equal_played": all(b["rating_updates"] == b["played"] == b["applied_total"]
                                               for b in boards.values()),
            "recovery_s": recovery, "redis_lost_writes": dict(lost_writes),
            "kills": [k.to_dict(self.began) for k in self.kills],
            "kills_by_kind": dict(Counter(k.kind for k in self.kills)),
            "unexpected_exits": self.exits,
            "wall_s": round(wall, 1), "matches_per_min": round(len(played) / wall * 60, 1),
            "settings": {"bots": self.args.bots, "workers": self.args.workers, "concurrency": self.args.concurrency,
                         "interval_s": self.args.interval, "down_s": self.args.down, "seed": self.args.seed,
                         "time_limit_s": self.args.time_limit, "reconnect_grace_s": self.args.reconnect_grace,
                         **WORKER_SETTINGS},
            "logs": str(self.log_dir),
        }

    def referee_starts(self) -> dict[str, list[tuple[int, float]]]:
        """Per match id, each start the referee logged: (incarnation, time).  Incarnation n is
        ``referee.n.log`` (the current one, ``referee.log``, comes last)."""
        logs = sorted(self.log_dir.glob("referee.*.log"), key=lambda p: int(p.name.split(".")[1]))
        starts: dict[str, list[tuple[int, float]]] = defaultdict(list)
        for incarnation, path in enumerate([*logs, self.log_dir / "referee.log"]):
            for line in path.read_text(errors="replace").splitlines():
                found = STARTED.match(line)
                if found:
                    stamp = datetime.strptime(found.group(1), "%Y-%m-%d %H:%M:%S,%f").timestamp()
                    starts[found.group(2)].append((incarnation, stamp))
        return starts

    @staticmethod
    def classify_starts(starts: dict[str, list[tuple[int, float]]], referee_kills: list[float],
                        recorded: dict[str, float | None]) -> dict[str, list[str]]:
        """Match ids the referee started more than once: twice in one run (a fault), again in a
        later run after it had been recorded (played twice: a fault), or again after the
        referee was killed while it ran (a restart: the first run died with the referee)."""
        found: dict[str, list[str]] = {"same_run": [], "after_recorded": [], "after_kill": []}
        for match_id, runs in starts.items():
            if len(runs) < 2:
                continue
            incarnations = [run for run, _ in runs]
            if len(set(incarnations)) < len(incarnations):
                found["same_run"].append(match_id)
                continue
            record = recorded.get(match_id)
            earlier_ended = [referee_kills[run] for run, _ in runs[:-1] if run < len(referee_kills)]
            if record is not None and any(record < end for end in earlier_ended):
                found["after_recorded"].append(match_id)
            else:
                found["after_kill"].append(match_id)
        return found


def _answers(store: Store) -> bool:
    """Whether Redis answers now."""
    try:
        return bool(store.client.ping())
    except redis.RedisError:
        return False


def text_report(report: dict[str, Any]) -> str:
    """The report for people."""
    lines = [f"chaos: {report['scheduled']} matches scheduled in {report['tournaments']} round robins, "
             f"{report['tables']} tables written ({report['tables_add_up']} add up), {report['wall_s']}s, "
             f"{report['matches_per_min']} matches/min",
             f"  recorded once {report['recorded_once']}, recorded twice {report['recorded_twice']}, "
             f"recorded incomplete (result without its index entries) {report['recorded_incomplete']}, "
             f"lost {report['lost']}, not played {report['not_played']} {report['not_played_by_reason'] or ''}",
             f"  referee restarts of a match it was killed in: {report['referee_restarted_after_kill']}; "
             f"aborted attempts {report['aborted_attempts']}"]
    for check, found in report["recorded_twice_by_check"].items():
        lines.append(f"  check {check}: {len(found)} {found[:5] if found else ''}")
    for board, figures in report["boards"].items():
        lines.append(f"  board {board}: {figures['rating_updates']} rating updates for {figures['played']} played "
                     f"(applied set {figures['applied_total']}), Elo sum {figures['elo_sum']:+.6f} over "
                     f"{figures['bots']} bots")
    lines.append(f"  kills: {report['kills_by_kind']}; Redis writes lost: {report['redis_lost_writes']}")
    for kind, figures in report["recovery_s"].items():
        measured = (f"median {figures['median']}s, range {figures['min']}-{figures['max']}s" if figures["n"]
                    else "none measured")
        unrecovered = f", unrecovered {figures['unrecovered']}" if figures.get("unrecovered") else ""
        lines.append(f"  recovery {kind}: n={figures['n']} {measured}{unrecovered}")
    for exit_ in report["unexpected_exits"]:
        lines.append(f"  UNEXPECTED EXIT {exit_['service']} status {exit_['status']} at {exit_['at_s']}s "
                     f"(log {exit_['log']})")
    lines.append(f"  logs: {report['logs']}")
    return "\n".join(lines)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=300, help="at least this many matches are scheduled")
    parser.add_argument("--bots", type=int, default=6, help="heuristic bot processes (at least 4)")
    parser.add_argument("--workers", type=int, default=3, help="Celery worker processes")
    parser.add_argument("--concurrency", type=int, default=1, help="pool processes per worker")
    parser.add_argument("--interval", type=float, default=8.0, help="seconds between kills (jittered)")
    parser.add_argument("--down", type=float, default=1.0, help="seconds a killed process stays down")
    parser.add_argument("--max-kills", type=int, default=200, help="kills at most (a seeded schedule)")
    parser.add_argument("--kinds", default="", help="comma-separated kinds to kill in this order, instead of "
                        f"a seeded draw from {','.join(KINDS)}")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--reconnect-grace", type=float, default=10.0,
                        help="the referee's PITCH_RECONNECT_GRACE_S: how long a killed bot's seats wait for it")
    parser.add_argument("--time-limit", type=float, default=1200.0, help="seconds of chaos at most")
    parser.add_argument("--json", action="store_true", help="print the JSON report on stdout")
    args = parser.parse_args(argv)
    if args.bots < 4:
        parser.error("--bots must be at least 4 (partnership seats four)")
    unknown = set(filter(None, args.kinds.split(","))) - set(KINDS)
    if unknown:
        parser.error(f"unknown kinds {sorted(unknown)}; use {','.join(KINDS)}")
    return args


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    """Run the chaos; exit status 1 when an invariant broke (a match recorded twice, incompletely or lost,
    rating updates differing from played matches, an Elo sum off zero)."""
    args = parse(argv)
    signal.signal(signal.SIGTERM, _interrupt)
    log_dir = Path(tempfile.mkdtemp(prefix="pitch-chaos-"))
    print(f"chaos: logs in {log_dir}", file=sys.stderr)
    try:
        with LocalArena(log_dir) as arena:
            chaos = Chaos(arena, args, log_dir)
            schedules = plan_tournaments(chaos.tournaments, list(chaos.bots), args.matches, args.seed)
            print(f"chaos: {sum(len(s.matches) for s in schedules)} matches in {len(schedules)} round robins, "
                  f"{args.bots} bots, {args.workers} workers", file=sys.stderr)
            wall = chaos.run(schedules)
            report = chaos.report(schedules, wall)
            print("chaos: stopping every process", file=sys.stderr)
    except (KeyboardInterrupt, Interrupted):
        print(f"chaos: interrupted; every process stopped; logs in {log_dir}", file=sys.stderr)
        return 130
    print(text_report(report), file=sys.stderr)
    if args.json:
        print(json.dumps(report, indent=2))
    broken = (report["recorded_twice"] or report["recorded_incomplete"] or report["lost"]
              or not report["rating_updates_equal_played"]
              or any(abs(b["elo_sum"]) > 1e-6 for b in report["boards"].values()))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
