"""A seat's answer to a decision request, whatever the bot's code did.

The referee must hear from the seat at once in every case: the action the bot chose; what
it returned instead of an action (``None``, say), sent as the action's text so the
referee strikes it as malformed, naming it; or the exception it raised, sent as a
``bot_error`` so the referee strikes it at once instead of waiting out the time per
decision and the whole bank.  Nothing the bot does may escape as an exception of the
SDK's own (it used to end the decision's task with "Task exception was never retrieved"
and leave the seat to time out).
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable, Sequence
from typing import NamedTuple

from pitch_sdk.bot import Bot
from pitch_sdk.clock import Clock
from pitch_sdk.proto.pitch.v1 import bot_pb2
from pitch_sdk.proto.pitch.v1 import game_pb2 as pb
from pitch_sdk.protocol import wire
from pitch_sdk.rules import Action, Observation

log = logging.getLogger("pitch.bot")

#: How much of an exception's message, or of a returned non-action, is sent.
MAX_ERROR_CHARS = 120
#: How much of an exception's type name is sent.
MAX_TYPE_CHARS = 64


def where(exc: BaseException) -> str:
    """The file and line where ``exc`` was raised, for one-line reports."""
    frames = traceback.extract_tb(exc.__traceback__)
    return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else "unknown location"


class Took(NamedTuple):
    """How long the bot's own code took over a decision."""

    seconds: float
    """Wall-clock time (in a worker thread, waits for the GIL included)."""
    cpu_seconds: float
    """CPU time of the thread that ran it, or, for a decision shorter in all than
    :func:`decide`'s ``read_cpu_from``, the wall-clock time, which bounds it."""


def decide(bot: Bot, request: bot_pb2.DecisionRequest, observation: Observation, legal: Sequence[Action],
           clock: Clock, read_cpu_from: float = 0.0) -> tuple[bot_pb2.BotMessage, Took]:
    """Ask ``bot`` (with ``clock`` as its ``bot.clock``) and build the message answering
    ``request``; also returns how long the bot's own code took.

    The thread's CPU time at the end is read only when the decision took ``read_cpu_from``
    seconds or more in all: reading it is a system call (about 3 microseconds here, more
    than a quick bot's whole answer), and a caller that only asks whether the CPU time was
    under that much has its answer already."""
    message = bot_pb2.BotMessage()
    answer = message.decision  # filled in place: no copy into the message afterwards
    answer.match_id = request.match_id
    answer.decision_id = request.decision_id
    bot.clock = clock
    started, started_cpu = time.perf_counter(), time.thread_time()
    try:
        action: object = bot.act(observation, legal)
    except Exception as exc:  # the bot's bug: reported to the referee, never raised here
        log.warning("match %s seat %d: the bot raised %s: %s (%s)", request.match_id, request.seat,
                    type(exc).__name__, exc, where(exc))
        answer.bot_error.CopyFrom(bot_pb2.BotError(type=type(exc).__name__[:MAX_TYPE_CHARS],
                                                   message=str(exc)[:MAX_ERROR_CHARS]))
        return message, _took(started, started_cpu, read_cpu_from)
    took = _took(started, started_cpu, read_cpu_from)
    if isinstance(action, Action):
        listed = request.legal_actions
        index = _index_of(action, legal) if listed else None
        if index is None:  # a card set from the rule alone (the request lists none)
            answer.action.CopyFrom(wire.action_to_pb(action))
        else:  # the index: a smaller answer, and nothing for either side to parse
            answer.legal_action_index = index
    else:
        log.warning("match %s seat %d: the bot returned %.200r, not an action", request.match_id, request.seat,
                    action)
        answer.action.CopyFrom(pb.Action(text=repr(action)[:MAX_ERROR_CHARS]))
    return message, took


def _took(started: float, started_cpu: float, read_cpu_from: float) -> Took:
    """How long since ``started`` (``time.perf_counter``) and ``started_cpu``
    (``time.thread_time``), the CPU time read as :func:`decide` says."""
    seconds = time.perf_counter() - started
    return Took(seconds, seconds if seconds < read_cpu_from else time.thread_time() - started_cpu)


def _index_of(action: Action, legal: Sequence[Action]) -> int | None:
    """Where ``action`` is among ``legal`` (the request's list, in its order), if it is."""
    for index, candidate in enumerate(legal):
        if candidate is action or candidate == action:
            return index
    return None


def call_hook(hook: Callable[..., object], *args: object) -> None:
    """Call one of the bot's hooks (``start_game``, ``on_hand_result``, ``on_game_end``):
    an exception is logged, never raised, since it would end the stream for every seat
    of the process (the bot's next decision is asked as usual)."""
    try:
        hook(*args)
    except Exception as exc:  # the bot's bug, with no answer to carry it: the author's log says it
        log.warning("the bot's %s raised %s: %s (%s)", getattr(hook, "__name__", "hook"), type(exc).__name__, exc,
                    where(exc))
