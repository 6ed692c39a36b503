"""``pitch-arena ready``: wait until the referee at PITCH_REFEREE serves and, with
``--bot``, until that bot is connected to the arena.

A script that starts a referee in the background and registers a bot at once races it:
the registration is refused while the referee still starts (its embedded Redis first), and
the script goes on with an empty token. Waiting here first removes the race; a referee
that never comes up fails the wait after ``--timeout`` with what it last answered."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Annotated

import grpc
import typer
from rich.text import Text

from cli import common
from pitch_sdk.proto.pitch.v1 import arena_pb2

#: Seconds between two looks at the referee.
POLL_S = 0.1


def ready(
    bot: Annotated[str | None, typer.Option(help="Also wait until this bot (name or id) is connected.")] = None,
    timeout: Annotated[float, typer.Option(min=0, help="Seconds to wait before giving up (exit 1).")] = 30.0,
) -> None:
    """Wait until the referee at PITCH_REFEREE answers its health check as serving (and,
    with --bot, until that bot is connected); exit 1 if it is not so within --timeout."""
    config = common.worker_config()
    referee = common.fleet_referee(config)
    deadline = time.monotonic() + timeout
    why = "no answer yet"
    while True:
        left = deadline - time.monotonic()
        try:
            if referee.serving(max(0.1, min(left, 2.0))):
                if bot is None:
                    break
                why = _bot_missing(referee.bots(timeout_s=max(0.1, min(left, 5.0))), bot)
                if not why:
                    break
            else:
                why = "its health check says it does not serve (yet)"
        except grpc.RpcError as error:
            why = f"{error.code().name}: {error.details()}"
            if error.code() in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED):
                common.fail(f"referee at {config.referee} (PITCH_REFEREE) refused the admin token "
                            f"(PITCH_ADMIN_TOKEN) that --bot needs: {why}", 1)  # waiting cannot fix it
        if time.monotonic() >= deadline:
            common.fail(f"not ready after {timeout:g} s: referee at {config.referee} (PITCH_REFEREE): {why}", 1)
        time.sleep(POLL_S)
    common.console().print(Text(f"referee at {config.referee} serving" + (f"; bot {bot} connected" if bot else "")))


def _bot_missing(bots: Sequence[arena_pb2.BotInfo], wanted: str) -> str:
    """Why ``wanted`` is not ready among the listed bots ("" when it is connected)."""
    found = next((info for info in bots if wanted in (info.name, info.bot_id)), None)
    if found is None:
        return f"no registered bot named {wanted!r}"
    return "" if found.connected else f"bot {wanted!r} is registered but not connected"
