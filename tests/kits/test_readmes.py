"""The starter kits' READMEs, "From nothing to a bot in an arena", run as written: their
shell steps in one bash script from the repository's root, a referee started in the
background with its private Redis, each kit's bot registered and connected, a reference
bot beside them, a match played per kit. The README's steps must wait for the referee before registering: "in 2
of 3 runs the token was empty: connection refused" when they did not. Every repository
file a README names must exist.

Left out of the script, and why: the install steps, which the test command has run already
(scripts/ensure-venv.sh, scripts/ensure-kits.sh, the kit's build by its fixture), and the
round robin (`pitch-arena tournament`), which needs Celery workers the README does not
start (tests/workers covers it)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from pathlib import Path

import pytest

from cli.local_arena import free_port
from tests.kits.kit_process import KIT_COMMANDS, KITS, ROOT

SECTION = "## From nothing to a bot in an arena"
#: Lines of the section that install what the test command installed already.
INSTALLS = ("sudo apt-get install", "npm ci", "scripts/ensure-venv.sh", "kits/go/build.sh")
#: Lines that need services the README's steps do not start.
NEEDS_WORKERS = ("pitch-arena tournament",)
#: The address the READMEs give the referee (replaced by a free port: tests run in parallel).
README_ADDRESS = "127.0.0.1:50051"
#: Seconds the whole script may take (a referee start, three bots, two matches, on a loaded machine).
SCRIPT_TIMEOUT_S = 240


def readme_steps(readme: Path) -> list[str]:
    """The section's shell commands in order, continuation lines joined, comments and blank
    lines dropped (what a reader pastes into a terminal)."""
    text = readme.read_text()
    assert SECTION in text, f"{readme} has no section {SECTION!r}"
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    commands: list[str] = []
    for block in re.findall(r"```bash\n(.*?)```", section, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            command = re.sub(r"\s+# .*$", "", line).strip()
            if command:
                commands.append(command)
    return commands


def script(kits: list[str]) -> tuple[str, list[str]]:
    """One bash script of the kits' README steps, in order, and the steps left out. A step
    an earlier README already ran (starting the referee, the reference bot) is run once:
    the kits share the referee, as two bots of one arena do."""
    kept: list[str] = []
    skipped: list[str] = []
    address = f"127.0.0.1:{free_port()}"
    for kit in kits:
        for command in readme_steps(KITS / kit / "README.md"):
            command = command.replace(README_ADDRESS, address)
            if any(marker in command for marker in INSTALLS + NEEDS_WORKERS):
                skipped.append(command)
            elif command not in kept:
                kept.append(command)
    cleanup = "trap 'kill $(jobs -p) 2>/dev/null; wait' EXIT"  # the README's background services
    return "\n".join(["set -euo pipefail", cleanup, *kept]), skipped


@pytest.mark.slow
def test_the_readme_steps_run_as_written(tmp_path: Path) -> None:
    """Registering right after starting the referee in the background raced it: the
    READMEs wait (`pitch-arena ready`) for the referee, then for each bot to connect, so
    the match each plays next finds its bots."""
    kits = sorted(KIT_COMMANDS)
    for kit in kits:
        KIT_COMMANDS[kit]()  # the install step the script leaves out: npm ci, or build.sh
    text, skipped = script(kits)
    assert sum("pitch-arena referee" in line for line in text.splitlines()) == 1
    assert len([line for line in skipped if "tournament" not in line]) >= 2 * len(kits), skipped
    env = {key: value for key, value in os.environ.items() if not key.startswith("PITCH_") and key != "REDIS_URL"}
    env["PITCH_DATA_DIR"] = str(tmp_path / "data")  # the referee's private Redis and its lock, not the user's
    process = subprocess.Popen(["bash", "-c", text], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=SCRIPT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # the script's own session: its background services too
        output, _ = process.communicate()
        pytest.fail(f"the README's steps took over {SCRIPT_TIMEOUT_S} s:\n{output}")
    assert process.returncode == 0, f"the README's steps failed (exit {process.returncode}):\n{text}\n---\n{output}"
    assert output.count("match log: pitch-arena match-log") == len(kits), output


@pytest.mark.parametrize("kit", sorted(KIT_COMMANDS))
def test_every_file_a_readme_names_exists(kit: str) -> None:
    """The Node kit's README named a test file that does not exist: every repository path in
    backquotes (`tests/...`, `scripts/...`, `protos/...`, the kit's own files) must exist."""
    readme = (KITS / kit / "README.md").read_text()
    named = set(re.findall(r"`((?:tests|scripts|protos|kits)/[\w./-]+)`", readme))
    named |= {f"kits/{kit}/{path}" for path in re.findall(r"`((?:src|test|client|strategy)/[\w./-]+\.\w+)`", readme)}
    assert named, "no path found: the pattern is stale"
    missing = sorted(path for path in named if not (ROOT / path.split("/*")[0]).exists())
    assert not missing, f"kits/{kit}/README.md names files that do not exist: {missing}"
