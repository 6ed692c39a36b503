"""Chaos benchmark: a referee fleet, its bots, workers, beat and Redis under overlapping faults.

Every part is real, as its own process, on loopback (:mod:`chaos_parts.arena`): a private
``redis-server`` with append-only persistence, ``--referees`` referees (one fleet),
``--bots`` SDK bots (a stream to every referee) and ``--single-stream-bots`` Node kit bots (one
stream each, to one referee: their seats on the other referees are relayed), ``--workers``
Celery workers and beat, all with the services' default settings (lease 15 s, sweep 10 s,
visibility 2400 s, fleet TTL 10 s) unless ``--fast-recovery`` shortens them (the short test).

Round robins (cutthroat, and partnership to 11 points, each of a seeded six of the bots) are
launched until ``--matches`` are scheduled; with ``--queued N`` they are launched as the queue
drains so that N matches wait while the faults happen (the recovery target is measured that
way: a match sent again goes to the back of the queue).  Faults start at the first recorded
match: ``--faults`` of them, ``--interval`` apart, some overlapping (``--overlap``: fired while
the previous one's process is still down), kinds drawn from a seeded schedule or fixed by
``--kinds`` (see :mod:`chaos_parts.faults`: worker main process, pool process, SDK bot, kit bot,
referee SIGKILL, referee SIGTERM, Redis, beat, and a relay forged with a credential that is
not a referee's).  The run ends when every tournament has its
table (and, with ``--kinds``, every fault happened), or at ``--time-limit``; every process it
started is stopped on the way out (Ctrl-C and SIGTERM included); the logs stay in the
printed directory.

Recovery, per kind: for each match in flight at a fault (held by the killed worker or run by
its pool process, running on the killed referee, seating the killed bot, every running match
for Redis), the time from the fault until the match has an outcome or is started again by a
live process (a worker's new attempt for worker kinds; a referee's log line for every kind);
count, median, p95, max.  Target: p95 under 60 s for every kind of kill at the
defaults with 500 matches queued.  The checks after the run are :mod:`chaos_parts.checks`'s.

With ``--practice-flood`` one bot token of its own floods a referee with practice requests
all along (:mod:`chaos_parts.flood`): the tournaments' matches must still be played, and no
more practice matches may run at once than the referee's bound (``practice_over_bound``).

Run: ``.venv/bin/python bench/chaos.py [--matches 300] [--queued 0] [--faults 30]
[--interval 8] [--referees 3] [--bots 6] [--single-stream-bots 2] [--workers 3] [--seed 1]
[--kinds worker,redis,...] [--fast-recovery] [--practice-flood] [--time-limit 3600] [--json]``.  A text report
goes to stderr, the JSON report (``--json``) to stdout; exit status 1 when a check failed.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

import grpc
import redis
from chaos_parts import checks, faults, flood, logs
from chaos_parts.arena import Fleet
from chaos_parts.faults import KINDS, Fault, Injector
from chaos_parts.watch import Snapshot, Watch

from cli.local_arena import LocalArena, wait_for
from competitions.queue import make_app
from competitions.tournaments import control as tournament
from competitions.tournaments.schedule import Schedule
from competitions.tournaments.store import TournamentStore

#: The round robins launched in turn (partnership to 11: about as short as a cutthroat match).
PLANS: tuple[tuple[str, dict[str, Any]], ...] = (("cutthroat", {}), ("partnership", {"target": 11}))
#: Entrants of each round robin (a seeded choice among the bots, a kit bot among them if any):
#: 60 or 90 matches each, so ``--matches`` is met closely.
ENTRANTS = 6
POLL_S = 0.3
#: How long a worker may stay up after Celery logged "Unrecoverable error" before it counts as wedged.
WEDGED_AFTER_S = 5.0
#: Kinds whose in-flight matches count as recovered when a worker starts them again.
WORKER_KINDS = ("worker", "pool-child")


class Interrupted(Exception):
    """SIGTERM, turned into an exception so the arena is stopped on the way out."""


def spread(values: list[float]) -> dict[str, float | int | None]:
    """Count, median, p95 (nearest rank) and max."""
    if not values:
        return {"n": 0, "median": None, "p95": None, "max": None}
    ordered = sorted(values)
    return {"n": len(values), "median": round(statistics.median(ordered), 2),
            "p95": round(ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)], 2), "max": round(ordered[-1], 2)}


class Chaos:
    """The running fleet, its tournaments and faults, and the measurements taken meanwhile."""

    def __init__(self, arena: LocalArena, args: argparse.Namespace, log_dir: Path) -> None:
        self.args, self.log_dir = args, log_dir
        self.rng = random.Random(args.seed)
        self.fleet = Fleet(arena, log_dir, referees=args.referees, bots=args.bots,
                           kit_bots=args.single_stream_bots, workers=args.workers, concurrency=args.concurrency,
                           fast=args.fast_recovery, seed=args.seed, practice_flood=args.practice_flood)
        self.store = self.fleet.store
        self.tournaments = TournamentStore(self.store)
        self.watch = Watch(self.store, self.fleet.config.fleet_ttl_s, self.fleet.bot_ids)
        self.injector = Injector(self.fleet, self.rng, args.down, self.counts)
        self.app = make_app(self.fleet.config)
        self.faults: list[Fault] = []
        self.exits: list[dict[str, Any]] = []
        self.unrecoverable: dict[int, float] = {}
        self.began = 0.0
        self.planned_left = 0

    # ----------------------------------------------------------------- tournaments
    @property
    def schedules(self) -> list[Schedule]:
        return self.watch.schedules

    def scheduled(self) -> int:
        return sum(len(s.matches) for s in self.schedules)

    def launch_next(self) -> None:
        """Create and launch the next round robin."""
        number = len(self.schedules)
        preset, options = PLANS[number % len(PLANS)]
        bots = sorted(self.fleet.bot_ids.values())
        kits = sorted(self.fleet.bot_ids[n] for n in self.fleet.kit_bots)
        entrants = bots if len(bots) <= ENTRANTS else self.rng.sample(bots, ENTRANTS)
        if kits and not set(kits) & set(entrants):
            entrants[0] = self.rng.choice(kits)
        schedule = tournament.create(self.tournaments, preset, entrants, games=self.args.games,
                                     seed=self.args.seed + number, options=options,
                                     tournament_id=f"chaos{number + 1}-{preset}")
        self.watch.add(schedule)
        tournament.launch(self.app, self.tournaments, schedule.tournament_id)

    def top_up(self, shot: Snapshot | None) -> None:
        """Launch round robins until ``--matches`` are scheduled, keeping ``--queued`` waiting."""
        while self.scheduled() < self.args.matches and (
                not self.args.queued or (shot.queued() if shot else self.scheduled()) < self.args.queued
                or not self.schedules):
            self.launch_next()
            shot = None if shot is None else Snapshot(open=shot.open | {
                f"{self.schedules[-1].tournament_id}:{m.index}" for m in self.schedules[-1].matches})

    # ----------------------------------------------------------------- upkeep
    def counts(self) -> dict[str, int]:
        """Records a Redis restart could lose: results in the index, outcomes, rating updates."""
        client, key = self.store.client, self.store._key
        pipe = client.pipeline(transaction=False)
        pipe.zcard(key("matches"))
        for schedule in self.schedules:
            pipe.hlen(key("tournament", schedule.tournament_id, "outcomes"))
        for preset, _ in PLANS:
            pipe.scard(key("elo", preset, "applied"))
        found = [int(n) for n in pipe.execute()]
        return {"match_records": found[0], "outcomes": sum(found[1:1 + len(self.schedules)]),
                "rating_updates": sum(found[1 + len(self.schedules):])}

    def wedged(self, name: str) -> bool:
        """A worker whose log says "Unrecoverable error" and that still runs :data:`WEDGED_AFTER_S`
        later: Celery stopped consuming but did not exit, so it only holds its matches."""
        service = self.fleet.service(name)
        if name not in self.fleet.workers or "Unrecoverable error" not in service.log_path.read_text(errors="replace"):
            return False
        first = self.unrecoverable.setdefault(service.process.pid, time.time())
        return time.time() - first > WEDGED_AFTER_S

    def restart_exited(self) -> None:
        """A process that exited without a fault, or a wedged worker, is a finding: note it and
        start it again (what a supervisor with a liveness check would do)."""
        for name in self.fleet.names():
            if name in self.injector.down:
                continue
            code = self.fleet.service(name).process.poll()
            if code is None and not self.wedged(name):
                continue
            status = code if code is not None else f"wedged: alive {WEDGED_AFTER_S:.0f}s after 'Unrecoverable error'"
            self.exits.append({"service": name, "status": status, "at_s": round(time.time() - self.began, 2),
                               "redis_down": "redis" in self.injector.down,
                               "log_tail": self.fleet.service(name).tail(8)})
            self.fleet.restart(name)
            self.exits[-1]["log"] = str(logs.incarnations(self.log_dir, name)[-2])

    def track(self, shot: Snapshot) -> None:
        """Fill in the recovery of the in-flight matches of every fault so far."""
        pending = {key for fault in self.faults for key, value in fault.in_flight.items() if value is None}
        times = self.watch.outcome_times(sorted(key for key in pending if key not in shot.open))
        for fault in self.faults:
            fault.track(shot, times, fault.kind in WORKER_KINDS)

    # ----------------------------------------------------------------- the run
    def run(self) -> float:
        """Launch, inject the faults and restart what they stopped until every table is written
        (and every ``--kinds`` fault happened) or the time limit; the wall time."""
        self.began = time.time()
        self.top_up(None)
        wait_for(lambda: self.store.client.zcard(self.store._key("matches")) > 0, 180, "the first recorded match",
                 self.fleet.arena.services)
        chaos_began = time.time()
        kinds = self.args.kinds.split(",") if self.args.kinds else None
        planned = faults.schedule(random.Random(self.args.seed), kinds, self.args.faults, self.args.interval,
                                  self.args.down, self.args.overlap)  # its own generator: the same for any fleet
        deadline = self.began + self.args.time_limit
        while time.time() < deadline:
            now = time.time()
            finished = False
            try:
                shot = self.watch.poll()
                fresh = True
            except redis.RedisError:
                shot, fresh = self.watch.last, False
            try:
                self.injector.note_exits()
                for fault in self.injector.restore_due(now):
                    print(f"[{time.time() - self.began:7.1f}s] restarted {fault.target}", file=sys.stderr)
                while planned and now >= chaos_began + planned[0][0]:
                    late = now > chaos_began + planned[0][0] + self.args.interval
                    fired = self.injector.inject(planned[0][1], shot, late)
                    if fired is None:
                        break
                    planned.pop(0)
                    fired.note_leases(shot)
                    self.faults.append(fired)
                    print(f"[{now - self.began:7.1f}s] {fired.kind} {fired.target} pid {fired.pid}: "
                          f"{len(fired.in_flight)} in flight, {fired.queued} queued"
                          f"{' (overlapping)' if fired.overlapped else ''}", file=sys.stderr)
                self.restart_exited()
                if fresh:
                    self.track(shot)
                    self.top_up(shot)
                    finished = (not self.injector.down and not (kinds and planned)
                                and self.scheduled() >= self.args.matches and not shot.open)
            except (redis.RedisError, grpc.RpcError):  # Redis went down meanwhile: that is the point
                finished = False
            if finished:
                break
            time.sleep(POLL_S)
        self.injector.restore_due(time.time(), force=True)  # the time limit came first: nothing left down
        wall = time.time() - self.began
        wait_for(lambda: _answers(self.store.client), 60, "Redis", [])
        self.track(self.watch.poll())
        self.planned_left = len(planned)
        return wall

    # ----------------------------------------------------------------- the report
    def report(self, wall: float) -> dict[str, Any]:
        """Every figure of the run, from Redis and the logs."""
        fleet = self.fleet
        runs = logs.read_referee_runs(self.log_dir, fleet.referees, fleet.lives.ends())
        self.finish_recovery(runs)
        outcome = checks.outcome_checks(self.store, self.tournaments, self.schedules)
        found: dict[str, list[str]] = outcome["found"]
        boards = checks.rating_checks(self.store, fleet.config, outcome["played"], fleet.bot_ids, found)
        match_ids = [m.match_id for s in self.schedules for m in s.matches]
        checks.run_checks(runs, self.store, match_ids, found)
        flooded = None
        if fleet.flood:  # every incarnation of the flood process is checked; the last one reported
            for path in logs.incarnations(self.log_dir, fleet.flood):
                flooded = flood.summary(path)
                found["practice_over_bound"] += flood.over_bound(flooded)
        capacity = self.watch.capacity
        names = {bot: name for name, bot in fleet.bot_ids.items()}
        found["forged_relay_admitted"] = [admitted for fault in self.faults for admitted in fault.admitted]
        found["over_capacity"] = [f"{names.get(o['bot'], o['bot'])}: {o['seats']} seats > {o['capacity']} at "
                                  f"{o['at'] - self.began:.1f}s {o['ledger']}" for o in capacity.over]
        recovery: dict[str, Any] = {}
        for kind in KINDS:
            mine = [f for f in self.faults if f.kind == kind]
            values = [v for f in mine for v in f.in_flight.values() if v is not None]
            back = [v for f in mine for v in f.back_in_play.values() if v is not None]
            recovery[kind] = {"faults": len(mine), "overlapped": sum(f.overlapped for f in mine),
                              "in_flight": sum(len(f.in_flight) for f in mine),
                              "unrecovered": sum(v is None for f in mine for v in f.in_flight.values()),
                              "queued_median": statistics.median([f.queued for f in mine]) if mine else None,
                              **spread(values),
                              "back_in_play": spread(back)}
        lost_writes: Counter[str] = Counter()
        for fault in self.faults:
            lost_writes.update(fault.lost_writes if fault.kind == "redis" else {})
        played = outcome["played"]
        unrated = checks.fallback_check(self.store, list(played), found)
        failures = {name: found.get(name, []) for name in checks.FAILURES}
        return {
            "scheduled": self.scheduled(), "tournaments": len(self.schedules), "tables": outcome["tables"],
            "played": len(played), "not_played": sum(v["count"] for v in outcome["not_played"].values()),
            "not_played_by_reason": outcome["not_played"], "lost": len(found.get("lost", [])),
            "checks": {name: {"count": len(items), "examples": items[:5]} for name, items in failures.items()},
            "checks_pass": not any(failures.values()),
            "boards": boards,
            "rating_updates_equal_played": all(b["rating_updates"] == b["played"] == b["applied_total"]
                                               for b in boards.values()),
            "relayed_starts": logs.relayed_starts(runs, fleet.homes),
            "referee_starts": sum(len(v) for run in runs for v in run.starts.values()),
            "replayed_results": outcome["replayed"],
            "unrated": unrated,
            "unrecoverable_logs": logs.unrecoverable(self.log_dir, fleet.workers),
            "capacity": {"samples": capacity.samples, "declared": {names[b]: c for b, c in capacity.declared.items()},
                         "peak": {names[b]: p for b, p in capacity.peak.items()}},
            "recovery_s": recovery, "redis_lost_writes": dict(lost_writes),
            "faults": [f.to_dict(self.began) for f in self.faults], "faults_not_fired": self.planned_left,
            "unexpected_exits": self.exits, "practice_flood": flooded,
            "wall_s": round(wall, 1), "matches_per_min": round(len(played) / wall * 60, 1),
            "settings": {"referees": self.args.referees, "bots": self.args.bots,
                         "single_stream_bots": self.args.single_stream_bots, "workers": self.args.workers,
                         "concurrency": self.args.concurrency, "games": self.args.games, "queued": self.args.queued,
                         "interval_s": self.args.interval, "down_s": self.args.down, "overlap": self.args.overlap,
                         "seed": self.args.seed, "fast_recovery": self.args.fast_recovery, **fleet.settings()},
            "logs": str(self.log_dir),
        }

    def finish_recovery(self, runs: list[logs.RefereeRun]) -> None:
        """A match restarted by a referee after a fault (its log line) recovered then, if that
        is earlier than what the polls saw."""
        for fault in self.faults:
            for key in fault.in_flight:
                match_id = self.watch.match_ids[key]
                restarts = [t for run in runs for t in run.starts.get(match_id, []) if t > fault.at]
                if restarts:
                    first = min(restarts) - fault.at
                    for measure in (fault.in_flight, fault.back_in_play):
                        seen = measure.get(key)
                        measure[key] = first if seen is None else min(seen, first)


def _answers(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False


def text_report(report: dict[str, Any]) -> str:
    """The report for people: the recovery table, then the checks."""
    lines = [f"chaos: {report['scheduled']} matches in {report['tournaments']} round robins, {report['played']} "
             f"played, {report['not_played']} not played {report['not_played_by_reason'] or ''}, lost "
             f"{report['lost']}; {report['wall_s']}s, {report['matches_per_min']} matches/min",
             f"  {'kind':13} {'faults':>6} {'overlap':>7} {'queued':>6} {'in flight':>9} {'unrec':>5} "
             f"{'median s':>8} {'p95 s':>7} {'max s':>7} {'back p50':>8} {'back p95':>8}"]
    for kind, row in report["recovery_s"].items():
        if row["faults"]:
            back = row["back_in_play"]
            lines.append(f"  {kind:13} {row['faults']:>6} {row['overlapped']:>7} {row['queued_median']!s:>6} "
                         f"{row['in_flight']:>9} {row['unrecovered']:>5} {row['median']!s:>8} {row['p95']!s:>7} "
                         f"{row['max']!s:>7} {back['median']!s:>8} {back['p95']!s:>8}")
    for name, found in report["checks"].items():
        lines.append(f"  check {name}: {found['count']}{' ' + str(found['examples']) if found['count'] else ''}")
    for board, figures in report["boards"].items():
        lines.append(f"  board {board}: {figures['rating_updates']} rating updates for {figures['played']} played "
                     f"(applied set {figures['applied_total']}), Elo sum {figures['elo_sum']:+.6f}")
    unrated = report["unrated"]
    lines.append(f"  played matches kept off the ratings (a fallback-heavy seat): {unrated['count']} "
                 f"{unrated['examples'][:3] or ''}")
    lines.append(f"  referee starts {report['referee_starts']}, of which with a relayed seat "
                 f"{report['relayed_starts']}; stored results replayed {report['replayed_results']}")
    lines.append(f"  worker logs with 'Unrecoverable error': {len(report['unrecoverable_logs'])}; Redis writes lost: "
                 f"{report['redis_lost_writes']}; capacity peaks {report['capacity']['peak']}")
    for exit_ in report["unexpected_exits"]:
        lines.append(f"  UNEXPECTED EXIT {exit_['service']} status {exit_['status']} at {exit_['at_s']}s "
                     f"(log {exit_.get('log')})")
    if report["practice_flood"] is not None:
        lines.append(f"  practice flood: {report['practice_flood']}")
    lines.append(f"  logs: {report['logs']}")
    return "\n".join(lines)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=300, help="at least this many matches are scheduled")
    parser.add_argument("--queued", type=int, default=0,
                        help="keep this many matches waiting while faults happen (0: launch everything at once)")
    parser.add_argument("--games", type=int, default=4,
                        help="games per match (longer matches: more of them in flight at each fault)")
    parser.add_argument("--faults", type=int, default=30, help="faults in a seeded schedule")
    parser.add_argument("--interval", type=float, default=8.0, help="seconds between faults (jittered)")
    parser.add_argument("--down", type=float, default=3.0, help="seconds a killed process stays down")
    parser.add_argument("--overlap", type=float, default=0.3,
                        help="share of faults fired while the previous one's process is still down")
    parser.add_argument("--kinds", default="", help="comma-separated kinds in this order, instead of a seeded "
                        f"draw from {','.join(KINDS)}; the run lasts until each has happened")
    parser.add_argument("--referees", type=int, default=3)
    parser.add_argument("--bots", type=int, default=6, help="SDK heuristic bots (a stream to every referee)")
    parser.add_argument("--single-stream-bots", type=int, default=2, help="Node kit bots (one stream each)")
    parser.add_argument("--workers", type=int, default=3, help="Celery worker processes")
    parser.add_argument("--concurrency", type=int, default=1, help="pool processes per worker")
    parser.add_argument("--fast-recovery", action="store_true",
                        help="short lease, sweep, visibility, fleet TTL and graces (the short test), not the defaults")
    parser.add_argument("--practice-flood", action="store_true",
                        help="a bot of its own floods the first referee with practice requests during the run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=3600.0, help="seconds of run at most")
    parser.add_argument("--json", action="store_true", help="print the JSON report on stdout")
    args = parser.parse_args(argv)
    if args.bots + args.single_stream_bots < 4:
        parser.error("at least 4 bots in all (partnership seats four)")
    if args.referees < 1 or args.workers < 1:
        parser.error("at least one referee and one worker")
    unknown = set(filter(None, args.kinds.split(","))) - set(KINDS)
    if unknown:
        parser.error(f"unknown kinds {sorted(unknown)}; use {','.join(KINDS)}")
    return args


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    """Run the chaos; exit status 1 when a check failed (see :mod:`chaos_parts.checks`), a
    board's rating updates differ from its played matches or its Elo sum is off zero."""
    args = parse(argv)
    signal.signal(signal.SIGTERM, _interrupt)
    log_dir = Path(tempfile.mkdtemp(prefix="pitch-chaos-"))
    print(f"chaos: logs in {log_dir}", file=sys.stderr)
    try:
        with LocalArena(log_dir) as arena:
            chaos = Chaos(arena, args, log_dir)
            print(f"chaos: {args.referees} referees, {args.bots} SDK bots, {args.single_stream_bots} single-stream "
                  f"bots, {args.workers} workers up", file=sys.stderr)
            wall = chaos.run()
            report = chaos.report(wall)
            print("chaos: stopping every process", file=sys.stderr)
    except (KeyboardInterrupt, Interrupted):
        print(f"chaos: interrupted; every process stopped; logs in {log_dir}", file=sys.stderr)
        return 130
    print(text_report(report), file=sys.stderr)
    if args.json:
        print(json.dumps(report, indent=2))
    broken = (not report["checks_pass"] or (args.kinds and report["faults_not_fired"])
              or not report["rating_updates_equal_played"]
              or any(abs(b["elo_sum"]) > 1e-6 for b in report["boards"].values()))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
