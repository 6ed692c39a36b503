"""``python -m referee`` (and ``pitch-arena referee``): run a referee (flags override
``PITCH_*`` environment variables).  With no Redis configured it starts an embedded one
that keeps its data in the data directory (``--data-dir``, ``PITCH_DATA_DIR``; see
:mod:`store.data_dir`), so a restart keeps every registered bot, token and result, and
says how other processes reach it.

The server runs on uvloop: every decision is a few asyncio hops (the match task, the
session writer, the answer reader), and uvloop's scheduler makes the referee about a
quarter faster per decision (``bench/referee_throughput.py``)."""

from __future__ import annotations

import sys
from contextlib import ExitStack
from dataclasses import replace
from typing import Annotated

import typer
import uvloop

from referee.config import RefereeConfig
from referee.server import configure_logging, serve
from store.data_dir import data_dir as arena_data_dir
from store.redis_server import persistent_redis
from store.redis_store import Store
from store.tls import read_pem

app = typer.Typer(add_completion=False)


@app.command()
def main(
    address: Annotated[str | None, typer.Option(help="host:port to listen on [PITCH_REFEREE_ADDRESS]")] = None,
    redis_url: Annotated[str | None, typer.Option(help="Redis URL [REDIS_URL]; none: an embedded Redis")] = None,
    data_dir: Annotated[str | None, typer.Option(
        help="where the embedded Redis keeps its data [PITCH_DATA_DIR, ~/.local/share/pitch-arena]")] = None,
    per_decision_ms: Annotated[int | None, typer.Option(help="time per decision [PITCH_PER_DECISION_MS]")] = None,
    bank_ms: Annotated[int | None, typer.Option(help="time bank per seat and match [PITCH_BANK_MS]")] = None,
    max_strikes: Annotated[int | None, typer.Option(help="strikes before forfeit, 0 never [PITCH_MAX_STRIKES]")] = None,
    reconnect_grace_s: Annotated[float | None, typer.Option(help="[PITCH_RECONNECT_GRACE_S]")] = None,
    advertise: Annotated[str | None, typer.Option(
        help="host:port bots and workers reach this referee at, in the fleet directory [PITCH_REFEREE_ADVERTISE]; "
             "default: the listen address (this host's name when listening on every interface)")] = None,
    json_logs: Annotated[bool, typer.Option(help="one JSON object per log line")] = False,
) -> None:
    """Serve BotService and ArenaService until SIGINT/SIGTERM (one referee of the arena's
    fleet: every referee on the same Redis and key prefix serves the same arena)."""
    try:
        config = RefereeConfig.from_env(address=address, redis_url=redis_url, data_dir=data_dir,
                                        per_decision_ms=per_decision_ms, bank_ms=bank_ms, max_strikes=max_strikes,
                                        reconnect_grace_s=reconnect_grace_s, advertise_address=advertise)
        for pem, what in ((config.tls_ca, "PITCH_TLS_CA"), (config.tls_cert, "PITCH_TLS_CERT"),
                          (config.tls_key, "PITCH_TLS_KEY"), (config.relay_cert, "PITCH_RELAY_CERT"),
                          (config.relay_key, "PITCH_RELAY_KEY")):
            if pem:
                read_pem(pem, what)  # a bad file is named now, not as a traceback from the server's start
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr, flush=True)
        raise typer.Exit(2) from None
    configure_logging(json_logs)
    if config.redis_url:
        uvloop.run(serve(config, Store.from_url(config.redis_url, config.store_prefix)))
        return
    directory = arena_data_dir(config.data_dir)
    with ExitStack() as embedded:
        try:
            private = embedded.enter_context(persistent_redis(directory))
        except (RuntimeError, OSError) as error:
            print(f"error: {error}", file=sys.stderr, flush=True)
            raise typer.Exit(1) from None
        print(f"no REDIS_URL: serving from an embedded Redis with its data in {directory} (kept across restarts); "
              f"for workers and the CLI: export REDIS_URL={private.url}", file=sys.stderr, flush=True)
        config = replace(config, redis_url=private.url)
        uvloop.run(serve(config, Store.from_url(config.redis_url, config.store_prefix)))


if __name__ == "__main__":
    app()
