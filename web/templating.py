"""The Jinja2 environment every page renders with: autoescaping on for every template (bot
names, versions and descriptions are bot-supplied text), and the few filters the tables
share so a number reads the same on every page."""

from __future__ import annotations

import datetime
from pathlib import Path
from urllib.parse import quote

from jinja2 import pass_context
from starlette.requests import Request
from starlette.templating import Jinja2Templates

from store.hosted import VERSION
from store.versions import bot_of

TEMPLATES = Path(__file__).parent / "templates"


def rating(value: float | None) -> str:
    """A rating as a whole number, or a dash."""
    return "—" if value is None else f"{value:.0f}"


def percent(value: float | None) -> str:
    """A fraction as a whole percentage, or a dash."""
    return "—" if value is None else f"{100 * value:.0f}%"


def interval(lower: float | None, upper: float | None) -> str:
    """A 95% interval as ``lower–upper``, or a dash while nothing is known."""
    return "—" if lower is None or upper is None else f"{lower:.0f}–{upper:.0f}"


def when(stamp: float | None) -> str:
    """A Unix time as UTC, to the second."""
    if not stamp:
        return "—"
    return datetime.datetime.fromtimestamp(stamp, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def milliseconds(value: int | None) -> str:
    """A decision time bound from :func:`pitch_sdk.protocol.decision_times.percentile_ms`."""
    if value is None:
        return "—"
    if value < 0:
        return "> 60 s"
    return f"≤ {value} ms" if value < 1000 else f"≤ {value / 1000:g} s"


def bot_path(bot_id: str) -> str:
    """The path of a bot's page (a later version's rated id links its bot's), built without
    the router: a leaderboard or bot page links hundreds of bots, and ``url_for`` per link
    was a large share of its rendering."""
    return "/bots/" + quote(bot_of(bot_id), safe="")


def version_path(bot_id: str, version: str) -> str | None:
    """The path of a version's page (``/bots/{id}/versions/{version}``), or ``None`` for a
    version no page names: a remote bot's hello may say any printable string, and the page
    takes what :data:`store.hosted.VERSION` allows (every hosted version's name does)."""
    if not VERSION.fullmatch(version):
        return None
    return f"/bots/{quote(bot_id, safe='')}/versions/{version}"


def path_for(request: Request, name: str, /, **params: object) -> str:
    """The root-relative path of route ``name``: links and redirects never carry the host the
    request named (a forged ``Host`` header would otherwise end up in every link and
    ``Location`` a cache may keep)."""
    return str(request.scope.get("root_path", "")) + str(request.app.url_path_for(name, **params))


@pass_context
def _template_path_for(context: dict[str, object], name: str, /, **params: object) -> str:
    request = context["request"]
    assert isinstance(request, Request)
    return path_for(request, name, **params)


def make_templates() -> Jinja2Templates:
    """The templates with the arena's filters (autoescape is on for ``.html``)."""
    templates = Jinja2Templates(directory=str(TEMPLATES))
    templates.env.filters.update(rating=rating, percent=percent, interval=interval, when=when,
                                 milliseconds=milliseconds)
    templates.env.globals.update(milliseconds=milliseconds, bot_path=bot_path, version_path=version_path,
                                 url_for=_template_path_for)
    return templates
