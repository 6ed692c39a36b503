"""What the web arena's reads of a referee fleet cost: ``ArenaReferees.running`` (the /live
list) and ``ArenaReferees.bots`` (the bots pages' connection facts, before their 2 s cache)
with a lone referee (an empty directory: ``PITCH_REFEREE`` alone, the baseline), a fleet of
two referee processes, and the same fleet with ``--silent`` more directory entries (default
1) on which nothing listens (silent referees: the read must skip them, not fail or wait;
each lists the connected bots, so ``--silent 98`` gives the directory read a fleet of 100).

Setup: a private Redis, two ``pitch-arena referee`` processes on one prefix
(``LocalArena.start_referee``), ``--bots`` registered bots (ListBots lists every registered
bot, which is what grows), of which ``--connected`` are listed in the directory as connected
to both referees with two of their four seats taken in the ledger (entries the bench
writes as a referee would, with no bot processes: the Redis read then has a bot's ledger to
read per connected bot, and ListBots costs the same per bot connected or not).

``bots`` is the read the pages use: from the directory and the seat ledger alone with a
fleet, ListBots of ``PITCH_REFEREE`` without one; ``bots-asked`` the read before it, every
live referee's ListBots merged (the baseline of ``bots`` on a fleet).  The lone case reads a fresh prefix, whose
directory is empty, with ``PITCH_REFEREE`` the first referee.  Each of ``--rounds`` rounds
times ``--calls`` sequential calls of each read in each case, the cases interleaved in the
round, so a swing of the machine's speed hits every case alike.  Per round: the mean time of
a call and its ratio to the same round's lone referee.  The report gives, per case and read,
the median and the range over rounds.

Run: ``.venv/bin/python bench/web_fleet_reads.py [--bots 100] [--rounds 5] [--calls 100]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cli.local_arena import LocalArena, free_port, wait_for  # noqa: E402
from competitions.referee_client import RefereeClient  # noqa: E402
from pitch_sdk.proto.pitch.v1 import arena_pb2  # noqa: E402
from store.fleet import FleetDirectory  # noqa: E402
from store.redis_server import RedisServer  # noqa: E402
from store.redis_store import Store  # noqa: E402
from store.seats import SeatLedger, SeatNeed  # noqa: E402
from web.referees import ArenaReferees  # noqa: E402

ADMIN = "bench-admin"
CASES = ("lone", "two", "two+silent")
READS = ("running", "bots", "bots-asked")


def bots_asked(referees: ArenaReferees) -> dict[str, arena_pb2.BotInfo]:
    """The bots read as the pages did before they read the directory (the baseline of
    ``bots``): every live referee's ListBots at once, merged (connected on any of them)."""
    answers = referees.ask(referees.addresses(), lambda stub: stub.ListBots, arena_pb2.ListBotsRequest())
    merged: dict[str, arena_pb2.BotInfo] = {}
    for answer in answers.by_address.values():
        for bot in answer.bots:
            if bot.bot_id not in merged or bot.connected:
                merged[bot.bot_id] = bot
    return merged


def read_of(referees: ArenaReferees, read: str) -> Callable[[], object]:
    """The read named ``read`` of ``referees``."""
    if read == "bots-asked":
        return lambda: bots_asked(referees)
    method: Callable[[], object] = getattr(referees, read)
    return method


def timed(read: Callable[[], object], calls: int) -> float:
    """Milliseconds per call of ``read`` over ``calls`` sequential calls (after one warm-up)."""
    read()
    start = time.perf_counter()
    for _ in range(calls):
        read()
    return (time.perf_counter() - start) / calls * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bots", type=int, default=100, help="registered bots")
    parser.add_argument("--connected", type=int, default=50, help="of them listed as connected")
    parser.add_argument("--silent", type=int, default=1, help="directory entries on which nothing listens")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=100, help="calls of each read per case and round")
    args = parser.parse_args()
    with RedisServer() as redis_server, tempfile.TemporaryDirectory() as logs, LocalArena(Path(logs)) as arena:
        prefix = f"bench-{uuid.uuid4().hex[:6]}:"
        first = arena.start_referee(redis_server.url, prefix, ADMIN, {}, name="referee-1")
        arena.start_referee(redis_server.url, prefix, ADMIN, {}, name="referee-2")
        directory = FleetDirectory(Store.from_url(redis_server.url, prefix))
        wait_for(lambda: len(directory.live()) == 2, 30, "two referees in the directory", arena.services)
        client = RefereeClient(first, ADMIN, 30)
        registered = [client.register(f"bot-{n}").bot_id for n in range(args.bots)]
        ledger = SeatLedger(directory)
        for entry in directory.live():
            for bot_id in registered[:args.connected]:
                directory.bot_connected(entry.referee_id, bot_id, 4)
                assert ledger.take(entry.referee_id, f"m-{entry.referee_id}-{bot_id}", {bot_id: SeatNeed(1, 4)}) is None
        lone = ArenaReferees(first, ADMIN, Store.from_url(redis_server.url, f"lone-{prefix}"))
        fleet = ArenaReferees(first, ADMIN, Store.from_url(redis_server.url, prefix))
        silent = [(f"silent-{n}", f"127.0.0.1:{free_port()}") for n in range(args.silent)]
        connected = dict.fromkeys(registered[:args.connected], 4)
        per_round: dict[tuple[str, str], list[float]] = {(case, read): [] for case in CASES for read in READS}
        for _ in range(args.rounds):
            for case in CASES:
                referees = lone if case == "lone" else fleet
                if case == "two+silent":
                    for referee_id, address in silent:
                        directory.announce(referee_id, address, 4, 0, list(connected), [], connected)
                for read in READS:
                    per_round[(case, read)].append(timed(read_of(referees, read), args.calls))
                if case == "two+silent":
                    for referee_id, _ in silent:
                        directory.withdraw(referee_id)
        print(f"{args.bots} registered bots ({args.connected} connected), {args.silent} silent, {args.rounds} "
              f"rounds of {args.calls} calls; ms per call, median [range] over rounds; "
              "ratio to the lone referee of the same round")
        for read in READS:
            for case in CASES:
                values = per_round[(case, read)]
                ratios = [v / base for v, base in zip(values, per_round[("lone", read)], strict=True)]
                print(f"  {read:10} {case:11} {statistics.median(values):7.2f} ms [{min(values):.2f}-{max(values):.2f}]"
                      f"   x{statistics.median(ratios):.2f} [{min(ratios):.2f}-{max(ratios):.2f}]")
        print("bots (directory and ledger) against bots-asked (every referee's ListBots), same case and round:")
        for case in CASES[1:]:
            ratios = [new / old for new, old in zip(per_round[(case, "bots")], per_round[(case, "bots-asked")],
                                                    strict=True)]
            print(f"  {case:11} x{statistics.median(ratios):.2f} [{min(ratios):.2f}-{max(ratios):.2f}]")


if __name__ == "__main__":
    main()
