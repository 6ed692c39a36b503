"""The arena's compliance check of a remote bot's new version, as the store keeps it.

A bot host checks a hosted version before it ever connects (:mod:`hosting.check`, the
verdict on the hosted record).  A remote bot's process connects itself, so its referee
checks a version it never saw the first time it says hello (:mod:`referee.version_check`):
the version is allocated with a *pending* check (:meth:`store.versions.BotVersions.rated_id`),
plays the check's practice matches against house bots, and is seated in no arena match,
made its bot's current version or tested against its predecessor until it passed.  A
failed version stays failed: a hello with it is refused, and its owner reads the report
(the fix is a new version, checked anew).

The state lives in the version's record (``{p}rated:{rated id}``: ``check``,
``check_summary``, ``check_report``, ``checked_at``; see :mod:`store.versions`).  One more
key (listed with the rest in :mod:`store.redis_store`)::

    {p}version-check-claim:{seat}   the id of the referee checking the version now (SET NX PX,
                                    renewed while it checks): a version connected to two
                                    referees at once is checked by one of them
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import redis

from store.seat_keys import seat_key
from store.versions import BotVersions, CheckState

#: Longest report kept (the summary, each problem with its first occurrence, each kind asked).
MAX_REPORT_CHARS = 4096
#: Longest summary kept (one line).
MAX_SUMMARY_CHARS = 300

# Renew or release a claim only while this referee holds it.  KEYS: the claim; ARGV: the
# holder, the TTL in ms ("" to release).  Returns 1 when it held the claim.
_RENEW = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1
"""


@dataclass(frozen=True)
class VersionCheck:
    """A version's compliance check as stored."""

    state: CheckState
    summary: str
    report: str
    checked_at: float
    """When it was settled (0 while pending)."""


class VersionChecks:
    """Remote versions' compliance checks: their state, the claim of the referee running
    one, and its verdict."""

    def __init__(self, versions: BotVersions) -> None:
        self.versions = versions
        self._renew = versions.client.register_script(_RENEW)

    def _claim_key(self, bot_id: str, version: str) -> str:
        return f"{self.versions.store.prefix}version-check-claim:{seat_key(bot_id, version)}"

    def get(self, bot_id: str, version: str) -> VersionCheck | None:
        """The version's check (``None``: an unknown version, or one that needed none)."""
        rated = self.versions.rated_of(bot_id, version)
        if rated is None:
            return None
        state, summary, report, at = self.versions.client.hmget(self.versions.rated_key(rated),
                                                  ["check", "check_summary", "check_report", "checked_at"])
        if state is None:
            return None
        return VersionCheck(CheckState(str(state)), str(summary or ""), str(report or ""), float(at or 0))

    def claim(self, bot_id: str, version: str, holder: str, ttl_s: float) -> bool:
        """Take (or keep) the right to check the version for ``ttl_s``; ``False`` while
        another referee holds it."""
        key = self._claim_key(bot_id, version)
        if self.versions.client.set(key, holder, nx=True, px=max(1, round(ttl_s * 1000))):
            return True
        return bool(self._renew(keys=[key], args=[holder, max(1, round(ttl_s * 1000))]))

    def release(self, bot_id: str, version: str, holder: str) -> None:
        """Give the claim up (the check ended, or was cut short: another referee may try)."""
        self._renew(keys=[self._claim_key(bot_id, version)], args=[holder, ""])

    def settle(self, bot_id: str, version: str, passed: bool, summary: str, report: str) -> bool:
        """Record the verdict of a pending check; a version that passed becomes its bot's
        current version if it is the newest (:meth:`BotVersions.promote`) and waits for
        its automatic SPRT.  ``False`` (nothing written) when the version's check was not
        pending: another referee settled it first, and its verdict stands."""
        rated = self.versions.rated_of(bot_id, version)
        if rated is None:
            return False
        key = self.versions.rated_key(rated)
        settled: list[bool] = []

        def write(pipe: redis.client.Pipeline) -> None:
            settled.clear()
            if pipe.hget(key, "check") != CheckState.PENDING.value:
                settled.append(False)
                return
            pipe.multi()
            pipe.hset(key, mapping={
                "check": (CheckState.PASSED if passed else CheckState.FAILED).value,
                "check_summary": summary[:MAX_SUMMARY_CHARS], "check_report": report[:MAX_REPORT_CHARS],
                "checked_at": repr(time.time())})
            settled.append(True)

        self.versions.client.transaction(write, key)
        if not settled or not settled[0]:
            return False
        if passed:
            self.versions.promote(bot_id, rated)
            self.versions.await_test(bot_id, version)
        return True
