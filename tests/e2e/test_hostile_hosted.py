"""Hostile submissions on a real bot host, beside a referee that keeps playing other matches.

Each hostile package is submitted as a hosted version of its own bot, all at once, to one
``pitch-arena bot-host`` with the default sandbox limits; matches between remote bots are
played before the attack (the baseline) and while it runs.  Each hostile version ends with
the reason its owner reads, nothing of the host leaks into its log, and the other matches'
time per decision stays within a bound of the baseline's."""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from pitch_sdk.proto.pitch.v1 import arena_pb2, bot_pb2
from store.hosted import MAX_LOG_BYTES
from tests.hosting.hosts import Arena, hosts_beside
from tests.hosting.probes import READ_OR_ERROR
from tests.workers.celery_harness import ArenaThread, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("hostile-host")]  # one attack, on one worker

HELLO_S = 4
SECRET = "pitch-hostile-secret-51d7"
"""In the bot host's environment: no sandbox may read it."""

HOSTILE = {
    "fork_bomb": "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
    "balloon": "held = []\nwhile True:\n    held.append(b'x' * (1 << 20))\n",
    "spin_at_import": "while True:\n    pass\n",
    "fill_disk": """
import errno, sys
try:
    with open("/tmp/fill", "wb") as file:
        while True:
            file.write(b"x" * (1 << 20))
            file.flush()
except OSError as error:
    print("disk full:", errno.errorcode[error.errno], file=sys.stderr, flush=True)
raise SystemExit(4)
""",
    "sockets": """
import errno, json, socket, sys
found = {{}}
for name, address in {targets!r}.items():
    unix = isinstance(address, str)
    sock = socket.socket(socket.AF_UNIX if unix else socket.AF_INET)
    sock.settimeout(2)
    try:
        sock.connect(address if unix else tuple(address))
        found[name] = "connected"
    except OSError as error:
        found[name] = errno.errorcode.get(error.errno, str(error))
print("sockets:", json.dumps(found), file=sys.stderr, flush=True)
raise SystemExit(5)
""",
    "snoop": READ_OR_ERROR + """
import json, os, sys
pids = sorted(int(name) for name in os.listdir("/proc") if name.isdigit())
print("snoop:", json.dumps({{"environ": dict(os.environ), "pids": pids,
                             "environs": [read(f"/proc/{{pid}}/environ") for pid in pids],
                             "artifacts": read({artifacts!r}), "package": read({package!r})}}),
      file=sys.stderr, flush=True)
raise SystemExit(6)
""",
    "flood": "import sys\nwhile True:\n    sys.stdout.write('y' * 65536)\n",
    "spin_in_a_decision": """
from pitch_sdk.bots.random_bot import RandomBot

class Bot(RandomBot):
    def act(self, observation, legal_actions):
        while True:
            pass
""",
}
"""Each program as the ``bot.py`` of a package (module code runs when the bot is loaded)."""
RAW = {name: lambda bot_id: [sys.executable, "bot.py"] for name in ("fork_bomb", "balloon")}
"""Run by a ``command`` manifest, at once: loading the SDK first under a 0.5-core quota on a
loaded machine can outlast the hello deadline, and the bot is then killed for that first."""


@dataclass
class Attack:
    world: Arena
    bots: dict[str, str]
    """The hostile bots' ids by name."""
    baseline_ms: list[float]
    attack_ms: list[float]
    decision_match: arena_pb2.RunMatchResponse
    """A match seating the bot that spins inside its decisions."""


def per_decision_ms(world: Arena, seats: list[str], seed: int) -> float:
    """Play one game of cutthroat between remote bots: the wall time per decision."""
    started = time.monotonic()
    played: arena_pb2.RunMatchResponse = world.referee.call(world.referee.arena.run_match(
        "cutthroat", seats, seed=seed, games=1), timeout=120)
    assert played.result.completed
    return (time.monotonic() - started) * 1000 / sum(seat.decisions for seat in played.result.seats)


@pytest.fixture(scope="module")
def attack(arena: ArenaThread, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Attack]:
    tmp = tmp_path_factory.mktemp("hostile")
    remote = [arena.connect("heuristic") for _ in range(3)]
    with hosts_beside(arena, redis_url, tmp, ("host-hostile",), PITCH_HOST_SLOTS="12",
                      PITCH_HOSTED_HELLO_S=str(HELLO_S), PITCH_HOSTED_BACKOFF_S="1",
                      PITCH_HOSTED_MAX_BACKOFF_S="2", PITCH_TEST_SECRET=SECRET,
                      PITCH_HOSTED_CHECK="0") as world:  # the attacks must run, not be rejected
        friendly = world.submit("from pitch_sdk.bots.heuristic import HeuristicBot as Bot\n")
        wait_until(lambda: world.connected(friendly), 30, "a friendly hosted bot to connect")
        baseline = [per_decision_ms(world, remote, seed) for seed in range(4)]
        referee_host, referee_port = world.referee.arena.address.rsplit(":", 1)
        targets = {"referee": [referee_host, int(referee_port)], "redis": redis_url.removeprefix("unix://"),
                   "outside": ["192.0.2.1", 80]}
        artifacts = sorted((tmp / "artifacts").rglob("*"))[-1]
        package = sorted((tmp / "packages").iterdir())[0] / "bot.py"
        bots = {name: world.submit(source.format(targets=targets, artifacts=str(artifacts), package=str(package)),
                                   command=RAW.get(name))
                for name, source in HOSTILE.items()}
        wait_until(lambda: world.connected(bots["spin_in_a_decision"]), 30, "the bot that spins in decisions")
        wait_until(lambda: all(world.versions.log(bots[name], "v1") for name in ("fork_bomb", "balloon", "flood")),
                   30, "the hostile bots to have run")
        under_attack = [per_decision_ms(world, remote, 10 + seed) for seed in range(4)]
        quick = bot_pb2.TimeControl(per_decision_ms=300, bank_ms=300)
        spun = world.referee.call(world.referee.arena.run_match(
            "cutthroat", [bots["spin_in_a_decision"], *remote[:2]], seed=30, games=1, time_control=quick),
            timeout=120)
        wait_until(lambda: all(world.status(bots[name]) in ("restarting", "failing")
                               and world.versions.get(bots[name], "v1").restarts >= 1  # type: ignore[union-attr]
                               for name in ("fork_bomb", "balloon", "spin_at_import", "fill_disk", "sockets",
                                            "snoop")), 60, "every hostile bot to have ended once")
        yield Attack(world, bots, baseline, under_attack, spun)


def ended(attack: Attack, name: str) -> str:
    """Why the version's sandboxes ended, as its owner reads them in its log (its record's
    detail says only the latest: a restarted bot is "running" again)."""
    return "\n".join(line for line in log(attack, name).splitlines() if line.startswith("--- "))


def log(attack: Attack, name: str) -> str:
    return attack.world.versions.log(attack.bots[name], "v1").decode(errors="replace")


def test_the_other_matches_keep_their_pace_during_the_attack(attack: Attack) -> None:
    baseline, during = statistics.median(attack.baseline_ms), statistics.median(attack.attack_ms)
    print(f"\nms per decision: baseline {sorted(attack.baseline_ms)}, under attack {sorted(attack.attack_ms)}")
    assert during <= 3 * baseline + 5, (baseline, during)


def test_a_fork_bomb_ends_at_the_process_limit(attack: Attack) -> None:
    assert "killed: process limit 64" in ended(attack, "fork_bomb")


def test_a_memory_balloon_ends_at_the_memory_limit(attack: Attack) -> None:
    assert "killed: memory limit 256 MB" in ended(attack, "balloon")


def test_a_spin_at_import_is_killed_for_saying_no_hello(attack: Attack) -> None:
    assert f"no hello within {HELLO_S} s" in ended(attack, "spin_at_import")


def test_a_spin_inside_a_decision_loses_its_seat_not_the_match(attack: Attack) -> None:
    """The referee's time control holds a bot that never answers: its seat is struck and its
    party forfeits; the match still ends (cutthroat: each seat is a party)."""
    result = attack.decision_match.result
    assert result.seats[0].strikes > 0 and result.forfeited and result.forfeiting_party == 0, result


def test_filling_the_disk_stops_at_the_private_tmp(attack: Attack) -> None:
    assert "disk full: ENOSPC" in log(attack, "fill_disk") or "disk full: EFBIG" in log(attack, "fill_disk")
    assert "exited with status 4" in ended(attack, "fill_disk")


def test_no_socket_reaches_the_referee_redis_or_the_outside(attack: Attack) -> None:
    line = next(line for line in log(attack, "sockets").splitlines() if line.startswith("sockets: "))
    found = json.loads(line.removeprefix("sockets: "))
    assert set(found) == {"referee", "redis", "outside"} and "connected" not in found.values(), found


def test_nothing_of_the_host_is_readable(attack: Attack) -> None:
    line = next(line for line in log(attack, "snoop").splitlines() if line.startswith("snoop: "))
    seen = json.loads(line.removeprefix("snoop: "))
    assert SECRET not in line and "REDIS_URL" not in line
    assert seen["environ"]["PITCH_BOT_TOKEN"] != "" and "pat_" not in line
    assert seen["artifacts"] == "FileNotFoundError" and seen["package"] == "FileNotFoundError"
    assert len(seen["pids"]) <= 3, seen["pids"]  # its own PID namespace: bubblewrap's init, the bot


def test_unbounded_output_keeps_a_bounded_log(attack: Attack) -> None:
    kept = attack.world.versions.log(attack.bots["flood"], "v1")
    assert 0 < len(kept) <= MAX_LOG_BYTES and kept.count(b"y") > len(kept) // 2


def test_the_hosts_log_names_the_versions_not_their_output(attack: Attack) -> None:
    """The host's own log names every hostile version and none of their output."""
    host_log = attack.world.hosts["host-hostile"].log()
    assert all(bot_id in host_log for bot_id in attack.bots.values())
    assert "disk full" not in host_log and "snoop:" not in host_log
