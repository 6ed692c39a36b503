"""Which open matches lost their task, for the sweep that sends them again (round robins and
SPRT runs alike: both keep their matches in a :class:`TournamentStore`).

A match is in one of four places while it has no outcome: queued in the broker, taken by a
worker that is about to start it, playing (its worker holds a lease and renews it), or
nowhere live.  The last is a lost match, however it got there: a worker killed between the
broker's ``BRPOP`` and its unacked record (the message is gone), a worker killed after it
took the message and before it started the match (the message sits in the unacked set until
the visibility timeout, 40 minutes), or a worker killed while playing (its lease lapses).  A
taken message counts as "about to start" for ``start_grace_s`` after it was taken: a task
takes its lease in its first milliseconds, so a message taken longer ago whose match has no
lease has no live worker behind it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from celery import Celery

from competitions.broker import HeldTasks, held_tasks
from competitions.tournaments.store import TournamentStore


def held_twice(app: Celery, task_name: str, confirm_after_s: float) -> HeldTasks:
    """The ``task_name`` messages the broker holds, looked at twice ``confirm_after_s``
    apart: a message in a worker's hand between the queue and the unacked set is seen by
    one look or the other."""
    held = held_tasks(app, task_name)
    time.sleep(confirm_after_s)
    return held.merge(held_tasks(app, task_name))


def lost_matches(runs: TournamentStore, run_id: str, open_matches: Sequence[int], held: HeldTasks, *,
                 start_grace_s: float, now: float | None = None) -> list[int]:
    """Which of ``open_matches`` (no outcome, and due) have no live task: no lease, not
    queued, and not taken within the last ``start_grace_s`` seconds."""
    if not open_matches:
        return []
    leased = runs.leased(run_id, list(open_matches))
    taken_after = (time.time() if now is None else now) - start_grace_s
    lost = []
    for index in open_matches:
        args: tuple[Any, ...] = (run_id, index)
        if index in leased or args in held.queued or held.taken.get(args, 0.0) > taken_after:
            continue
        lost.append(index)
    return lost
