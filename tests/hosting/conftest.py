"""Each pytest-xdist worker gives its sandboxes a uid range of its own (as bot hosts sharing a
machine must): the process rlimit counts every process of a uid, so sandboxes of two workers
under one uid would share it."""

import os

from hosting.identity import DEFAULT_UID_BASE, SLOTS, UID_BASE_VARIABLE

_worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
# never the default range: the bot hosts that the demo's and the benches' tests start use it
os.environ.setdefault(UID_BASE_VARIABLE, str(DEFAULT_UID_BASE + SLOTS * (1 + int(_worker or 0))))
