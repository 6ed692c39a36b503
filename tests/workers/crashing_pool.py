"""Imported into a Celery worker by a test (``--include``): every pool process exits as it
starts, so the worker stops on "Unrecoverable error: WorkerLostError('Could not start worker
processes')", the fault an outside audit saw end in exit status 0."""

import os

from celery.signals import worker_process_init


@worker_process_init.connect
def _die(**_: object) -> None:
    os._exit(3)
