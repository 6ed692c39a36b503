"""``pitch-arena match``: one match between registered bots, outside any tournament.

It calls the referee's ``ArenaService.RunMatch`` directly (no worker, no Celery), waits for
the match to end and prints its result with the panel ``match-log`` opens with.  The
referee records the match like any other, so ``pitch-arena match-log`` shows it hand by
hand afterwards.  Unlike a tournament, nothing waits for a bot that is not connected: the
referee refuses the match at once.

Exit codes as for every command (:mod:`cli.main`): 0 the match was played; 1 the
referee refused it for a reason of its own (a bot offline or busy, shutting down), could
not be reached, or aborted the match; 2 the input was wrong (preset, options, number of
bots, unknown bot).
"""

from __future__ import annotations

import json
from typing import Annotated

import grpc
import typer
from rich.console import Console

from cli import common, views
from pitch_sdk.rules import RulesError, Ruleset, preset


def match(
    preset_name: Annotated[str, typer.Argument(metavar="PRESET", help="Preset (see `pitch-bot variants`).")],
    bots: Annotated[list[str], typer.Argument(
        metavar="BOT...", help="The bot in each seat, in seat order from seat 0, by name or id (as `pitch-arena "
                               "bots` shows them), or NAME@VERSION for one version of a bot; a bot may fill "
                               "several seats.")],
    seed: Annotated[int, typer.Option(min=0, help="The seed the deals come from: the same seed deals the same "
                                                  "cards.")] = 1,
    games: Annotated[int, typer.Option(min=1, help="Games in the match.")] = 1,
    options: Annotated[str, typer.Option(help="Options over the preset as a JSON object, e.g. '{\"target\": 11}'.")]
    = "",
    match_id: Annotated[str, typer.Option(
        help="The match's id (default: one the referee chooses); running an id again prints its first result.")]
    = "",
) -> None:
    """Run one match between registered, connected bots and print its result.

    Seats, each game's winner and scores, strikes and forfeits; the match is recorded, so
    `pitch-arena match-log ID` replays it afterwards."""

    keys = [key.strip() for item in bots for key in item.split(",") if key.strip()]
    try:
        rules = _ruleset(preset_name, options)
    except (RulesError, json.JSONDecodeError) as exc:
        common.fail(f"bad ruleset: {exc}")
    if len(keys) != rules.players:
        common.fail(f"{preset_name} has {rules.players} seats: give {rules.players} bots, not {len(keys)}")
    config = common.worker_config()
    referee = common.fleet_referee(config)
    with common.reaching(config):
        known = {key: bot for bot in referee.bots() for key in (bot.bot_id, bot.name)}
        found = {key: common.seat_of(key, known) for key in keys}
        unknown = [key for key, seat in found.items() if seat is None]
        if unknown:
            common.fail(f"no registered bot named {', '.join(unknown)} (see `pitch-arena bots`)")
        resolved = {key: named[1] for key, named in found.items() if named is not None}
        seats = [resolved[key] for key in keys]
        try:
            result = referee.play_match(preset_name, seats, seed=seed, games=games, options_json=options,
                                        match_id=match_id)
        except grpc.RpcError as error:
            if error.code() is grpc.StatusCode.INVALID_ARGUMENT:  # the referee's own checks of the input
                common.fail(f"the referee refused the match: {error.details()}")
            raise
    names = {bot.bot_id: bot.name for bot in known.values()}
    Console(highlight=False).print(views._match_summary(result, [names.get(s.bot_id, s.bot_id) for s in
                                                                 sorted(result.seats, key=lambda s: s.seat)]))
    if not result.completed:
        common.fail(f"the referee aborted match {result.match_id} before its end", 1)
    typer.echo(f"match log: pitch-arena match-log {result.match_id}")


def _ruleset(name: str, options: str) -> Ruleset:
    """The preset with its options, checked here so that a typo is an input error (exit 2)
    before anything is asked of the referee; raises ``RulesError`` or ``JSONDecodeError``."""
    overrides = json.loads(options) if options else {}
    if not isinstance(overrides, dict):
        raise RulesError(f"--options must be a JSON object, got {options!r}")
    return preset(name, overrides)
