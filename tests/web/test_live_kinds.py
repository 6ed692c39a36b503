"""What ``/live`` calls each running match, over a real Redis: only a round robin's or a
ladder round's matches are rated; an SPRT's, a person's game, a practice match and a
one-off ``RunMatch`` say they are not (before, every match that was not practice was
called "rated")."""

from __future__ import annotations

from pathlib import Path

from cli.local_arena import free_port
from competitions.sprt import control as sprt_control
from competitions.sprt.plan import SprtSpec
from competitions.sprt.store import SprtStore
from competitions.tournaments import control as tournament
from competitions.tournaments.store import TournamentStore
from pitch_sdk.proto.pitch.v1 import arena_pb2
from store.redis_store import Store
from web.arena import WebArena
from web.config import WebConfig
from web.pages.live import KINDS, match_kinds


def test_only_round_robin_and_ladder_matches_are_called_rated(store: Store, tmp_path: Path) -> None:
    web = WebArena(WebConfig(redis_url="redis://unused", store_prefix=store.prefix,
                             referee=f"127.0.0.1:{free_port()}"), store)
    robin = tournament.create(TournamentStore(store), "cutthroat", ["a", "b", "c"])
    sprt_control.create(SprtStore(store), SprtSpec("sprt-live", "partnership", "n", "o", None, 0.0, 10.0, 0.05,
                                                   0.05, 4, 1, {}))
    running = {f"{robin.tournament_id}.0": False, "sprt-live.1": False, "web-0123456789abcdef": False,
               "a1b2c3d4e5f6": False, "practice-match": True, "nowhere.3": False}
    matches = [arena_pb2.RunningMatch(match_id=match_id, practice=practice) for match_id, practice in running.items()]
    kinds = match_kinds(web, matches)
    assert kinds == {f"{robin.tournament_id}.0": "rated", "sprt-live.1": "sprt", "web-0123456789abcdef": "person",
                     "a1b2c3d4e5f6": "one-off", "practice-match": "practice", "nowhere.3": "one-off"}
    assert [kind for kind, (_, rated) in KINDS.items() if rated] == ["rated"]
