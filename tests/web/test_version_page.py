"""A version's page (``/bots/{id}/versions/{version}``) over real HTTP and a real Redis: its
place in the author's loop and its SPRT against the previous version (started by the real
sweep, its pairs recorded as the workers would), its own ratings, conduct and matches, the
owner-only compliance report and output, and bad input answered short, never with a 500."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx2
import pytest
from celery import Celery

from competitions.config import WorkerConfig
from competitions.queue import make_app
from competitions.ratings.leaderboard import Leaderboard, record_match
from competitions.sprt import control as sprt_control
from competitions.sprt.store import SprtStore
from competitions.version_tests import control
from pitch_sdk.packages.archive import pack
from pitch_sdk.protocol.decision_times import add_time
from store.accounts import Accounts
from store.hosted import HostedVersions
from store.redis_store import Store
from store.results import result_to_dict
from store.seat_keys import seat_key
from store.version_tests import VersionTest, VersionTestStore
from store.versions import BotVersions, stamp_fields
from tests.results import match_result
from tests.web.harness import two_versions_connected
from tests.workers.test_tournament import worker_config

BOARD = "partnership"


@dataclass
class People:
    """The served arena and three browsers: the bots' owner, another account, a visitor."""

    url: str
    store: Store
    owner: httpx2.Client
    other: httpx2.Client
    visitor: httpx2.Client
    owner_name: str


@pytest.fixture(scope="module")
def people(arena_url: tuple[str, Store]) -> Iterator[People]:
    url, store = arena_url
    owner_name = f"owner{uuid.uuid4().hex[:6]}"
    clients = [httpx2.Client(base_url=url, timeout=30) for _ in range(3)]
    for client, name in zip(clients, (owner_name, f"other{uuid.uuid4().hex[:6]}"), strict=False):
        signed_up = client.post("/signup", data={"name": name, "password": f"{name}-password"})
        assert signed_up.status_code in (200, 303) and client.cookies, signed_up.text
    yield People(url, store, *clients, owner_name)
    for client in clients:
        client.close()


def _owned_bot(people: People) -> tuple[str, str]:
    """A new bot of the owner's account: its name and id."""
    accounts = Accounts(people.store)
    account = accounts.get(people.owner_name)
    assert account is not None
    record, _ = accounts.create_bot(account, f"bot{uuid.uuid4().hex[:6]}")
    return record.name, record.bot_id


def _config(store: Store, redis_url: str) -> WorkerConfig:
    return replace(worker_config(redis_url, store.prefix), auto_sprt_elo1=200.0)  # a verdict in a few pairs


def _tested(store: Store, redis_url: str, bot_id: str) -> tuple[Celery, VersionTest]:
    """Versions 1 and 2 of the bot connected, and the sweep's SPRT of 2 against 1."""
    config = _config(store, redis_url)
    two_versions_connected(store, config, bot_id)
    app = make_app(config)
    started = control.sweep(app, VersionTestStore(store), config).started
    (test,) = [t for t in started if t.seat == seat_key(bot_id, "2")]
    return app, test


def _decide(app: Celery, store: Store, run_id: str, new_wins: bool) -> dict[str, Any]:
    """Record the run's pairs, each won by one side, until its verdict (what the workers do)."""
    sprts = SprtStore(store)
    for index in range(40):
        party = index % 2 if new_wins else 1 - index % 2  # NEW is party 0 in a pair's first match, 1 in its second
        game = {"has_winner": True, "scores": [11, 4] if party == 0 else [4, 11]} | ({"winner": party} if party else {})
        sprts.runs.record_outcome(run_id, index, {"status": "played", "result": {"games": [game]}})
        if index % 2:
            sprt_control.advance(app, sprts, run_id)
        verdict = sprts.verdict(run_id)
        if verdict is not None:
            return verdict
    raise AssertionError("no verdict after 20 pairs")


def _play(store: Store, match_id: str, seats: list[tuple[str, str]], slow_seat: int | None = None,
          strikes: int = 0) -> None:
    """Record and rate a partnership match as the referee and a worker would: ``seats`` are
    (bot id, rated id); ``slow_seat`` answered in 400 ms, the others in 3 ms."""
    result = match_result(match_id, [bot for bot, _ in seats], [(0, [11, 4])])
    for seat in result.seats:
        seat.decisions = 10
        histogram: list[int] = []
        for _ in range(10):
            add_time(histogram, 400 if seat.seat == slow_seat else 3)
        seat.decision_time_histogram[:] = histogram
    result.seats[0].strikes = strikes
    stored = result_to_dict(result) | stamp_fields([(bot, "v", rated) for bot, rated in seats])
    assert store.record_match(match_id, stored, [])
    record_match(store, stored)


def _facts(page: str, element: str) -> str:
    """The text of the element with id ``element`` (its tags dropped)."""
    found = re.search(rf'id="{element}"[^>]*>(.*?)</(dd|p|div|pre|table|nav)>', page, re.S)
    assert found, f"no #{element} on the page"
    return re.sub(r"<[^>]+>", "", found.group(1))


def test_a_testing_version_shows_its_sprt_its_ratings_its_conduct_and_its_matches(
        people: People, redis_url: str) -> None:
    """Version 2 under test: the run (linked to /sprt), the LLR between its bounds, games of
    the cap, the pair counts and the Elo estimate; its rating row on the board, and its
    conduct and matches, which are its own: version 1's slow answers and strikes are not in
    them.  Then the test ends at H1 and the page says better; version 1's page says it was
    the bot's first.  The bot page links every version row to its page."""
    store = people.store
    _, bot_id = _owned_bot(people)
    others = [store.register_bot(f"opp{uuid.uuid4().hex[:6]}")[0].bot_id for _ in range(3)]
    app, test = _tested(store, redis_url, bot_id)
    later = f"{bot_id}-v2"
    _play(store, f"{bot_id}-old", [(bot_id, bot_id), (others[0], others[0]), (bot_id, bot_id),
                                   (others[1], others[1])], slow_seat=0, strikes=2)
    for n in range(3):
        _play(store, f"{bot_id}-new-{n}", [(bot_id, later), *((o, o) for o in others)])

    page = people.visitor.get(f"/bots/{bot_id}/versions/2")
    assert page.status_code == 200 and "no-store" not in page.headers.get("cache-control", "")
    text = page.text
    assert 'data-state="testing"' in text and "SPRT against 1" in _facts(text, "version-detail")
    assert f'href="/sprt/{test.run_id}"' in text
    assert f'href="/bots/{bot_id}/versions/1" id="test-predecessor"' in text
    assert _facts(text, "test-preset") == "partnership"  # the arena's: its author chose no preset
    assert _facts(text, "test-llr").endswith("+0.00 in [-2.94, 2.94]")
    assert _facts(text, "test-games") == "0 of 2000"
    assert _facts(text, "test-counts") == "0: 0 · ½: 0 · 1: 0 · 1½: 0 · 2: 0"
    assert re.fullmatch(r"[+-]\d+\.\d \[[+-]\d+\.\d, [+-]\d+\.\d\].*", _facts(text, "test-elo"))
    live = Leaderboard(store, BOARD).rows_for([later])[later]
    row = re.search(rf'<tr data-board="{BOARD}">(.*?)</tr>', text, re.S)
    assert row and f'<td class="elo">{live.rating:.0f}' in row.group(1)
    assert f'<td class="games">{live.games}<' in row.group(1)
    assert live.games == 3
    conduct = store.version_conduct(later)
    assert (conduct.matches, conduct.strikes) == (3, 0) and store.bot_conduct(bot_id).strikes == 2
    assert _facts(text, "conduct-matches") == "3" and _facts(text, "conduct-strikes") == "0"
    assert _facts(text, "conduct-decisions") == "30" and _facts(text, "conduct-p95") == "≤ 3 ms"
    listed = re.findall(r'<tr data-match-id="([^"]+)">', text)
    assert listed == [m for m, _ in store.version_matches(later, 20)] and len(listed) == 3
    assert f'href="/matches/{bot_id}-new-2"' in text and f"{bot_id}-old" not in text

    verdict = _decide(app, store, test.run_id, new_wins=True)
    assert verdict["verdict"] == "H1" and verdict["counts"][4] > 0
    better = people.visitor.get(f"/bots/{bot_id}/versions/2").text
    assert 'data-state="better"' in better and "H1 accepted against 1" in better
    assert _facts(better, "test-counts") == f"0: 0 · ½: 0 · 1: 0 · 1½: 0 · 2: {verdict['counts'][4]}"
    assert _facts(better, "test-games") == f"{verdict['games']} of 2000"
    assert _facts(better, "test-verdict") == "H1: better" and 'id="not-better"' not in better
    first = people.visitor.get(f"/bots/{bot_id}/versions/1").text
    assert 'data-state="undecided"' in first and "the bot&#39;s first version" in first
    assert _facts(first, "conduct-strikes") == "2" and _facts(first, "conduct-p95") == "≤ 500 ms"
    bot_page = people.visitor.get(f"/bots/{bot_id}").text
    for version in ("1", "2"):
        assert f'<a href="/bots/{bot_id}/versions/{version}">{version}</a>' in bot_page


def test_a_version_that_is_not_better_is_marked_and_still_listed_as_playing(people: People, redis_url: str) -> None:
    """Version 2 loses every pair: H0.  Its page marks it not better and says it still plays
    (it stays the bot's current version); the bot page still lists it, marked."""
    store = people.store
    _, bot_id = _owned_bot(people)
    app, test = _tested(store, redis_url, bot_id)
    assert 'id="not-better"' not in people.visitor.get(f"/bots/{bot_id}/versions/2").text
    assert _decide(app, store, test.run_id, new_wins=False)["verdict"] == "H0"
    text = people.visitor.get(f"/bots/{bot_id}/versions/2").text
    assert 'data-state="not-better"' in text and "H0 accepted against 1" in text
    assert "It still plays and is rated like any version" in _facts(text, "not-better")
    assert _facts(text, "version-plays") == "its bot's current version"
    assert _facts(text, "test-verdict") == "H0: not better"
    bot_page = people.visitor.get(f"/bots/{bot_id}").text
    row = re.search(rf'<tr data-rated-id="{bot_id}-v2" data-test="not-better">(.*?)</tr>', bot_page, re.S)
    assert row and f'href="/bots/{bot_id}/versions/2"' in row.group(1) and "badge on\">current" in row.group(1)


def test_a_rejected_versions_report_and_output_reach_its_owner_alone(people: People) -> None:
    """A hosted version that failed its compliance check: everyone sees it rejected, with
    the one-line detail; only the owner's session sees the report and the output (on a
    page no cache keeps), never a visitor or another account."""
    store = people.store
    _, bot_id = _owned_bot(people)
    hosted = HostedVersions(store)
    hosted.add(bot_id, "v1", "0" * 64, "{}", people.owner_name)
    report = "compliance check failed: 11 matches, 40 decisions, 1 problem\nproblem: play: strike for <illegal>"
    hosted.record_check(bot_id, "v1", report, passed=False)
    hosted.set_status(bot_id, "v1", "rejected", "compliance check failed: 11 matches, 40 decisions, 1 problem")
    hosted.write_log(bot_id, "v1", b"Traceback (most recent call last):\nSecretError: the-private-output\n")
    path = f"/bots/{bot_id}/versions/v1"

    mine = people.owner.get(path)
    assert mine.status_code == 200 and mine.headers["cache-control"] == "no-store"
    assert 'data-state="rejected"' in mine.text and "compliance check failed: 11 matches" in mine.text
    assert "problem: play: strike for &lt;illegal&gt;" in _facts(mine.text, "version-report")
    assert "<illegal>" not in mine.text
    assert "SecretError: the-private-output" in _facts(mine.text, "version-output")
    assert _facts(mine.text, "version-plays") == "never: rejected before its first arena match"
    for someone in (people.visitor, people.other):
        theirs = someone.get(path)
        assert theirs.status_code == 200 and 'data-state="rejected"' in theirs.text
        assert "compliance check failed: 11 matches" in _facts(theirs.text, "version-detail")
        for private in ("strike for", "the-private-output", "Traceback", 'id="owner"', "version-report"):
            assert private not in theirs.text, private
    owner_bot_page = people.owner.get(f"/bots/{bot_id}")
    assert f'<a href="{path}">v1</a>' in owner_bot_page.text and owner_bot_page.headers["cache-control"] == "no-store"


def test_bad_versions_and_pages_answer_short_and_pages_clamp(people: People) -> None:
    """A malformed, overlong or unknown version, or an unknown bot, is a 404 that repeats at
    most 60 characters; ``?page=`` past the last page (even 5,000 digits) shows the last, and
    anything but digits is a 400."""
    store = people.store
    bot_id = store.register_bot(f"paged{uuid.uuid4().hex[:6]}")[0].bot_id
    BotVersions(store).connected(bot_id, "1.0")
    others = [store.register_bot(f"opp{uuid.uuid4().hex[:6]}")[0].bot_id for _ in range(3)]
    for n in range(23):
        _play(store, f"{bot_id}-{n:02d}", [(bot_id, bot_id), *((o, o) for o in others)])
    path = f"/bots/{bot_id}/versions/1.0"
    newest = re.findall(r'<tr data-match-id="([^"]+)">', people.visitor.get(path).text)
    assert newest == [m for m, _ in store.version_matches(bot_id, 20)] and len(newest) == 20
    for page in ("2", "99999", "9" * 5000):
        shown = people.visitor.get(path, params={"page": page})
        assert shown.status_code == 200, page[:10]
        assert re.findall(r'<tr data-match-id="([^"]+)">', shown.text) == [f"{bot_id}-{n:02d}" for n in (2, 1, 0)]
        assert "page 2 of 2 (23 matches)" in shown.text
    for page in ("abc", "-1", "1.5", "", "٣"):
        refused = people.visitor.get(path, params={"page": page})
        assert refused.status_code == 400 and len(refused.text) < 100, page
    for version, answer in (("x" * 300, "no version 'xxx"), ("<b>", "no version '<b>'"), ("2.0", "no version '2.0'"),
                            ("-dash", "no version '-dash'")):
        missing = people.visitor.get(f"/bots/{bot_id}/versions/{version}")
        assert missing.status_code == 404 and missing.text.startswith(f"404: {answer}") and len(missing.text) < 120
    unknown = people.visitor.get(f"/bots/{'b' * 300}/versions/1.0")
    assert unknown.status_code == 404 and len(unknown.text) < 120
    assert people.visitor.get("/bots/nobody/versions/1.0").status_code == 404


def test_an_owner_text_naming_an_account_gives_it_nothing_of_the_bot(people: People, tmp_path: Path) -> None:
    """The operator registers a bot whose free-text owner is the account's name: the signed-in
    account sees none of its hosted versions, report, output or upload form, on the bot's page
    or the version's, and its upload is a 404 as for a missing bot; the account's own bot,
    hosted the same way, shows all of them and takes the upload."""
    store = people.store
    registered = store.register_bot(f"operators{uuid.uuid4().hex[:6]}", owner=people.owner_name)[0].bot_id
    _, owned = _owned_bot(people)
    hosted = HostedVersions(store)
    for bot_id in (registered, owned):
        hosted.add(bot_id, "v1", "0" * 64, "{}", people.owner_name)
        hosted.record_check(bot_id, "v1", "compliance check passed: the-private-report", passed=True)
        hosted.write_log(bot_id, "v1", b"the-private-output\n")
    csrf = re.search(r'name="csrf" value="([^"]+)"', people.owner.get("/account").text)
    assert csrf
    source = tmp_path / "mine.py"
    source.write_text("from pitch_sdk.bots.heuristic import HeuristicBot\n\n\nclass Mine(HeuristicBot):\n"
                      "    name = 'mine'\n")
    package = pack(source, "Mine")

    def upload(bot_id: str) -> httpx2.Response:
        return people.owner.post(f"/bots/{bot_id}/versions", data={"csrf": csrf.group(1), "version": "v2"},
                                 files={"package": ("mine.tar.gz", package, "application/gzip")})

    private = ('id="hosted-versions"', 'id="upload-version"', "the-private-report", "the-private-output",
               'id="owner"', "version-report", "version-output")
    for bot_id, mine in ((registered, False), (owned, True)):
        bot_page = people.owner.get(f"/bots/{bot_id}")
        version_page = people.owner.get(f"/bots/{bot_id}/versions/v1")
        assert bot_page.status_code == version_page.status_code == 200
        shown = {text for text in private if text in bot_page.text + version_page.text}
        assert shown == (set(private) if mine else set()), bot_id
        for answer in (bot_page, version_page):
            assert ("no-store" in answer.headers.get("cache-control", "")) is mine
    refused = upload(registered)
    assert refused.status_code == 404 and [v.version for v in hosted.versions_of(registered)] == ["v1"]
    assert upload(owned).status_code == 303 and [v.version for v in hosted.versions_of(owned)] == ["v1", "v2"]
