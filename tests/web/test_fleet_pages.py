"""The web arena over a referee fleet: two real referees on one Redis (each on its own event
loop), the web service over real HTTP pointed at the first (``PITCH_REFEREE``), and a match
running on the second only, with raw-stub bots connected to the second only that hold their
first decisions until the pages have been read (so the match is still running then)."""

from __future__ import annotations

import asyncio
import http.cookiejar
import json
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from cli.local_arena import free_port
from competitions.referee_client import RefereeClient
from pitch_sdk.proto.pitch.v1 import bot_pb2
from store.fleet import FleetDirectory
from store.redis_store import Store
from tests.referee.harness import RawBot, answer_first
from tests.web.harness import read_sse, served
from tests.workers.celery_harness import ArenaThread, referee_fleet, wait_until
from web.app import create_app
from web.config import WebConfig

#: Time control of the fleet's referees: a held decision must not time out while the pages are read.
PATIENT = {"per_decision_ms": 30_000, "bank_ms": 60_000}


class HeldDecisions:
    """A RawBot handler that keeps every decision request until :meth:`release`, then
    answers them, and every later one, with legal action 0."""

    def __init__(self) -> None:
        self.held: list[tuple[RawBot, bot_pb2.RefereeMessage]] = []
        self.released = False

    def __call__(self, bot: RawBot, message: bot_pb2.RefereeMessage) -> None:
        if message.HasField("decision_request"):
            if self.released:
                answer_first(bot, message)
            else:
                self.held.append((bot, message))

    def release(self) -> None:
        """Answer what was held (call on the referee's event loop)."""
        self.released = True
        for bot, message in self.held:
            answer_first(bot, message)


@pytest.fixture()
def fleet(redis_url: str) -> Iterator[tuple[ArenaThread, ArenaThread]]:
    """Two patient referees of one arena that stop without waiting out the default shutdown
    grace for the person's game a test leaves unfinished."""
    with referee_fleet(redis_url, shutdown_grace_s=0.5, **PATIENT) as referees:
        yield referees


def connect_raw(arena: ArenaThread, token: str, handler: HeldDecisions) -> RawBot:
    """A raw-stub bot connected to ``arena`` only, welcomed."""

    async def start() -> RawBot:
        hello = bot_pb2.Hello(protocol_versions=["pitch.v1"], capacity=4)
        return await RawBot(arena.arena, token, hello, handler).started()

    bot: RawBot = arena.call(start())
    return bot


def page(url: str) -> str:
    with urllib.request.urlopen(urllib.request.Request(url, headers={"accept": "text/html"}), timeout=30) as answer:
        assert answer.status == 200
        return str(answer.read().decode())


def answer(url: str) -> tuple[int, str]:
    """The HTTP status ``url`` answers with, and its body."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return int(response.status), ""
    except urllib.error.HTTPError as error:
        return int(error.code), error.read().decode()


def listed(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{url}/live?format=json", timeout=30) as answer:
        found: dict[str, Any] = json.loads(answer.read())
    return found


def test_the_live_pages_show_what_runs_on_another_referee_of_the_fleet(
        redis_url: str, fleet: tuple[ArenaThread, ArenaThread]) -> None:
    """With the web service pointed at the first referee: /live lists the match the second
    runs and links its spectator page; its event stream comes from the second referee while
    the match runs, then to the result; a bot connected to the second referee only is
    connected on the bot page and the bots list, with the seats it plays fleet-wide, and
    offered for a person's game (the first relays its seat); a referee that does not answer
    is said on /live, a bot the directory lists on it is connected (with the capacity it
    declared there), and a match it may run (its claim names it) is a 503, not a 404; with
    no fleet in the directory, PITCH_REFEREE alone is read as before; once the
    match ended, its stream is still found (on the referee that ran it) and its page shows
    the result."""
    first, second = fleet
    held = HeldDecisions()
    bots = [second.register() for _ in range(2)]
    streams = [connect_raw(second, token, held) for _, token in bots]
    a, b = (bot_id for bot_id, _ in bots)
    directory = FleetDirectory(Store.from_url(redis_url, first.prefix))
    wait_until(lambda: [e.address for e in directory.hosting([a, b])] == [second.arena.address], 10,
               "the bots listed under the second referee")
    config = WebConfig(redis_url=redis_url, store_prefix=first.prefix, referee=first.arena.address,
                       admin_token="test-admin")  # tests.referee.harness's referees' token
    match_id = f"fleet-web-{uuid.uuid4().hex[:8]}"
    with served(create_app(config)) as url:
        played = asyncio.run_coroutine_threadsafe(
            second.arena.run_match("partnership", [a, b, a, b], match_id=match_id, seed=5, games=1), second.loop)
        wait_until(lambda: bool(held.held), 10, "the match's first decision")

        shown = listed(url)
        assert (shown["reachable"], shown["referees"], shown["silent"]) == (True, 2, 0)
        assert [m["match_id"] for m in shown["matches"]] == [match_id]
        assert shown["matches"][0]["url"] == f"/live/{match_id}"
        assert f'href="/live/{match_id}"' in page(f"{url}/live")
        assert 'id="match-state"' in page(f"{url}/live/{match_id}")
        first_batch = read_sse(f"{url}/live/{match_id}/events", count=1)
        assert first_batch[0][0] == "match-events" and first_batch[0][1]["events"]
        assert not played.done(), "the match must still run while its stream is read"

        on_first = RefereeClient(first.arena.address, "test-admin", 10).bots()
        assert not [bot for bot in on_first if bot.bot_id in (a, b) and bot.connected]  # the first alone: offline
        bot_page = page(f"{url}/bots/{a}")
        assert '<dd id="bot-status"><span class="badge on">connected</span>' in bot_page
        assert '<dd id="bot-capacity">4 seats (2 in use)' in bot_page
        bots_page = page(f"{url}/bots")
        row = bots_page[bots_page.index(f'data-bot-id="{b}"'):]
        assert '<span class="badge on">connected</span>' in row[:row.index("</tr>")]
        assert f'value="bot:{a}"' in page(f"{url}/play")  # the first referee relays its seat

        elsewhere, _ = second.register()  # connected, says the directory, to a referee that does not answer
        directory.announce("silent", f"127.0.0.1:{free_port()}", 4, 0, [elsewhere], [],
                           {elsewhere: 3})  # nothing listens there
        with TestClient(create_app(config)) as client:  # a fresh service: no list of bots kept from above
            facts = client.get(f"/bots/{elsewhere}").text
        assert '<dd id="bot-status"><span class="badge on">connected</span>' in facts
        assert '<dd id="bot-capacity">3 seats (0 in use)' in facts  # read from the directory, not the referee
        shown = listed(url)
        assert (shown["reachable"], shown["referees"], shown["silent"]) == (True, 3, 1)
        assert [m["match_id"] for m in shown["matches"]] == [match_id]
        assert "1 of 3 referees did not answer" in page(f"{url}/live")
        assert directory.claim("claimed-by-silent", "silent") == "silent"
        for path in ("/live/claimed-by-silent", "/live/claimed-by-silent/events", "/live/no-such-match"):
            assert answer(f"{url}{path}")[0] == 503, path  # the silent referee may run it: not a 404
        code, text = answer(f"{url}/live/{'x' * 5000}")
        assert code == 503 and "cannot be reached" in text and "x" * 100 not in text  # an id is not echoed whole
        directory.withdraw("silent")
        assert answer(f"{url}/live/no-such-match")[0] == 404

        lone = WebConfig(**{**config.__dict__, "store_prefix": f"lone-{uuid.uuid4().hex[:8]}:",
                            "referee": second.arena.address})
        with TestClient(create_app(lone)) as client:  # no fleet under this prefix: PITCH_REFEREE alone
            assert client.get("/live?format=json").json()["referees"] == 1
            assert [m["match_id"] for m in client.get("/live?format=json").json()["matches"]] == [match_id]

        second.loop.call_soon_threadsafe(held.release)
        whole = read_sse(f"{url}/live/{match_id}/events")
        assert whole[-1][0] == "result", whole[-1]
        assert sum(len(data.get("events", [])) for _, data in whole[:-1]) > len(first_batch[0][1]["events"])
        assert played.result(60).result.completed
        again = read_sse(f"{url}/live/{match_id}/events")  # ended and released: any referee that keeps it
        assert again[-1] == whole[-1]
        assert 'id="replay-link"' in page(f"{url}/live/{match_id}")
    for stream in streams:
        second.loop.call_soon_threadsafe(stream.close)


class AnsweredDecisions:
    """A RawBot handler that answers every decision with legal action 0 and keeps the
    match ids of the decisions it answered."""

    def __init__(self) -> None:
        self.matches: list[str] = []

    def __call__(self, bot: RawBot, message: bot_pb2.RefereeMessage) -> None:
        if message.HasField("decision_request"):
            self.matches.append(message.decision_request.match_id)
            answer_first(bot, message)


def table_state(opener: urllib.request.OpenerDirector, url: str,
                until: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The first state of a person's table (its event stream, read with the game's cookie)
    that satisfies ``until``."""
    with opener.open(url, timeout=60) as response:
        for raw in response:
            line = raw.decode().rstrip("\r\n")
            if line.startswith("data:"):
                state: dict[str, Any] = json.loads(line.removeprefix("data:").strip())
                if until(state):
                    return state
    raise AssertionError(f"the table's stream ended before the state wanted: {url}")


def test_a_persons_game_seats_a_bot_connected_to_another_referee_through_the_relay(
        redis_url: str, fleet: tuple[ArenaThread, ArenaThread]) -> None:
    """The web service points at the first referee; a bot of capacity 1 is connected to the
    second only.  /play offers it (with its fleet-wide seats), a person's game started
    through the web app seats it, the person makes a move and the bot answers its seat's
    decisions through the relay; its pages count the seat it plays (the ledger); a second
    game with it is refused by the referee for lack of room, and the person is told so."""
    first, second = fleet
    answered = AnsweredDecisions()
    bot_id, token = second.register()

    async def start() -> RawBot:
        hello = bot_pb2.Hello(protocol_versions=["pitch.v1"], capacity=1)
        return await RawBot(second.arena, token, hello, answered).started()

    stream: RawBot = second.call(start())
    directory = FleetDirectory(Store.from_url(redis_url, first.prefix))
    wait_until(lambda: [e.address for e in directory.hosting([bot_id])] == [second.arena.address], 10,
               "the bot listed under the second referee")
    config = WebConfig(redis_url=redis_url, store_prefix=first.prefix, referee=first.arena.address,
                       admin_token="test-admin")
    with served(create_app(config)) as url:
        form = page(f"{url}/play")
        assert f'value="bot:{bot_id}"' in form and "0 of 1 seats in use" in form
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

        def start_game() -> str:
            seats = {"preset": "partnership", "target": "1", "seat": "0", "admin_token": "test-admin",
                     "opponent": [f"bot:{bot_id}", "house:random", "house:random"]}
            body = urllib.parse.urlencode(seats, doseq=True).encode()
            with opener.open(f"{url}/play", data=body, timeout=30) as started:  # 303 to the table, cookie kept
                return str(started.geturl().rsplit("/", 1)[1])

        match_id = start_game()
        deciding = table_state(opener, f"{url}/play/{match_id}/events", lambda s: s["decision"] is not None)
        move = urllib.parse.urlencode({"decision_id": deciding["decision"]["id"], "index": "0"}).encode()
        with opener.open(f"{url}/play/{match_id}/decision", data=move, timeout=30) as sent:
            assert json.loads(sent.read()) == {"ok": True}
        wait_until(lambda: match_id in answered.matches, 20, "a decision of the bot's seat, relayed")
        then = table_state(opener, f"{url}/play/{match_id}/events",  # its answer came back: the game went on
                           lambda s: s["decision"] is not None and s["decision"]["id"] != deciding["decision"]["id"])
        assert not then["strikes"] and then["state"] == "deciding"
        assert first.arena.server.arena.registry.get(bot_id) is None  # no stream on the first: relayed
        wait_until(lambda: "1 seats (1 in use)" in page(f"{url}/bots/{bot_id}"), 10,  # past the 2 s of the form's read
                   "the bot page counting the relayed seat")

        refused = start_game()
        ended = table_state(opener, f"{url}/play/{refused}/events", lambda s: s["state"] == "finished")
        assert ended["error"].startswith("no room for this game now: bot"), ended["error"]
        assert refused not in answered.matches
    second.loop.call_soon_threadsafe(stream.close)
