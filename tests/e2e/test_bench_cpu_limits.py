"""The benchmarks' CPU budgets (``bench/cpu_limits.py``): a process in a budget is
throttled, groups never outlive the benchmark that made them (also when it is terminated),
and a machine without a writable CPU controller gets a clear error.

The groups are real cgroups: the tests that make them are skipped where no writable cgroup
CPU controller exists (not root, or no cpu controller mounted)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from cpu_limits import GROUP_PREFIX, CpuBudgets, CpuLimitError, Hierarchy, quota_us  # noqa: E402 - bench/ by path


def writable_hierarchy() -> Hierarchy:
    """This machine's hierarchy, or skip the test."""
    try:
        return Hierarchy.find()
    except CpuLimitError as error:
        pytest.skip(str(error))


def groups_of(hierarchy: Hierarchy, pid: int) -> list[Path]:
    return list(hierarchy.parent.glob(f"{GROUP_PREFIX}{pid}-*"))


def test_no_cpu_controller_is_a_clear_error() -> None:
    mounts = "proc /proc proc rw 0 0\ncgroup /sys/fs/cgroup/memory cgroup rw,memory 0 0\n"
    with pytest.raises(CpuLimitError, match="no cgroup hierarchy with the cpu controller is mounted"):
        Hierarchy.find(mounts, "4:memory:/\n")


def test_an_unwritable_cpu_controller_says_where_it_looked(tmp_path: Path) -> None:
    read_only = tmp_path / "cpu"
    read_only.mkdir()
    read_only.chmod(0o555)
    try:
        with pytest.raises(CpuLimitError, match=f"v1 {read_only}: (not writable|no cpu.cfs_quota_us)"):
            Hierarchy.find(f"cgroup {read_only} cgroup rw,cpu 0 0\n", "1:cpu:/\n")
    finally:
        read_only.chmod(0o755)


def test_a_budget_must_be_positive() -> None:
    for bad in (0.0, -0.5, float("nan")):
        with pytest.raises(CpuLimitError, match="positive number of cores"):
            CpuBudgets(bad)
    assert quota_us(0.5, 10_000) == 5_000 and quota_us(2, 100_000) == 200_000


def test_a_busy_process_in_a_budget_is_throttled_and_its_group_is_removed_on_exit() -> None:
    hierarchy = writable_hierarchy()
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        with CpuBudgets(0.1) as budgets:
            budgets.place("busy", busy.pid)
            budgets.budget(True)
            before = budgets.throttling()["busy"]
            time.sleep(0.5)
            assert budgets.throttling()["busy"].since(before) > 0.5  # a busy loop uses up 0.1 core at once
            (group,) = groups_of(hierarchy, os.getpid())
        assert not group.exists()
        assert busy.poll() is None  # moved out of the group, not killed
    finally:
        busy.kill()
        busy.wait()


@pytest.mark.slow
def test_a_terminated_benchmark_removes_its_groups_and_stops_its_referees() -> None:
    hierarchy = writable_hierarchy()
    bench = subprocess.Popen([sys.executable, "bench/fleet_throughput.py", "--rounds", "50", "--seconds", "0.5",
                              "--concurrency", "2", "--referee-cpu", "0.5"], cwd=ROOT,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while len(groups := groups_of(hierarchy, bench.pid)) < 2:
            assert bench.poll() is None and time.monotonic() < deadline, "the bench never placed its referees"
            time.sleep(0.1)
        referees = [int(pid) for group in groups for pid in (group / "cgroup.procs").read_text().split()]
        time.sleep(1.0)  # inside the rounds
        bench.send_signal(signal.SIGTERM)
        assert bench.wait(timeout=60) != 0
    finally:
        if bench.poll() is None:
            bench.kill()
            bench.wait()
    assert groups_of(hierarchy, bench.pid) == []
    assert referees and not any(Path(f"/proc/{pid}").exists() for pid in referees)
