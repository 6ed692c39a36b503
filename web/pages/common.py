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
#: The longest number read from a request (``?page=``, ``?step=``, a replay's game); a
#: longer one is past any last page, step or game, and is never converted (Python refuses
#: over 4,300 digits, and Redis refuses offsets past 64 bits).
NUMBER_DIGITS = 9


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


def query_number(request: Request, name: str, first: int, last: int) -> int:
    """The whole number ``?{name}=`` asks for (default ``first``), from ``first`` to
    ``last``: a number past the last is the last, however many digits it has (none are converted
    past :data:`NUMBER_DIGITS`), so an old link to a list that shrank still shows its end;
    anything but ASCII digits is a 400 naming the parameter, not repeating the value."""
    raw = request.query_params.get(name, str(first))
    if not (raw.isascii() and raw.isdigit()):
        raise HTTPException(400, f"{name}: a whole number from {first}")
    asked = int(raw) if len(raw) <= NUMBER_DIGITS else last
    return min(max(asked, first), max(last, first))


def form_number(raw: object, name: str, low: int, high: int) -> int:
    """A whole number a form sent, from ``low`` to ``high``; anything else (other digits
    than ASCII ones such as "²", thousands of digits, a sign) is a 400 naming the field and
    its bounds, not repeating the value."""
    text = str(raw).strip()
    if not (text.isascii() and text.isdigit()) or len(text) > NUMBER_DIGITS or not low <= int(text) <= high:
        raise HTTPException(400, f"{name} must be a whole number from {low} to {high}")
    return int(text)


def page_number(request: Request, pages: int) -> int:
    """The ``?page=`` asked for, from 1 to ``pages`` (:func:`query_number`)."""
    return query_number(request, "page", 1, pages)
