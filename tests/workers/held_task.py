"""Imported into a Celery worker by a test (``--include``): a task that holds its message
(late acknowledgement) for as long as the test says, and notes each run in a file."""

import time
from pathlib import Path

from workers.app import app


@app.task(name="pitch.test.hold")
def hold(log_path: str, seconds: float) -> str:
    """Note the start, sleep ``seconds``, note the end: a delivery that runs twice shows as two starts."""
    with Path(log_path).open("a") as log:
        log.write("start\n")
    time.sleep(seconds)
    with Path(log_path).open("a") as log:
        log.write("done\n")
    return "held"
