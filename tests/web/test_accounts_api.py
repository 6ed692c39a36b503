"""Accounts through the web, in process over a real Redis: the JSON API the SDK calls and the
pages a browser uses.  Every endpoint is tried with another account's credentials (404, as
for a missing bot), bad input gets a short 4xx, limits answer 429 naming the limit, forms
need their session's CSRF token, and a page or answer that shows a secret is not cached."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from cli.local_arena import free_port
from store.redis_store import Store
from web.app import create_app
from web.arena import WebArena
from web.config import WebConfig

ADMIN = "web-admin-token"


@pytest.fixture()
def client(store: Store, redis_url: str) -> Iterator[TestClient]:
    config = WebConfig(redis_url=redis_url, store_prefix=store.prefix, referee=f"127.0.0.1:{free_port()}",
                       admin_token=ADMIN)
    with TestClient(create_app(config, WebArena(config, store))) as test_client:
        yield test_client


def _sign_up(client: TestClient, name: str) -> dict[str, str]:
    answer = client.post("/api/v1/accounts", json={"name": name, "password": f"{name}-password"})
    assert answer.status_code == 201, answer.text
    return {"authorization": f"Bearer {answer.json()['token']}"}


def test_sign_up_log_in_and_manage_bots_and_tokens(client: TestClient, store: Store) -> None:
    answer = client.post("/api/v1/accounts", json={"name": "alice", "password": "alice-password"})
    assert answer.status_code == 201 and answer.headers["cache-control"] == "no-store"
    alice = {"authorization": f"Bearer {answer.json()['token']}"}
    login = client.post("/api/v1/login", json={"name": "ALICE", "password": "alice-password"})
    assert login.status_code == 200 and login.json()["account"] == "alice"
    created = client.post("/api/v1/bots", json={"name": "alice-bot", "description": "first"}, headers=alice)
    assert created.status_code == 201 and created.headers["cache-control"] == "no-store"
    token = created.json()["token"]
    assert store.bot_for_token(token) is not None
    me = client.get("/api/v1/me", headers=alice).json()
    assert me["account"] == "alice" and [b["name"] for b in me["bots"]] == ["alice-bot"]
    assert {t["label"] for t in me["tokens"]} == {"sign-up", "pitch-bot login"}
    assert "token" not in str(me["tokens"]).replace("'tokens'", "")
    rotated = client.post("/api/v1/bots/alice-bot/token", headers=alice)
    assert rotated.status_code == 200 and store.bot_for_token(token) is None
    assert store.bot_for_token(rotated.json()["token"]) is not None
    minted = client.post("/api/v1/tokens", json={"label": "ci"}, headers=alice)
    assert minted.status_code == 201
    ci = {"authorization": f"Bearer {minted.json()['token']}"}
    assert client.get("/api/v1/bots", headers=ci).json()["bots"][0]["name"] == "alice-bot"
    assert client.delete(f"/api/v1/tokens/{minted.json()['id']}", headers=alice).status_code == 204
    revoked = client.get("/api/v1/bots", headers=ci)
    assert revoked.status_code == 401 and "revoked" in revoked.json()["error"]


def test_one_account_cannot_reach_anothers_bots_or_tokens(client: TestClient) -> None:
    alice, mallory = _sign_up(client, "alice"), _sign_up(client, "mallory")
    client.post("/api/v1/bots", json={"name": "alice-bot"}, headers=alice)
    alice_token_id = client.get("/api/v1/tokens", headers=alice).json()["tokens"][0]["id"]
    attempts = [("POST", "/api/v1/bots/alice-bot/token"), ("DELETE", f"/api/v1/tokens/{alice_token_id}")]
    for method, path in attempts:
        answer = client.request(method, path, headers=mallory)
        missing = client.request(method, path.replace("alice-bot", "no-such-bot").replace(alice_token_id, "0" * 12),
                                 headers=mallory)
        assert answer.status_code == missing.status_code == 404, (path, answer.text)
    assert client.get("/api/v1/bots", headers=mallory).json()["bots"] == []
    assert [t["id"] for t in client.get("/api/v1/tokens", headers=alice).json()["tokens"]] == [alice_token_id]
    taken = client.post("/api/v1/bots", json={"name": "alice-bot"}, headers=mallory)
    assert taken.status_code == 409


@pytest.mark.parametrize(("method", "path"), [
    ("GET", "/api/v1/me"), ("GET", "/api/v1/bots"), ("POST", "/api/v1/bots"), ("GET", "/api/v1/tokens"),
    ("POST", "/api/v1/tokens"), ("DELETE", "/api/v1/tokens/abc"), ("POST", "/api/v1/bots/x/token"),
])
def test_every_account_endpoint_needs_an_account(client: TestClient, method: str, path: str) -> None:
    anonymous = client.request(method, path)
    forged = client.request(method, path, headers={"authorization": "Bearer pat_" + "0" * 64})
    assert anonymous.status_code == 401 and "needs an account" in anonymous.json()["error"]
    assert forged.status_code == 401 and "unknown or revoked" in forged.json()["error"]


@pytest.mark.parametrize(("body", "status", "problem"), [
    (b"not json", 400, "not JSON"),
    (b"[1, 2]", 400, "JSON object"),
    (b'{"name": 5, "password": "long-enough"}', 400, "'name' must be a string"),
    (b'{"password": "long-enough"}', 400, "'name' is required"),
    (b'{"name": "' + b"x" * 20_000 + b'"}', 413, "at most 16384 bytes"),
    (b"[" * 100_000, 413, "at most 16384 bytes"),
    (b'{"name": "<b>bad name</b>", "password": "long-enough"}', 400, "bad account name"),
])
def test_bad_sign_ups_get_short_clear_errors(client: TestClient, body: bytes, status: int, problem: str) -> None:
    answer = client.post("/api/v1/accounts", content=body)
    assert answer.status_code == status and problem in answer.json()["error"]
    assert len(answer.text) < 300


def test_sign_up_and_login_are_rate_limited(client: TestClient) -> None:
    for n in range(5):
        _sign_up(client, f"user{n}")
    refused = client.post("/api/v1/accounts", json={"name": "user9", "password": "password-9"})
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) > 0
    assert "at most 5 sign-ups per hour per client" in refused.json()["error"]
    answers = [client.post("/api/v1/login", json={"name": "user0", "password": "wrong-password"}).status_code
               for _ in range(11)]
    assert answers[:10] == [401] * 10 and answers[10] == 429


def test_the_operator_disables_and_enables_accounts_and_bots(client: TestClient, store: Store) -> None:
    alice = _sign_up(client, "alice")
    client.post("/api/v1/bots", json={"name": "alice-bot"}, headers=alice)
    assert client.post("/api/v1/admin/accounts/alice/disable").status_code == 403
    assert client.post("/api/v1/admin/accounts/alice/disable", headers=alice).status_code == 403
    admin = {"authorization": f"Bearer {ADMIN}"}
    assert client.post("/api/v1/admin/bots/alice-bot/disable", headers=admin).json() == {
        "bot": "alice-bot", "disabled": True}
    assert client.get("/api/v1/bots", headers=alice).json()["bots"][0]["disabled"] is True
    assert client.post("/api/v1/admin/accounts/alice/disable", headers=admin).status_code == 200
    assert client.get("/api/v1/me", headers=alice).status_code == 401
    assert client.post("/api/v1/admin/accounts/alice/enable", headers=admin).status_code == 200
    assert client.post("/api/v1/admin/bots/alice-bot/enable", headers=admin).status_code == 200
    assert client.get("/api/v1/bots", headers=alice).json()["bots"][0]["disabled"] is False
    assert client.post("/api/v1/admin/bots/alice-bot/explode", headers=admin).status_code == 404
    assert client.post("/api/v1/admin/accounts/nobody/disable", headers=admin).status_code == 404
    assert client.get("/api/v1/no/such/endpoint").json()["error"].startswith("no API endpoint")


def test_an_owner_chooses_the_presets_a_bot_plays(client: TestClient, store: Store) -> None:
    """"Per preset the author chose": `PUT /api/v1/bots/{name}/presets` sets the choice and
    the bot's JSON shows it (`[]`: every preset, as before any choice); another account's
    bot is 404 as a missing one, a bad preset a short 400 naming it, and each choice counts
    against the account's changes an hour.  The bot's page shows everyone what it plays."""
    alice, mallory = _sign_up(client, "alice"), _sign_up(client, "mallory")
    created = client.post("/api/v1/bots", json={"name": "alice-bot", "presets": ["cutthroat"]}, headers=alice)
    assert created.status_code == 201 and created.json()["presets"] == ["cutthroat"]
    assert client.get("/api/v1/bots/alice-bot/presets", headers=alice).json() == {
        "bot": "alice-bot", "presets": ["cutthroat"]}
    chosen = client.put("/api/v1/bots/alice-bot/presets", json={"presets": ["ten-point", "partnership"]},
                        headers=alice)
    assert chosen.status_code == 200 and chosen.json() == {"bot": "alice-bot", "presets": ["ten-point", "partnership"]}
    assert client.get("/api/v1/bots", headers=alice).json()["bots"][0]["presets"] == ["ten-point", "partnership"]
    assert client.get("/api/v1/me", headers=alice).json()["bots"][0]["presets"] == ["ten-point", "partnership"]
    page = f"/bots/{created.json()['bot_id']}"
    assert '<dd id="bot-presets">ten-point, partnership</dd>' in client.get(page).text
    for method in ("GET", "PUT"):
        for bot in ("alice-bot", "no-such-bot"):
            answer = client.request(method, f"/api/v1/bots/{bot}/presets", json={"presets": []}, headers=mallory)
            assert answer.status_code == 404 and "you have no bot named" in answer.json()["error"], (method, bot)
    for body, problem in [({"presets": ["partnership", "<b>" + "x" * 5000]}, "unknown preset '<b>xxxx"),
                          ({"presets": ["cutthroat", "cutthroat"]}, "chosen twice"),
                          ({"presets": "partnership"}, "must be a list of preset names"),
                          ({"presets": [3]}, "must be a list of preset names")]:
        refused = client.put("/api/v1/bots/alice-bot/presets", json=body, headers=alice)
        assert refused.status_code == 400 and problem in refused.json()["error"] and len(refused.text) < 200, body
    refused = client.post("/api/v1/bots", json={"name": "never", "presets": ["no-such"]}, headers=alice)
    assert refused.status_code == 400 and "unknown preset 'no-such'" in refused.json()["error"]
    assert client.get("/api/v1/bots/alice-bot/presets", headers=alice).json()["presets"] == ["ten-point", "partnership"]
    cleared = client.put("/api/v1/bots/alice-bot/presets", json={"presets": []}, headers=alice)
    assert cleared.json()["presets"] == [] and client.get("/api/v1/bots", headers=alice).json()["bots"][0][
        "presets"] == []
    assert '<dd id="bot-presets">every preset</dd>' in client.get(page).text
    answers = [client.put("/api/v1/bots/alice-bot/presets", json={"presets": ["partnership"]}, headers=alice)
               for _ in range(60)]
    limited = next(answer for answer in answers if answer.status_code != 200)
    assert limited.status_code == 429 and "per hour per account" in limited.json()["error"]
    assert client.get("/api/v1/bots/alice-bot/presets", headers=alice).json()["presets"] == ["partnership"]


def test_the_bearer_scheme_is_read_in_any_case(client: TestClient) -> None:
    """RFC 7235, section 2.1: "It uses a case-insensitive token as a means to identify the
    authentication scheme": a personal token and the admin token are taken after
    `bearer` and `BEARER` as after `Bearer`; another scheme is no token."""
    token = _sign_up(client, "carol")["authorization"].removeprefix("Bearer ")
    for scheme in ("bearer", "BEARER", "bEaReR"):
        assert client.get("/api/v1/me", headers={"authorization": f"{scheme} {token}"}).status_code == 200, scheme
        enabled = client.post("/api/v1/admin/accounts/carol/enable", headers={"authorization": f"{scheme} {ADMIN}"})
        assert enabled.status_code == 200, scheme
    assert client.get("/api/v1/me", headers={"authorization": f"Basic {token}"}).status_code == 401


def _csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, page
    return found.group(1)


def test_pages_sign_up_create_a_bot_and_show_its_token_once(client: TestClient, store: Store) -> None:
    assert client.get("/account", follow_redirects=False).headers["location"].endswith("/login")
    signed = client.post("/signup", data={"name": "webby", "password": "webby-password"}, follow_redirects=False)
    assert signed.status_code == 303 and "httponly" in signed.headers["set-cookie"].lower()
    assert "samesite=lax" in signed.headers["set-cookie"].lower()
    page = client.get("/account")
    assert page.status_code == 200 and "webby" in page.text
    assert client.get("/api/v1/me").status_code == 401, "the API takes tokens, never the cookie (no CSRF there)"
    forged = client.post("/account/bots", data={"name": "web-bot", "csrf": "forged"})
    assert forged.status_code == 403 and store.bots() == []
    created = client.post("/account/bots", data={"name": "web-bot", "csrf": _csrf(page.text)})
    assert created.status_code == 201 and created.headers["cache-control"] == "no-store"
    token = re.search(r'<code id="secret">([0-9a-f]{64})</code>', created.text)
    assert token and store.bot_for_token(token.group(1)) is not None
    assert token.group(1) not in client.get("/account").text
    client.post("/logout", data={"csrf": _csrf(page.text)})
    assert client.get("/account", follow_redirects=False).status_code == 303
    wrong = client.post("/login", data={"name": "webby", "password": "not-the-password"})
    assert wrong.status_code == 401 and "wrong account name or password" in wrong.text
    hostile = client.post("/signup", data={"name": "<script>alert(1)</script>", "password": "long-enough"})
    assert hostile.status_code == 400 and "<script>alert" not in hostile.text
