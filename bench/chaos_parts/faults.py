"""The faults: a seeded schedule of kinds and times, each fault aimed at one process, and
the restart that ends it.

Kinds (one process each, not its whole group, except where the process is alone in it):

* ``worker`` - SIGKILL of a Celery worker's main process (its pool processes are left
  behind, as after an OOM kill of the main process; the restart kills what is left of the
  group first, as a supervisor would);
* ``pool-child`` - SIGKILL of one prefork pool process of a worker that runs a match (Celery's
  main process replaces it: nothing is restarted);
* ``bot`` / ``kit-bot`` - SIGKILL of an SDK bot / a single-stream Node kit bot;
* ``referee`` - SIGKILL of a referee; ``referee-term`` - SIGTERM (a graceful stop while it
  runs matches: it finishes or aborts them within its shutdown grace), restarted once it exited;
* ``redis`` - SIGKILL of Redis, restarted from its append-only file;
* ``beat`` - SIGKILL of beat (the sweep that re-sends lost matches);
* ``forged-relay`` - no kill: a relay opened on a live referee with the admin token, a
  bot's token and a random one, forging a strike at a bot (:mod:`chaos_parts.forged`);
  every call not refused at once is a ``forged_relay_admitted`` failure.

The schedule: faults ``interval`` apart (jittered by up to a quarter), except that with
probability ``overlap`` a fault fires while the previous one's process is still down
(``down`` after the kill it is started again): overlapping faults.  At least one referee
stays up.  The same seed gives the same kinds, targets and times."""

from __future__ import annotations

import os
import random
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import psutil  # type: ignore[import-untyped]

from chaos_parts.arena import Fleet
from chaos_parts.forged import RefereeUnreachable, forge_relays
from chaos_parts.watch import Snapshot

KINDS = ("worker", "pool-child", "bot", "kit-bot", "referee", "referee-term", "redis", "beat", "forged-relay")
#: Relative frequency of each kind in a seeded schedule.
WEIGHTS = (3, 3, 2, 1, 2, 1, 1, 1, 1)
#: How long a SIGTERMed referee may take to stop before it is SIGKILLed (its shutdown grace plus slack).
TERM_LIMIT_S = 60.0


@dataclass
class Fault:
    """One executed fault and what it hit."""

    kind: str
    target: str
    at: float
    pid: int = 0
    overlapped: bool = False
    """Fired while another fault's process was still down."""
    queued: int = 0
    """Open matches nobody played at the fault (waiting in the broker or for a retry)."""
    in_flight: dict[str, float | None] = field(default_factory=dict)
    """Match key -> seconds from the fault until it had an outcome or was started again
    (``None``: not yet); see :mod:`chaos_parts.watch`."""
    back_in_play: dict[str, float | None] = field(default_factory=dict)
    """Match key -> seconds from the fault until a live process held it again (an outcome, a
    lease other than the one it had at the fault, or a start), whatever its bots' absence
    then made it wait: what the fault itself cost."""
    leases: dict[str, str | None] = field(default_factory=dict)
    """Match key -> its lease holder at the fault."""
    restarted: float | None = None
    stopped: float | None = None
    """``referee-term``: when the SIGTERMed referee had exited."""
    lost_writes: dict[str, int] = field(default_factory=dict)
    admitted: list[str] = field(default_factory=list)
    """``forged-relay``: the forged calls the referee did not refuse."""
    note: str = ""

    def note_leases(self, shot: Snapshot) -> None:
        """Remember each in-flight match's lease at the fault (see :attr:`back_in_play`)."""
        self.leases = {key: shot.leases.get(key) for key in self.in_flight}
        self.back_in_play = dict.fromkeys(self.in_flight)

    def track(self, shot: Snapshot, outcomes: dict[str, float], worker_kind: bool) -> None:
        """Fill in the recovery of this fault's in-flight matches from a poll and the times
        of the outcomes recorded since (see :attr:`in_flight` and :attr:`back_in_play`)."""
        for key, value in self.in_flight.items():
            if value is None:
                if key in outcomes:
                    self.in_flight[key] = max(0.0, outcomes[key] - self.at)
                elif worker_kind and shot.started.get(key, 0.0) > self.at:
                    self.in_flight[key] = shot.started[key] - self.at
            if self.back_in_play.get(key, 0.0) is None:
                lease = shot.leases.get(key)
                if self.in_flight[key] is not None:
                    self.back_in_play[key] = self.in_flight[key]
                elif lease is not None and lease != self.leases.get(key):
                    self.back_in_play[key] = max(0.0, shot.at - self.at)

    def to_dict(self, began: float) -> dict[str, Any]:
        return {"kind": self.kind, "target": self.target, "at_s": round(self.at - began, 2), "pid": self.pid,
                "overlapped": self.overlapped, "queued": self.queued,
                "down_s": None if self.restarted is None else round(self.restarted - self.at, 2),
                "stopped_after_s": None if self.stopped is None else round(self.stopped - self.at, 2),
                "in_flight": {k: None if v is None else round(v, 2) for k, v in sorted(self.in_flight.items())},
                "back_in_play": {k: None if v is None else round(v, 2) for k, v in sorted(self.back_in_play.items())},
                "lost_writes": self.lost_writes, "admitted": self.admitted, "note": self.note}


def schedule(rng: random.Random, kinds: list[str] | None, count: int, interval: float, down: float,
             overlap: float) -> list[tuple[float, str]]:
    """Offsets from the start of the chaos and kinds: ``kinds`` in order, or ``count`` drawn
    with :data:`WEIGHTS`."""
    planned: list[tuple[float, str]] = []
    offset = 0.0
    for number in range(count if kinds is None else len(kinds)):
        kind = rng.choices(KINDS, WEIGHTS)[0] if kinds is None else kinds[number]
        if number and rng.random() < overlap:
            offset += rng.uniform(0.2, 0.8) * down
        else:
            offset += interval * (1 + rng.uniform(-0.25, 0.25))
        planned.append((offset, kind))
    return planned


class Injector:
    """Executes faults against a :class:`~chaos_parts.arena.Fleet` and ends them."""

    def __init__(self, fleet: Fleet, rng: random.Random, down: float, counts: Callable[[], dict[str, int]]) -> None:
        self.fleet, self.rng, self.down_s, self.counts = fleet, rng, down, counts
        self.down: dict[str, Fault] = {}
        """Target -> the fault that has it down now."""

    def candidates(self, kind: str, shot: Snapshot, late: bool = False) -> list[str]:
        """Targets of ``kind`` that are up now, those running or seated in a match if any (a
        pool process only of a worker running one, unless the fault is ``late``: overdue)."""
        fleet = self.fleet
        if kind in ("worker", "pool-child"):
            up = [w for w in fleet.workers if w not in self.down and fleet.pool_children(w)]
            busy = [w for w in up if shot.held_by(w, running_only=True)]
            return busy or ([] if kind == "pool-child" and not late else up)
        if kind in ("bot", "kit-bot"):
            names = fleet.sdk_bots if kind == "bot" else fleet.kit_bots
            up = [b for b in names if b not in self.down]
            return [b for b in up if shot.seats.get(fleet.bot_ids[b])] or up
        if kind in ("referee", "referee-term"):
            up = [r for r in fleet.referees if r not in self.down]
            return ([r for r in up if shot.on_referee(fleet.addresses[r])] or up) if len(up) > 1 else []
        if kind == "forged-relay":
            return [r for r in fleet.referees if r not in self.down]
        return [kind] if kind not in self.down else []

    def inject(self, kind: str, shot: Snapshot, late: bool = False) -> Fault | None:
        """Fire one fault of ``kind`` (``None``: no target is up now; try again later)."""
        targets = self.candidates(kind, shot, late)
        if not targets:
            return None
        target = self.rng.choice(sorted(targets))
        fault = Fault(kind, target, time.time(), overlapped=bool(self.down), queued=shot.queued())
        fleet = self.fleet
        if kind == "worker":
            fault.in_flight = dict.fromkeys(shot.held_by(target))
            fault.pid = fleet.service(target).process.pid
            os.kill(fault.pid, signal.SIGKILL)
        elif kind == "forged-relay":
            bot = self.rng.choice(sorted(fleet.bot_ids))
            credentials = {"the admin token": fleet.admin, "a bot's token": fleet.env[bot]["PITCH_BOT_TOKEN"],
                           "a random token": os.urandom(12).hex()}
            try:
                fault.admitted = forge_relays(fleet.addresses[target], credentials, fleet.bot_ids[bot])
                fault.note = f"forged relays to {bot}: {len(fault.admitted)} of {len(credentials)} admitted"
            except RefereeUnreachable as unreachable:
                fault.note = f"not tried: {unreachable}"
            fault.restarted = fault.at  # nothing went down
            return fault
        elif kind == "pool-child":
            fault.in_flight = dict.fromkeys(shot.held_by(target, running_only=True))
            fault.pid = self.rng.choice(sorted(fleet.pool_children(target)))
            if not fault.in_flight:
                fault.note = "no worker ran a match when it was due: an idle pool process"
            elif len(fleet.pool_children(target)) > 1:
                fault.note = "several pool processes: in flight = every match its worker runs"
            try:
                psutil.Process(fault.pid).kill()
            except psutil.NoSuchProcess:
                fault.note = "the pool process had just exited"
            fault.restarted = fault.at  # Celery's main process replaces it
            return fault
        elif kind in ("bot", "kit-bot"):
            fault.in_flight = dict.fromkeys(shot.seats.get(fleet.bot_ids[target], set()))
            fault.pid = fleet.service(target).process.pid
            fleet.service(target).kill()
        elif kind in ("referee", "referee-term"):
            fault.in_flight = dict.fromkeys(shot.on_referee(fleet.addresses[target]))
            service = fleet.service(target)
            fault.pid = service.process.pid
            if kind == "referee":
                service.kill()
                fleet.lives.died(target, fault.at)
            else:
                service.process.send_signal(signal.SIGTERM)
        elif kind == "redis":
            fault.in_flight = dict.fromkeys(shot.running())
            fault.lost_writes = self.counts()  # replaced by what the restart lost
            redis = fleet.arena.redis
            fault.pid = redis.process.pid if redis is not None else 0
            fleet.arena.kill_redis()
            fleet.lives.died("redis", fault.at)
        else:
            fault.pid = fleet.service(target).process.pid
            fleet.service(target).kill()
        self.down[target] = fault
        return fault

    def restore_due(self, now: float, force: bool = False) -> list[Fault]:
        """Start again what has been down for ``down`` seconds (everything, with ``force``);
        a SIGTERMed referee once it exited (SIGKILLed after :data:`TERM_LIMIT_S`)."""
        restored = []
        for target, fault in list(self.down.items()):
            if fault.kind == "referee-term":
                process = self.fleet.service(target).process
                if process.poll() is None and not force and now < fault.at + TERM_LIMIT_S:
                    continue
                if process.poll() is None:
                    fault.note = f"still running {now - fault.at:.0f}s after SIGTERM: SIGKILLed"
                    self.fleet.service(target).kill()
                fault.stopped = fault.stopped or time.time()
                self.fleet.lives.died(target, fault.stopped)
            if not force and now < fault.at + self.down_s:
                continue
            if fault.kind == "redis":
                self.fleet.restart_redis()
                after = self.counts()
                fault.lost_writes = {k: max(0, v - after.get(k, 0)) for k, v in fault.lost_writes.items()}
            else:
                self.fleet.restart(target)
            fault.restarted = time.time()
            del self.down[target]
            restored.append(fault)
        return restored

    def note_exits(self) -> None:
        """When a SIGTERMed referee exited (its stop time, for the overlap check)."""
        for target, fault in self.down.items():
            if fault.kind == "referee-term" and fault.stopped is None \
                    and self.fleet.service(target).process.poll() is not None:
                fault.stopped = time.time()
                self.fleet.lives.died(target, fault.stopped)
