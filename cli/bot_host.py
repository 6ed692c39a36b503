"""``pitch-arena bot-host``: run hosted bot versions in sandboxes (flags override the
``PITCH_*`` variables of :mod:`hosting.config`).  Start any number, on any machine that
reaches Redis, the artifact store (``PITCH_ARTIFACTS_DIR``, see :mod:`store.artifacts`) and a
referee: they share the versions through Redis."""

from __future__ import annotations

import sys
from typing import Annotated

import redis
import typer
import uvloop

from hosting.config import HostConfig
from hosting.host import serve
from referee.server import configure_logging
from store.artifacts import FileArtifacts
from store.redis_store import Store


def bot_host(
    redis_url: Annotated[str | None, typer.Option(help="the arena's Redis [REDIS_URL]")] = None,
    referee: Annotated[str | None, typer.Option(help="HOST:PORT of the referee the bots play through "
                                                     "[PITCH_REFEREE]")] = None,
    slots: Annotated[int | None, typer.Option(min=1, help="versions run at once [PITCH_HOST_SLOTS]")] = None,
    capacity: Annotated[int | None, typer.Option(min=1, max=1024, help="seats each version plays at once "
                                                                        "[PITCH_HOSTED_CAPACITY]")] = None,
    host_id: Annotated[str | None, typer.Option(help="this host's id [PITCH_HOST_ID]; default: the machine's "
                                                     "name and a random suffix")] = None,
    work_dir: Annotated[str | None, typer.Option(help="unpacked packages and sockets [PITCH_HOST_DIR]; default: "
                                                      "bot-host in the data directory")] = None,
    json_logs: Annotated[bool, typer.Option(help="one JSON object per log line")] = False,
) -> None:
    """Run bot versions submitted to the arena, each in a bubblewrap sandbox, until SIGINT/SIGTERM
    (then its versions start on the other live hosts at once)."""
    try:
        config = HostConfig.from_env(redis_url=redis_url, referee=referee, slots=slots, capacity=capacity,
                                     host_id=host_id, work_dir=work_dir)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr, flush=True)
        raise typer.Exit(2) from None
    configure_logging(json_logs)
    store = Store.from_url(config.redis_url, config.store_prefix)
    try:
        store.client.ping()
    except redis.RedisError as error:
        print(f"error: Redis at {config.redis_url} (REDIS_URL): {error}", file=sys.stderr, flush=True)
        raise typer.Exit(1) from None
    uvloop.run(serve(config, store, FileArtifacts.from_env()))
