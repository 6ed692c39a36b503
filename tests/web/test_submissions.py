"""Submitting hosted versions through the web, in process over a real Redis and a real
artifact folder: a package becomes a version stored by its sha256; its owner lists its
versions, reads its output and stops it; another account gets 404 from every endpoint, a
hostile or oversized package a short 4xx, a burst of submissions 429; the bot page shows the
hosted versions and the upload form to the owner alone."""

from __future__ import annotations

import gzip
import io
import re
import tarfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from cli.local_arena import free_port
from competitions.queue import make_app
from competitions.sprt import control as sprt_control
from competitions.sprt.store import SprtStore
from competitions.version_tests import control as version_tests
from pitch_sdk.packages.archive import MAX_PACKED_BYTES, pack
from store.fleet import FleetDirectory
from store.hosted import HostedVersions
from store.redis_store import Store
from store.seat_keys import seat_key
from store.version_tests import VersionTestStore
from store.versions import BotVersions
from tests.workers.test_tournament import worker_config
from web.app import create_app
from web.arena import WebArena
from web.config import WebConfig

BOT = "from pitch_sdk.bots.heuristic import HeuristicBot\n\n\nclass Mine(HeuristicBot):\n    name = 'mine'\n"


@pytest.fixture()
def client(store: Store, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.setenv("PITCH_ARTIFACTS_DIR", str(tmp_path / "artifacts"))
    config = WebConfig(redis_url=redis_url, store_prefix=store.prefix, referee=f"127.0.0.1:{free_port()}",
                       admin_token="admin")
    with TestClient(create_app(config, WebArena(config, store))) as test_client:
        yield test_client


@pytest.fixture()
def package(tmp_path: Path) -> bytes:
    source = tmp_path / "mine.py"
    source.write_text(BOT)
    return pack(source, "Mine")


def _author(client: TestClient, name: str, bot: str) -> dict[str, str]:
    token = client.post("/api/v1/accounts", json={"name": name, "password": f"{name}-password"}).json()["token"]
    headers = {"authorization": f"Bearer {token}"}
    assert client.post("/api/v1/bots", json={"name": bot}, headers=headers).status_code == 201
    return headers


def _tar_gz(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def test_a_package_becomes_a_version_its_owner_follows(client: TestClient, store: Store, package: bytes,
                                                       tmp_path: Path) -> None:
    alice = _author(client, "alice", "alice-bot")
    answer = client.post("/api/v1/bots/alice-bot/versions?version=v1", content=package,
                         headers={**alice, "content-type": "application/gzip"})
    assert answer.status_code == 201, answer.text
    body = answer.json()
    assert body["version"] == "v1" and body["status"] == "queued" and body["language"] == "python"
    assert (tmp_path / "artifacts").rglob(body["sha256"]), "stored under its sha256"
    assert client.post("/api/v1/bots/alice-bot/versions", content=package, headers=alice).json()["version"] == "v2"
    again = client.post("/api/v1/bots/alice-bot/versions?version=v1", content=package, headers=alice)
    assert again.status_code == 409
    listed = client.get("/api/v1/bots/alice-bot/versions", headers=alice).json()["versions"]
    assert sorted(v["version"] for v in listed) == ["v1", "v2"]
    record = next(b for b in store.bots() if b.name == "alice-bot")
    HostedVersions(store).write_log(record.bot_id, "v1", b"Traceback: boom\n")
    log = client.get("/api/v1/bots/alice-bot/versions/v1/log", headers=alice)
    assert log.status_code == 200 and log.text == "Traceback: boom\n" and log.headers["cache-control"] == "no-store"
    assert client.delete("/api/v1/bots/alice-bot/versions/v1", headers=alice).status_code == 204
    stopped = {v["version"]: v["status"] for v in client.get("/api/v1/bots/alice-bot/versions",
                                                                headers=alice).json()["versions"]}
    assert stopped == {"v1": "stopped", "v2": "queued"}


def test_another_account_gets_404_from_every_endpoint(client: TestClient, package: bytes) -> None:
    alice = _author(client, "alice", "alice-bot")
    mallory = _author(client, "mallory", "mallory-bot")
    client.post("/api/v1/bots/alice-bot/versions?version=v1", content=package, headers=alice)
    for method, path in [("POST", "/api/v1/bots/alice-bot/versions"), ("GET", "/api/v1/bots/alice-bot/versions"),
                         ("GET", "/api/v1/bots/alice-bot/versions/v1/log"),
                         ("DELETE", "/api/v1/bots/alice-bot/versions/v1")]:
        theirs = client.request(method, path, headers=mallory, content=package if method == "POST" else None)
        missing = client.request(method, path.replace("alice-bot", "nobody-bot"), headers=mallory,
                                 content=package if method == "POST" else None)
        assert theirs.status_code == missing.status_code == 404, (method, path, theirs.text)
        assert client.request(method, path).status_code == 401
    assert [v["status"] for v in client.get("/api/v1/bots/alice-bot/versions", headers=alice).json()["versions"]] \
        == ["queued"]


@pytest.mark.parametrize(("members", "problem"), [
    ({"../escape.py": b"x", "pitch-bot.json": b'{"command": ["./x"]}'}, "'..'"),
    ({"bot.py": b"x"}, "pitch-bot.json"),
    ({"pitch-bot.json": b'{"bot": "missing.py:Bot"}'}, "missing.py"),
    ({"pitch-bot.json": b"{not json"}, "JSON"),
])
def test_hostile_packages_are_refused_saying_why(client: TestClient, members: dict[str, bytes], problem: str) -> None:
    alice = _author(client, "alice", "alice-bot")
    answer = client.post("/api/v1/bots/alice-bot/versions", content=_tar_gz(members), headers=alice)
    assert answer.status_code == 400 and problem in answer.json()["error"], answer.text
    assert len(answer.text) < 400


def test_bombs_garbage_and_oversized_uploads_are_refused(client: TestClient) -> None:
    alice = _author(client, "alice", "alice-bot")
    bomb = gzip.compress(b"\0" * (200 * 2**20))  # 200 MiB of zeros in about 200 KB
    answer = client.post("/api/v1/bots/alice-bot/versions", content=bomb, headers=alice)
    assert answer.status_code == 400 and "refused" in answer.json()["error"]
    assert client.post("/api/v1/bots/alice-bot/versions", content=b"plain text", headers=alice).status_code == 400
    assert client.post("/api/v1/bots/alice-bot/versions", content=b"", headers=alice).status_code == 400
    huge = client.post("/api/v1/bots/alice-bot/versions", content=b"\0" * (MAX_PACKED_BYTES + 1), headers=alice)
    assert huge.status_code == 413 and "at most 32 MiB" in huge.json()["error"]


def test_submissions_are_rate_limited_per_account(client: TestClient, package: bytes) -> None:
    alice = _author(client, "alice", "alice-bot")
    codes = [client.post("/api/v1/bots/alice-bot/versions", content=package, headers=alice).status_code
             for _ in range(21)]
    assert codes[:20] == [201] * 20 and codes[20] == 429


def test_the_bot_page_shows_hosted_versions_and_the_upload_form_to_its_owner_only(
        client: TestClient, store: Store, package: bytes) -> None:
    client.post("/signup", data={"name": "owner", "password": "owner-password"})
    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/account").text)
    assert csrf
    client.post("/account/bots", data={"name": "owned-bot", "csrf": csrf.group(1)})
    record = next(b for b in store.bots() if b.name == "owned-bot")
    page = client.get(f"/bots/{record.bot_id}")
    assert 'id="upload-version"' in page.text and "No hosted version yet" in page.text
    forged = client.post(f"/bots/{record.bot_id}/versions", data={"csrf": "forged", "version": "web-1"},
                         files={"package": ("mine.tar.gz", package, "application/gzip")})
    assert forged.status_code == 403
    uploaded = client.post(f"/bots/{record.bot_id}/versions", data={"csrf": csrf.group(1), "version": "web-1"},
                           files={"package": ("mine.tar.gz", package, "application/gzip")}, follow_redirects=False)
    assert uploaded.status_code == 303, uploaded.text
    assert 'data-version="web-1"' in client.get(f"/bots/{record.bot_id}").text
    client.cookies.clear()
    visitor = client.get(f"/bots/{record.bot_id}")
    assert visitor.status_code == 200 and "upload-version" not in visitor.text and "web-1" not in visitor.text
    assert client.post(f"/bots/{record.bot_id}/versions", data={"csrf": "x"},
                       files={"package": ("p.tar.gz", package, "application/gzip")}).status_code == 404


def test_a_rejected_versions_report_reaches_its_owner_alone(client: TestClient, store: Store,
                                                            package: bytes) -> None:
    """The JSON API and the bot's page show the compliance check's report (as HTML text), to
    the bot's owner only; another account's request is a 404, a visitor's page shows none."""
    alice = _author(client, "alice", "alice-bot")
    mallory = _author(client, "mallory", "mallory-bot")
    client.post("/api/v1/bots/alice-bot/versions?version=v1", content=package, headers=alice)
    record = next(b for b in store.bots() if b.name == "alice-bot")
    hosted = HostedVersions(store)
    report = "compliance check failed: 11 matches, 40 decisions, 1 problem\nproblem: play: strike for <illegal>"
    hosted.record_check(record.bot_id, "v1", report, passed=False)
    hosted.set_status(record.bot_id, "v1", "rejected", "compliance check failed: 11 matches, 40 decisions, 1 problem")
    listed = client.get("/api/v1/bots/alice-bot/versions", headers=alice).json()["versions"]
    assert [(v["status"], v["checked"], v["report"]) for v in listed] == [("rejected", False, report)]
    assert client.get("/api/v1/bots/alice-bot/versions", headers=mallory).status_code == 404
    page = client.get(f"/bots/{record.bot_id}")
    assert "strike for" not in page.text  # no session: a visitor
    client.post("/login", data={"name": "alice", "password": "alice-password"})
    page = client.get(f"/bots/{record.bot_id}")
    assert ">rejected<" in page.text and "compliance check of v1" in page.text
    assert "problem: play: strike for &lt;illegal&gt;" in page.text and "<illegal>" not in page.text


def test_the_owner_sees_each_versions_test_against_the_previous_one(client: TestClient, store: Store,
                                                                     package: bytes, redis_url: str) -> None:
    """The bot's page tells its owner where each hosted version's automatic SPRT stands
    (testing, with the run, its LLR between the bounds, the games and the Elo estimate)
    and that the first version has nothing to be tested against; a visitor sees none of the
    hosted panel, but every version's test, and version 2 marked not better once it lost."""
    alice = _author(client, "alice", "alice-bot")
    record = next(b for b in store.bots() if b.name == "alice-bot")
    config = replace(worker_config(redis_url, store.prefix), auto_sprt_elo1=200.0)  # a verdict in a few pairs
    directory = FleetDirectory(store, config.fleet_ttl_s)
    directory.announce("referee", "127.0.0.1:1", 8, 0, [], [])
    for version in ("1", "2"):  # submitted, then connected as their hosts would
        client.post(f"/api/v1/bots/alice-bot/versions?version={version}", content=package, headers=alice)
        HostedVersions(store).set_status(record.bot_id, version, "running")
        BotVersions(store).connected(record.bot_id, version)
        directory.bot_connected("referee", seat_key(record.bot_id, version), 4)
    app = make_app(config)
    (test,) = version_tests.sweep(app, VersionTestStore(store), config).started
    client.post("/login", data={"name": "alice", "password": "alice-password"})
    page = client.get(f"/bots/{record.bot_id}").text
    testing = re.search(r'<tr class="loop" data-version="2" data-state="testing">(.*?)</tr>', page, re.S)
    assert testing and f"SPRT {test.run_id}" in testing.group(1) and "LLR +0.00 in [-2.94, 2.94]" in testing.group(1)
    assert "0 of 2000 games" in testing.group(1) and "Elo " in testing.group(1)
    assert 'data-version="1" data-state="undecided"' in page and "the bot&#39;s first version" in page
    client.cookies.clear()
    public = client.get(f"/bots/{record.bot_id}").text
    assert "data-state=" not in public and 'data-test="testing"' in public  # the test itself is public
    sprts = SprtStore(store)
    for index in range(40):  # version 2 loses every pair: H0
        winner = 1 - index % 2  # its side is party 0 in a pair's first match, 1 in the second
        game = {"has_winner": True, "scores": [4, 11]} | ({"winner": winner} if winner else {})
        sprts.runs.record_outcome(test.run_id, index, {"status": "played", "result": {"games": [game]}})
        if index % 2:
            sprt_control.advance(app, sprts, test.run_id)
        if sprts.verdict(test.run_id) is not None:
            break
    public = client.get(f"/bots/{record.bot_id}").text
    marked = re.search(r'data-test="not-better">(.*?)</tr>', public, re.S)
    assert marked and "H0 accepted against 1" in marked.group(1)


def test_the_owner_panel_shows_the_newest_versions_output_and_test(client: TestClient, store: Store) -> None:
    """Of seven hosted versions, the bot's page lists every one and gives the output and the
    test against the previous version of the same five: the newest, what the author is
    working on."""
    _author(client, "alice", "alice-bot")
    record = next(b for b in store.bots() if b.name == "alice-bot")
    hosted = HostedVersions(store)
    versions = [f"v{n}" for n in range(1, 8)]
    for version in versions:
        hosted.add(record.bot_id, version, "0" * 64, "{}", "alice")
        hosted.write_log(record.bot_id, version, f"output-of-{version}\n".encode())
    client.post("/login", data={"name": "alice", "password": "alice-password"})
    page = client.get(f"/bots/{record.bot_id}").text
    listed = re.findall(r'<tr data-version="([^"]+)">', page)
    tested = re.findall(r'<tr class="loop" data-version="([^"]+)"', page)
    output = re.findall(r"output-of-(v\d)", page)
    assert listed == versions and tested == output == versions[2:], (tested, output)
