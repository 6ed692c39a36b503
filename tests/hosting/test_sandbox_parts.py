"""The sandbox's pure parts: the bubblewrap command line, the host's read-only view, the
cgroup discovery, the rlimits, the output's tail, the spec's checks, the uids, the launcher's
plan; and the rlimits-only fallback of a host without writable cgroups, with a real sandbox."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

import hosting.cgroups
from hosting.bwrap import Bind, Link, bwrap_argv, system_view
from hosting.cgroups import SANDBOX_PREFIX, CgroupError, Hierarchy, SandboxCgroup, sandbox_hierarchies
from hosting.identity import Identities
from hosting.launch import Plan
from hosting.output import OutputTail
from hosting.sandbox import Limits, Sandbox, SandboxError, SandboxSpec, SpecError, python_bot_argv, rlimits
from hosting.supervisor import Policy


def a_spec(tmp_path: Path, **changes: object) -> SandboxSpec:
    fields: dict[str, object] = {"name": "bot-1", "package_dir": tmp_path, "argv": ("/usr/bin/true",),
                                 "socket_dir": tmp_path, "env": {"PITCH_REFEREE": "unix:///run/pitch/r.sock"},
                                 "limits": Limits()}
    fields.update(changes)
    return SandboxSpec(**fields)  # type: ignore[arg-type]


def test_the_command_line_unshares_everything_and_binds_only_what_it_is_given(tmp_path: Path) -> None:
    argv = bwrap_argv(a_spec(tmp_path), [Bind("/usr", "/usr"), Bind("/x/sock", "/run/pitch", writable=True)],
                      [Link("usr/lib", "/lib")])
    for flag in ("--unshare-all", "--die-with-parent", "--new-session", "--clearenv", "--disable-userns"):
        assert flag in argv
    assert "--share-net" not in argv
    assert argv[argv.index("--cap-drop") + 1] == "ALL"
    pairs = {(argv[i], argv[i + 1], argv[i + 2]) for i in range(len(argv) - 2)}
    assert ("--ro-bind", "/usr", "/usr") in pairs
    assert ("--bind", "/x/sock", "/run/pitch") in pairs
    assert ("--symlink", "usr/lib", "/lib") in pairs
    assert [argv[i + 1] for i, word in enumerate(argv) if word in ("--bind", "--ro-bind")] == ["/usr", "/x/sock"]
    assert [argv[i + 1] for i, word in enumerate(argv) if word == "--setenv"] == ["PATH", "HOME", "LANG",
                                                                                  "PITCH_REFEREE"]
    assert argv[argv.index("--size") + 1:argv.index("--size") + 4] == [str(64 << 20), "--tmpfs", "/tmp"]
    assert argv.index("--remount-ro") > argv.index("--tmpfs")  # after every mount beneath /
    # /tmp before the binds: a runtime under /tmp (a checkout there) is shown over the private
    # /tmp, not hidden by it ("bwrap: execvp /tmp/ci/.venv/bin/python: No such file or directory")
    assert argv.index("--tmpfs") < min(i for i, word in enumerate(argv) if word in ("--bind", "--ro-bind"))
    assert argv[argv.index("--chdir") + 1] == "/bot"
    assert argv[-2:] == ["--", "/usr/bin/true"]


def test_the_host_view_is_the_system_and_the_runtime_only() -> None:
    binds, links = system_view()
    sources = {bind.source for bind in binds}
    assert not any(bind.writable for bind in binds)
    assert "/usr" in sources
    assert Path(sys.base_prefix).resolve().is_relative_to("/usr") or str(Path(sys.base_prefix).resolve()) in sources
    for forbidden in ("/", "/etc", "/home", "/root", "/work", "/tmp", "/etc/passwd", "/etc/shadow", "/var", "/proc"):
        assert forbidden not in sources
    root = Path(__file__).resolve().parents[2]
    assert str(root) not in sources  # the repository: only its virtualenv and the SDK's folder
    assert all(link.dest.startswith("/") and not link.target.startswith("/home") for link in links)


def test_a_bad_spec_is_refused_with_a_bounded_message(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="a sandbox name is") as error:
        a_spec(tmp_path, name="../" + "x" * 500)
    assert len(str(error.value)) < 150
    with pytest.raises(SpecError, match="not an environment variable name"):
        a_spec(tmp_path, env={"A=B": "1"})
    with pytest.raises(SpecError, match="package_dir is not a directory"):
        a_spec(tmp_path, package_dir=tmp_path / "missing")
    with pytest.raises(SpecError, match="needs a command"):
        a_spec(tmp_path, argv=())


def test_cgroup_discovery_names_the_controller_and_why() -> None:
    with pytest.raises(CgroupError, match="no cgroup hierarchy with the pids controller is mounted"):
        Hierarchy.find("cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n", "1:cpu:/\n", controller="pids")
    with pytest.raises(CgroupError, match=r"v1 /proc: (not writable|no memory\.limit_in_bytes)"):
        Hierarchy.find("cgroup /proc cgroup rw,memory 0 0\n", "1:memory:/\n", controller="memory")


def test_a_cgroup_v2_sandbox_gets_its_limits_in_one_group(tmp_path: Path) -> None:
    """On a (here simulated) cgroup v2 tree: the controllers are enabled for the children, the
    limits written to one group, and the OOM count read from its events."""
    (tmp_path / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (tmp_path / "cgroup.subtree_control").write_text("")
    mounts = f"cgroup2 {tmp_path} cgroup2 rw,nosuid 0 0\n"
    hierarchies = {controller: Hierarchy.find(mounts, "0::/\n", controller) for controller in ("memory", "pids", "cpu")}
    assert set(hierarchies.values()) == {Hierarchy(2, tmp_path)}
    group = tmp_path / "pitch-sandbox-v2"
    cgroup = SandboxCgroup.create("v2", Limits(memory_mb=100, cpu_cores=0.5, pids=20), hierarchies)
    assert cgroup is not None and cgroup.procs_files() == [str(group / "cgroup.procs")]
    assert [(group / name).read_text() for name in ("memory.max", "pids.max", "cpu.max")] == \
        [str(100 << 20), "20", "50000 100000"]
    (group / "memory.events").write_text("low 0\nhigh 0\nmax 7\noom 1\noom_kill 1\n")
    (group / "pids.events").write_text("max 3\n")
    assert (cgroup.oom_kills(), cgroup.pids_refused()) == (1, 3)


def test_rlimits_back_up_the_cgroups_and_stand_alone_without_them() -> None:
    limits = Limits(memory_mb=100, pids=10)
    with_groups = dict(rlimits(limits, frozenset({"memory", "pids"}), own_uid=True))
    alone = dict(rlimits(limits, frozenset(), own_uid=True))
    assert alone["RLIMIT_DATA"] == 100 << 20 and alone["RLIMIT_NPROC"] == 10
    assert with_groups["RLIMIT_DATA"] > 100 << 20 and with_groups["RLIMIT_NPROC"] > 10
    assert alone["RLIMIT_CORE"] == 0 and alone["RLIMIT_FSIZE"] == 64 << 20 and alone["RLIMIT_NOFILE"] == 256
    assert "RLIMIT_NPROC" not in dict(rlimits(limits, frozenset(), own_uid=False))  # it would count the host's


def test_limits_must_be_positive() -> None:
    with pytest.raises(ValueError, match="must be positive: pids=0"):
        Limits(pids=0)


def test_the_output_tail_keeps_the_end_within_twice_its_size() -> None:
    tail = OutputTail(10)
    for index in range(1000):
        tail.append(str(index % 10).encode() * 7)
        assert len(tail._buffer) <= 20 + 7
    assert tail.tail() == b"8889999999" and tail.total == 7000


def test_each_live_sandbox_has_a_uid_of_its_own() -> None:
    identities = Identities(base=70000)
    first, second = identities.take(), identities.take()
    assert (first, second) == (70000, 70001)
    identities.give_back(first)
    assert identities.take() == 70000
    with pytest.raises(ValueError, match="PITCH_SANDBOX_UID_BASE"):
        Identities(base=0)


def test_the_launch_plan_survives_its_trip_through_the_command_line() -> None:
    plan = Plan((("RLIMIT_NOFILE", 64),), ("/sys/fs/cgroup/pids/x/cgroup.procs",), (("/root/a", "/tmp/s/0"),),
                61000, 1234, 5)
    assert Plan.from_json(plan.to_json()) == plan


def test_a_python_bot_runs_through_pitch_bot_run() -> None:
    argv = python_bot_argv("bot.py:MyBot")
    assert argv[0] == sys.executable and argv[-2:] == ("run", "bot.py:MyBot")


def test_the_backoff_doubles_up_to_its_maximum() -> None:
    assert [Policy().backoff(n) for n in (1, 2, 3, 7, 8)] == [1.0, 2.0, 4.0, 60.0, 60.0]


def test_without_writable_cgroups_a_sandbox_runs_on_rlimits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A host that can make no group (discovery finds none) still bounds a balloon: the data
    rlimit fails its allocation."""
    monkeypatch.setattr(hosting.cgroups, "sandbox_hierarchies", dict)
    assert SandboxCgroup.create("none", Limits()) is None
    program = "held = []\ntry:\n    while True:\n        held.append(b'x' * (1 << 20))\nexcept MemoryError:\n" \
              "    print('bounded', len(held))"

    async def scenario() -> tuple[str, bytes]:
        sandbox = await Sandbox.start(SandboxSpec(f"test-{os.getpid()}-rlimits", tmp_path,
                                                  (sys.executable, "-c", program), tmp_path, {}, Limits(memory_mb=64)))
        return (await sandbox.wait()).reason, sandbox.output_tail()

    reason, output = asyncio.run(scenario())
    assert reason == "exited with status 0", output
    words = output.split()
    assert words[0] == b"bounded" and int(words[1]) < 64


def test_a_sandbox_that_cannot_be_made_is_an_error_at_start_that_leaves_nothing(tmp_path: Path) -> None:
    package = tmp_path / "package"
    package.mkdir()
    spec = SandboxSpec(f"test-{os.getpid()}-unmade", package, ("/bin/true",), tmp_path)
    package.rmdir()  # gone between the check and the start

    async def twice() -> None:
        for _ in range(2):  # the name is free again: nothing of the first attempt is left
            with pytest.raises(SandboxError, match=r"cannot start the sandbox: .*package.*No such file"):
                await Sandbox.start(spec)

    asyncio.run(twice())
    assert not [hierarchy for hierarchy in sandbox_hierarchies().values()
                if (hierarchy.parent / f"{SANDBOX_PREFIX}{spec.name}").exists()]
