"""Leaderboards, one per preset: the CLI's table, ranked by the order-independent
Bradley–Terry rating (with its interval and LOS to the next row) with the live Elo beside it
(its interval, provisional mark), games and win rate; sortable by any column through the
URL, and a rating-history chart of the top bots."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from competitions.ratings.leaderboard import Leaderboard, boards
from competitions.ratings.model import RatingRow
from store.versions import BotVersions
from web.pages.common import arena, not_found, page_number, render
from web.templating import bot_path
from web.views.charts import Series, history_chart

#: Rows per page of a leaderboard.
PAGE_SIZE = 100
#: Bots drawn in the rating-history chart.
CHARTED = 6
#: Latest rating points drawn per bot (a long history is read and drawn only this far back).
CHART_POINTS = 120
#: Columns a leaderboard can be sorted by, with the key each sorts on (best first); the first
#: is the default: the Bradley–Terry rank, which does not depend on the order matches
#: finished in (the live Elo does).
SORTS = ("bt", "elo", "games", "win", "name")


@dataclass(frozen=True)
class BoardRow:
    """One bot's row: its live Elo row and, when fitted, its Bradley–Terry row."""

    live: RatingRow
    fitted: RatingRow | None
    name: str


def leaderboards(request: Request) -> Response:
    """Every board (preset) that has rated matches, with its number of rated bots."""
    store = arena(request).store
    sizes = [(board, Leaderboard(store, board).size()) for board in boards(store)]
    return render(request, "leaderboards.html", boards=sizes)


def _order(board: Leaderboard, fitted: list[RatingRow], sort: str, names: Callable[[list[str]], dict[str, str]]
           ) -> list[str]:
    """Every rated bot of the board in the order of ``sort`` (not ``elo``, which pages in
    Redis): by the Bradley–Terry table's rank, or by its counts of games and wins (the same
    matches as the live rows'), or by name.  Bots the cached table does not hold yet (rated
    since its fit) follow in live order, so no rated bot is left out."""
    ranked = board.ranked_ids()
    if sort == "name":
        known = names(ranked)
        return sorted(ranked, key=lambda bot: ((known.get(bot) or bot).casefold(), bot))
    table = {row.bot_id: row for row in fitted}
    if sort == "games":
        keyed = sorted(table.values(), key=lambda r: (-r.games, r.rank))
    elif sort == "win":
        keyed = sorted(table.values(), key=lambda r: (-r.win_rate, r.rank))
    else:
        keyed = sorted(table.values(), key=lambda r: r.rank)
    shown = set(ranked)  # the versions the board shows (the table fits every version)
    order = [row.bot_id for row in keyed if row.bot_id in shown]
    return order + [bot for bot in ranked if bot not in table]


def leaderboard(request: Request) -> Response:
    """One board's table and chart; ``?sort=`` one of :data:`SORTS` (default: the
    Bradley–Terry rank), ``?page=`` from 1 (past the last: the last; not digits: 400),
    ``?versions=all`` every version of every bot (default: each bot's current version).

    Only the page's rows are read: the live order pages in Redis, any other order is
    taken from the cached Bradley–Terry table (or the names) and then the page's live rows
    are read, so a page costs the same with ten bots or thousands."""
    web = arena(request)
    board_name = request.path_params["board"]
    if board_name not in boards(web.store):
        raise not_found("leaderboard", board_name)
    sort = request.query_params.get("sort", SORTS[0])
    if sort not in SORTS:
        sort = SORTS[0]
    all_versions = request.query_params.get("versions") == "all"
    board = Leaderboard(web.store, board_name, web.config.elo, all_versions=all_versions)
    total = board.size()
    pages = max(1, -(-total // PAGE_SIZE))
    page = page_number(request, pages)
    fitted_rows = board.shown(web.fitted_table(board_name))
    fitted = {row.bot_id: row for row in fitted_rows}
    first = (page - 1) * PAGE_SIZE
    if sort == "elo":
        live = board.page(first, PAGE_SIZE)
    else:
        ids = _order(board, fitted_rows, sort, web.names)[first:first + PAGE_SIZE]
        by_bot = board.rows_for(ids)
        live = [by_bot[bot] for bot in ids if bot in by_bot]
    top = live[:CHARTED] if sort == "elo" and page == 1 else board.page(0, CHARTED)
    names = web.names([row.bot_id for row in live] + [row.bot_id for row in top])
    if all_versions:  # name@version, the first version's too
        names.update(BotVersions(web.store).labels(names))
    rows = [BoardRow(row, fitted.get(row.bot_id), names.get(row.bot_id, row.bot_id)) for row in live]
    chart = history_chart([Series(names.get(row.bot_id, row.bot_id), bot_path(row.bot_id),
                                  [(p.time, p.rating) for p in board.history(row.bot_id, last=CHART_POINTS)])
                           for row in top])
    return render(request, "leaderboard.html", board=board_name, rows=rows, sort=sort, page=page,
                  versions="all" if all_versions else "",
                  pages=pages, total=total, chart=chart,
                  provisional_games=board.config.provisional_games)


routes = [
    Route("/leaderboards", leaderboards, name="leaderboards"),
    Route("/leaderboards/{board}", leaderboard, name="leaderboard"),
]
