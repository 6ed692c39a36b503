"""``pitch-bot status``: an author asks where a version stands, and ``--wait`` blocks until
the arena's verdict and exits by it, so the author's own CI can ask "is my new version
better?".  A real web service over HTTP, real Redis, the real sweep that starts the
automatic SPRT (its matches queued on a real Celery broker; the test records their
outcomes as the workers would), the real CLI."""

from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any

from competitions.queue import make_app
from competitions.sprt import control as sprt_control
from competitions.sprt.store import SprtStore
from competitions.version_tests import control
from store.hosted import HostedVersions, Status
from store.redis_store import Store
from store.version_checks import VersionChecks
from store.version_tests import VersionTestStore
from store.versions import BotVersions
from tests.web.harness import two_versions_connected
from tests.web.test_author_cli import cli_env, run_cli
from tests.workers.test_tournament import worker_config


def _run(home: Path, url: str, *args: str) -> tuple[int, str, str]:
    return run_cli(cli_env(home, url), *args, stdin="author-password\n")


def _author(home: Path, url: str, store: Store) -> tuple[str, str]:
    """A signed-up author (logged in under ``home``) with one bot: its name and id."""
    name = f"author{uuid.uuid4().hex[:6]}"
    assert _run(home, url, "signup", name, "--password-stdin")[0] == 0
    bot = f"{name}-bot"
    assert _run(home, url, "new-bot", bot)[0] == 0
    return bot, next(b.bot_id for b in store.bots() if b.name == bot)


def _won_by_new(index: int) -> dict[str, Any]:
    """A played one-game match NEW won (NEW holds party 0 in a pair's first match, 1 in its second)."""
    party = index % 2
    game = {"has_winner": True, "scores": [11, 4]} | ({"winner": party} if party else {})
    return {"status": "played", "result": {"games": [game]}}


def test_wait_follows_a_version_to_its_verdict_and_exits_by_it(arena_url: tuple[str, Store], tmp_path: Path,
                                                               redis_url: str) -> None:
    """Versions 1 and 2 of an author's bot connected: the sweep starts the SPRT of 2 against
    1; `status` shows it testing (LLR between its bounds, games); `status --wait` polls
    while the pairs come in and, at H1, prints the final JSON and exits 0.  Version 1 is
    undecided (the bot's first), a version that kept crashing is rejected (exit 2), and
    another account cannot read the bot (404, exit 4)."""
    url, store = arena_url
    bot, bot_id = _author(tmp_path / "alice", url, store)
    config = replace(worker_config(redis_url, store.prefix), auto_sprt_elo1=200.0, auto_sprt_max_games=40)
    two_versions_connected(store, config, bot_id)
    app = make_app(config)
    assert _run(tmp_path / "alice", url, "presets", bot, "cutthroat", "ten-point")[0] == 0
    (test,) = control.sweep(app, VersionTestStore(store), config).started
    code, out, _ = _run(tmp_path / "alice", url, "status", bot, "2", "--json")
    shown = json.loads(out)
    assert code == 0 and shown["state"] == "testing" and not shown["final"]
    assert shown["test"]["predecessor"] == "1" and shown["test"]["games"] == 0 and shown["test"]["upper"] > 0
    assert shown["test"]["preset"] == "ten-point"  # the first two-sided preset its author chose
    assert f"SPRT {test.run_id} at ten-point against 1" in _run(tmp_path / "alice", url, "status", bot, "2")[1]
    sprts = SprtStore(store)
    outcome: dict[str, Any] = {}

    def follow() -> None:
        outcome["answer"] = _run(tmp_path / "alice", url, "status", bot, "--wait", "--json", "--interval", "1")

    waiting = threading.Thread(target=follow)
    waiting.start()
    time.sleep(1.5)  # its first answers: still testing
    for index in range(40):  # what the workers would record, pair by pair, until the verdict
        sprts.runs.record_outcome(test.run_id, index, _won_by_new(index))
        if index % 2:
            sprt_control.advance(app, sprts, test.run_id)
        if sprts.verdict(test.run_id) is not None:
            break
    waiting.join(30)
    code, out, err = outcome["answer"]
    final = json.loads(out)
    assert code == 0, err
    assert "2: testing: SPRT against 1: LLR +0.00" in err  # what it showed while it waited
    assert final["state"] == "better" and final["final"] and final["version"] == "2"
    assert final["test"]["llr"] >= final["test"]["upper"] and "H1 accepted against 1" in final["detail"]
    code, out, _ = _run(tmp_path / "alice", url, "status", bot, "1", "--wait")
    assert code == 3 and "the bot's first version" in out
    hosted = HostedVersions(store)
    hosted.add(bot_id, "3", "0" * 64, "{}", "alice")
    hosted.set_status(bot_id, "3", Status.FAILING, "exited with status 1 (5 times in 600 s)")
    code, out, _ = _run(tmp_path / "alice", url, "status", bot, "--wait")
    assert code == 2 and "3: rejected: exited with status 1" in out
    _author(tmp_path / "mallory", url, store)
    code, _, err = _run(tmp_path / "mallory", url, "status", bot)
    assert code == 4 and "no bot named" in err


def test_an_author_pins_a_version_as_current_and_unpins_it(arena_url: tuple[str, Store], tmp_path: Path) -> None:
    """`pitch-bot pin BOT VERSION`: "the bot's current version is the newest one that was not
    rejected (or the one its owner pins)". A version never seen is 404, one that failed its
    check cannot be pinned, another account cannot pin the bot, and `--unpin` makes the
    newest version that may play current again."""
    url, store = arena_url
    bot, bot_id = _author(tmp_path / "pinner", url, store)
    versions = BotVersions(store)
    for version in ("1", "2"):
        versions.connected(bot_id, version)
    versions.connected(bot_id, "3", check=True)
    VersionChecks(versions).settle(bot_id, "3", False, "compliance check failed", "problem: play: illegal action")
    assert versions.current(bot_id) == f"{bot_id}-v2"
    code, _, err = _run(tmp_path / "pinner", url, "pin", bot, "1")
    assert code == 0, err
    assert "pinned 1; current version 1" in err and versions.current(bot_id) == bot_id
    versions.connected(bot_id, "4")  # a newer version connects: the pin holds
    assert versions.current(bot_id) == bot_id
    code, _, err = _run(tmp_path / "pinner", url, "pin", bot, "9")
    assert code != 0 and "no version '9'" in err
    code, _, err = _run(tmp_path / "pinner", url, "pin", bot, "3")
    assert code != 0 and "did not pass the arena's check" in err
    code, _, err = _run(tmp_path / "pinner", url, "pin", bot)
    assert code != 0 and "--unpin" in err
    _author(tmp_path / "other", url, store)
    code, _, err = _run(tmp_path / "other", url, "pin", bot, "2")
    assert code != 0 and "no bot named" in err and versions.current(bot_id) == bot_id
    code, _, err = _run(tmp_path / "pinner", url, "pin", bot, "--unpin")
    assert code == 0, err
    assert "unpinned; current version 4" in err and versions.current(bot_id) == f"{bot_id}-v4"
