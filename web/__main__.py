"""``python -m web`` (and ``pitch-arena web``): serve the web arena (flags override
``PITCH_*`` environment variables)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from web.config import WebConfig

app = typer.Typer(add_completion=False)


@app.command()
def main(
    address: Annotated[str | None, typer.Option(help="host:port to serve on [PITCH_WEB_ADDRESS, 127.0.0.1:8080]")]
    = None,
    loglevel: Annotated[str, typer.Option(help="debug, info, warning or error.")] = "info",
) -> None:
    """Serve the web arena: leaderboards, bots, tournaments, replays, live matches, play.

    Reads Redis (REDIS_URL, PITCH_STORE_PREFIX) and calls the referee (PITCH_REFEREE,
    PITCH_ADMIN_TOKEN) like every other service."""
    from web.server import serve  # imported here: the command line's other commands need no web stack

    try:
        config = WebConfig.from_env(address=address)
    except ValueError as exc:
        Console(stderr=True, highlight=False).print(Text.assemble(("error: ", "red"), str(exc)))
        raise typer.Exit(2) from None
    Console(stderr=True, highlight=False).print(f"web arena on http://{config.address}/")
    serve(config, loglevel.lower())


if __name__ == "__main__":
    app()
