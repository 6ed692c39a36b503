"""Web page latency at scale: the leaderboard and bot pages against ``/healthz``, same server.

Seeding: a private Redis (``RedisServer``, Unix socket) gets ``--bots`` registered bots
(``Store.register_bot``) and ``--matches`` partnership matches, recorded and rated.  The real
path a match task takes, ``Store.record_match`` (result, per-bot match index, conduct
totals) then ``Leaderboard.record`` (the Lua Elo update), costs a few to tens of
milliseconds a match on this shared machine, so by default a bulk path writes the same keys
in large pipelines (the live Elo replayed in Python through the same rules and payload).
Every run first records a sample both ways under two prefixes and compares every key and
value (finish times aside), and refuses to go on if they differ (``bulk_matches_real_path``);
``--real-path`` seeds through the real path instead.  Each result is shaped like the referee's
(``referee.match.result_to_dict`` of a ``MatchResult``: the preset's ruleset with its JSON,
one to three games with scores, hands and win reason, four seats with decisions, time used
and a decision-time histogram); bots have hidden strengths and each game's winner is drawn
from Elo's logistic, so the tables have real spread.  The board's Bradley–Terry table is
then fitted once (``Leaderboard.refit``: read, parse, fit, store, timed as ``refit_seconds``;
the fit alone, ``bradley_terry`` on the parsed matches, as ``fit_seconds``), as the
first page would start in the background, so the rounds measure the pages a visitor sees
and not a refit sharing the server's CPU.

Measuring: ``pitch-arena web`` runs as its own process (``LocalArena.start_web``) with a
referee address on which nothing listens (pages must cope with an unreachable referee).
One client in this process sends sequential GETs over one keep-alive ``http.client``
connection on loopback.  Each of ``--rounds`` rounds sends ``--requests`` cycles of one
request per page, interleaved (healthz, leaderboard, leaderboard?sort=bt, a bot page; the
bot is a different random bot every cycle), so a swing of the machine's speed hits every
page alike.  A latency is from sending the request to having read the whole body.  Per
round and page: p50 and p95 (nearest rank), and their ratios to the same round's
``/healthz`` (the baseline: the same server, routing and connection, no store read).
The report gives, per page, the median and the range over rounds of each figure.

Run: ``.venv/bin/python bench/web_pages.py [--bots 1000] [--matches 100000] [--rounds 5]
[--requests 100]``; ``--short`` is a seconds-long run at tiny sizes (the e2e test's).
Seeding the full size takes a few minutes.  Target: p95 under 50 ms on both pages.
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import random
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cli.local_arena import LocalArena, free_port  # noqa: E402
from competitions.ratings.leaderboard import Leaderboard, _bot_payload  # noqa: E402
from competitions.ratings.model import (  # noqa: E402
    DEFAULT_CONFIG,
    bradley_terry,
    elo_update,
    head_to_head,
    rated_match,
    tallies,
)
from pitch_sdk.proto.pitch.v1 import bot_pb2, game_pb2  # noqa: E402
from pitch_sdk.protocol import wire  # noqa: E402
from pitch_sdk.rules.presets import preset  # noqa: E402
from store.redis_store import Store, match_indexes  # noqa: E402
from store.results import result_to_dict  # noqa: E402
from web.config import WebConfig  # noqa: E402

PREFIX = "bench-web:"
BOARD = "partnership"
TARGET_P95_MS = 50.0
PAGES = ("healthz", "leaderboard", "leaderboard_bt", "bot")
#: Commands per pipeline round trip while bulk seeding.
CHUNK = 2_000


def partnership_result(match_id: str, seats: list[str], strengths: dict[str, float], ruleset: game_pb2.Ruleset,
                       rng: random.Random) -> bot_pb2.MatchResult:
    """A referee-shaped partnership result: party ``s % 2`` holds seat ``s``; each game's
    winner drawn from the parties' mean strengths by Elo's logistic."""
    means = [(strengths[seats[p]] + strengths[seats[p + 2]]) / 2 for p in range(2)]
    chance = 1.0 / (1.0 + 10 ** ((means[1] - means[0]) / 400))
    games, wins = [], [0, 0]
    for _ in range(rng.randint(1, 3)):
        winner = 0 if rng.random() < chance else 1
        wins[winner] += 1
        scores = [11, rng.randint(0, 10)] if winner == 0 else [rng.randint(0, 10), 11]
        games.append(bot_pb2.GameOutcome(winner=winner, has_winner=True, scores=scores, hands=rng.randint(3, 9),
                                         win_reason="target"))
    outcomes = []
    for seat, bot in enumerate(seats):
        decisions = rng.randint(40, 120)
        histogram = [decisions // 2, decisions // 4, decisions // 8]  # most answers fast, a slow tail
        histogram += [rng.randint(0, 3), decisions - sum(histogram)]
        outcomes.append(bot_pb2.SeatOutcome(seat=seat, bot_id=bot, status=game_pb2.SEAT_STATUS_OK,
                                            decisions=decisions, time_used_ms=decisions * rng.randint(1, 6),
                                            decision_time_histogram=histogram))
    return bot_pb2.MatchResult(match_id=match_id, ruleset=ruleset, seed=rng.getrandbits(63), games=games,
                               seats=outcomes, party_wins=wins, completed=True)


def results(bots: list[str], matches: int, rng: random.Random, prefix: str = "bench") -> list[bot_pb2.MatchResult]:
    """``matches`` results between random foursomes of ``bots`` of hidden strengths."""
    strengths = {bot: rng.gauss(1500, 150) for bot in bots}
    ruleset = wire.ruleset_to_pb(preset(BOARD))
    return [partnership_result(f"{prefix}-{m:06d}", rng.sample(bots, 4), strengths, ruleset, rng)
            for m in range(matches)]


def record_real(store: Store, played: list[bot_pb2.MatchResult]) -> None:
    """What a match task does, one match at a time: ``Store.record_match`` then
    ``Leaderboard.record`` (about a millisecond a match on an idle machine, many under load)."""
    board = Leaderboard(store, BOARD)
    for result in played:
        store.record_match(result.match_id, result_to_dict(result), [])
        board.record(result)


def record_bulk(store: Store, played: list[bot_pb2.MatchResult], start: float) -> None:
    """The same keys and values as :func:`record_real` (checked by :func:`check_bulk`), written
    in large pipelines: the live Elo replayed here in the same order through the same rules
    (``elo_update``, and the leaderboard's own per-bot payload), the per-bot totals summed
    before writing.  Match ``n`` finishes at ``start + n`` ms (the real path reads the clock)."""
    client, p, config = store.client, store.prefix, DEFAULT_CONFIG
    states: dict[str, dict[str, str]] = {}
    history: dict[str, list[str]] = defaultdict(list)
    versus: dict[str, Counter[str]] = defaultdict(Counter)
    conduct: dict[str, Counter[str]] = defaultdict(Counter)
    indexed: dict[str, dict[str, float]] = defaultdict(dict)
    finished: dict[str, float] = {}
    pipe = client.pipeline(transaction=False)
    for n, result in enumerate(played):
        stamp = start + n / 1000
        data = result_to_dict(result)
        pipe.set(f"{p}match:{result.match_id}", json.dumps(data, sort_keys=True))
        finished[result.match_id] = stamp
        for index_key, conduct_key, totals in match_indexes(data):  # each bot's and each version's
            indexed[index_key][result.match_id] = stamp
            conduct[conduct_key].update(totals)
        match = rated_match(result)
        before = {bot: float(states.get(bot, {}).get("rating", config.initial)) for bot in match.bots}
        update = elo_update(match, before, config)
        tallied = tallies(match)
        increments: dict[str, list[str]] = {bot: [] for bot in match.bots}
        for (bot, opponent), tally in head_to_head(match).items():
            increments[bot] += [f"{opponent}:games", str(tally.games), f"{opponent}:wins", str(tally.wins),
                                f"{opponent}:draws", str(tally.draws)]
        for bot in match.bots:
            payload = _bot_payload(result.match_id, bot, states.get(bot, {}), before[bot], update, tallied[bot],
                                   increments[bot], stamp)
            states[bot] = dict(zip(payload["fields"][::2], payload["fields"][1::2], strict=True))
            history[bot].append(payload["history"])
            for name, amount in zip(payload["h2h"][::2], payload["h2h"][1::2], strict=True):
                versus[bot][name] += int(amount)
        if len(pipe) >= CHUNK:
            pipe.execute()
    for chunk in range(0, len(finished), CHUNK):
        ids = list(finished)[chunk:chunk + CHUNK]
        pipe.zadd(f"{p}matches", {match_id: finished[match_id] for match_id in ids})
        pipe.sadd(f"{p}elo:{BOARD}:applied", *ids)
        pipe.execute()
    for index_key, matches in indexed.items():
        pipe.zadd(p + index_key, matches)
    for conduct_key, totals in conduct.items():
        pipe.hset(p + conduct_key, mapping=dict[Any, Any](totals))
    for bot, state in states.items():
        pipe.hset(f"{p}elo:{BOARD}:bot:{bot}", mapping=dict[Any, Any](state))
        pipe.zadd(f"{p}elo:{BOARD}:ranking", {bot: float(state["rating"])})
        pipe.rpush(f"{p}elo:{BOARD}:history:{bot}", *history[bot])
        if versus[bot]:
            pipe.hset(f"{p}elo:{BOARD}:h2h:{bot}", mapping=dict[Any, Any](versus[bot]))
        if len(pipe) >= CHUNK:
            pipe.execute()
    if played:
        pipe.sadd(f"{p}elo:boards", BOARD)
    pipe.execute()


def snapshot(store: Store) -> dict[str, Any]:
    """Every key under the store's prefix with its value, clock readings left out: finish
    times (sorted sets keep only their order) and history points' times."""
    client, out = store.client, dict[str, Any]()
    for key in client.scan_iter(match=store.prefix + "*"):
        kind, name = client.type(key), key.removeprefix(store.prefix)
        if kind == "string":
            out[name] = client.get(key)
        elif kind == "hash":
            out[name] = client.hgetall(key)
        elif kind == "set":
            out[name] = sorted(client.smembers(key))
        elif kind == "list":
            out[name] = [{k: v for k, v in json.loads(x).items() if k != "time"} for x in client.lrange(key, 0, -1)]
        else:
            withscores = name.endswith(":ranking")
            out[name] = client.zrange(key, 0, -1, withscores=withscores)
    return out


def check_bulk(client_url: str, rng: random.Random, matches: int = 60) -> bool:
    """Whether :func:`record_bulk` writes exactly what :func:`record_real` does, on a sample
    (eight bots, so bots meet often); the sample's keys are deleted afterwards."""
    real, bulk = Store.from_url(client_url, "bench-check-real:"), Store.from_url(client_url, "bench-check-bulk:")
    sample = results([f"b{i}" for i in range(8)], matches, rng, prefix="check")
    record_real(real, sample)
    record_bulk(bulk, sample, time.time())
    same = snapshot(real) == snapshot(bulk) and bool(snapshot(real))
    for store in (real, bulk):
        keys = list(store.client.scan_iter(match=store.prefix + "*"))
        store.client.delete(*keys)
    return same


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def get(connection: http.client.HTTPConnection, path: str) -> float:
    """Milliseconds for one GET, the whole body read; a page that fails stops the bench."""
    start = time.perf_counter()
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    elapsed = (time.perf_counter() - start) * 1000
    if response.status != 200 or not body:
        raise RuntimeError(f"GET {path}: status {response.status}")
    return elapsed


def measure_round(connection: http.client.HTTPConnection, bots: list[str], requests: int,
                  rng: random.Random) -> dict[str, dict[str, float]]:
    """One round of interleaved cycles: p50/p95 per page and their ratios to healthz's."""
    times: dict[str, list[float]] = {page: [] for page in PAGES}
    for _ in range(requests):
        times["healthz"].append(get(connection, "/healthz"))
        times["leaderboard"].append(get(connection, f"/leaderboards/{BOARD}"))
        times["leaderboard_bt"].append(get(connection, f"/leaderboards/{BOARD}?sort=bt"))
        times["bot"].append(get(connection, f"/bots/{rng.choice(bots)}"))
    out = {page: {"p50_ms": percentile(values, 0.5), "p95_ms": percentile(values, 0.95)}
           for page, values in times.items()}
    for figures in out.values():
        figures["ratio_p50"] = figures["p50_ms"] / out["healthz"]["p50_ms"]
        figures["ratio_p95"] = figures["p95_ms"] / out["healthz"]["p95_ms"]
    return out


def spread(values: list[float]) -> dict[str, float]:
    """Median and range."""
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def summary(rounds: list[dict[str, dict[str, float]]]) -> dict[str, dict[str, dict[str, float]]]:
    """Per page and figure: median and range over the rounds."""
    return {page: {figure: spread([r[page][figure] for r in rounds]) for figure in rounds[0][page]}
            for page in PAGES}


def run(bots: int, matches: int, rounds: int, requests: int, seed_value: int, real_path: bool) -> dict[str, Any]:
    """Seed, start the web service, measure; the report."""
    rng = random.Random(seed_value)
    with tempfile.TemporaryDirectory(prefix="bench-web-") as logs, LocalArena(Path(logs)) as arena:
        url = arena.start_redis()
        checked = None if real_path else check_bulk(url, rng)
        if checked is False:
            raise RuntimeError("the bulk seeding path does not write what the real path writes")
        store = Store.from_url(url, PREFIX)
        started = time.perf_counter()
        ids = [store.register_bot(f"bench-bot-{i:04d}", owner="bench")[0].bot_id for i in range(bots)]
        played = results(ids, matches, rng)
        if real_path:
            record_real(store, played)
        else:
            record_bulk(store, played, time.time() - matches / 1000)
        seed_seconds = time.perf_counter() - started
        rated = [rated_match(result) for result in played]
        del played
        started = time.perf_counter()
        bradley_terry(rated)
        fit_seconds = time.perf_counter() - started
        del rated
        started = time.perf_counter()
        Leaderboard(store, BOARD).refit()
        refit_seconds = time.perf_counter() - started
        print(f"seeded in {seed_seconds:.0f} s, fitted in {fit_seconds:.1f} s, refitted (read, parse, fit, store) in "
              f"{refit_seconds:.1f} s", file=sys.stderr)
        config = WebConfig(redis_url=url, store_prefix=PREFIX, referee=f"127.0.0.1:{free_port()}",
                           admin_token="bench-admin")
        base = arena.start_web(config.to_env())
        host, port = base.removeprefix("http://").rsplit(":", 1)
        connection = http.client.HTTPConnection(host, int(port), timeout=60)
        for _ in range(3):  # warm up: templates compiled, connections to Redis and the referee tried
            measure_round(connection, ids, 1, rng)
        per_round = []
        for number in range(rounds):
            per_round.append(measure_round(connection, ids, requests, rng))
            print(f"round {number + 1}/{rounds}: " + ", ".join(
                f"{page} p95 {figures['p95_ms']:.1f} ms" for page, figures in per_round[-1].items()), file=sys.stderr)
        connection.close()
        arena.check()
    pages = summary(per_round)
    return {"bots": bots, "matches": matches, "rounds": rounds, "requests_per_round": requests,
            "seed_path": "real" if real_path else "bulk", "bulk_matches_real_path": checked,
            "seed_seconds": round(seed_seconds, 1), "fit_seconds": round(fit_seconds, 2),
            "refit_seconds": round(refit_seconds, 2),
            "target_p95_ms": TARGET_P95_MS,
            "meets_target": all(pages[p]["p95_ms"]["median"] < TARGET_P95_MS for p in PAGES),
            "pages": pages, "per_round": per_round}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=100, help="cycles (one request per page) per round")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--real-path", action="store_true",
                        help="seed match by match through Store.record_match and Leaderboard.record (slow)")
    parser.add_argument("--short", action="store_true", help="12 bots, 60 matches, 2 rounds of 5 (for tests)")
    args = parser.parse_args()
    if args.short:
        args.bots, args.matches, args.rounds, args.requests = 12, 60, 2, 5
    print(json.dumps(run(args.bots, args.matches, args.rounds, args.requests, args.seed, args.real_path),
                     indent=2))


if __name__ == "__main__":
    main()
