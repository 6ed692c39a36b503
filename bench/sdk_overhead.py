"""The SDK's own cost per decision, against a bot written on the raw generated stubs.

A referee (private Redis) and two bot processes run on loopback; each bot is registered
once with four seats and plays all four seats of ``partnership`` matches against itself:

* ``raw`` - a bot on the generated stubs (``call.read`` / ``call.write``, batching on, as
  ``bench/referee_throughput.py``'s trivial bot): every request is answered at once with
  legal action 0, so its CPU time is the floor any Python bot pays for the protocol;
* ``sdk`` - the SDK's ``BotClient`` running a ``Bot`` whose ``act`` returns the first legal
  action, so its CPU time is the SDK's own (decoding what the bot reads, answering);
* ``sdk-reading`` (with ``--reading``) - the same, but its ``act`` first reads every field of
  the observation, so that the whole observation is decoded: the SDK's cost for a bot that
  reads everything (the SDK decodes a field when the bot first reads it).

Each round runs matches for ``--seconds`` with each bot in turn (the order reverses
between rounds), and reads the bot process's CPU time from ``/proc``; the
figure is CPU microseconds of the bot process per decision it answered.  Each ratio
(sdk / raw) is taken within its round, since this shared machine's speed drifts between
minutes; the report gives medians and ranges.

Run: ``.venv/bin/python bench/sdk_overhead.py [--rounds 5] [--seconds 3] [--reading]``.
Target: sdk / raw <= 1.5.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import signal
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Sequence

import grpc
from referee_throughput import ADMIN, cpu_seconds, spawn, trivial_bot

from cli.local_arena import free_port
from pitch_sdk.bot import Bot
from pitch_sdk.proto.pitch.v1 import arena_pb2, arena_pb2_grpc
from pitch_sdk.remote.client import BotClient
from pitch_sdk.rules import Action, Observation
from store.redis_server import RedisServer

SEATS = 4
METADATA = (("authorization", f"Bearer {ADMIN}"),)


class FirstLegal(Bot):
    """The SDK bot: no thinking, so what it costs is the SDK's."""

    name = "first-legal"

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        return legal_actions[0]


class ReadingFirstLegal(FirstLegal):
    """The SDK bot that reads every field of its observation before it answers."""

    name = "reading-first-legal"

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        for name in FIELD_NAMES:
            getattr(observation, name)
        return legal_actions[0]


FIELD_NAMES = tuple(field.name for field in dataclasses.fields(Observation))
BOTS: dict[str, type[FirstLegal]] = {"sdk": FirstLegal, "sdk-reading": ReadingFirstLegal}


def serve_bot(kind: str, address: str, token: str) -> None:
    """Play as the ``kind`` bot until SIGTERM."""

    async def run() -> None:
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        if kind in BOTS:
            await BotClient(BOTS[kind], address, token, capacity=SEATS).run(stop)
        else:
            await trivial_bot(address, token, asyncio.Event(), [], stop, batching=True)

    asyncio.run(run())


async def register(address: str) -> tuple[str, str]:
    async with grpc.aio.insecure_channel(address) as channel:
        registered = await arena_pb2_grpc.ArenaServiceStub(channel).RegisterBot(
            arena_pb2.RegisterBotRequest(name=f"bench-{uuid.uuid4().hex[:12]}"), metadata=METADATA)
        return registered.bot_id, registered.token


async def connected(address: str, bot_id: str) -> None:
    """Wait until the bot's stream is up."""
    async with grpc.aio.insecure_channel(address) as channel:
        admin = arena_pb2_grpc.ArenaServiceStub(channel)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            bots = (await admin.ListBots(arena_pb2.ListBotsRequest(), metadata=METADATA)).bots
            if any(b.bot_id == bot_id and b.connected for b in bots):
                return
            await asyncio.sleep(0.05)
        raise RuntimeError(f"bot {bot_id} did not connect within 30 s")


async def play(address: str, bot_id: str, seconds: float, seed: int) -> int:
    """Decisions the bot answered in matches played one after another for ``seconds``."""
    decisions = 0
    async with grpc.aio.insecure_channel(address) as channel:
        admin = arena_pb2_grpc.ArenaServiceStub(channel)
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            seed += 1
            result = (await admin.RunMatch(arena_pb2.RunMatchRequest(
                preset="partnership", seat_bot_ids=[bot_id] * SEATS, seed=seed, options_json='{"target": 11}'),
                metadata=METADATA)).result
            decisions += sum(seat.decisions for seat in result.seats)
    return decisions


def phase(address: str, bot: tuple[str, subprocess.Popen[bytes]], seconds: float, seed: int) -> float:
    """CPU microseconds of the bot process per decision over one phase."""
    bot_id, process = bot
    before = cpu_seconds(process.pid)
    decisions = asyncio.run(play(address, bot_id, seconds, seed))
    return (cpu_seconds(process.pid) - before) / decisions * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=3.0, help="length of each phase")
    parser.add_argument("--reading", action="store_true", help="also measure the SDK bot that reads every field")
    # the child's token comes through the environment: a token may start with "-", which
    # argparse would take for an option (the bench then failed at random)
    parser.add_argument("--serve-bot", nargs=2, metavar=("KIND", "ADDRESS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_bot:
        serve_bot(*args.serve_bot, os.environ["PITCH_BOT_TOKEN"])
        return
    with RedisServer() as redis_server:
        port = free_port()
        address = f"127.0.0.1:{port}"
        referee = spawn(["-m", "referee", "--address", address],
                        {"REDIS_URL": redis_server.url, "PITCH_ADMIN_TOKEN": ADMIN, "PITCH_STORE_PREFIX": "bench:"},
                        port)
        bots: dict[str, tuple[str, subprocess.Popen[bytes]]] = {}
        try:
            kinds = ("raw", "sdk", "sdk-reading") if args.reading else ("raw", "sdk")
            for kind in kinds:
                bot_id, token = asyncio.run(register(address))
                process = subprocess.Popen([sys.executable, __file__, "--serve-bot", kind, address],
                                           env={**os.environ, "PITCH_BOT_TOKEN": token})
                bots[kind] = (bot_id, process)
                asyncio.run(connected(address, bot_id))
            rounds: list[dict[str, float]] = []
            for number in range(args.rounds):
                order = kinds if number % 2 == 0 else kinds[::-1]
                rounds.append({kind: phase(address, bots[kind], args.seconds, 1000 * number) for kind in order})
        finally:
            for _, process in bots.values():
                process.terminate()
                process.wait(timeout=10)
            referee.terminate()
            referee.wait(timeout=10)
    report: dict[str, object] = {
        "cpu_us_per_decision": {kind: {"median": round(statistics.median(r[kind] for r in rounds)),
                                       "range": [round(min(r[kind] for r in rounds)),
                                                 round(max(r[kind] for r in rounds))]}
                                for kind in kinds}}
    for kind in kinds[1:]:
        ratios = [round(r[kind] / r["raw"], 2) for r in rounds]
        report[f"ratio_{kind.replace('-', '_')}_to_raw"] = {
            "median": statistics.median(ratios), "range": [min(ratios), max(ratios)], "by_round": ratios}
    report |= {"rounds": args.rounds, "seconds_per_phase": args.seconds}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
