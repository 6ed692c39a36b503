"""Where one version of a bot stands in the author's loop, as its owner reads it.

A version goes through: submitted and waiting for a host, its compliance check (by its
host for a hosted version, by its referee for a remote one), connected and waiting for
its test (its predecessor not connected, or its owner's tests running), its automatic
SPRT against its predecessor (the LLR between its bounds, the pentanomial counts, the
Elo estimate), and a final state: ``better`` (H1), ``not-better`` (H0), ``rejected``
(its check failed, or it kept crashing), or ``undecided`` (the cap came first, the run
stalled, no test was due: the bot's first version, or a newer version of it came before
its test).

Read from Redis alone (the hosted record, the versions, the test and its run), by the
web's JSON API and the owner's pages; ``pitch-bot status --wait`` polls it until it is
final and exits by it (0 better, 1 not better, 2 rejected, 3 undecided).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from competitions.sprt import control as sprt_control
from competitions.sprt.store import SprtStore
from store.hosted import HostedVersions, Status
from store.redis_store import Store
from store.seat_keys import seat_key, version_of_seat
from store.version_checks import VersionChecks
from store.version_tests import VersionTest, VersionTestStore
from store.versions import BotVersions, CheckState

#: Final states, with the exit code of ``pitch-bot status --wait``.
EXIT_CODES = {"better": 0, "not-better": 1, "rejected": 2, "undecided": 3}
#: Hosted statuses of a version before it plays (it is not connected yet).
HOSTED_BEFORE_PLAY = frozenset({Status.QUEUED, Status.STARTING, Status.CHECKING})


@dataclass(frozen=True)
class VersionStatus:
    """One version's place in the loop (JSON-ready with :meth:`to_dict`)."""

    bot_id: str
    version: str
    state: str
    """``submitted``, ``checking``, ``waiting``, ``testing`` or a final state (:data:`EXIT_CODES`)."""
    detail: str
    """Why, in a sentence."""
    hosted: dict[str, Any] | None
    """The hosted record's status, detail and report (``None``: a remote bot's version)."""
    check: dict[str, Any] | None
    """A remote version's compliance check, run by its referee: state (pending, passed,
    failed), summary and report (``None``: a hosted version, checked by its host, or one
    that needed no check)."""
    test: dict[str, Any] | None
    """The automatic SPRT: run id, predecessor, and the run's standing or verdict."""

    @property
    def final(self) -> bool:
        """Whether the loop is over for this version."""
        return self.state in EXIT_CODES

    def to_dict(self) -> dict[str, Any]:
        """As the API answers it."""
        return asdict(self) | {"final": self.final}


def newest_version(store: Store, bot_id: str) -> str | None:
    """The bot's newest version: its last submission if it is hosted, else the last version
    it said hello with for the first time."""
    hosted = HostedVersions(store).versions_of(bot_id)
    if hosted:
        return hosted[-1].version
    seen = BotVersions(store).versions(bot_id)
    return seen[-1].version if seen else None


def version_status(store: Store, bot_id: str, version: str) -> VersionStatus | None:
    """Where ``version`` of ``bot_id`` stands; ``None`` for a version the arena never saw."""
    record = HostedVersions(store).get(bot_id, version)
    hosted = None if record is None else {"status": str(record.status), "detail": record.detail,
                                          "report": record.report, "checked": record.checked}
    seat = seat_key(bot_id, version)
    tests = VersionTestStore(store)
    test = tests.test_of(seat)
    versions = BotVersions(store)
    seen = versions.versions(bot_id)
    if record is None and all(v.version != version for v in seen):
        return None
    checked = VersionChecks(versions).get(bot_id, version)
    check = None if checked is None else {"state": str(checked.state), "summary": checked.summary,
                                          "report": checked.report}

    def status(state: str, detail: str, found: dict[str, Any] | None = None) -> VersionStatus:
        return VersionStatus(bot_id, version, state, detail, hosted, check, found)

    if record is not None and record.status in (Status.REJECTED, Status.FAILING):
        return status("rejected", record.detail)
    if checked is not None and checked.state == CheckState.FAILED:
        return status("rejected", checked.summary)
    if checked is not None and checked.state == CheckState.PENDING:
        return status("checking", "the arena is checking the new version (practice matches against house bots) "
                                  "before it plays")
    if record is not None and record.status == Status.STOPPED and (test is None or not test.run_id):
        return status("undecided", record.detail)
    if test is None:
        if tests.waits(seat):
            return status("waiting", "connected; its test starts once an earlier version of the bot is connected "
                                     "and its owner's running tests leave room")
        if record is not None and record.status in HOSTED_BEFORE_PLAY:
            return status("checking" if record.status == Status.CHECKING else "submitted", record.detail)
        if seen and seen[0].version == version:
            return status("undecided", "the bot's first version: there is nothing to test it against")
        return status("waiting", "not connected yet")
    if not test.run_id:
        return status("undecided", f"not tested: {test.skipped}")
    state, detail, found = test_standing(store, test)
    return status(state, detail, found)


def test_standing(store: Store, test: VersionTest) -> tuple[str, str, dict[str, Any]]:
    """Where a started test stands (public, as fishtest's are): its state (``testing`` or a
    final one), why, and its run's figures (run id, its preset, predecessor, LLR between the
    bounds, games, pentanomial counts, Elo estimate)."""
    progress = sprt_control.progress(SprtStore(store), test.run_id)
    now = progress.standing.status
    found = {"run_id": test.run_id, "preset": progress.spec.preset,
             "predecessor": version_of_seat(test.predecessor), "llr": now.llr,
             "lower": now.lower, "upper": now.upper, "counts": list(now.counts), "games": now.games,
             "elo": now.elo.elo, "elo_lower": now.elo.lower, "elo_upper": now.elo.upper, "los": now.elo.los,
             "max_games": progress.spec.max_games}
    against = f"against {version_of_seat(test.predecessor)}"
    if progress.verdict is not None:
        verdict = progress.verdict.get("verdict")
        state = {"H1": "better", "H0": "not-better"}.get(str(verdict), "undecided")
        found |= {key: progress.verdict[key] for key in ("llr", "games", "counts", "elo", "elo_lower", "elo_upper",
                                                          "los") if key in progress.verdict}
        why = {"better": f"H1 accepted {against}", "not-better": f"H0 accepted {against}"}.get(
            state, f"no verdict {against}: the game cap was reached")
        return state, why, found
    if progress.stalled_reason is not None:
        return "undecided", f"the test {against} stalled: {progress.stalled_reason}", found
    return "testing", (f"SPRT {against}: LLR {now.llr:+.2f} in [{now.lower:.2f}, {now.upper:.2f}] after "
                       f"{now.games} games"), found
