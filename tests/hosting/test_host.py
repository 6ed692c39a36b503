"""Bot hosts as deployed: ``pitch-arena bot-host`` processes on the test Redis, a real
referee, packages in a real artifact store, and every bot in a real sandbox.

Two hosts run for the whole module (with short leases and polls); each test submits its
own versions, so the tests share the processes without sharing bots."""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pitch_sdk.packages.archive import pack
from pitch_sdk.proto.pitch.v1 import arena_pb2
from store.accounts import Accounts
from store.seat_keys import seat_key
from store.version_tests import VersionTest, VersionTestStore
from tests.hosting.hosts import HELLO_S, HEURISTIC, ILLEGAL, LEASE_S, POLL_S, Arena, hosts_beside, statuses_until
from tests.kits.kit_process import KITS, node_kit
from tests.workers.celery_harness import ArenaThread

pytestmark = pytest.mark.xdist_group("bot-hosts")  # the module's two hosts start once, on one worker

CRASHING = "import sys\nprint('the marker of a crashing bot', file=sys.stderr)\nsys.exit(3)\n"
SILENT = "import time\ntime.sleep(600)\n"


@pytest.fixture(scope="module")
def hosted(arena: ArenaThread, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    # the compliance check is off here (tests/hosting/test_check.py has it on): these bots
    # crash, say nothing or misbehave on purpose, and must run as they are
    with hosts_beside(arena, redis_url, tmp_path_factory.mktemp("hosts"), ("host-a", "host-b"),
                      PITCH_HOSTED_CHECK="0") as world:
        world.silent, world.crashing = world.submit(SILENT), world.submit(CRASHING)
        yield world


@pytest.fixture(autouse=True)
def stop_what_the_test_submitted(hosted: Arena) -> Iterator[None]:
    yield from hosted.each_test()


def test_a_submitted_version_plays_and_its_result_is_recorded_under_it(hosted: Arena) -> None:
    bot_id = hosted.submit(HEURISTIC, version="v1")
    hosted.wait(lambda: hosted.connected(bot_id), 30, "the hosted bot to connect")
    assert hosted.status(bot_id) == "running"
    assert hosted.bot_info(bot_id).capacity == 2  # type: ignore[union-attr]
    others = [hosted.referee.connect("heuristic") for _ in range(2)]
    played: arena_pb2.RunMatchResponse = hosted.referee.call(hosted.referee.arena.run_match(
        "cutthroat", [bot_id, *others], seed=5, games=1), timeout=60)
    assert played.result.completed and not played.result.forfeited
    assert played.seat_bot_versions[0] == "v1"
    assert played.result.seats[0].decisions > 0 and played.result.seats[0].strikes == 0


def test_with_the_check_switched_off_even_an_illegal_bot_goes_straight_to_running(hosted: Arena) -> None:
    bot_id = hosted.submit(ILLEGAL)
    seen, _ = statuses_until(hosted, bot_id, "running", 30)
    assert "checking" not in seen, seen
    hosted.wait(lambda: hosted.connected(bot_id), 30, "the unchecked bot to connect")
    record = hosted.versions.get(bot_id, "v1")
    assert record is not None and (record.report, record.checked, record.detail) == ("", False, "")
    assert b"compliance check" not in hosted.versions.log(bot_id, "v1")


def test_the_node_kit_folder_is_hosted_and_plays(hosted: Arena) -> None:
    """A bot in another language: the Node kit's folder with its dependencies, as submitted."""
    node_kit()  # its node_modules, installed once
    kit = hosted.packages / "node"
    shutil.copytree(KITS / "node", kit, symlinks=True)
    shutil.copytree(KITS.parent / "protos" / "pitch", kit / "protos" / "pitch")  # as its README says
    bot_id, _ = hosted.referee.register()
    manifest = (kit / "pitch-bot.json").read_text()
    hosted.versions.add(bot_id, "js-1", hosted.artifacts.put(pack(kit)), manifest, "tester")
    hosted.started.append((bot_id, "js-1"))
    hosted.wait(lambda: hosted.connected(bot_id), 30, "the hosted node bot to connect")
    others = [hosted.referee.connect("random") for _ in range(2)]
    played: arena_pb2.RunMatchResponse = hosted.referee.call(hosted.referee.arena.run_match(
        "cutthroat", [bot_id, *others], seed=7, games=1), timeout=60)
    assert played.result.completed and played.seat_bot_versions[0] == "js-1"
    assert played.result.seats[0].decisions > 0 and played.result.seats[0].strikes == 0


def test_a_new_version_runs_beside_the_old_one_until_its_test_is_over_then_replaces_it(hosted: Arena) -> None:
    """A second version of a hosted bot starts while the first keeps running: the two play
    side by side (the automatic SPRT of the new one against the old needs both), a match
    may seat each, and the bot alone names the newest.  Once the new version's test is
    over, the first is stopped as replaced.  Before, the first was stopped at once, and the
    automatic test had no opponent."""
    bot_id = hosted.submit(HEURISTIC, version="1.0")
    hosted.wait(lambda: hosted.status(bot_id, "1.0") == "running" and hosted.connected(bot_id), 30,
                "the first version to run")
    hosted.submit(HEURISTIC + "# the second version\n", version="2.0", bot_id=bot_id)
    hosted.wait(lambda: hosted.status(bot_id, "2.0") == "running" and hosted.playing(bot_id) == "2.0", 30,
                "the second version to run")
    registry = hosted.referee.arena.server.arena.registry
    assert {p.version for p in registry.versions(bot_id) if p.connected} == {"1.0", "2.0"}
    assert hosted.status(bot_id, "1.0") == "running"
    played: arena_pb2.RunMatchResponse = hosted.referee.call(hosted.referee.arena.run_match(
        "cutthroat", [seat_key(bot_id, "2.0"), seat_key(bot_id, "1.0"), bot_id], seed=6, games=1), timeout=60)
    assert list(played.seat_bot_versions) == ["2.0", "1.0", "2.0"]
    tests = VersionTestStore(hosted.store)
    tests.record(VersionTest(seat_key(bot_id, "2.0"), "", "", "", time.time(), skipped="settled by the test"))
    hosted.wait(lambda: hosted.status(bot_id, "1.0") == "stopped" and hosted.versions.holder(bot_id, "1.0") is None,
                10, "the first version to stop once the second's test is over")
    old = hosted.versions.get(bot_id, "1.0")
    assert old is not None and "replaced by the bot's newer version 2.0" in old.detail
    hosted.wait(lambda: not any(p.connected for p in registry.versions(bot_id) if p.version == "1.0"), 10,
                "the first version's stream to end")


def test_a_dead_hosts_versions_start_on_another_host_within_the_lease(hosted: Arena, tmp_path: Path) -> None:
    bot_id = hosted.submit(HEURISTIC)
    hosted.wait(lambda: hosted.connected(bot_id), 30, "the hosted bot to connect")
    holder = hosted.versions.holder(bot_id, "v1")
    assert holder in hosted.hosts
    killed = time.monotonic()
    hosted.hosts[holder].kill()
    hosted.wait(lambda: hosted.versions.holder(bot_id, "v1") not in (None, holder) and hosted.connected(bot_id),
                LEASE_S + 15, "another host to take the version over")
    assert time.monotonic() - killed < LEASE_S + 10
    del hosted.hosts[holder]
    hosted.start_host(f"{holder}-again", tmp_path)  # two hosts again for the tests that follow


def test_a_crashing_bot_restarts_then_fails_with_its_stderr_kept(hosted: Arena) -> None:
    bot_id = hosted.crashing
    hosted.wait(lambda: hosted.status(bot_id) == "failing", 30, "the crashing bot to be marked failing")
    record = hosted.versions.get(bot_id, "v1")
    assert record is not None and record.restarts >= 4 and "(5 times in 600 s)" in record.detail
    log = hosted.versions.log(bot_id, "v1")
    assert b"the marker of a crashing bot" in log and b"--- restarting: exited with status 3" in log, log
    time.sleep(POLL_S * 3)
    assert hosted.status(bot_id) == "failing"  # not restarted by any host


def test_a_stopped_version_stops_its_sandbox(hosted: Arena) -> None:
    bot_id = hosted.submit(HEURISTIC)
    hosted.wait(lambda: hosted.connected(bot_id), 30, "the hosted bot to connect")
    hosted.versions.stop(bot_id, "v1")
    hosted.wait(lambda: not hosted.connected(bot_id), 10, "the stopped version's bot to disconnect")
    assert hosted.status(bot_id) == "stopped"


def test_a_bot_that_says_no_hello_is_killed_saying_so(hosted: Arena) -> None:
    said = f"--- restarting: no hello within {HELLO_S} s\n".encode()
    hosted.wait(lambda: said in hosted.versions.log(hosted.silent, "v1"), HELLO_S + 10, "the silent bot to be killed")
    record = hosted.versions.get(hosted.silent, "v1")
    assert record is not None and record.restarts >= 1 and not hosted.connected(hosted.silent)
    hosted.versions.stop(hosted.silent, "v1")


def sandboxed(marker: str) -> list[int]:
    """The pids of the processes whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:  # gone meanwhile
            continue
    return found


def descendants(pid: int) -> set[int]:
    """The pids of every process below ``pid``."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit():
                parent = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
                children.setdefault(parent, []).append(int(entry.name))
        except OSError:  # gone meanwhile
            continue
    found: set[int] = set()
    level = children.get(pid, [])
    while level:
        found.update(level)
        level = [child for parent in level for child in children.get(parent, [])]
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not reaped by this container's init, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def test_disabling_a_bot_stops_its_sandbox_until_it_is_enabled(hosted: Arena) -> None:
    """A bot started by its manifest's command (here the Python SDK, marked with an ``-X``
    option the test can find it by); the operator's switch (:mod:`store.accounts`) is what the
    referee and the hosts read."""
    bot_id = hosted.submit(HEURISTIC, command=lambda bot_id: [sys.executable, "-X", f"pitch-test-{bot_id}", "-c",
                                                               "from pitch_sdk.cli import app; app()", "run",
                                                               "bot.py:Bot"])
    hosted.wait(lambda: hosted.connected(bot_id), 30, "the hosted bot to connect")
    assert sandboxed(f"pitch-test-{bot_id}")
    switches = Accounts(hosted.store)
    name = hosted.store.bot(bot_id).name  # type: ignore[union-attr]
    switches.set_bot_disabled(name, True)
    hosted.wait(lambda: not sandboxed(f"pitch-test-{bot_id}") and hosted.status(bot_id) == "queued", 10,
                "the disabled bot's sandbox to stop")
    assert not hosted.connected(bot_id)
    switches.set_bot_disabled(name, False)
    hosted.wait(lambda: hosted.connected(bot_id), 30, "the enabled bot to connect again")


def test_stopped_hosts_hand_their_versions_back(hosted: Arena) -> None:
    """SIGTERM (last: it stops the module's hosts): each host stops its bots, releases its
    leases and leaves the live hosts, and its versions wait for another host."""
    bot_id = hosted.submit(HEURISTIC)
    hosted.wait(lambda: hosted.connected(bot_id), 30, "the hosted bot to connect")
    running = [version for version in hosted.versions.wanted() if version.host is not None]
    assert running
    sandboxes = {pid for host in hosted.hosts.values() for pid in descendants(host.process.pid)}
    assert len(sandboxes) >= len(running)
    for host in hosted.hosts.values():
        assert host.stop() == 0, host.log()
    assert hosted.versions.live_hosts() == []
    for version in running:
        record = hosted.versions.get(version.bot_id, version.version)
        assert record is not None and record.host is None
        assert (record.status, record.detail) == ("queued", "its bot host stopped"), \
            (version.bot_id, [host.log()[-3000:] for host in hosted.hosts.values()])
    assert not [pid for pid in sandboxes if alive(pid)]
