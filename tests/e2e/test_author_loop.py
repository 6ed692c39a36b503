"""The author's loop end to end, every part a real process: a private Redis, a referee, the
web arena, a bot host (bubblewrap sandboxes), a Celery worker and beat, two operator bots
connected with ``pitch-bot run``; the author drives it with the real ``pitch-bot``.

The issue's words: "an author signs up, submits a hosted version (a weak bot), then a
stronger one; the check passes, the SPRT between them runs by itself through Celery and
reaches H1; the ladder rates both; the author's status command returns the verdict", and
"A broken version (illegal moves) is rejected before it plays a rated game"."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from cli.local_arena import LocalArena, free_port, wait_for
from competitions.config import WorkerConfig
from competitions.ratings.leaderboard import Leaderboard
from competitions.referee_client import RefereeClient
from hosting.identity import DEFAULT_UID_BASE, SLOTS, UID_BASE_VARIABLE
from store.hosted import HostedVersions, Status
from store.redis_store import Store
from store.versions import BotVersions
from tests.hosting.hosts import ILLEGAL
from tests.web.test_author_cli import cli_env, run_cli
from web.config import WebConfig

pytestmark = pytest.mark.slow

PREFIX = "author-loop:"
ADMIN = "author-loop-admin"
WEAK = "from pitch_sdk.bots.random_bot import RandomBot as Bot\n"
STRONG = "from pitch_sdk.bots.heuristic import HeuristicBot as Bot\n"
_WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
UID_BASE = DEFAULT_UID_BASE + SLOTS * (90 + _WORKER)
"""This host's sandbox uids, apart from the other tests' hosts (tests/hosting/hosts.py)."""


def _package(folder: Path, source: str) -> Path:
    folder.mkdir()
    (folder / "bot.py").write_text(source)
    (folder / "pitch-bot.json").write_text(json.dumps({"bot": "bot.py:Bot"}))
    return folder


def test_an_author_submits_a_stronger_version_and_the_arena_says_it_is_better(tmp_path: Path) -> None:
    with LocalArena(tmp_path / "logs") as arena:
        (tmp_path / "logs").mkdir()
        redis_url = arena.start_redis()
        store = Store.from_url(redis_url, PREFIX)
        artifacts = tmp_path / "artifacts"
        referee = arena.start_referee(redis_url, PREFIX, ADMIN, {"PITCH_DATA_DIR": str(tmp_path / "data")})
        web = WebConfig(address=f"127.0.0.1:{free_port()}", redis_url=redis_url, store_prefix=PREFIX, referee=referee,
                        admin_token=ADMIN)
        url = arena.start_web({**web.to_env(), "PITCH_ARTIFACTS_DIR": str(artifacts)}, web.address)
        client = RefereeClient(referee, ADMIN, match_timeout_s=60)
        for seed, spec in enumerate(("heuristic", "random")):
            registered = client.register(f"house-{spec}", owner="operator")
            arena.start_bot(spec, spec, referee, registered.token, seed)
        arena.start_bot_host(redis_url, PREFIX, referee, artifacts, slots=4,
                             env={"PITCH_HOST_POLL_S": "0.5", UID_BASE_VARIABLE: str(UID_BASE)})
        # wide SPRT bounds and error rates: heuristic against random settles in a few pairs, not 74
        config = WorkerConfig(redis_url=redis_url, store_prefix=PREFIX, referee=referee, admin_token=ADMIN,
                              requeue_interval_s=1.0, auto_sprt_elo1=200.0, auto_sprt_alpha=0.2,
                              auto_sprt_beta=0.2, auto_sprt_max_games=200,
                              auto_ladder_presets="cutthroat")
        arena.start_worker(config, "worker", concurrency=2)
        arena.start_beat(config)

        env = cli_env(tmp_path / "author", url)

        def cli(*args: str) -> tuple[int, str, str]:
            return run_cli(env, *args, stdin="author-password\n")

        def wait(condition: Callable[[], bool], what: str, timeout: float = 120) -> None:
            wait_for(condition, timeout, what, arena.services)

        assert cli("signup", "ada", "--password-stdin")[0] == 0
        code, _, err = cli("new-bot", "ada-bot")
        assert code == 0, err
        bot_id = next(b.bot_id for b in store.bots() if b.name == "ada-bot")
        hosted = HostedVersions(store)
        code, _, err = cli("submit", str(_package(tmp_path / "weak", WEAK)), "--bot", "ada-bot", "--version", "1")
        assert code == 0, err
        wait(lambda: (v := hosted.get(bot_id, "1")) is not None and v.status == Status.RUNNING, "version 1 to run")
        assert (hosted.get(bot_id, "1") or pytest.fail()).checked  # the host's compliance check passed
        board = Leaderboard(store, "cutthroat", all_versions=True)
        wait(lambda: (row := board.row(bot_id)) is not None and row.games > 0, "the ladder to rate version 1")

        code, _, err = cli("submit", str(_package(tmp_path / "strong", STRONG)), "--bot", "ada-bot",
                           "--version", "2")
        assert code == 0, err
        code, out, err = cli("status", "ada-bot", "2", "--wait", "--json", "--interval", "1", "--timeout", "240")
        final = json.loads(out)
        assert code == 0, (final, err)
        assert final["state"] == "better" and final["test"]["predecessor"] == "1"
        assert final["test"]["llr"] >= final["test"]["upper"] and final["test"]["games"] >= 2
        newer = f"{bot_id}-v2"
        assert BotVersions(store).current(bot_id) == newer
        wait(lambda: (row := board.row(newer)) is not None and row.games > 0, "the ladder to rate version 2")
        old = board.row(bot_id)
        assert old is not None and old.games > 0  # both versions rated apart

        code, _, err = cli("submit", str(_package(tmp_path / "broken", ILLEGAL)), "--bot", "ada-bot",
                           "--version", "3")
        assert code == 0, err
        code, out, err = cli("status", "ada-bot", "3", "--wait", "--interval", "1", "--timeout", "120")
        assert code == 2, (out, err)
        assert "rejected" in out and "illegal action" in out
        assert BotVersions(store).rated_of(bot_id, "3") is None  # it never connected: no arena match seated it
        assert BotVersions(store).current(bot_id) == newer
