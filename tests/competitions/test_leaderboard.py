"""Live Elo leaderboards against a real private redis-server: idempotency, atomicity under
concurrent workers (threads and processes), and the queries the CLI shows.

Each test works under its own key prefix and deletes only those keys afterwards.
"""

from __future__ import annotations

import multiprocessing
import random
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from competitions.ratings.leaderboard import FittedTable, Leaderboard, boards, record_match, tournament_table
from competitions.ratings.model import DEFAULT_CONFIG, Z95, EloConfig, elo_update, los_from_ratings, rated_match
from store.redis_store import Store
from store.results import result_to_dict
from store.versions import BotVersions
from tests.results import duel, match_result

INITIAL = DEFAULT_CONFIG.initial


@pytest.fixture
def store(redis_url: str) -> Iterator[Store]:
    """A store under a fresh prefix; its keys are removed afterwards."""
    store = Store.from_url(redis_url, prefix=f"test-elo-{uuid.uuid4().hex[:8]}:")
    yield store
    keys = list(store.client.scan_iter(match=store.prefix + "*"))
    if keys:
        store.client.delete(*keys)


def partnership_matches(count: int, seed: int = 3) -> list[dict[str, Any]]:
    """``count`` two-game partnership matches between the same four bots (so every match
    touches every bot's rating: the most contended case), as stored JSON dicts."""
    rng = random.Random(seed)
    bots = ["n", "e", "s", "w"]
    results = []
    for i in range(count):
        rng.shuffle(bots)
        games = [(w, [21, 9] if w == 0 else [9, 21]) for w in (rng.randrange(2), rng.randrange(2))]
        results.append(result_to_dict(match_result(f"pm{i}", list(bots), games)))
    return results


def check_board(board: Leaderboard, results: list[dict[str, Any]]) -> None:
    """Every result applied exactly once, ratings zero-sum, and the final ratings equal to a
    sequential replay in the order the matches were applied (so no update was lost)."""
    assert all(board.applied(r["match_id"]) for r in results)
    rows = board.top(10)
    assert sum(row.rating - INITIAL for row in rows) == pytest.approx(0, abs=1e-6)
    games: Counter[str] = Counter()
    for result in results:
        for bot in rated_match(result).bots:
            games[bot] += len(result["games"])
    assert {row.bot_id: row.games for row in rows} == dict(games)
    order = [point.match_id for point in board.history("n")]
    assert sorted(order) == sorted(r["match_id"] for r in results)
    by_id = {r["match_id"]: rated_match(r) for r in results}
    ratings: dict[str, float] = {}
    for match_id in order:
        for bot, change in elo_update(by_id[match_id], ratings, board.config).changes.items():
            ratings[bot] = ratings.get(bot, INITIAL) + change
    assert {row.bot_id: row.rating for row in rows} == pytest.approx(ratings, abs=1e-9)


def test_recording_twice_changes_nothing(store: Store) -> None:
    board = Leaderboard(store, "duel")
    result = duel("d1", "a", "b", "wwl")
    changes = board.record(result, now=100.0)
    assert changes is not None and changes["a"] == pytest.approx(-changes["b"]) and changes["a"] > 0
    before = board.top()
    assert board.record(result, now=200.0) is None
    assert board.record(result_to_dict(result)) is None
    assert board.top() == before
    assert [p.match_id for p in board.history("a")] == ["d1"]


def test_an_aborted_match_is_marked_but_rates_nothing(store: Store) -> None:
    board = Leaderboard(store, "duel")
    assert board.record(match_result("x", ["a", "b"], [(0, [7, 2])], preset="duel", completed=False)) == {}
    assert board.applied("x") and board.top() == []


def test_an_unrated_match_is_marked_but_rates_nothing_in_either_form(store: Store) -> None:
    """A match the referee marked unrated (a seat mostly played by fallbacks) moves no live
    rating and no Bradley–Terry row, whether it comes as the protobuf or as stored."""
    board = Leaderboard(store, "duel")
    result = duel("u1", "a", "b", "www")
    result.unrated, result.unrated_reason = True, "fallback-heavy: seat 2 40 of 44"
    assert board.record(result) == {} and board.record(result_to_dict(result)) is None
    stored = result_to_dict(duel("u2", "a", "b", "www")) | {"unrated": True}
    assert board.record(stored) == {} and board.top() == [] and board.fitted() == []
    assert tournament_table([result, stored]) == [] and rated_match(stored).games == ()
    assert len(tournament_table([stored | {"unrated": False}])) == 2


def test_concurrent_threads_lose_no_update(store: Store) -> None:
    """Eight threads record 60 matches of the same four bots, every match twice."""
    board = Leaderboard(store, "partnership")
    results = partnership_matches(60)
    work = results + results[::-1]
    random.Random(5).shuffle(work)
    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(board.record, work))
    assert sum(outcome is not None for outcome in outcomes) == len(results)
    check_board(board, results)


def record_all(url: str, prefix: str, results: list[dict[str, Any]], seed: int) -> int:
    """A worker process: record every result (in its own order); how many it applied."""
    board = Leaderboard(Store.from_url(url, prefix), "partnership")
    random.Random(seed).shuffle(results)
    return sum(board.record(result) is not None for result in results)


def test_concurrent_processes_apply_every_match_once(store: Store, redis_url: str) -> None:
    """Three processes each try to record all 40 matches; together they apply each once."""
    results = partnership_matches(40, seed=9)
    context = multiprocessing.get_context("spawn")
    with context.Pool(3) as pool:
        applied = pool.starmap(record_all, [(redis_url, store.prefix, results, seed) for seed in range(3)])
    assert sum(applied) == len(results)
    check_board(Leaderboard(store, "partnership"), results)


def test_leaderboard_queries(store: Store) -> None:
    board = Leaderboard(store, "duel", EloConfig(provisional_games=10))
    board.record(duel("d1", "a", "b", "wwwwwwwwwd"), now=1.0)
    board.record(duel("d2", "b", "c", "wwwwwlll"), now=2.0)
    board.record(duel("d3", "a", "c", "wwwwwwww"), now=3.0)
    top = board.top()
    assert [row.bot_id for row in top] == ["a", "b", "c"]
    assert [row.rank for row in top] == [1, 2, 3]
    a = top[0]
    assert (a.games, a.wins, a.draws, a.provisional) == (18, 17, 1, False)
    assert a.win_rate == pytest.approx(17 / 18)
    assert top[1].provisional is False and top[1].games == 18
    assert all(row.lower is not None and row.lower < row.rating < row.upper for row in top)  # type: ignore[operator]
    assert top[0].los_next is not None and top[0].los_next > 0.5
    assert top[-1].los_next is None
    assert board.top(1)[0].los_next == top[0].los_next
    assert board.rank("c") == 3 and board.rank("nobody") is None
    assert board.row("b") == top[1] and board.row("nobody") is None
    history = board.history("a")
    assert [(p.match_id, p.time, p.games) for p in history] == [("d1", 1.0, 10), ("d3", 3.0, 18)]
    assert history[-1].rating == pytest.approx(a.rating)
    assert history[0].rating == pytest.approx(INITIAL + history[0].change)
    versus = board.head_to_head("b", "c")
    assert (versus.games, versus.wins, versus.draws, versus.losses) == (8, 5, 0, 3)
    assert versus.los == pytest.approx(0.7602, abs=1e-4)  # Φ(2 / sqrt(8))
    assert board.head_to_head("a", "b").draws == 1
    assert [(h.opponent, h.games) for h in board.opponents("a")] == [("b", 10), ("c", 8)]
    assert board.head_to_head("a", "nobody").games == 0
    assert boards(store) == ["duel"]


def test_each_preset_has_its_own_board(store: Store) -> None:
    """record_match picks the board from the result's preset; partners are not opponents."""
    record_match(store, result_to_dict(match_result("p1", ["a", "b", "c", "d"], [(0, [21, 4])])))
    record_match(store, match_result("c1", ["a", "b", "c"], [(2, [5, 9, 11])], parties=3, preset="cutthroat"))
    assert record_match(store, match_result("c1", ["a", "b", "c"], [], parties=3, preset="cutthroat")) is None
    team, alone = Leaderboard(store, "partnership"), Leaderboard(store, "cutthroat")
    assert [r.bot_id for r in alone.top()] == ["c", "b", "a"]
    assert {r.bot_id: r.rating for r in team.top()} == pytest.approx(
        {"a": INITIAL + 8, "c": INITIAL + 8, "b": INITIAL - 8, "d": INITIAL - 8})
    assert team.head_to_head("a", "c").games == 0  # partners, not opponents
    assert boards(store) == ["cutthroat", "partnership"]
    with pytest.raises(ValueError, match="board"):
        Leaderboard(store, "bad:name")


def test_tournament_table_reads_dicts_and_protobufs_in_any_order() -> None:
    results = [duel("t1", "a", "b", "wwwl"), duel("t2", "b", "c", "wwl"), duel("t3", "a", "c", "wwww")]
    table = tournament_table(results)
    assert [row.bot_id for row in table] == ["a", "b", "c"]
    assert tournament_table([result_to_dict(r) for r in reversed(results)]) == table


# ----------------------------------------------------------------------------- cached Bradley–Terry table
def record_both(store: Store, board: Leaderboard, results: list[dict[str, Any]]) -> None:
    """What a match task does: store the result, then rate it."""
    for result in results:
        store.record_match(result["match_id"], result, [])
        board.record(result)


def wait_fresh(board: Leaderboard, timeout: float = 20.0) -> FittedTable:
    """The cached table once it is fitted from every applied match and no refit holds the lock."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        table = board.cached_table()
        applied = board.client.scard(f"{board.store.prefix}elo:{board.board}:applied")
        if table is not None and table.matches == applied and not board.client.exists(LOCK.format(board)):
            return table
        time.sleep(0.02)
    raise AssertionError("the cached table never became fresh")


LOCK = "{0.store.prefix}elo:{0.board}:fitted-lock"


def test_a_small_board_without_a_table_is_fitted_at_once_and_cached(store: Store) -> None:
    board = Leaderboard(store, "partnership")
    assert board.fitted_cached() == [] and board.cached_table() is None  # nothing rated, nothing cached
    results = partnership_matches(12)
    record_both(store, board, results)
    rows = board.fitted_cached()
    assert rows == board.fitted() and len(rows) == 4
    table = board.cached_table()
    assert table is not None and table.matches == 12 and table.rows == rows
    assert FittedTable.from_json(table.to_json()) == table  # floats survive JSON exactly
    assert store.client.get(f"{store.prefix}elo:partnership:fitted") is not None


def test_a_stale_table_is_served_and_refitted_in_the_background(store: Store) -> None:
    board = Leaderboard(store, "partnership")
    results = partnership_matches(30)
    record_both(store, board, results[:20])
    old = board.fitted_cached()
    record_both(store, board, results[20:])
    # Refitted recently (interval not reached): served stale, no refit started.
    assert board.fitted_cached(refit_interval_s=3600) == old
    assert not store.client.exists(LOCK.format(board))
    # Due: still served stale at once, refitted behind the page.
    assert board.fitted_cached(refit_interval_s=0) == old
    fresh = wait_fresh(board)
    assert fresh.matches == 30 and fresh.rows == board.fitted() != old
    assert board.fitted_cached(refit_interval_s=0) == fresh.rows


def test_a_large_board_without_a_table_never_waits_for_its_fit(store: Store) -> None:
    board = Leaderboard(store, "partnership")
    record_both(store, board, partnership_matches(10))
    assert board.fitted_cached(sync_matches=5) == []  # the first fit runs in the background
    assert wait_fresh(board).rows == board.fitted()


def test_one_refit_at_a_time_per_board_and_a_refit_never_counted_twice(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    board = Leaderboard(store, "partnership")
    results = partnership_matches(16)
    record_both(store, board, results)
    record_both(store, board, results)  # a retried task: stored and rated once
    go_on = threading.Event()
    real_refit = Leaderboard.refit

    def slow_refit(self: Leaderboard) -> FittedTable:
        go_on.wait(10)  # a large board's refit: still running while every other reader comes by
        return real_refit(self)

    monkeypatch.setattr(Leaderboard, "refit", slow_refit)
    with ThreadPoolExecutor(8) as pool:
        started = [t for t in pool.map(lambda _: Leaderboard(store, "partnership").refit_in_background(), range(16))
                   if t is not None]
    assert len(started) == 1  # the others found the lock taken
    go_on.set()
    started[0].join()
    monkeypatch.undo()
    table = wait_fresh(board)
    assert table.matches == 16
    assert sum(row.games for row in table.rows) == 4 * sum(len(r["games"]) for r in results)
    # A slower refit of an older applied set does not replace the newer table.
    older = FittedTable(10, table.computed + 1, table.rows[:1])
    assert board._store_fitted(keys=[f"{store.prefix}elo:partnership:fitted"], args=[older.to_json(), 10]) == 0
    assert board.cached_table() == table
    # While another process holds the lock, a stale table is served and no second refit starts.
    more = partnership_matches(18, seed=4)[16:]
    for result in more:
        result["match_id"] = "extra-" + result["match_id"]
    record_both(store, board, more)
    store.client.set(LOCK.format(board), "someone else", ex=60)
    assert board.fitted_cached(refit_interval_s=0) == table.rows
    assert board.refit_in_background() is None
    assert board.cached_table() == table
    store.client.delete(LOCK.format(board))
    assert board.refit_in_background() is not None
    assert wait_fresh(board).matches == 18


def test_superseded_versions_leave_the_shown_table_and_the_rest_rank_among_themselves(store: Store) -> None:
    """With b's first version superseded (b connected again as another version), the board
    leaves it out of its ranking, pages and Bradley–Terry table by default: a, c, d ranked
    1-3, and the row above b gets its LOS over c from the two intervals; all_versions shows
    the fitted table as it is."""
    for i, (x, y, outcomes) in enumerate([("a", "b", "wwwl"), ("b", "c", "wwwl"), ("c", "d", "wwwl"),
                                          ("a", "c", "wwwl"), ("b", "d", "wwll")]):  # fitted order: a b c d
        result = result_to_dict(duel(f"s{i}", x, y, outcomes))
        store.record_match(result["match_id"], result, [])
        record_match(store, result)
    versions = BotVersions(store)
    versions.connected("b", "1")
    versions.connected("b", "2")  # b's rated id "b" is now its first version's: superseded
    assert versions.superseded() == {"b"}
    every = Leaderboard(store, "duel", all_versions=True)
    fitted = every.fitted()
    assert [row.bot_id for row in fitted] == ["a", "b", "c", "d"]
    assert every.shown(fitted) == fitted and "b" in every.ranked_ids() and every.size() == 4
    board = Leaderboard(store, "duel")
    shown = board.shown(fitted)
    assert [row.bot_id for row in shown] == [row.bot_id for row in fitted if row.bot_id != "b"]
    assert [row.rank for row in shown] == [1, 2, 3] and shown[-1].los_next is None
    assert "b" not in board.ranked_ids() and board.size() == 3 and "b" not in {r.bot_id for r in board.top(10)}
    order = [row.bot_id for row in fitted]
    for place, row in enumerate(shown[:-1]):
        below = shown[place + 1]
        original = next(r for r in fitted if r.bot_id == row.bot_id)
        if order.index(below.bot_id) == order.index(row.bot_id) + 1:
            assert row.los_next == original.los_next
        else:  # b was between them
            sigma = [(r.upper - r.lower) / (2 * Z95) for r in (row, below)]  # type: ignore[operator]
            assert row.los_next == pytest.approx(los_from_ratings(row.rating - below.rating,
                                                                  sigma[0] ** 2 + sigma[1] ** 2))
    assert board.standings(10)[0] == shown
