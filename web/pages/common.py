"""What every page handler needs: the arena, rendering, and short, safe error messages."""

from __future__ import annotations

from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.templating import Jinja2Templates

from web.arena import WebArena

#: How much of a user-supplied value an error message repeats.
SHOWN_CHARACTERS = 60
#: The longest ``?page=`` read as a number; a longer one is past any last page.
PAGE_DIGITS = 9


def arena(request: Request) -> WebArena:
    """The arena the application serves."""
    found: WebArena = request.app.state.arena
    return found


def templates(request: Request) -> Jinja2Templates:
    """The application's templates."""
    found: Jinja2Templates = request.app.state.templates
    return found


def render(request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    """A page from ``template`` with ``context`` (autoescaped)."""
    return templates(request).TemplateResponse(request, template, context, status_code=status_code)


def shown(value: str) -> str:
    """A user-supplied value cut to a readable length, for an error message."""
    return value if len(value) <= SHOWN_CHARACTERS else value[:SHOWN_CHARACTERS] + "…"


def not_found(what: str, value: str) -> HTTPException:
    """A 404 naming what was not found (the value shortened, and escaped by the template)."""
    return HTTPException(404, f"no {what} {shown(value)!r}")


def page_number(request: Request, pages: int) -> int:
    """The ``?page=`` asked for (from 1; default 1), at most ``pages``: a page past the last
    shows the last, however many digits it has (none are converted past
    :data:`PAGE_DIGITS`); anything but digits is a 400."""
    raw = request.query_params.get("page", "1")
    if not (raw.isascii() and raw.isdigit()):
        raise HTTPException(400, "page: a whole number from 1")
    asked = int(raw) if len(raw) <= PAGE_DIGITS else pages
    return min(max(asked, 1), max(pages, 1))
