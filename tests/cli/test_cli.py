"""``pitch-arena`` with real parts: a private redis-server and an in-process referee (with SDK
bots over loopback gRPC) for the commands, and the whole demo as a subprocess (slow).

The fast tests drive the typer app in-process, configured only by environment variables,
as a deployment configures it."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.demo import DEFAULT_LINEUP, lineup
from cli.main import app
from competitions.config import WorkerConfig
from competitions.ratings.leaderboard import Leaderboard, record_match
from competitions.tournaments import control as tournament
from competitions.tournaments.store import TournamentStore
from competitions.tournaments.table import PLAYED
from store.accounts import Accounts
from store.redis_store import Store
from store.results import result_to_dict
from tests.results import duel, match_result
from tests.workers.celery_harness import ArenaThread, WorkerProcess

BIN = Path(sys.executable).parent




def invoke(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    """Run a command in-process: exit code, standard output, standard error."""
    result = CliRunner().invoke(app, list(args), env=env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def line_of(output: str, name: str) -> str:
    """The table row that names ``name``."""
    return next(line for line in output.splitlines() if re.search(rf"\b{re.escape(name)}\b", line))


def test_register_prints_the_token_once_and_bots_shows_who_is_connected(arena: ArenaThread,
                                                                         env: dict[str, str]) -> None:
    """`register` prints only the token on stdout (scriptable) and the token works; a second
    registration of the name is refused; `bots` tells connected bots from the others."""
    name = f"alpha-{uuid.uuid4().hex[:6]}"
    code, out, err = invoke(env, "register", name, "--owner", "tests")
    assert code == 0 and "not shown again" in err
    token = out.strip()
    assert len(out.splitlines()) == 1 and len(token) >= 40
    store = Store.from_url(env["REDIS_URL"], env["PITCH_STORE_PREFIX"])
    record = store.bot_for_token(token)
    assert record is not None and record.name == name and record.owner == "tests"
    code, _, err = invoke(env, "register", name)
    assert code == 1 and "ALREADY_EXISTS" in err
    connected = arena.connect("random")
    connected_name = store.bot(connected).name  # type: ignore[union-attr]
    code, out, _ = invoke(env, "bots")
    assert code == 0
    assert " no " in line_of(out, name) and record.bot_id in line_of(out, name)
    assert " yes " in line_of(out, connected_name) and "0/4" in line_of(out, connected_name)
    code, out, _ = invoke({**env, "COLUMNS": "80"}, "bots")
    assert code == 0 and record.bot_id in line_of(out, name), "whole ids at 80 columns"
    assert max(len(line) for line in out.splitlines()) <= 80
    code, out, _ = invoke(env, "bots", "--json")
    assert code == 0
    listed = {bot["name"]: bot for bot in json.loads(out)}
    assert listed[name]["bot_id"] == record.bot_id and listed[name]["connected"] is False
    assert listed[name]["owner"] == "tests"
    assert listed[connected_name]["connected"] is True and listed[connected_name]["capacity"] == 4


def test_unreachable_referee_and_bad_settings_are_one_line_errors(env: dict[str, str]) -> None:
    """A referee that is not there, or a malformed setting, is reported in one line with the
    variable to fix, not a traceback."""
    code, _, err = invoke({**env, "PITCH_REFEREE": "127.0.0.1:1"}, "bots")
    assert code == 1 and "PITCH_REFEREE" in err and "UNAVAILABLE" in err
    code, _, err = invoke({**env, "PITCH_MATCH_RETRIES": "many"}, "bots")
    assert code == 2 and "PITCH_MATCH_RETRIES='many'" in err


def test_leaderboard_ranks_by_bradley_terry_with_live_elo_beside_it(env: dict[str, str]) -> None:
    """Rows are the Bradley–Terry table in its order (rank, rating, 95% interval, LOS over the
    next row) with each bot's live Elo beside it (a provisional mark only below the game
    threshold), games and win rate, all as the leaderboard module computes them; an empty
    board says which boards exist."""
    store = Store.from_url(env["REDIS_URL"], env["PITCH_STORE_PREFIX"])
    strong, weak, rookie = (store.register_bot(f"{who}-{uuid.uuid4().hex[:6]}")[0] for who in
                            ("strong", "weak", "rookie"))
    board = f"duel{uuid.uuid4().hex[:6]}"
    results = [duel(f"{board}-{i}", strong.bot_id, weak.bot_id, "wwwwwwwlll", preset=board) for i in range(4)]
    results.append(duel(f"{board}-r", rookie.bot_id, weak.bot_id, "wl", preset=board))
    for result in results:
        store.record_match(result.match_id, result_to_dict(result), [])
        record_match(store, result)
    code, out, _ = invoke(env, "leaderboard", board)
    assert code == 0, out
    live = {row.bot_id: row for row in Leaderboard(store, board).top(10)}
    fitted = Leaderboard(store, board).fitted()
    assert [row.bot_id for row in fitted] == [strong.bot_id, rookie.bot_id, weak.bot_id]
    names = {strong.bot_id: strong.name, weak.bot_id: weak.name, rookie.bot_id: rookie.name}
    lines = [line_of(out, names[row.bot_id]) for row in fitted]
    assert [out.splitlines().index(line) for line in lines] == sorted(out.splitlines().index(line) for line in lines)
    for bt, line in zip(fitted, lines, strict=True):
        row = live[bt.bot_id]
        assert bt.lower is not None and bt.upper is not None
        mark = "?" if bt.bot_id == rookie.bot_id else " "
        assert line.split()[0] == str(bt.rank)
        assert f" {bt.rating:.0f} " in line and f" {bt.lower:.0f}–{bt.upper:.0f} " in line
        assert f" {row.rating:.0f}{mark} " in line
        assert f" {bt.games} " in line and f" {100 * bt.win_rate:.0f}% " in line
    assert f" {100 * fitted[0].los_next:.0f}% " in lines[0]  # type: ignore[operator]
    assert lines[2].split()[4] == "—", "the last row has no next bot"
    code, out, _ = invoke({**env, "COLUMNS": "80"}, "leaderboard", board)
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 80
    assert all(names[row.bot_id] in out for row in fitted), "whole names at 80 columns"
    code, out, _ = invoke(env, "leaderboard", board, "--json")
    assert code == 0
    data = json.loads(out)
    assert [(r["rank"], r["bot_id"], r["name"]) for r in data["rows"]] == [
        (row.rank, row.bot_id, names[row.bot_id]) for row in fitted]
    assert [r["bt"]["rating"] for r in data["rows"]] == [row.rating for row in fitted]
    assert [r["elo"]["rating"] for r in data["rows"]] == [live[row.bot_id].rating for row in fitted]
    assert [r["elo"]["provisional"] for r in data["rows"]] == [False, True, False]
    code, _, err = invoke(env, "leaderboard", "nobody-plays-this")
    assert code == 1 and board in err


def test_leaderboard_order_does_not_depend_on_the_order_matches_finished(env: dict[str, str]) -> None:
    """The same matches rated in two orders give two live Elo orders (the live rating
    favours recent wins: first finished before, second after) but one leaderboard: the
    headline rank is the Bradley–Terry one (before, the live Elo ranked the rows)."""
    store = Store.from_url(env["REDIS_URL"], env["PITCH_STORE_PREFIX"])
    early, late = (store.register_bot(f"{who}-{uuid.uuid4().hex[:6]}")[0] for who in ("early", "late"))
    outputs, live_orders = [], []
    for order in ("early wins first", "late wins first"):
        board = f"order{uuid.uuid4().hex[:6]}"
        results = [duel(f"{board}-{i}", early.bot_id, late.bot_id, outcome, preset=board)
                   for i, outcome in enumerate("wwwwwwlllll")]  # 6 to 5 in early's favour
        if order == "late wins first":
            results.reverse()
        for result in results:
            store.record_match(result.match_id, result_to_dict(result), [])
            record_match(store, result)
        live_orders.append([row.bot_id for row in Leaderboard(store, board).top(2)])
        code, out, _ = invoke(env, "leaderboard", board)
        assert code == 0, out
        outputs.append([line_of(out, name).split()[:2] for name in (early.name, late.name)])
    assert live_orders[0] != live_orders[1], "the live Elo depends on the order"
    assert outputs[0] == outputs[1] == [["1", early.name], ["2", late.name]]


def test_match_log_replays_a_recorded_match_hand_by_hand(arena: ArenaThread, env: dict[str, str]) -> None:
    """A match the referee ran and recorded is shown with its seats and outcome, then a line
    per hand of each game (it printed every deal and trick: thousands of lines a match);
    --full tells every deal and trick; --game picks one; --json gives the hands as data
    (the same scores as the referee's result); an unknown match is an error."""
    store = Store.from_url(env["REDIS_URL"], env["PITCH_STORE_PREFIX"])
    seats = [arena.connect("heuristic") for _ in range(4)]
    names = [store.bot(bot).name for bot in seats]  # type: ignore[union-attr]
    result = arena.call(arena.arena.run_match("partnership", seats, seed=5, games=2)).result
    code, out, _ = invoke({**env, "COLUMNS": "80"}, "match-log", result.match_id)
    assert code == 0
    assert f"match {result.match_id}" in out and all(f"seat {s}: {n} (ok" in out for s, n in enumerate(names))
    for number, game in enumerate(result.games, 1):
        team = "AB"[game.winner]
        assert f"game {number}: team {team} wins" in out and f"after {game.hands} hands" in out
    hand_lines = [line for line in out.splitlines() if re.match(r"\s+\d+\s+s\d \d", line)]
    assert len(hand_lines) == sum(game.hands for game in result.games), "a line per hand"
    assert "Hand 1 ·" not in out and max(len(line) for line in out.splitlines()) <= 80
    last = [line for line in hand_lines if line.split()[0] == str(result.games[-1].hands)][-1]
    assert " / ".join(str(s) for s in result.games[-1].scores) in last, "the last hand ends on the final scores"
    code, out, _ = invoke(env, "match-log", result.match_id, "--full")
    assert code == 0 and out.count("Hand 1 ·") == 2 and f"Hand {result.games[0].hands} ·" in out
    assert f"seat 0 ({names[0]})" in out, "hands name the bot in each seat"
    code, out, _ = invoke(env, "match-log", result.match_id, "--game", "2", "--full")
    assert code == 0 and "Game 2" in out and "Game 1" not in out and out.count("Hand 1 ·") == 1
    code, out, _ = invoke(env, "match-log", result.match_id, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["match_id"] == result.match_id and [s["name"] for s in data["seats"]] == names
    assert [len(g["hands"]) for g in data["games"]] == [g.hands for g in result.games]
    assert [g["hands"][-1]["scores"] for g in data["games"]] == [list(g.scores) for g in result.games]
    assert "log" not in data["games"][0]
    code, out, _ = invoke(env, "match-log", result.match_id, "--json", "--full", "--game", "1")
    assert code == 0 and [g["game"] for g in json.loads(out)["games"]] == [1] and json.loads(out)["games"][0]["log"]
    code, _, err = invoke(env, "match-log", "no-such-match")
    assert code == 1 and "no recorded match" in err


def test_tournament_resume_shows_the_table_and_refuses_unknown_input(env: dict[str, str]) -> None:
    """Resuming a tournament whose matches are all recorded sends nothing and prints its
    table (with the tournament's Bradley–Terry column and how to see its match logs);
    unknown tournaments and bots, or neither a preset nor --resume, are input errors."""
    store = Store.from_url(env["REDIS_URL"], env["PITCH_STORE_PREFIX"])
    tournaments = TournamentStore(store)
    bots = [store.register_bot(f"t{i}-{uuid.uuid4().hex[:6]}")[0] for i in range(4)]
    a, b, c, d = (bot.bot_id for bot in bots)
    schedule = tournament.create(tournaments, "partnership", [a, b, c, d], teams=[(a, b), (c, d)])
    for match in schedule.matches:
        winner = 0 if set(match.seats[0::2]) == {a, b} else 1  # a and b's team wins every game
        scores = [21, 8] if winner == 0 else [8, 21]
        result = result_to_dict(match_result(match.match_id, match.seats, [(winner, scores)]))
        tournaments.record_outcome(schedule.tournament_id, match.index, {"status": PLAYED, "result": result})
    assert tournament.finish(tournaments, schedule.tournament_id)
    code, out, _ = invoke({**env, "COLUMNS": "80"}, "tournament", "--resume", schedule.tournament_id)
    assert code == 0, out
    assert "0 match(es) sent" in out and "2 of 2 matches played" in out
    assert all(" 100.0% " in line_of(out, bot.name) for bot in bots[:2]), "whole names at 80 columns"
    assert all(" 0.0% " in line_of(out, bot.name) for bot in bots[2:])
    assert max(len(line) for line in out.splitlines()) <= 80 and "…" not in out.split("match logs:")[0]
    assert f"pitch-arena match-log {schedule.tournament_id}.0 … {schedule.tournament_id}.1" in out
    code, out, err = invoke(env, "tournament", "--resume", schedule.tournament_id, "--json")
    assert code == 0 and "0 match(es) sent" in err, "progress goes to standard error"
    data = json.loads(out)
    assert data["tournament_id"] == schedule.tournament_id and data["played"] == 2 and data["not_played_matches"] == []
    by_name = {row["name"]: row for row in data["rows"]}
    assert [by_name[bot.name]["score"] for bot in bots] == [1.0, 1.0, 0.0, 0.0]
    assert all(by_name[bot.name]["bt"]["rating"] > by_name[bots[3].name]["bt"]["rating"] for bot in bots[:2])
    assert invoke(env, "tournament", "--resume", "nope")[0] == 2
    code, _, err = invoke(env, "tournament", "partnership", "--bots", f"{bots[0].name},nobody")
    assert code == 2 and "no registered bot named nobody" in err
    assert invoke(env, "tournament")[0] == 2


def test_a_tournament_table_says_which_matches_were_kept_off_the_ratings_and_why(env: dict[str, str]) -> None:
    """A played match the referee marked unrated is left out of the table's games and
    counted apart: the title says how many, a list gives each one's reason (so does --json)."""
    store = Store.from_url(env["REDIS_URL"], env["PITCH_STORE_PREFIX"])
    tournaments = TournamentStore(store)
    bots = [store.register_bot(f"u{i}-{uuid.uuid4().hex[:6]}")[0] for i in range(4)]
    a, b, c, d = (bot.bot_id for bot in bots)
    schedule = tournament.create(tournaments, "partnership", [a, b, c, d], teams=[(a, b), (c, d)])
    reason = "fallback-heavy: seat 2 40 of 44"
    for match in schedule.matches:
        result = result_to_dict(match_result(match.match_id, match.seats, [(0, [21, 8])]))
        if match.index == 1:
            result |= {"unrated": True, "unrated_reason": reason}
        tournaments.record_outcome(schedule.tournament_id, match.index, {"status": PLAYED, "result": result})
    assert tournament.finish(tournaments, schedule.tournament_id)
    assert tournaments.table(schedule.tournament_id)["unrated"] == 1  # type: ignore[index]
    code, out, _ = invoke(env, "tournament", "--resume", schedule.tournament_id)
    assert code == 0, out
    assert "2 of 2 matches played, 1 unrated (not in the table)" in " ".join(out.split())  # the title may wrap
    assert f"{schedule.matches[1].match_id} " in out.split("kept off the ratings")[1] and reason in out
    code, out, _ = invoke(env, "tournament", "--resume", schedule.tournament_id, "--json")
    data = json.loads(out)
    assert data["unrated"] == 1 and data["unrated_matches"][0]["reason"] == reason
    assert all(row["games"] == 1 and row["unrated"] == 1 for row in data["rows"])


@pytest.mark.slow
def test_tournament_runs_through_a_worker_with_fixed_teams(arena: ArenaThread, env: dict[str, str],
                                                           tmp_path: Path) -> None:
    """`tournament` with fixed partnerships (each bot partnering itself, by name) creates the
    round robin, launches it on a real worker process, follows it to the end and prints
    the table; every match is recorded once."""
    store = Store.from_url(env["REDIS_URL"], env["PITCH_STORE_PREFIX"])
    first, second = (store.bot(arena.connect("heuristic")).name for _ in range(2))  # type: ignore[union-attr]
    config = WorkerConfig.from_env(env)
    worker = WorkerProcess(config, "cli", tmp_path)
    try:
        code, out, err = invoke(env, "tournament", "partnership", "--team", f"{first},{first}", "--team",
                                f"{second},{second}", "--games", "1", "--seed", "3")
    finally:
        worker.stop()
    assert code == 0, (out, err, worker.log()[-3000:])
    assert "2 match(es) sent" in out and "2/2 matches recorded" in out and "2 of 2 matches played" in out
    tournament_id = out.split("tournament ", 1)[1].split(":", 1)[0]
    outcomes = TournamentStore(store).outcomes(tournament_id)
    assert sorted(outcomes) == [0, 1] and all(o["status"] == PLAYED for o in outcomes.values())
    scores = [re.search(r" (\d+\.\d)% ", line_of(out, name)) for name in (first, second)]
    assert sum(float(score.group(1)) for score in scores if score) == 100.0, "each game has one winner"


def test_demo_refuses_a_line_up_it_cannot_schedule_before_starting_anything(tmp_path: Path) -> None:
    """Line-up names are each bot's own name (a bot loaded from mybot.py:MyBot was listed
    as 'MyBot-1'), numbered when a name occurs more than once; a line-up too small for the
    preset, or a bot that does not load, is an input error raised before any process starts."""
    mybot = tmp_path / "mybot.py"
    mybot.write_text("from pitch_sdk.bots.random_bot import RandomBot\n\n\n"
                     "class MyBot(RandomBot):\n    name = 'my-bot'\n")
    assert [e.name for e in lineup([*DEFAULT_LINEUP, f"{mybot}:MyBot"])] == [
        "heuristic-1", "random-1", "random-2", "heuristic-2", "my-bot"]
    result = CliRunner().invoke(app, ["demo", "--bot", "heuristic", "--bot", "random"])
    assert result.exit_code == 2 and "cutthroat seats 3 players" in result.stderr
    result = CliRunner().invoke(app, ["demo", "--bot", "nosuchbot"])
    assert result.exit_code == 2 and "nosuchbot" in result.stderr


def owned_by_demo(marker: str, tmp: Path) -> list[int]:
    """Pids of live processes whose environment carries ``marker`` or whose command line
    names ``tmp`` (redis-server rewrites its environment area with its title, which names
    its socket in the demo's temporary directory)."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if marker.encode() in (proc / "environ").read_bytes() or \
                    str(tmp).encode() in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


@pytest.mark.slow
def test_demo_runs_every_part_as_a_process_serves_the_web_and_leaves_none_behind(tmp_path: Path) -> None:
    """The README's main command, for real: `pitch-arena demo` starts Redis, a referee, a bot
    process per bot (the last one submitted and run by a bot host in its sandbox), a Celery
    worker and the web arena, prints a leaderboard with every
    reference bot and the web arena's URL, keeps the arena up (its leaderboard page answers
    with every bot) until Ctrl-C, then exits 0 and leaves no process behind (its processes
    are found while it runs and after it exits, by an environment marker they inherit or the
    temporary directory it uses)."""
    marker = f"PITCH_DEMO_TEST={uuid.uuid4().hex}"
    key, value = marker.split("=")
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    # a short TMPDIR: Redis's unix socket path must stay under 108 bytes
    with tempfile.TemporaryDirectory(prefix="pitch-demo-test-") as tmp:
        demo = subprocess.Popen([str(BIN / "pitch-arena"), "demo", "--games", "1"],  # the default preset: cutthroat
                                env={**env, key: value, "TMPDIR": tmp, "COLUMNS": "200"}, cwd=tmp_path,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(iter(demo.stdout.readline, "")), daemon=True)
        reader.start()
        most, deadline = 0, time.monotonic() + 240
        while not any("stays up at" in line for line in lines):
            assert demo.poll() is None, "".join(lines)[-3000:]
            assert time.monotonic() < deadline, "".join(lines)[-3000:]
            most = max(most, len(owned_by_demo(marker, Path(tmp))))
            time.sleep(0.2)
        url = re.search(r"stays up at (http://\S+?)/", "".join(lines)).group(1)  # type: ignore[union-attr]
        with urllib.request.urlopen(f"{url}/leaderboards/cutthroat", timeout=10) as response:
            page = response.read().decode()
        assert all(name in page for name in ("heuristic-1", "heuristic-2", "random-1", "random-2"))
        demo.send_signal(signal.SIGINT)
        demo.wait(timeout=60)
        reader.join(timeout=5)
        err = demo.stderr.read()  # type: ignore[union-attr]
        out = "".join(lines)
        assert demo.returncode == 0, (out[-3000:], err[-3000:])
        # the CLI, redis-server, the referee, 4 bots, the worker and its 2 pool processes, the web
        assert most >= 11, f"saw only {most} demo processes"
        board = out[out.index("cutthroat leaderboard"):]
        assert all(name in board for name in ("heuristic-1", "heuristic-2", "random-1", "random-2"))
        assert "12 matches played" in out and "every process stopped" in out
        assert "hosted   heuristic-2: submitted as version hosted-1" in out, "the last bot is hosted in a sandbox"
        assert owned_by_demo(marker, Path(tmp)) == [], "a demo process outlived it"


@pytest.mark.slow
def test_a_worker_whose_pool_cannot_start_exits_non_zero(redis_url: str, tmp_path: Path) -> None:
    """`pitch-arena worker` whose pool processes die as they start stops on Celery's
    "Unrecoverable error" and exits 1 (it exited 0: Celery.start drops the status), as the
    CLI documents for a service that failed.  It did not exit at all when its processes died a
    few milliseconds after Celery's start check (see workers.prefork); the timeout fails such a
    hang in 30 s, against a few seconds for a pass."""
    env = {**os.environ, "REDIS_URL": redis_url, "PITCH_STORE_PREFIX": f"exit-{uuid.uuid4().hex[:8]}:"}
    worker = subprocess.run(
        [str(BIN / "pitch-arena"), "worker", "--concurrency", "1", "--", "--include", "tests.workers.crashing_pool",
         "--without-mingle", "--without-gossip", "--without-heartbeat"],
        env=env, cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True, timeout=30)
    assert "Could not start worker processes" in worker.stderr, worker.stderr[-2000:]
    assert worker.returncode == 1, worker.stderr[-2000:]


def test_bots_table_shows_bot_supplied_strings_inert() -> None:
    """A bot version of terminal escapes, a name of rich markup and an owner with NUL are
    printed by ``pitch-arena bots`` as visible text: no escape reaches the terminal, no
    markup is interpreted."""
    import io

    from rich.console import Console

    from cli.views import bots_table
    from pitch_sdk.proto.pitch.v1 import arena_pb2

    bot = arena_pb2.BotInfo(bot_id="id1", name="[red]x[/red]", owner="o\x00wner", connected=True, capacity=1,
                            bot_version="\x1b[2J\x1b[31mPWNED")
    out = io.StringIO()
    Console(file=out, force_terminal=True, color_system="standard", width=200).print(bots_table([bot]))
    text = out.getvalue()
    assert "\x1b[2J" not in text and "\x1b[31mPWNED" not in text and "\x00" not in text
    assert "\\x1b[2J\\x1b[31mPWNED" in text and "[red]x[/red]" in text and "o\\x00wner" in text


@pytest.mark.slow
def test_an_offline_entrant_is_refused_up_front_and_each_not_played_match_says_why(
        arena: ArenaThread, env: dict[str, str], tmp_path: Path) -> None:
    """A tournament entering a bot that is not connected is refused before anything is
    created (it used to run, wait through the retries and end '3 not played' with the reason
    only in the worker's log), naming the bot and --allow-offline; with --allow-offline it
    runs, and the CLI lists each match not played with the referee's reason, as does
    `match-log` of such a match (it answered 'no recorded match')."""
    store = Store.from_url(env["REDIS_URL"], env["PITCH_STORE_PREFIX"])
    tournaments = TournamentStore(store)
    online = [store.bot(arena.connect("heuristic")).name for _ in range(2)]  # type: ignore[union-attr]
    offline = store.bot(arena.register()[0]).name  # type: ignore[union-attr]
    fast = {**env, "PITCH_MATCH_RETRIES": "0"}  # no retries: an offline bot's match is not played at once
    entrants = ",".join([*online, offline])
    before = set(tournaments.tournament_ids())
    code, _, err = invoke(fast, "tournament", "cutthroat", "--bots", entrants)
    assert code == 2 and offline in err and "--allow-offline" in err
    assert set(tournaments.tournament_ids()) == before, "nothing was created"
    worker = WorkerProcess(WorkerConfig.from_env(fast), "offline", tmp_path)
    try:
        code, out, err = invoke(fast, "tournament", "cutthroat", "--bots", entrants, "--allow-offline")
    finally:
        worker.stop()
    assert code == 0, (out, err, worker.log()[-3000:])
    assert offline in err, "the warning names the bot"
    tournament_id = out.split("tournament ", 1)[1].split(":", 1)[0]
    outcomes = tournaments.outcomes(tournament_id)
    assert len(outcomes) == 3 and all(o["status"] == "not_played" for o in outcomes.values())
    assert "3 not played" in out
    for index, outcome in outcomes.items():
        assert outcome["reason"].split(":")[0] in line_of(out, f"{tournament_id}.{index}")
    code, _, err = invoke(env, "match-log", f"{tournament_id}.0")
    assert code == 1 and "was not played" in err and outcomes[0]["reason"].split(":")[0] in err
    assert "--retry-not-played" in err


def test_the_operator_disables_and_enables_accounts_and_bots(env: dict[str, str]) -> None:
    """`account disable|enable` and `bot disable|enable` flip what the referee and the bot
    hosts read; an unknown name is a one-line error with exit code 2."""
    store = Store.from_url(env["REDIS_URL"], env["PITCH_STORE_PREFIX"])
    accounts = Accounts(store)
    owner = accounts.create(f"op-{uuid.uuid4().hex[:6]}", "operator-test")
    record, _ = accounts.create_bot(owner, f"op-bot-{uuid.uuid4().hex[:6]}")
    code, out, _ = invoke(env, "bot", "disable", record.name)
    assert code == 0 and "disabled" in out and accounts.playable([record.bot_id]) == {record.bot_id: False}
    invoke(env, "bot", "enable", record.name)
    code, out, _ = invoke(env, "account", "disable", owner.name)
    assert code == 0 and accounts.playable([record.bot_id]) == {record.bot_id: False}
    code, out, _ = invoke(env, "account", "enable", owner.name)
    assert code == 0 and accounts.playable([record.bot_id]) == {record.bot_id: True}
    code, _, err = invoke(env, "account", "disable", "no-such-account")
    assert code == 2 and "no account named" in err
