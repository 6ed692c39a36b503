"""The checks after a chaos run, from the raw Redis keys and the referees' logs, each a list
of the matches (or bots, or tournaments) it found wrong, so the report can show examples:

* ``lost`` - a scheduled match with no outcome;
* ``not_played_with_result`` - an outcome "not played" while a result is stored for its
  match id (the match was played, the tournament says it was not);
* ``played_without_its_record`` - an outcome "played" without a stored result, or without
  its entry in the finished-matches index;
* ``outcome_result_differs_from_record`` - two results for one match id;
* ``replay_differs`` - a stored game log that does not replay (the rules engine, from its
  seed) to the stored result's game, or a result whose logs are missing;
* ``rated_twice`` / ``rating_updates`` - a match id twice in a bot's rating history; per
  board, rating updates against played matches and the Elo sum (zero by construction);
* ``conduct_counts_differ`` - a bot's conduct totals counting other than its recorded matches;
* ``table_does_not_add_up``;
* ``over_capacity`` - a ledger sample with a bot in more seats than it declared (live);
* ``ran_on_two_referees_at_once`` - a match id started by a referee process while another
  process's run of it had not ended (it ended when its process died or stopped, when it
  logged the match aborted, or when the match was recorded); ``started_twice_in_one_process``;
  ``started_after_recorded``;
* ``rated_with_fallback_heavy_seat`` - a rated match (not forfeited) with a seat that played
  more of its decisions by fallback than :mod:`referee.fallback_rule` allows, from the
  result's per-seat counts; the matches kept off the ratings for it are reported (``unrated``);
* ``practice_over_bound`` - with ``--practice-flood``, more practice matches of the flooding
  bot at once than the referee's bound (:func:`chaos_parts.flood.over_bound`);
* ``forged_relay_admitted`` - a relay opened with a credential that is not a referee's
  (``forged-relay`` faults, :mod:`chaos_parts.forged`) that the referee did not refuse;
* ``unrecoverable_logs`` (reported) - worker logs with Celery's "Unrecoverable error"."""

from __future__ import annotations

import itertools
import json
from collections import Counter, defaultdict
from typing import Any

from chaos_parts.logs import RefereeRun
from competitions.config import WorkerConfig
from competitions.ratings.leaderboard import Leaderboard
from competitions.tournaments.schedule import Schedule
from competitions.tournaments.store import TournamentStore
from competitions.tournaments.table import PLAYED
from pitch_sdk.proto.pitch.v1 import bot_pb2
from pitch_sdk.rules import GameLog, replay
from referee.fallback_rule import fallback_heavy
from store.redis_store import Store
from store.results import result_from_dict

#: Log time stamps have millisecond resolution and come from other processes' clocks reads.
SLACK_S = 0.01
FAILURES = ("lost", "not_played_with_result", "played_without_its_record", "outcome_result_differs_from_record",
            "replay_differs", "rated_twice", "conduct_counts_differ", "table_does_not_add_up", "over_capacity",
            "ran_on_two_referees_at_once", "started_twice_in_one_process", "started_after_recorded",
            "rated_with_fallback_heavy_seat", "practice_over_bound", "forged_relay_admitted")


def outcome_checks(store: Store, tournaments: TournamentStore, schedules: list[Schedule]) -> dict[str, Any]:
    """Outcomes against stored results, tables, and every stored log replayed."""
    found: dict[str, list[str]] = defaultdict(list)
    played: dict[str, str] = {}
    not_played: Counter[str] = Counter()
    examples: dict[str, str] = {}
    tables = replayed = 0
    for schedule in schedules:
        outcomes = tournaments.outcomes(schedule.tournament_id)
        ids = [m.match_id for m in schedule.matches]
        records = dict(zip(ids, store.client.mget([store._key("match", m) for m in ids]), strict=True))
        pipe = store.client.pipeline(transaction=False)
        for match_id in ids:
            pipe.zscore(store._key("matches"), match_id)
        indexed = dict(zip(ids, pipe.execute(), strict=True))
        for match in schedule.matches:
            outcome, raw = outcomes.get(match.index), records[match.match_id]
            if outcome is None:
                found["lost"].append(match.match_id)
            elif outcome["status"] == PLAYED:
                played[match.match_id] = schedule.preset
                if raw is None or indexed[match.match_id] is None:
                    found["played_without_its_record"].append(match.match_id)
                elif outcome["result"] != json.loads(raw):
                    found["outcome_result_differs_from_record"].append(match.match_id)
            else:
                reason = str(outcome.get("reason", ""))
                code = reason.split(":", 1)[0] or "no reason"
                not_played[code] += 1
                examples.setdefault(code, reason)
                if raw is not None:
                    found["not_played_with_result"].append(match.match_id)
            if raw is not None:
                replayed += 1
                problem = replay_problem(json.loads(raw), store.match_logs(match.match_id))
                if problem:
                    found["replay_differs"].append(f"{match.match_id}: {problem}")
        table = tournaments.table(schedule.tournament_id)
        if table is not None:
            tables += 1
            count = sum(1 for o in outcomes.values() if o["status"] == PLAYED)
            games = sum(r["games"] for r in table["rows"])
            if table["played"] != count or games != len(schedule.matches[0].seats) * schedule.games * count:
                found["table_does_not_add_up"].append(schedule.tournament_id)
    return {"found": found, "played": played, "tables": tables, "replayed": replayed,
            "not_played": {code: {"count": n, "example": examples[code]} for code, n in not_played.items()}}


def replay_problem(result: dict[str, Any], logs: list[str]) -> str:
    """Why the stored ``logs`` do not replay to ``result`` (``""`` when they do): each
    finished game's log must replay from its seed to the result's game outcome; a log past
    the result's games is the unfinished game of a forfeit and must not be over."""
    games = list(result_from_dict(result).games)
    if len(logs) < len(games):
        return f"{len(logs)} log(s) for {len(games)} game(s)"
    for number, raw in enumerate(logs):
        try:
            log = GameLog.from_dict(json.loads(raw))
            state = replay(log)
        except Exception as exc:  # a log that does not replay at all: the finding is its error
            return f"game {number}: {type(exc).__name__}: {exc}"
        if log.seed != int(result.get("seed", 0)) * 65536 + number:  # referee.match.game_seed
            return f"game {number}: seed {log.seed} is not the match's"
        if number >= len(games):
            if state.is_over and not result.get("forfeited"):
                return f"game {number}: a finished game beyond the result's {len(games)}"
            continue
        replayed = bot_pb2.GameOutcome(winner=state.winner or 0, has_winner=state.winner is not None,
                                       scores=state.scores, hands=len(state.results),
                                       win_reason=state.win_reason.value if state.win_reason else "")
        if replayed != games[number]:
            return f"game {number}: replayed {_short(replayed)}, stored {_short(games[number])}"
    return ""


def _short(outcome: bot_pb2.GameOutcome) -> str:
    return f"winner {outcome.winner if outcome.has_winner else '-'} scores {list(outcome.scores)} hands {outcome.hands}"


def rating_checks(store: Store, config: WorkerConfig, played: dict[str, str], bots: dict[str, str],
                  found: dict[str, list[str]]) -> dict[str, Any]:
    """Per board: rating updates against played matches, the Elo sum; ratings and conduct applied once."""
    boards: dict[str, Any] = {}
    for preset in sorted(set(played.values())):
        board = Leaderboard(store, preset, config.elo)
        mine = [m for m, p in played.items() if p == preset]
        rated: Counter[str] = Counter()
        for bot in bots.values():
            for match_id, times in Counter(p.match_id for p in board.history(bot)).items():
                rated[match_id] = max(rated[match_id], times)
        found["rated_twice"] += sorted(m for m, times in rated.items() if times > 1)
        rows = board.top(len(bots))
        boards[preset] = {"played": len(mine), "rating_updates": sum(1 for m in mine if board.applied(m)),
                          "applied_total": int(store.client.scard(store._key("elo", preset, "applied"))),
                          "elo_sum": round(sum(r.rating - board.config.initial for r in rows), 9), "bots": len(rows)}
    for name, bot in bots.items():
        conduct, recorded = store.bot_conduct(bot).matches, store.bot_match_count(bot)
        if conduct != recorded:
            found["conduct_counts_differ"].append(f"{name}: {conduct} vs {recorded}")
    return boards


def run_checks(runs: list[RefereeRun], store: Store, match_ids: list[str], found: dict[str, list[str]]) -> None:
    """From the referees' logs: a match id on two processes at once, twice in one, after its record."""
    pipe = store.client.pipeline(transaction=False)
    for match_id in match_ids:
        pipe.zscore(store._key("matches"), match_id)
    recorded = dict(zip(match_ids, pipe.execute(), strict=True))
    for match_id in match_ids:
        starts = sorted(((t, run) for run in runs for t in run.starts.get(match_id, [])), key=lambda s: s[0])
        record = recorded[match_id]
        for (first, run), (second, other) in itertools.pairwise(starts):
            if run is other:
                found["started_twice_in_one_process"].append(f"{match_id} on {run.name}")
                continue
            ends = [t for t in (run.ended, run.aborted.get(match_id), record) if t is not None and t >= first]
            ended = min(ends) if ends else float("inf")
            if second < ended - SLACK_S:
                found["ran_on_two_referees_at_once"].append(
                    f"{match_id}: {run.name} from {first:.3f}, {other.name} from {second:.3f} "
                    f"(the first run ended {'never' if ended == float('inf') else f'{ended:.3f}'})")
        if record is not None and any(t > record + SLACK_S for t, _ in starts):
            found["started_after_recorded"].append(match_id)


def fallback_check(store: Store, played: list[str], found: dict[str, list[str]]) -> dict[str, Any]:
    """Played matches kept off the ratings for a fallback-heavy seat (reported); a rated,
    unforfeited match with a seat the arena's own rule calls fallback-heavy is a failure
    (``rated_with_fallback_heavy_seat``)."""
    unrated: list[str] = []
    for match_id in played:
        result = store.match_result(match_id) or {}
        heavy = [f"seat {int(seat.get('seat', 0)) + 1} {int(seat.get('fallbacks', 0))} of "
                 f"{int(seat.get('decisions', 0)) + int(seat.get('fallbacks', 0))} by fallback"
                 for seat in result.get("seats", [])
                 if fallback_heavy(int(seat.get("decisions", 0)), int(seat.get("fallbacks", 0)))]
        if result.get("unrated"):
            unrated.append(f"{match_id}: {result.get('unrated_reason', '')}")
        elif heavy and not result.get("forfeited"):
            found["rated_with_fallback_heavy_seat"].append(f"{match_id}: {', '.join(heavy)}")
    return {"count": len(unrated), "examples": unrated[:10]}
