"""The web arena's pages in process (Starlette's TestClient) over a real Redis, with the
store written through the project's own store modules: what each page shows, and that bad
input, a missing admin token or an unreachable referee get clear answers, never a crash."""

from __future__ import annotations

import json
import re
import socket
import uuid
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from starlette.testclient import TestClient

from cli.local_arena import free_port
from competitions.ratings.leaderboard import Leaderboard, record_match
from competitions.sprt import control
from competitions.sprt.plan import SprtSpec
from competitions.sprt.store import SprtStore
from competitions.tournaments import control as tournament
from competitions.tournaments.store import TournamentStore
from competitions.tournaments.table import PLAYED
from pitch_sdk.bots import HeuristicBot, RandomBot
from pitch_sdk.harness.local import play_game
from pitch_sdk.protocol.decision_times import add_time
from pitch_sdk.rules import GameLog, preset
from store.fleet import FleetDirectory
from store.redis_store import Store
from store.results import result_to_dict
from store.versions import BotVersions
from tests.results import match_result
from web.app import create_app
from web.arena import WebArena
from web.config import WebConfig

ADMIN = "web-admin-token"


@pytest.fixture()
def client(store: Store, redis_url: str) -> Iterator[TestClient]:
    """The web arena over ``store``, its referee address closed (nothing listens there)."""
    config = WebConfig(redis_url=redis_url, store_prefix=store.prefix, referee=f"127.0.0.1:{free_port()}",
                       admin_token=ADMIN)
    with TestClient(create_app(config, WebArena(config, store)), headers={"accept": "text/html"}) as test_client:
        yield test_client


def _play(store: Store, match_id: str, seats: list[str], winner: int, slow_seat: int | None = None) -> None:
    """Record and rate a partnership match as a worker would; ``slow_seat`` took 400 ms a decision."""
    result = match_result(match_id, seats, [(winner, [11, 4] if winner == 0 else [4, 11])])
    for seat in result.seats:
        seat.decisions = 10
        histogram: list[int] = []
        for _ in range(10):
            add_time(histogram, 400 if seat.seat == slow_seat else 3)
        seat.decision_time_histogram[:] = histogram
    result.seats[0].strikes, result.seats[0].timeouts = 1, 1
    stored = result_to_dict(result)
    assert store.record_match(match_id, stored, [])
    record_match(store, stored)


def _field(store: Store) -> list[str]:
    return [store.register_bot(name)[0].bot_id for name in ("alpha", "bravo", "charlie", "<b>delta</b>")]


def test_an_empty_arena_says_what_to_do(client: TestClient) -> None:
    page = client.get("/leaderboards")
    assert page.status_code == 200 and "No rated matches yet" in page.text
    assert client.get("/", follow_redirects=False).headers["location"].endswith("/leaderboards")
    assert "No bot is registered yet" in client.get("/bots").text
    assert "No tournament yet" in client.get("/tournaments").text
    assert client.get("/healthz").text == "ok\n"


def test_leaderboard_shows_the_stores_rows_and_escapes_names(client: TestClient, store: Store) -> None:
    bots = _field(store)
    for i in range(6):
        _play(store, f"m{i}", [bots[0], bots[1], bots[2], bots[3]], winner=0 if i % 3 else 1)
    page = client.get("/leaderboards/partnership")
    assert page.status_code == 200
    for row in Leaderboard(store, "partnership").top(4):
        assert f'data-bot-id="{row.bot_id}"' in page.text
        assert f">{row.rating:.0f}" in page.text
    assert "&lt;b&gt;delta&lt;/b&gt;" in page.text and "<b>delta</b>" not in page.text
    assert page.text.count("<path d=") == 4  # one history line per bot
    assert client.get("/leaderboards/partnership?sort=nonsense").status_code == 200  # the default order


def test_bot_page_shows_ratings_head_to_head_matches_and_conduct(client: TestClient, store: Store) -> None:
    bots = _field(store)
    for i in range(3):
        _play(store, f"c{i}", [bots[0], bots[1], bots[2], bots[3]], winner=0, slow_seat=0)
    page = client.get(f"/bots/{bots[0]}")
    assert page.status_code == 200
    assert "referee unreachable" in page.text  # the referee is down: said, not a failure
    assert 'data-board="partnership"' in page.text
    for opponent in (bots[1], bots[3]):
        assert f'data-opponent="{opponent}"' in page.text
    for match_id in ("c0", "c1", "c2"):
        assert f'data-match-id="{match_id}"' in page.text
    conduct = store.bot_conduct(bots[0])
    assert (conduct.matches, conduct.decisions, conduct.strikes, conduct.timeouts) == (3, 30, 3, 3)
    assert conduct.median_ms == 500 and conduct.p95_ms == 500
    assert '<dd id="conduct-median">≤ 500 ms</dd>' in page.text
    assert '<dd id="conduct-strikes">3</dd>' in page.text
    assert store.bot_conduct(bots[1]).median_ms == 3


def test_unknown_things_are_404s_that_repeat_little_of_the_request(client: TestClient) -> None:
    for path in ("/leaderboards/" + "z" * 300, "/bots/" + "z" * 300, "/tournaments/" + "z" * 300,
                 "/tournaments/nope/progress"):
        page = client.get(path)
        assert page.status_code == 404, path
        assert "z" * 61 not in page.text
    assert client.get("/bots/nope", headers={"accept": "*/*"}).text == "404: no bot 'nope'\n"


def test_starting_a_tournament_needs_the_admin_token(client: TestClient) -> None:
    for form in ({"preset": "partnership"}, {"preset": "partnership", "admin_token": "wrong"}):
        refused = client.post("/tournaments", data=form)
        assert refused.status_code == 403 and "admin token" in refused.text
    bearer = client.post("/tournaments", data={"preset": "partnership", "games": "x"},
                         headers={"authorization": f"Bearer {ADMIN}"})
    assert bearer.status_code == 400 and "games must be a whole number from 1 to 1000" in bearer.text
    for seed in ("9" * 4000, "\u00b2", "-3"):  # a 4,000-digit seed was taken, a superscript a 500
        refused = client.post("/tournaments", data={"preset": "partnership", "seed": seed},
                              headers={"authorization": f"Bearer {ADMIN}"})
        assert refused.status_code == 400 and "seed must be a whole number" in refused.text, seed
    down = client.post("/tournaments", data={"preset": "partnership", "admin_token": ADMIN})
    assert down.status_code == 503 and "referee cannot be reached" in down.text


def test_an_arena_without_an_admin_token_refuses_every_change(store: Store, redis_url: str) -> None:
    config = WebConfig(redis_url=redis_url, store_prefix=store.prefix, referee=f"127.0.0.1:{free_port()}")
    with TestClient(create_app(config, WebArena(config, store))) as open_arena:
        assert open_arena.post("/tournaments", data={"preset": "x", "admin_token": ""}).status_code == 403


def test_bad_settings_are_refused_with_the_variable_named() -> None:
    with pytest.raises(ValueError, match="PITCH_WEB_ADDRESS"):
        WebConfig.from_env({"PITCH_WEB_ADDRESS": "nowhere"})
    with pytest.raises(ValueError, match="PITCH_WEB_MAX_HUMAN_MATCHES"):
        WebConfig.from_env({"PITCH_WEB_MAX_HUMAN_MATCHES": "many"})
    for ttl in ("0", "soon"):
        with pytest.raises(ValueError, match="PITCH_FLEET_TTL_S"):
            WebConfig.from_env({"PITCH_FLEET_TTL_S": ttl})
    assert WebConfig.from_env({"PITCH_FLEET_TTL_S": "2.5"}).fleet_ttl_s == 2.5


def test_registering_needs_the_admin_token_and_says_when_the_referee_is_down(client: TestClient) -> None:
    assert client.post("/bots", data={"name": "x"}).status_code == 403
    down = client.post("/bots", data={"name": "x", "admin_token": ADMIN})
    assert down.status_code == 503 and "no bot was registered" in down.text
    long = client.post("/bots", data={"name": "x", "description": "d" * 501, "admin_token": ADMIN})
    assert long.status_code == 400


def test_bot_supplied_description_and_owner_are_text(client: TestClient, store: Store) -> None:
    record, _ = store.register_bot("plain", owner="<i>me</i>", description='<img src=x onerror="alert(1)">')
    page = client.get(f"/bots/{record.bot_id}")
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in page.text and "<img" not in page.text
    assert "&lt;i&gt;me&lt;/i&gt;" in page.text


def test_sprt_page_lists_runs_with_their_llr_and_state(client: TestClient, store: Store) -> None:
    """/sprt shows each run's bots by name, games against the cap and its LLR between its
    bounds (a meter), reloading while a run goes on; a finished run shows its verdict."""
    assert "No SPRT run yet" in client.get("/sprt").text
    new, old = (store.register_bot(f"{who}-{uuid.uuid4().hex[:6]}")[0] for who in ("new", "old"))
    sprts = SprtStore(store)
    spec = SprtSpec("sprt-web", "partnership", new.bot_id, old.bot_id, None, 0.0, 200.0, 0.05, 0.05, 20, 1, {})
    control.create(sprts, spec)
    won = {"status": "played", "result": {"games": [{"has_winner": True, "scores": [11, 3]}]}}
    sprts.runs.record_outcome("sprt-web", 0, won)  # NEW (party 0) won the first match of pair 0
    sprts.runs.record_outcome("sprt-web", 1, {**won, "result": {"games": [{"has_winner": True, "winner": 1}]}})
    page = client.get("/sprt").text
    llr = control.progress(sprts, "sprt-web").standing.status.llr
    assert new.name in page and old.name in page and "2 / 20" in page and f"{llr:.2f}" in page
    assert '<meta http-equiv="refresh"' in page and "running" in page and "<meter" in page
    sprts.save_verdict("sprt-web", control.progress(sprts, "sprt-web").standing)
    finished = client.get("/sprt").text
    assert "cap reached" in finished and "http-equiv" not in finished


def test_leaderboard_shows_current_versions_and_every_version_on_request(client: TestClient, store: Store) -> None:
    """A bot that moved to a new version is listed once, as its new version, by default;
    ``?versions=all`` lists both versions (``name@version``), the sort links keep it, and
    a version's row links to its bot's page."""
    bots = _field(store)
    versions = BotVersions(store)
    for bot in bots:
        versions.connected(bot, "1")
    _play(store, "v1", bots, winner=0)
    versions.connected(bots[0], "2")  # alpha reconnects as version 2 and plays once more
    newer = versions.rated_id(bots[0], "2")
    stored = result_to_dict(match_result("v2", bots, [(1, [4, 11])]))
    stored.update(versions.stamp([(bot, "2" if bot == bots[0] else "1") for bot in bots]))
    assert store.record_match("v2", stored, [])
    record_match(store, stored)
    current = client.get("/leaderboards/partnership").text
    assert f'data-bot-id="{newer}"' in current and f'data-bot-id="{bots[0]}"' not in current
    assert "alpha@2" in current and f'href="/bots/{bots[0]}"' in current
    every = client.get("/leaderboards/partnership?versions=all&sort=bt").text
    assert f'data-bot-id="{newer}"' in every and f'data-bot-id="{bots[0]}"' in every
    assert "alpha@1" in every and "alpha@2" in every and "bravo@1" in every
    assert "?sort=games&amp;versions=all" in every
    page = client.get(f"/bots/{bots[0]}").text  # the current version's ratings, then every version's
    live = Leaderboard(store, "partnership").row(newer)
    assert live is not None and f'data-rated-id="{newer}"' in page and f'data-rated-id="{bots[0]}"' in page
    assert page.count('class="badge on">current') == 1 and f"partnership: {live.rating:.0f} (1 games)" in page
    assert f'data-opponent="{bots[1]}"' in page  # its opponents as the new version


def test_an_unreachable_referee_is_said_on_the_live_pages_not_failed(client: TestClient) -> None:
    """With no fleet in the directory and nothing at ``PITCH_REFEREE`` (a lone referee that
    is down), /live says so, and a spectator page and its event stream answer 503 (never a
    500 or a traceback)."""
    listed = client.get("/live")
    assert listed.status_code == 200 and "The referee cannot be reached" in listed.text
    assert client.get("/live?format=json").json() == {"reachable": False, "referees": 1, "silent": 1, "matches": []}
    for path in ("/live/some-match", "/live/some-match/events"):
        answer = client.get(path)
        assert answer.status_code == 503, path
        assert "cannot be reached" in answer.text and "Traceback" not in answer.text


def test_a_referee_that_accepts_and_never_answers_costs_the_live_list_its_deadline_not_a_hang(
        client: TestClient, store: Store) -> None:
    """A fleet entry whose address accepts connections but never speaks (a stuck referee):
    /live answers, the referee counted as silent, once the read's deadline has passed."""
    with socket.socket() as stuck:
        stuck.bind(("127.0.0.1", 0))
        stuck.listen()
        FleetDirectory(store).announce("stuck", f"127.0.0.1:{stuck.getsockname()[1]}", 4, 1, [], [])
        listed = client.get("/live?format=json").json()
    assert listed == {"reachable": False, "referees": 1, "silent": 1, "matches": []}


def test_a_tournament_page_counts_unrated_matches_apart_with_their_reason(client: TestClient, store: Store) -> None:
    """A played match the referee marked unrated shows as such in the list of matches, with
    its reason, and the final table counts it apart (an "unrated" column and a note)."""
    bots = _field(store)
    tournaments = TournamentStore(store)
    schedule = tournament.create(tournaments, "partnership", bots, teams=[bots[:2], bots[2:]])
    for match in schedule.matches:
        result = result_to_dict(match_result(match.match_id, match.seats, [(0, [11, 4])]))
        if match.index == 0:
            result |= {"unrated": True, "unrated_reason": "fallback-heavy: seat 3 30 of 33"}
        tournaments.record_outcome(schedule.tournament_id, match.index, {"status": PLAYED, "result": result})
    assert tournament.finish(tournaments, schedule.tournament_id)
    page = client.get(f"/tournaments/{schedule.tournament_id}").text
    assert '<tr data-index="0" data-status="unrated">' in page and "fallback-heavy: seat 3 30 of 33" in page
    assert '<span id="count-unrated">1</span> match kept off the ratings' in page
    assert '<tr data-index="1" data-status="played">' in page


def test_every_page_carries_the_security_headers(client: TestClient) -> None:
    """Pages, errors and static files: a Content-Security-Policy that allows scripts and
    styles from the arena only and no framing, nosniff, no framing (legacy header) and a
    same-origin referrer; pages that show no secret may be cached."""
    for path in ("/", "/bots", "/no-such-page", "/static/arena.css"):
        headers = client.get(path).headers
        policy = headers["content-security-policy"]
        assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy and "default-src 'self'" in policy
        assert headers["x-content-type-options"] == "nosniff" and headers["x-frame-options"] == "DENY"
        assert headers["referrer-policy"] == "same-origin"
    assert "no-store" not in client.get("/").headers.get("cache-control", "")


def test_error_text_a_link_sets_is_not_shown(client: TestClient) -> None:
    """``?error=`` is not read by any page: a link could make the arena's own page say
    anything ("your account is locked, log in at ..."); errors are the server's own words."""
    planted = "Your account is locked: sign in again at evil.example"
    for path in ("/play", "/tournaments"):
        page = client.get(path, params={"error": planted})
        assert page.status_code == 200 and "evil.example" not in page.text


def test_links_and_redirects_never_carry_the_host_the_request_named(client: TestClient, store: Store) -> None:
    """A forged ``Host`` header ends up in no link, script source or redirect: they are
    root-relative paths (Starlette's ``url_for`` builds absolute URLs from that header)."""
    _field(store)
    forged = {"host": "evil.example"}
    home = client.get("/", headers=forged, follow_redirects=False)
    assert home.status_code == 302 and home.headers["location"] == "/leaderboards"
    for path in ("/leaderboards", "/bots", "/play", "/live", "/tournaments"):
        page = client.get(path, headers=forged)
        assert page.status_code == 200 and "evil.example" not in page.text, path
        assert 'href="/static/arena.css"' in page.text


#: Every whole number a page reads from its query: (path, parameter); ``{bot}`` and
#: ``{match}`` name the bot and the match of :func:`_replayable`.
QUERY_NUMBERS = [
    ("/leaderboards/partnership?sort=elo&page=", "page"),  # pages in Redis
    ("/leaderboards/partnership?sort=bt&page=", "page"),  # pages the cached table
    ("/bots/{bot}/versions/1.0?page=", "page"),
    ("/matches/{match}/games/1?step=", "step"),
]
#: What a page shows of the part a number picks: leaderboard rows, matches, the replay's step.
PICKED = re.compile(r'data-(?:bot-id|match-id|step)="([^"]*)"')


def _replayable(store: Store) -> tuple[str, str]:
    """A rated partnership match with a game log that replays, its first seat's bot at
    version 1.0: the match's id and that bot's."""
    bots = _field(store)
    BotVersions(store).connected(bots[0], "1.0")
    log = GameLog.of(play_game(preset("partnership"), [HeuristicBot(), RandomBot(), HeuristicBot(), RandomBot()],
                               seed=1))
    result = match_result("replayed", bots, [(0, [11, 4])])
    result.ruleset.json = log.ruleset.to_json()
    stored = result_to_dict(result)
    assert store.record_match("replayed", stored, [json.dumps(log.to_dict())])
    record_match(store, stored)
    return "replayed", bots[0]


@pytest.mark.parametrize(("path", "name"), QUERY_NUMBERS)
def test_every_number_a_query_names_is_a_400_naming_it_or_clamped(client: TestClient, store: Store, path: str,
                                                                  name: str) -> None:
    """Anything but ASCII digits is a 400 that names the parameter and repeats none of the
    value; a number past the last page or step shows the last, whatever its length (4,000
    digits Python converts, and paging in Redis by it failed; 5,000 it refuses)."""
    match_id, bot_id = _replayable(store)
    url = path.format(bot=bot_id, match=match_id)
    last = "1"
    if name == "step":
        found = re.search(r'data-last="(\d+)"', client.get(url + "0").text)
        assert found
        last = found.group(1)
    expected = PICKED.findall(client.get(url + last).text)
    assert expected, "the last page or step shows something"
    for value in ("99999", "9" * 4000, "9" * 5000):
        answer = client.get(url + value)
        assert answer.status_code == 200, (url, len(value))
        assert PICKED.findall(answer.text) == expected, (url, len(value))
    for value in ("abc", "-1", "1.5", "", " 1", "1e3", "٣", "²", "x" * 5000):
        refused = client.get(url + quote(value))
        assert refused.status_code == 400, (url, value[:10])
        assert f"{name}: " in refused.text and "xxxxx" not in refused.text and len(refused.text) < 1000, refused.text


def test_a_game_number_of_any_length_past_the_match_is_a_404(client: TestClient, store: Store) -> None:
    """The replay's game number comes from its path: past the match's games it is a 404
    however many digits it has (5,000 are past what Python converts)."""
    match_id, _ = _replayable(store)
    for game in ("2", "9" * 5000, "٣"):
        missing = client.get(f"/matches/{match_id}/games/{quote(game)}")
        assert missing.status_code == 404 and len(missing.text) < 1000, game[:10]
