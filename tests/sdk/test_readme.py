"""The SDK README's quick start works as written: its bot file and its commands run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "sdk" / "README.md"
BIN = Path(sys.executable).parent


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(), flags=re.S)


def test_quick_start_bot_passes_check_play_and_watch(tmp_path: Path) -> None:
    """Write mybot.py from the README, then run every local `pitch-bot` line it shows."""
    bot_source = next(b for b in blocks("python") if b.startswith("# mybot.py"))
    (tmp_path / "mybot.py").write_text(bot_source)
    commands = [line.split("#")[0].split() for block in blocks("bash") for line in block.splitlines()
                if line.startswith("pitch-bot") and "HOST:PORT" not in line]
    assert [c[1] for c in commands] == ["check", "play", "watch"]
    for command in commands:
        done = subprocess.run([str(BIN / command[0]), *command[1:]], cwd=tmp_path, capture_output=True, text=True,
                              timeout=300, check=False)
        assert done.returncode == 0, (command, done.stdout[-2000:], done.stderr[-2000:])
    assert "PASS" in subprocess.run([str(BIN / "pitch-bot"), "check", "mybot.py:MyBot"], cwd=tmp_path,
                                    capture_output=True, text=True, check=False).stdout


@pytest.mark.parametrize("command", ["check", "run"])
def test_referee_commands_in_the_readme_exist(command: str) -> None:
    """The referee lines use real options (they are exercised end to end elsewhere)."""
    lines = [line for block in blocks("bash") for line in block.splitlines() if f"pitch-bot {command}" in line
             and "--referee" in line]
    assert lines
    help_text = subprocess.run([str(BIN / "pitch-bot"), command, "--help"], capture_output=True, text=True,
                               check=True).stdout
    assert "--referee" in help_text and "--token" in help_text


def test_the_install_puts_pitch_bot_on_path() -> None:
    """After the README's install, `pitch-bot` was not on PATH (the README never
    said `.venv/bin/`).  Its install block activates the virtualenv it creates, and that
    activation (run here against the virtualenv running the tests) finds `pitch-bot`."""
    install = next(b for b in blocks("bash") if "pip install" in b)
    activation = next(line.split("#")[0].strip() for line in install.splitlines() if "activate" in line)
    venv = BIN.parent
    found = subprocess.run(["bash", "-c", f"{activation.replace('.venv', str(venv))} && command -v pitch-bot"],
                           capture_output=True, text=True, check=False, env={"PATH": "/usr/bin:/bin"})
    assert found.returncode == 0 and found.stdout.strip() == str(BIN / "pitch-bot"), (found.stdout, found.stderr)
