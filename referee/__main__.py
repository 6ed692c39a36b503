"""``python -m referee``: run a referee (flags override ``PITCH_*`` environment variables)."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from referee.config import RefereeConfig
from referee.server import configure_logging, serve
from workers.store import Store

app = typer.Typer(add_completion=False)


@app.command()
def main(
    address: Annotated[str | None, typer.Option(help="host:port to listen on [PITCH_REFEREE_ADDRESS]")] = None,
    redis_url: Annotated[str | None, typer.Option(help="Redis URL [REDIS_URL]")] = None,
    per_decision_ms: Annotated[int | None, typer.Option(help="time per decision [PITCH_PER_DECISION_MS]")] = None,
    bank_ms: Annotated[int | None, typer.Option(help="time bank per seat and match [PITCH_BANK_MS]")] = None,
    max_strikes: Annotated[int | None, typer.Option(help="strikes before forfeit, 0 never [PITCH_MAX_STRIKES]")] = None,
    reconnect_grace_s: Annotated[float | None, typer.Option(help="[PITCH_RECONNECT_GRACE_S]")] = None,
    json_logs: Annotated[bool, typer.Option(help="one JSON object per log line")] = False,
) -> None:
    """Serve BotService and ArenaService until SIGINT/SIGTERM."""
    config = RefereeConfig.from_env(address=address, redis_url=redis_url, per_decision_ms=per_decision_ms,
                                    bank_ms=bank_ms, max_strikes=max_strikes, reconnect_grace_s=reconnect_grace_s)
    configure_logging(json_logs)
    if not config.redis_url:
        raise typer.BadParameter("set REDIS_URL or --redis-url")
    asyncio.run(serve(config, Store.from_url(config.redis_url, config.store_prefix)))


if __name__ == "__main__":
    app()
