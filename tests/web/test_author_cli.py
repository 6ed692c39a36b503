"""The author's side of the arena from the terminal: ``pitch-bot signup``, ``login``,
``whoami``, ``new-bot``, ``rotate-token``, ``tokens`` and ``logout`` against a real web
service over HTTP (real Redis), with the credentials file of a temporary home."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import uuid
from pathlib import Path

from typer.testing import CliRunner

from cli.local_arena import free_port
from pitch_sdk.cli import app as pitch_bot
from store.accounts import Accounts
from store.hosted import HostedVersions
from store.redis_store import Store
from tests.cli.test_cli import line_of


def cli_env(home: Path, url: str) -> dict[str, str]:
    """``pitch-bot``'s environment for an author whose home (and saved login) is ``home``."""
    return {"HOME": str(home), "XDG_CONFIG_HOME": "", "PITCH_ARENA_URL": url, "PITCH_API_TOKEN": "", "COLUMNS": "200"}


def run_cli(env: dict[str, str], *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    """Run ``pitch-bot`` in process: its exit code, standard output and standard error."""
    result = CliRunner().invoke(pitch_bot, list(args), env=env, input=stdin)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def test_sign_up_from_a_real_process_saves_a_private_token(arena_url: tuple[str, Store], tmp_path: Path) -> None:
    """The installed ``pitch-bot`` signs up with the password on standard input and keeps the
    minted API token in a file only its owner can read."""
    url, _ = arena_url
    name = f"author{uuid.uuid4().hex[:6]}"
    done = subprocess.run([str(Path(sys.executable).parent / "pitch-bot"), "signup", name, "--password-stdin"],
                          input="author-password\n", capture_output=True, text=True, timeout=60,
                          env={**os.environ, **cli_env(tmp_path, url)})
    assert done.returncode == 0, done.stderr
    saved = tmp_path / ".config" / "pitch-arena" / "credentials.json"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    content = json.loads(saved.read_text())
    assert content["account"] == name and content["token"].startswith("pat_") and content["url"] == url
    assert "author-password" not in saved.read_text() and "author-password" not in done.stdout + done.stderr


def test_an_authors_whole_loop_of_bots_and_tokens(arena_url: tuple[str, Store], tmp_path: Path) -> None:
    url, store = arena_url
    env = cli_env(tmp_path, url)
    name = f"author{uuid.uuid4().hex[:6]}"
    code, _, err = run_cli(env, "whoami")
    assert code == 2 and "not logged in" in err
    code, _, err = run_cli(env, "signup", name, "--password-stdin", stdin="author-password\n")
    assert code == 0 and f"as {name}" in err
    code, out, _ = run_cli(env, "whoami")
    assert code == 0 and out.startswith(f"{name} at {url}: 0 bot(s)")
    bot = f"cli-bot-{uuid.uuid4().hex[:6]}"
    code, out, err = run_cli(env, "new-bot", bot, "--description", "from the terminal")
    token = out.strip()
    assert code == 0 and "not shown again" in err and store.bot_for_token(token) is not None
    code, out, _ = run_cli(env, "bots")
    assert code == 0 and bot in out and "enabled" in out
    code, out, _ = run_cli(env, "rotate-token", bot)
    assert code == 0 and store.bot_for_token(token) is None and store.bot_for_token(out.strip()) is not None
    code, out, _ = run_cli(env, "tokens", "new", "ci")
    assert code == 0 and out.strip().startswith("pat_")
    code, out, _ = run_cli(env, "tokens", "list")
    token_id = next(line.split()[1] for line in out.splitlines() if " ci " in line)
    code, _, err = run_cli(env, "tokens", "revoke", token_id)
    assert code == 0 and "revoked" in err
    code, _, err = run_cli(env, "rotate-token", "someone-elses-bot")
    assert code == 1 and "you have no bot named" in err
    code, _, err = run_cli(env, "login", name, "--password-stdin", stdin="wrong-password\n")
    assert code == 1 and "wrong account name or password" in err
    code, _, err = run_cli(env, "logout")
    assert code == 0 and "logged out" in err
    assert not (tmp_path / ".config" / "pitch-arena" / "credentials.json").exists()
    code, _, err = run_cli({**env, "PITCH_ARENA_URL": f"http://127.0.0.1:{free_port()}"}, "login", name,
                        "--password-stdin", stdin="author-password\n")
    assert code == 1 and "cannot reach the arena" in err


def test_submit_a_bot_follow_its_versions_read_its_log_and_stop_it(arena_url: tuple[str, Store],
                                                                   tmp_path: Path) -> None:
    """``pitch-bot submit`` packs a Python file (its Bot class named) or sends a package
    made by ``pitch-bot pack``; ``versions``, ``logs`` and ``stop`` follow them."""
    url, store = arena_url
    env = cli_env(tmp_path, url)
    name = f"author{uuid.uuid4().hex[:6]}"
    run_cli(env, "signup", name, "--password-stdin", stdin="author-password\n")
    bot = f"hosted-{uuid.uuid4().hex[:6]}"
    run_cli(env, "new-bot", bot)
    source = tmp_path / "mine.py"
    source.write_text("from pitch_sdk.bots.heuristic import HeuristicBot\n\n\nclass Mine(HeuristicBot):\n"
                      "    name = 'mine'\n")
    code, out, err = run_cli(env, "submit", str(source), "--bot", bot, "--class", "Mine", "--version", "first")
    assert code == 0 and f"{bot} first: queued" in out, err
    code, _, err = run_cli(env, "pack", str(source), "--class", "Mine", "-o", str(tmp_path / "mine.tar.gz"))
    assert code == 0, err
    code, out, err = run_cli(env, "submit", str(tmp_path / "mine.tar.gz"), "--bot", bot)
    assert code == 0 and f"{bot} v2: queued" in out, err
    code, out, _ = run_cli(env, "versions", bot)
    assert code == 0 and "first" in out and "v2" in out
    record = next(b for b in store.bots() if b.name == bot)
    hosted = HostedVersions(store)
    hosted.record_check(record.bot_id, "v2", "compliance check failed: 1 problem\nproblem: play: illegal", False)
    hosted.set_status(record.bot_id, "v2", "rejected", "compliance check failed: 1 problem")
    hosted.record_check(record.bot_id, "first", "compliance check passed: 0 problems", True)
    code, out, _ = run_cli(env, "versions", bot)  # a rejected version's report is shown, a passed one's on demand
    assert code == 0 and "rejected" in out and "compliance check of v2:" in out and "problem: play: illegal" in out
    assert "compliance check of first:" not in out
    code, out, _ = run_cli(env, "versions", bot, "--reports")
    assert code == 0 and "compliance check of first:" in out and "compliance check passed: 0 problems" in out
    HostedVersions(store).write_log(record.bot_id, "first", b"hello from the sandbox\n")
    code, out, _ = run_cli(env, "logs", bot, "first")
    assert code == 0 and out == "hello from the sandbox\n"
    code, _, err = run_cli(env, "stop", bot, "first")
    assert code == 0 and "stopped" in err
    code, _, err = run_cli(env, "submit", str(tmp_path / "missing.py"), "--bot", bot)
    assert code == 2 and "cannot pack" in err
    code, _, err = run_cli(env, "logs", "someone-elses-bot", "v1")
    assert code == 1 and "you have no bot named" in err


def test_an_author_chooses_the_presets_a_bot_plays(arena_url: tuple[str, Store], tmp_path: Path) -> None:
    """"Per preset the author chose": `pitch-bot new-bot --preset` and `pitch-bot presets BOT
    [PRESET ...]` choose them, `presets BOT` shows them, `--all` plays every preset again;
    a bad preset and another account's bot are refused with the arena's message."""
    url, store = arena_url
    env = cli_env(tmp_path / "chooser", url)
    run_cli(env, "signup", f"author{uuid.uuid4().hex[:6]}", "--password-stdin", stdin="author-password\n")
    bot = f"chooser-{uuid.uuid4().hex[:6]}"
    code, _, err = run_cli(env, "new-bot", bot, "--preset", "cutthroat", "--preset", "partnership")
    assert code == 0 and "playing cutthroat, partnership" in err, err
    bot_id = next(b.bot_id for b in store.bots() if b.name == bot)
    code, out, _ = run_cli(env, "presets", bot)
    assert code == 0 and out == f"{bot} plays: cutthroat, partnership\n"
    code, out, _ = run_cli(env, "presets", bot, "ten-point")
    assert code == 0 and out == f"{bot} plays: ten-point\n"
    assert Accounts(store).presets_of([bot_id]) == {bot_id: ("ten-point",)}
    code, out, _ = run_cli(env, "bots")
    assert code == 0 and "ten-point" in line_of(out, bot)
    code, _, err = run_cli(env, "presets", bot, "no-such-preset")
    assert code == 1 and "unknown preset 'no-such-preset'" in err
    code, _, err = run_cli(env, "presets", bot, "ten-point", "--all")
    assert code == 1 and "not both" in err
    run_cli(cli_env(tmp_path / "other", url), "signup", f"other{uuid.uuid4().hex[:6]}", "--password-stdin",
            stdin="author-password\n")
    code, _, err = run_cli(cli_env(tmp_path / "other", url), "presets", bot, "cutthroat")
    assert code == 1 and "you have no bot named" in err
    code, out, _ = run_cli(env, "presets", bot, "--all")
    assert code == 0 and out == f"{bot} plays: every preset\n"
    assert Accounts(store).presets_of([bot_id]) == {bot_id: ()}
