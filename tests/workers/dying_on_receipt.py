"""Imported into a Celery worker by a test (``--include``): the worker's whole process group
is SIGKILLed the moment its main process receives its first match task, after the broker
recorded the message as taken and before any pool process could start the match: the
window in which an audit saw a match wait for the 40-minute visibility timeout."""

import os
import signal

from celery.signals import task_received


@task_received.connect
def _die(request: object, **_: object) -> None:
    if getattr(request, "name", "") == "pitch.play_match":
        os.killpg(os.getpgid(0), signal.SIGKILL)
