"""Following a tournament survives a Redis restart: the progress line says the store is
unreachable and the counts carry on when it is back (an audit saw every follower end with
"Connection refused")."""

from __future__ import annotations

import io
import threading
import time
from pathlib import Path

from rich.console import Console

from cli.watch import follow
from competitions.tournaments import control
from competitions.tournaments.store import TournamentStore
from competitions.tournaments.table import NOT_PLAYED
from store.redis_server import RedisServer
from store.redis_store import Store


def test_following_waits_out_a_redis_restart_and_finishes(tmp_path: Path) -> None:
    with RedisServer(persist_dir=str(tmp_path)) as server:
        tournaments = TournamentStore(Store.from_url(server.url, "watch:"))
        schedule = control.create(tournaments, "cutthroat", ["a", "b", "c"], seed=1)
        output = io.StringIO()
        console = Console(file=output, force_terminal=False, width=200)
        done: list[control.Progress] = []
        follower = threading.Thread(target=lambda: done.append(
            follow(console, tournaments, schedule.tournament_id, poll_s=0.05)), daemon=True)
        follower.start()
        time.sleep(0.3)
        server.halt()
        time.sleep(1.5)
        assert follower.is_alive(), output.getvalue()
        server.resume()
        for match in schedule.matches:
            tournaments.record_outcome(schedule.tournament_id, match.index, {"status": NOT_PLAYED, "reason": "test"})
        control.finish(tournaments, schedule.tournament_id)
        follower.join(timeout=15)
        assert done and done[0].finished and done[0].not_played == len(schedule.matches), output.getvalue()
        lines = output.getvalue().splitlines()
        assert any("store unreachable for" in line and "waiting for Redis" in line for line in lines), lines
        assert lines[-1].startswith(f"cutthroat {schedule.tournament_id}: {len(schedule.matches)}/")
