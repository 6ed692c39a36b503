"""The web arena's application factory: the pages of :mod:`web.pages`, the templates, the
static assets (served by the service itself: no CDN) and error pages.

``create_app`` takes a :class:`~web.arena.WebArena` so tests can point it at their own
store and referee; ``python -m web`` and ``pitch-arena web`` build one from the
environment."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from web.accounts import api as accounts_api
from web.accounts import pages as account_pages
from web.arena import WebArena
from web.config import WebConfig
from web.hosted import api as hosted_api
from web.hosted import pages as hosted_pages
from web.humans import games as humans
from web.pages import bots, leaderboards, live, play, replays, sprt, tournaments, versions
from web.pages.common import render
from web.security_headers import SecurityHeaders
from web.templating import make_templates, path_for
from web.versions import api as versions_api

STATIC = Path(__file__).parent / "static"


def home(request: Request) -> Response:
    """The arena's front page is its leaderboards."""
    return RedirectResponse(path_for(request, "leaderboards"), status_code=302)


def health(request: Request) -> Response:
    """Liveness for orchestrators: the process serves (it does not ask Redis or the referee)."""
    return Response("ok\n", media_type="text/plain")


async def error_page(request: Request, exc: Exception) -> Response:
    """An HTTP error as a page (or plain text for non-browser clients) that says what was wrong."""
    assert isinstance(exc, HTTPException)
    if "text/html" not in request.headers.get("accept", ""):
        return Response(f"{exc.status_code}: {exc.detail}\n", status_code=exc.status_code, media_type="text/plain")
    return render(request, "error.html", status_code=exc.status_code, status=exc.status_code, detail=exc.detail)


async def server_error(request: Request, exc: Exception) -> Response:
    """An unexpected fault: a plain 500 that shows nothing of the exception (it is logged)."""
    return Response("500: the web arena failed to answer this request; it is in the service's log\n",
                    status_code=500, media_type="text/plain")


def create_app(config: WebConfig, arena: WebArena | None = None, extra_routes: list[BaseRoute] | None = None
               ) -> Starlette:
    """The web arena over ``arena`` (default: the store and referee ``config`` names)."""
    served = arena or WebArena.from_config(config)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with humans.serving(app):  # people's games: their seat and the house bots (web.humans)
            yield
        await served.close()

    routes: list[BaseRoute] = [
        Route("/", home, name="home"),
        Route("/healthz", health, name="health"),
        *leaderboards.routes,
        *bots.routes,
        *versions.routes,
        *tournaments.routes,
        *sprt.routes,
        *replays.routes,
        *live.routes,
        *play.routes,
        *account_pages.routes,
        *hosted_pages.routes,
        *accounts_api.routes,
        *hosted_api.routes,
        *versions_api.routes,
        accounts_api.not_found_route,
        *(extra_routes or []),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan, middleware=[Middleware(SecurityHeaders)],
                    exception_handlers={HTTPException: error_page, Exception: server_error})
    app.state.arena = served
    app.state.templates = make_templates()
    return app
