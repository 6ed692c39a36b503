"""A page per version of a bot, the author's loop in one place: where the version stands
(submitted, checking, waiting, testing, better, not-better, rejected, undecided: see
:mod:`competitions.version_tests.status`), its automatic SPRT against the previous version
(the run, the LLR between its bounds, the games against the cap, the pentanomial pair
counts, the Elo estimate with its interval, the verdict), its rating on each leaderboard,
its own conduct (strikes, timeouts, time per decision) and matches, apart from the bot's
other versions.

All of that is public, as fishtest's tests are: anyone may see that a version lost its
test, and a version that did stays playing, marked.  Its hosted record's compliance report
and its output (stdout and stderr, the last 64 KiB) are its owner's alone: the program's
own words may carry what its author would not publish."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from competitions.ratings.leaderboard import Leaderboard, boards
from competitions.ratings.model import RatingRow
from competitions.version_tests.status import version_status
from store.hosted import VERSION, HostedVersions
from store.versions import BotVersions, VersionRecord, rated_view
from web.arena import WebArena
from web.hosted.pages import signed_in_owner
from web.pages.bots import match_line
from web.pages.common import arena, not_found, page_number, render
from web.security_headers import no_store

#: Matches listed per page.
PAGE_SIZE = 20
#: A bot id is 12 hexadecimal digits (a check identity's is longer): a longer one is unknown.
MAX_BOT_ID = 64


@dataclass(frozen=True)
class BoardRating:
    """The version on one leaderboard: its live Elo row, and its Bradley–Terry row."""

    board: str
    live: RatingRow
    fitted: RatingRow | None
    ranked: bool
    """Whether the leaderboard ranks it (a superseded version is fitted, not ranked)."""


def version_page(request: Request) -> Response:
    """One version's page; 404 for an unknown bot or version, or a malformed version name."""
    web = arena(request)
    bot_id, version = request.path_params["bot_id"], request.path_params["version"]
    record = web.store.bot(bot_id) if len(bot_id) <= MAX_BOT_ID else None
    if record is None:
        raise not_found("bot", bot_id)
    status = version_status(web.store, bot_id, version) if VERSION.fullmatch(version) else None
    if status is None:
        raise not_found("version", version)
    seen = next((v for v in BotVersions(web.store).versions(bot_id) if v.version == version), None)
    owner = signed_in_owner(request, record) is not None
    hosted = HostedVersions(web.store) if owner and status.hosted is not None else None
    context: dict[str, Any] = {
        "record": record, "version": version, "seen": seen, "state": status.state, "detail": status.detail,
        "hosted": status.hosted is not None, "test": status.test, "owner": owner,
        # the owner's alone: never read for anyone else
        "report": (status.hosted["report"] if hosted is not None and status.hosted is not None
                   else status.check["report"] if owner and status.check is not None else ""),
        "output": hosted.log(bot_id, version).decode("utf-8", "replace") if hosted is not None else "",
    }
    if seen is not None:
        context |= _played(request, web, seen)
    page = render(request, "version.html", **context)
    return no_store(page) if owner else page


def _played(request: Request, web: WebArena, seen: VersionRecord) -> dict[str, Any]:
    """What a version that connected has: ratings, conduct, one page of its matches."""
    rated = seen.rated_id
    total = web.store.version_match_count(rated)
    pages = max(1, -(-total // PAGE_SIZE))
    page = page_number(request, pages)
    listed = web.store.version_matches(rated, PAGE_SIZE, (page - 1) * PAGE_SIZE)
    results = {str(r.get("match_id", "")): r for r in web.store.match_results([match_id for match_id, _ in listed])}
    # seen by version: the version's seats are those of its rated id, and every seat names a version
    matches = [match_line(rated_view(results[match_id]), rated, stamp) for match_id, stamp in listed
               if match_id in results]
    return {"ratings": _ratings(web, rated), "conduct": web.store.version_conduct(rated), "matches": matches,
            "match_count": total, "page": page, "pages": pages,
            "labels": BotVersions(web.store).labels({seat for line in matches for seat in line["seats"]})}


def _ratings(web: WebArena, rated: str) -> list[BoardRating]:
    """The version's row on every leaderboard it is rated on: the live Elo, and the
    Bradley–Terry row from the cached table (ranked as the leaderboard ranks, when it shows
    the version; a superseded version keeps its rating, fitted from every version's matches)."""
    found = []
    for board_name in boards(web.store):
        board = Leaderboard(web.store, board_name, web.config.elo)
        live = board.rows_for([rated]).get(rated)
        if live is None:
            continue
        table = web.fitted_table(board_name)
        shown = next((row for row in board.shown(table) if row.bot_id == rated), None)
        fitted = shown or next((row for row in table if row.bot_id == rated), None)
        found.append(BoardRating(board_name, live, fitted, shown is not None))
    return found


routes = [Route("/bots/{bot_id}/versions/{version}", version_page, name="version", methods=["GET"])]
