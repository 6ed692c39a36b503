"""SPRT runs in Redis: the spec, the plan and outcomes, how many pairs are released, the verdict.

The plan, outcomes, start times and leases are a :class:`TournamentStore` of kind ``sprt``
(the match task code is the round robin's).  Keys (under the store's prefix ``{p}``, listed
with the rest in :mod:`store.redis_store`)::

    {p}sprts                    sorted set of run ids by creation time
    {p}sprt:{id}                the plan (every match up to the cap), written once
    {p}sprt:{id}:outcomes       hash: match index -> outcome JSON, each written once
    {p}sprt:{id}:started        hash: match index -> time its latest attempt began
    {p}sprt:{id}:lease:{i}      the worker responsible for match i now
    {p}sprt:{id}:spec           the run's parameters JSON, written once
    {p}sprt:{id}:released       pairs sent to the workers so far (only ever raised)
    {p}sprt:{id}:verdict        the final record JSON, written once (SET NX)
"""

from __future__ import annotations

import json
import time
from typing import Any

from competitions.sprt.plan import SprtSpec, Standing
from competitions.tournaments.store import TournamentError, TournamentStore
from store.redis_store import Store

# KEYS: the released counter.  ARGV: the new value.  Raises the counter to ARGV[1] if it is
# lower; returns the value before (the caller sends the pairs between the two).
_RAISE = """
local before = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > before then redis.call('SET', KEYS[1], ARGV[1]) end
return before
"""


class SprtStore:
    """Typed access to SPRT runs."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.client = store.client
        self.runs = TournamentStore(store, kind="sprt")
        self._raise = self.client.register_script(_RAISE)

    def _key(self, run_id: str, part: str) -> str:
        return f"{self.store.prefix}sprt:{run_id}:{part}"

    def save_spec(self, spec: SprtSpec) -> None:
        """Store a new run's spec (its plan is stored by the caller, first)."""
        if not self.client.set(self._key(spec.run_id, "spec"), json.dumps(spec.to_dict()), nx=True):
            raise TournamentError(f"SPRT run {spec.run_id!r} already exists")

    def spec(self, run_id: str) -> SprtSpec:
        """A run's spec."""
        raw = self.client.get(self._key(run_id, "spec"))
        if raw is None:
            raise TournamentError(f"no SPRT run {run_id!r}")
        return SprtSpec.from_dict(json.loads(str(raw)))

    def run_ids(self) -> list[str]:
        """Every run, newest first."""
        return list(reversed(self.runs.tournament_ids()))

    def release(self, run_id: str, pairs: int) -> int:
        """Raise the number of released pairs to ``pairs``; the number before (pairs from it
        to ``pairs`` are the caller's to send; any lower call sends nothing)."""
        return int(self._raise(keys=[self._key(run_id, "released")], args=[pairs]))

    def released(self, run_id: str) -> int:
        """Pairs sent to the workers so far."""
        return int(self.client.get(self._key(run_id, "released")) or 0)

    def save_verdict(self, run_id: str, standing: Standing) -> bool:
        """Record how the run ended, once; ``False`` if it was recorded already."""
        status = standing.status
        record = {"verdict": status.verdict, "reason": "bound" if status.verdict else "cap",
                  "llr": status.llr, "lower": status.lower, "upper": status.upper, "pairs": status.pairs,
                  "games": status.games, "counts": list(status.counts), "elo": status.elo.elo,
                  "elo_lower": status.elo.lower, "elo_upper": status.elo.upper, "los": status.elo.los,
                  "excluded_pairs": standing.excluded, "finished": time.time()}
        return bool(self.client.set(self._key(run_id, "verdict"), json.dumps(record), nx=True))

    def verdict(self, run_id: str) -> dict[str, Any] | None:
        """How the run ended, or ``None`` while it runs."""
        raw = self.client.get(self._key(run_id, "verdict"))
        return None if raw is None else json.loads(str(raw))
