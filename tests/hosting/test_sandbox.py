"""The bot sandbox with the real bubblewrap, cgroups and processes: each hostile program is
contained, ends with a clear status and leaves nothing behind, and a well-behaved one reaches
the Unix socket the host serves it.

The hostile programs run at once (one event loop, module-scoped), each test reading its own
result; small limits keep the balloons and floods short."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from hosting.bwrap import system_view
from hosting.cgroups import SANDBOX_PREFIX, remove_group, sandbox_hierarchies
from hosting.sandbox import (
    STAGE_PREFIX,
    STAGE_ROOT,
    ExitStatus,
    Limits,
    Sandbox,
    SandboxError,
    SandboxSpec,
    python_bot_argv,
)
from tests.hosting.probes import READ_OR_ERROR

ROOT = Path(__file__).resolve().parents[2]
LIMITS = Limits(memory_mb=64, cpu_cores=0.25, pids=16, open_files=64, tmp_mb=8, file_size_mb=4, output_kb=4)
SECRET = "pitch-test-secret-9f2c"
SLEEP_MARK = "1234.25"  # the double fork's grandchild sleeps this long: found by its command line

PROGRAMS = {
    "fork_bomb": """
import os
while True:
    try:
        os.fork()
    except OSError:
        pass
""",
    "balloon": """
held = []
while True:
    held.append(b"x" * (1 << 20))
""",
    "cpu_spin": """
import time
start, cpu = time.monotonic(), time.process_time()
while time.monotonic() - start < 1.0:
    pass
print((time.process_time() - cpu) / (time.monotonic() - start))
""",
    "fill_tmp": """
import errno
written = 0
try:
    for index in range(1000):
        with open(f"/tmp/fill{index}", "wb") as file:
            file.write(b"x" * (1 << 20))
        written += 1
except OSError as error:
    print(errno.errorcode[error.errno], written)
""",
    "huge_file": """
import errno
try:
    with open("/tmp/huge", "wb") as file:
        for _ in range(8):
            file.write(b"x" * (1 << 20))
except OSError as error:
    print(errno.errorcode[error.errno])
""",
    "sockets": """
import errno, json, socket, sys
targets = json.loads(sys.argv[1])
found = {}
for name, family, address in [("inet", socket.AF_INET, ("127.0.0.1", targets["inet"])),
                              ("inet6", socket.AF_INET6, ("::1", targets["inet6"])),
                              ("abstract", socket.AF_UNIX, "\\0" + targets["abstract"]),
                              ("path", socket.AF_UNIX, targets["path"])]:
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.settimeout(2)
    try:
        sock.connect(address)
        found[name] = "connected"
    except OSError as error:
        found[name] = errno.errorcode.get(error.errno, str(error))
print(json.dumps(found))
""",
    "snoop": READ_OR_ERROR + """
import json, os, sys
targets = json.loads(sys.argv[1])
def writable(folder):
    try:
        with open(os.path.join(folder, "probe"), "w") as file:
            file.write("x")
        return "writable"
    except OSError as error:
        return type(error).__name__
print(json.dumps({"host_tmp": sorted(os.listdir("/tmp")),
                  "writable": {folder: writable(folder) for folder in ("/", "/dev", "/dev/shm", "/run", "/run/pitch",
                                                                      "/bot", "/usr", "/tmp")},
                  "environ": dict(os.environ), "init_environ": read("/proc/1/environ"),
                  "pids": sorted(int(name) for name in os.listdir("/proc") if name.isdigit()),
                  "shadow": read("/etc/shadow"), "passwd": read("/etc/passwd"), "repo": read(targets["repo"]),
                  "root": sorted(os.listdir("/root")) if os.path.isdir("/root") else [],
                  "home": os.path.exists("/home"), "other_package": read(targets["other"]),
                  "uid": os.getuid()}))
""",
    "flood": """
import sys
chunk = "y" * 65536
for _ in range(320):
    sys.stdout.write(chunk)
    sys.stderr.write(chunk)
sys.stdout.write("END")
""",
    "double_fork": f"""
import os
if os.fork() == 0:
    if os.fork() == 0:
        os.execv("/bin/sleep", ["sleep", "{SLEEP_MARK}"])
    os._exit(0)
os.wait()
""",
}


@dataclass
class Run:
    status: ExitStatus
    output: bytes
    seconds: float

    @property
    def text(self) -> str:
        return self.output.decode(errors="replace")


def python(program: str, *args: str) -> tuple[str, ...]:
    return (sys.executable, "-c", program, *args)


@pytest.fixture(scope="module")
def dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One package dir for the module (another one beside it, with a file no bot may read)
    and a socket dir."""
    base = tmp_path_factory.mktemp("sandbox")
    found = {name: base / name for name in ("package", "other", "sockets", "outside")}
    for path in found.values():
        path.mkdir()
    (found["package"] / "bot.py").write_text("print('from the package')\n")
    (found["other"] / "secret.txt").write_text(SECRET)
    return found


def spec(name: str, dirs: dict[str, Path], argv: tuple[str, ...], socket_dir: Path | None = None) -> SandboxSpec:
    return SandboxSpec(f"test-{os.getpid()}-{name}", dirs["package"], argv, socket_dir or dirs["sockets"],
                       {"PITCH_BOT_TOKEN": "given"}, LIMITS)


async def run(sandbox_spec: SandboxSpec) -> Run:
    started = time.monotonic()
    sandbox = await Sandbox.start(sandbox_spec)
    status = await asyncio.wait_for(sandbox.wait(), 30)
    return Run(status, sandbox.output_tail(), time.monotonic() - started)


def leftovers(name: str) -> list[str]:
    """The sandbox's groups, staging directories or processes still on the host."""
    found = [str(hierarchy.parent / f"{SANDBOX_PREFIX}{name}") for hierarchy in sandbox_hierarchies().values()
             if (hierarchy.parent / f"{SANDBOX_PREFIX}{name}").exists()]
    return found + [f"pid {pid}" for pid in processes_with(SLEEP_MARK)]


def processes_with(word: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if word.encode() in (entry / "cmdline").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.fixture(scope="module")
def hostile(dirs: dict[str, Path]) -> Iterator[dict[str, Run]]:
    """Every hostile program run at once, with the host's listeners for the socket probes and
    a secret in this process's environment."""
    os.environ["PITCH_TEST_SECRET"] = SECRET
    listeners = {"inet": socket.create_server(("127.0.0.1", 0)),
                 "inet6": socket.create_server(("::1", 0), family=socket.AF_INET6),
                 "abstract": socket.socket(socket.AF_UNIX), "path": socket.socket(socket.AF_UNIX)}
    abstract = f"pitch-test-{os.getpid()}"
    listeners["abstract"].bind("\0" + abstract)
    listeners["path"].bind(str(dirs["outside"] / "host.sock"))
    os.chmod(dirs["outside"] / "host.sock", 0o666)
    for listener in listeners.values():
        listener.listen()
        listener.setblocking(False)
    targets = {"inet": listeners["inet"].getsockname()[1], "inet6": listeners["inet6"].getsockname()[1],
               "abstract": abstract, "path": str(dirs["outside"] / "host.sock")}
    arguments = {"sockets": (json.dumps(targets),),
                 "snoop": (json.dumps({"repo": str(ROOT / "README.md"), "other": str(dirs["other"] / "secret.txt")}),)}
    specs = {name: spec(name, dirs, python(program, *arguments.get(name, ()))) for name, program in PROGRAMS.items()}
    shell = ("/bin/sh", "-c", "exec head -c 8000000 /dev/zero > /tmp/huge")
    specs["huge_file_shell"] = spec("huge_file_shell", dirs, shell)
    specs["sdk"] = spec("sdk", dirs, python_bot_argv("--help"))  # the SDK's command line, imported inside

    async def all_at_once() -> dict[str, Run]:
        runs = await asyncio.gather(*(run(one) for one in specs.values()))
        return dict(zip(specs, runs, strict=True))

    try:
        results = asyncio.run(all_at_once())
        accepted = []
        for name, listener in listeners.items():
            try:
                listener.accept()
                accepted.append(name)
            except BlockingIOError:
                pass
        results["accepted"] = Run(ExitStatus(0, None, ""), json.dumps(accepted).encode(), 0)
        yield results
    finally:
        del os.environ["PITCH_TEST_SECRET"]
        for listener in listeners.values():
            listener.close()
    for name, one in specs.items():
        assert not leftovers(one.name), (name, leftovers(one.name))


def test_a_fork_bomb_is_ended_at_the_process_limit_and_the_host_can_still_fork(hostile: dict[str, Run]) -> None:
    assert hostile["fork_bomb"].status.reason == "killed: process limit 16"
    child = os.fork()
    if child == 0:
        os._exit(0)
    assert os.waitpid(child, 0)[1] == 0


def test_a_memory_balloon_is_killed_at_the_memory_limit(hostile: dict[str, Run]) -> None:
    status = hostile["balloon"].status
    assert status.reason == "killed: memory limit 64 MB"
    assert status.signal == signal.SIGKILL


def test_a_cpu_spin_gets_its_quota_and_no_more(hostile: dict[str, Run]) -> None:
    run_ = hostile["cpu_spin"]
    assert run_.status.reason == "exited with status 0", run_.text
    share = float(run_.text)
    assert 0.05 < share <= LIMITS.cpu_cores * 1.3, share


def test_filling_tmp_stops_at_its_size(hostile: dict[str, Run]) -> None:
    errno_name, written = hostile["fill_tmp"].text.split()
    assert errno_name == "ENOSPC"
    assert int(written) <= LIMITS.tmp_mb


def test_a_huge_file_stops_at_the_file_size_limit(hostile: dict[str, Run]) -> None:
    """Python ignores SIGXFSZ and sees EFBIG; a program that does not is killed by it."""
    assert hostile["huge_file"].text.strip() == "EFBIG"
    assert hostile["huge_file_shell"].status.reason == "killed: output file size limit"
    assert hostile["huge_file_shell"].status.signal == signal.SIGXFSZ


def test_no_socket_reaches_the_host(hostile: dict[str, Run]) -> None:
    found = json.loads(hostile["sockets"].text)
    # The sandbox's own network namespace: its loopback is its own (nothing listens there), the
    # host's abstract sockets are the host namespace's, and its /tmp is not the host's.
    assert found["inet"] in ("ECONNREFUSED", "ENETUNREACH")
    assert found["inet6"] in ("ECONNREFUSED", "ENETUNREACH", "EADDRNOTAVAIL")
    assert (found["abstract"], found["path"]) == ("ECONNREFUSED", "ENOENT")
    assert json.loads(hostile["accepted"].text) == []


def test_nothing_of_the_host_is_visible(hostile: dict[str, Run], dirs: dict[str, Path]) -> None:
    seen = json.loads(hostile["snoop"].text)
    assert SECRET not in hostile["snoop"].text
    assert seen["environ"] == {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8",
                               "PITCH_BOT_TOKEN": "given", "PWD": "/bot"}
    assert seen["pids"] == [1, 2]  # its own PID namespace: bubblewrap's init and the program
    assert seen["shadow"] == seen["passwd"] == seen["repo"] == seen["other_package"] == "FileNotFoundError"
    assert set(seen["root"]) <= {".pyenv"}  # at most the path to the interpreter, when it lives under /root
    assert seen["home"] is False
    runtime_under_tmp = {Path(bind.dest).relative_to("/tmp").parts[0] for bind in system_view()[0]
                         if Path(bind.dest).is_relative_to("/tmp")}
    assert set(seen["host_tmp"]) == runtime_under_tmp  # none of the host's /tmp but a runtime there
    assert seen["uid"] != 0
    assert seen["writable"] == {"/": "OSError", "/dev": "OSError", "/dev/shm": "OSError", "/run": "OSError",
                                "/run/pitch": "PermissionError", "/bot": "OSError", "/usr": "OSError",
                                "/tmp": "writable"}


def test_a_flood_of_output_keeps_a_bounded_tail(hostile: dict[str, Run]) -> None:
    flood = hostile["flood"]
    assert flood.status.reason == "exited with status 0"
    assert len(flood.output) == LIMITS.output_kb << 10
    assert flood.output.endswith(b"END")


def test_the_sdk_runs_inside(hostile: dict[str, Run]) -> None:
    """The interpreter, the virtualenv's packages (gRPC) and the SDK are all in view."""
    assert hostile["sdk"].status.reason == "exited with status 0", hostile["sdk"].text
    assert "Show this message" in hostile["sdk"].text  # the end of its help


def test_a_double_fork_leaves_nothing(hostile: dict[str, Run]) -> None:
    assert hostile["double_fork"].status.reason == "exited with status 0"
    assert processes_with(SLEEP_MARK) == []


def test_stop_kills_a_program_that_ignores_sigterm_and_a_name_runs_once(dirs: dict[str, Path]) -> None:
    program = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('ready', flush=True)\n" \
              "time.sleep(60)"

    async def scenario() -> tuple[ExitStatus, float, str]:
        sandbox = await Sandbox.start(spec("stubborn", dirs, python(program)))
        with pytest.raises(SandboxError, match="running on this host already"):
            await Sandbox.start(spec("stubborn", dirs, python(program)))
        await until(lambda: b"ready" in sandbox.output_tail())
        started = time.monotonic()
        status = await sandbox.stop(grace_s=0.3)
        return status, time.monotonic() - started, sandbox.spec.name

    status, seconds, name = asyncio.run(scenario())
    assert status.reason == "stopped by the host"
    assert status.signal == signal.SIGKILL
    assert seconds < 3
    assert not leftovers(name)


def test_a_sandbox_dies_with_its_host(dirs: dict[str, Path]) -> None:
    """A bot host that is killed (no cleanup at all) takes its sandboxes with it."""
    mark = "2345.5"
    name = f"test-{os.getpid()}-orphan"
    host = f"""
import asyncio, sys
from pathlib import Path
from hosting.sandbox import Sandbox, SandboxSpec
async def main():
    await Sandbox.start(SandboxSpec({name!r}, Path({str(dirs["package"])!r}), ("/bin/sleep", {mark!r}),
                                    Path({str(dirs["sockets"])!r})))
    print("started", flush=True)
    await asyncio.sleep(60)
asyncio.run(main())
"""
    process = subprocess.Popen([sys.executable, "-c", host], stdout=subprocess.PIPE, cwd=ROOT)
    stages = STAGE_ROOT.glob(f"{STAGE_PREFIX}{process.pid}-*")
    try:
        assert process.stdout is not None and process.stdout.readline() == b"started\n"
        asyncio.run(until(lambda: bool(processes_with(mark))))
        process.kill()  # at once: start() returned only once bubblewrap's init is bound to its parent
        asyncio.run(until(lambda: not processes_with(mark), timeout=5))
    finally:
        process.kill()
        process.wait()
        for hierarchy in sandbox_hierarchies().values():  # its host could not remove its groups
            remove_group(hierarchy.parent / f"{SANDBOX_PREFIX}{name}", kill=True)
    left = list(stages)
    assert len(left) == 1  # nor its staging directory: the next sandbox's start does
    asyncio.run(run(spec("after-orphan", dirs, ("/bin/true",))))
    assert not left[0].exists()


def test_a_program_reaches_the_unix_socket_the_host_serves(dirs: dict[str, Path], tmp_path: Path) -> None:
    program = """
import socket
sock = socket.socket(socket.AF_UNIX)
sock.connect("/run/pitch/referee.sock")
sock.sendall(b"hello")
print(sock.recv(100).decode())
print(open("bot.py").read().strip())
"""

    async def scenario() -> Run:
        async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer.write(b"welcome, " + await reader.read(5))
            await writer.drain()
            writer.close()

        server = await asyncio.start_unix_server(answer, str(tmp_path / "referee.sock"))
        (tmp_path / "referee.sock").chmod(0o666)
        async with server:
            return await run(spec("friendly", dirs, python(program), socket_dir=tmp_path))

    friendly = asyncio.run(scenario())
    assert friendly.status.reason == "exited with status 0", friendly.text
    assert friendly.text.split("\n")[:2] == ["welcome, hello", "print('from the package')"]  # /bot is the package


async def until(condition: Callable[[], bool], timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)



def test_a_host_with_a_private_tmpdir_still_runs_its_bots(dirs: dict[str, Path], tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A host whose TMPDIR is private (mode 0700, as ``tempfile.TemporaryDirectory`` makes it)
    still starts its sandboxes: the staging the unprivileged sandbox reads is not put there
    (bubblewrap answered "Can't find source path …: Permission denied")."""
    private = tmp_path / "private-tmp"
    private.mkdir(mode=0o700)
    monkeypatch.setenv("TMPDIR", str(private))
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    done = asyncio.run(run(spec("private-tmp", dirs, python("print('ran')"))))
    assert done.status.code == 0 and done.output == b"ran\n", done


_AT_FORK_PIPE: list[int] = []
"""Set by the test below: the write end its fork hook reports to (empty: the hook does nothing)."""


def _report_python_in_a_forked_child() -> None:
    if _AT_FORK_PIPE:
        os.write(_AT_FORK_PIPE[0], b"python ran in the child\n")


os.register_at_fork(after_in_child=_report_python_in_a_forked_child)


def test_a_sandbox_starts_without_running_python_in_a_fork_of_the_host(dirs: dict[str, Path]) -> None:
    """A bot host runs uvloop and gRPC's threads.  uvloop's subprocess forks the host and runs
    Python's fork hooks (and libuv's) in the child before its exec; in a host with threads
    that crashed the launcher with SIGSEGV now and then, and the supervisor then marked a
    well-behaved bot failing.  A sandbox is started by vfork and exec, with no Python in
    between: a fork hook of the host never runs."""
    import uvloop

    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    _AT_FORK_PIPE.append(write_end)
    try:
        done = uvloop.run(run(spec("no-fork-hooks", dirs, ("/bin/true",))))
    finally:
        _AT_FORK_PIPE.clear()
        os.close(write_end)
    try:
        reported = os.read(read_end, 1000)
    except BlockingIOError:
        reported = b""
    finally:
        os.close(read_end)
    assert done.status.reason == "exited with status 0", done.text  # bubblewrap says why it could not start
    assert reported == b""
