"""Leaderboards, one per preset: the CLI's table (live Elo with its 95% interval and
provisional mark, games, win rate, LOS to the next row, Bradley–Terry with its interval and
LOS), sortable by any column through the URL, and a rating-history chart of the top bots."""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from web.pages.common import arena, not_found, render
from web.views.charts import Series, history_chart
from workers.ratings.leaderboard import Leaderboard, boards
from workers.ratings.model import RatingRow

#: Rows per page of a leaderboard.
PAGE_SIZE = 100
#: Bots drawn in the rating-history chart.
CHARTED = 6
#: Columns a leaderboard can be sorted by, with the key each sorts on (best first).
SORTS = ("elo", "bt", "games", "win", "name")


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


def _sorted(rows: list[BoardRow], sort: str) -> list[BoardRow]:
    if sort == "bt":
        return sorted(rows, key=lambda r: (r.fitted is None, r.fitted.rank if r.fitted else 0, r.live.rank))
    if sort == "games":
        return sorted(rows, key=lambda r: (-r.live.games, r.live.rank))
    if sort == "win":
        return sorted(rows, key=lambda r: (-r.live.win_rate, r.live.rank))
    if sort == "name":
        return sorted(rows, key=lambda r: (r.name.casefold(), r.live.rank))
    return rows


def leaderboard(request: Request) -> Response:
    """One board's table and chart; ``?sort=`` one of :data:`SORTS`, ``?page=`` from 1."""
    web = arena(request)
    board_name = request.path_params["board"]
    if board_name not in boards(web.store):
        raise not_found("leaderboard", board_name)
    sort = request.query_params.get("sort", "elo")
    if sort not in SORTS:
        sort = "elo"
    try:
        page = max(1, int(request.query_params.get("page", "1")))
    except ValueError:
        page = 1
    board = Leaderboard(web.store, board_name, web.config.elo)
    total = board.size()
    fitted = {row.bot_id: row for row in web.fitted_table(board_name)}
    # Live Elo order pages in Redis; any other order sorts the whole board, then cuts the page.
    live = board.page((page - 1) * PAGE_SIZE, PAGE_SIZE) if sort == "elo" else board.page(0, total)
    names = web.store.bot_names(row.bot_id for row in live)
    rows = [BoardRow(row, fitted.get(row.bot_id), names.get(row.bot_id, row.bot_id)) for row in live]
    if sort != "elo":
        rows = _sorted(rows, sort)[(page - 1) * PAGE_SIZE:page * PAGE_SIZE]
    top = board.page(0, CHARTED)
    top_names = web.store.bot_names(row.bot_id for row in top)
    chart = history_chart([Series(top_names.get(row.bot_id, row.bot_id),
                                  str(request.url_for("bot", bot_id=row.bot_id)),
                                  [(p.time, p.rating) for p in board.history(row.bot_id)]) for row in top])
    return render(request, "leaderboard.html", board=board_name, rows=rows, sort=sort, page=page,
                  pages=max(1, -(-total // PAGE_SIZE)), total=total, chart=chart,
                  provisional_games=board.config.provisional_games)


routes = [
    Route("/leaderboards", leaderboards, name="leaderboards"),
    Route("/leaderboards/{board}", leaderboard, name="leaderboard"),
]
