"""The accounts' JSON API (``/api/v1``), what ``pitch-bot signup``, ``login``, ``whoami``,
``bots``, ``new-bot``, ``presets`` and ``tokens`` call: sign up, log in (each mints a
personal API token, shown once), see the account, mint and revoke tokens, create bots,
rotate their tokens and choose the presets they play, and the operator's switches (admin
token) that disable an account or a bot.

Every answer is JSON; an error is ``{"error": "..."}`` with a 4xx status.  Bodies are at
most :data:`MAX_BODY` bytes.  Another account's bot answers 404, exactly as a missing one."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from functools import wraps
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from store.accounts import Account, AccountError, ApiToken, Unauthorized
from store.rate_limits import (
    CHANGES_PER_ACCOUNT,
    LOGIN_PER_ACCOUNT,
    LOGIN_PER_CLIENT,
    SIGNUP_PER_CLIENT,
    RateLimited,
)
from store.redis_store import BotRecord, StoreError
from web.accounts.identity import accounts, client_address, limiter, require_account
from web.auth import bearer, check_admin
from web.pages.common import arena
from web.security_headers import no_store

#: Largest JSON body the API reads.
MAX_BODY = 16 * 1024

Handler = Callable[[Request], Awaitable[Response]]


def json_errors(handler: Handler) -> Handler:
    """Answer every refusal of ``handler`` as ``{"error": ...}`` with its status: bad input
    400, unknown 404, unauthenticated 401, over a rate limit 429 with ``Retry-After``."""
    @wraps(handler)
    async def answer(request: Request) -> Response:
        try:
            return await handler(request)
        except HTTPException as refused:
            return JSONResponse({"error": refused.detail}, status_code=refused.status_code)
        except RateLimited as refused:
            return JSONResponse({"error": str(refused)}, status_code=429,
                                headers={"Retry-After": str(refused.retry_after_s)})
        except Unauthorized as refused:
            return JSONResponse({"error": str(refused)}, status_code=401)
        except AccountError as refused:
            missing = str(refused).startswith(("you have no bot", "no API token", "no bot", "no account"))
            return JSONResponse({"error": str(refused)}, status_code=404 if missing else 400)
        except StoreError as refused:  # a taken bot name, a bad bot name
            taken = "already registered" in str(refused)
            return JSONResponse({"error": str(refused)}, status_code=409 if taken else 400)
    return answer


async def read_json(request: Request) -> dict[str, Any]:
    """The request's JSON object, at most :data:`MAX_BODY` bytes; 400 otherwise."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise HTTPException(413, f"a request body is at most {MAX_BODY} bytes")
    try:
        data = json.loads(bytes(body) or b"{}")
    except (ValueError, RecursionError):
        raise HTTPException(400, "the body is not JSON") from None
    if not isinstance(data, dict):
        raise HTTPException(400, "the body must be a JSON object")
    return data


def text_field(data: dict[str, Any], name: str, default: str | None = None) -> str:
    """A string field of a JSON body; 400 naming it when missing or not a string."""
    value = data.get(name, default)
    if not isinstance(value, str):
        raise HTTPException(400, f"'{name}' must be a string" if name in data else f"'{name}' is required")
    return value


def token_json(token: ApiToken) -> dict[str, Any]:
    """An API token's record as the API shows it (never the token)."""
    return {"id": token.token_id, "label": token.label, "created": token.created, "last_used": token.last_used}


def presets_field(data: dict[str, Any]) -> list[str]:
    """The ``presets`` field of a JSON body (absent: none chosen); 400 unless a list of strings."""
    value = data.get("presets", [])
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise HTTPException(400, "'presets' must be a list of preset names ([]: every preset)")
    return value


def bot_json(record: BotRecord, playable: bool, presets: tuple[str, ...]) -> dict[str, Any]:
    """A bot as the API shows it (never its token); ``presets`` empty: it plays every preset."""
    return {"bot_id": record.bot_id, "name": record.name, "description": record.description,
            "created": record.created, "disabled": not playable, "presets": list(presets)}


def bots_json(request: Request, owned: list[BotRecord]) -> list[dict[str, Any]]:
    """The account's bots as the API shows them (three round trips for any number)."""
    ids = [b.bot_id for b in owned]
    playable, presets = accounts(request).playable(ids), accounts(request).presets_of(ids)
    return [bot_json(b, playable[b.bot_id], presets[b.bot_id]) for b in owned]


@json_errors
async def sign_up(request: Request) -> Response:
    """A new account and its first API token."""
    data = await read_json(request)
    name, password = text_field(data, "name"), text_field(data, "password")
    limiter(request).hit(SIGNUP_PER_CLIENT, client_address(request))
    account = await run_in_threadpool(accounts(request).create, name, password)
    _, token = accounts(request).mint_token(account, "sign-up")
    return no_store(JSONResponse({"account": account.name, "token": token}, status_code=201))


@json_errors
async def log_in(request: Request) -> Response:
    """A new API token for the account whose password this is."""
    data = await read_json(request)
    name, password = text_field(data, "name"), text_field(data, "password")
    label = text_field(data, "label", "pitch-bot login")
    limiter(request).hit(LOGIN_PER_CLIENT, client_address(request))
    limiter(request).hit(LOGIN_PER_ACCOUNT, name.lower()[:32])
    account = await run_in_threadpool(accounts(request).log_in, name, password)
    _, token = accounts(request).mint_token(account, label)
    return no_store(JSONResponse({"account": account.name, "token": token}))


def _changed(request: Request, account: Account) -> None:
    """Count one change (new bot, token, rotation, preset choice) against the account's limit."""
    limiter(request).hit(CHANGES_PER_ACCOUNT, account.key)


@json_errors
async def me(request: Request) -> Response:
    """The account, its bots and its tokens."""
    account = require_account(request)
    return JSONResponse({"account": account.name, "created": account.created,
                         "bots": bots_json(request, accounts(request).bots(account)),
                         "tokens": [token_json(t) for t in accounts(request).tokens(account)]})


@json_errors
async def list_bots(request: Request) -> Response:
    """The account's bots."""
    account = require_account(request)
    return JSONResponse({"bots": bots_json(request, accounts(request).bots(account))})


@json_errors
async def create_bot(request: Request) -> Response:
    """A new bot the account owns, and its token (shown once); ``presets`` chooses what it
    plays (default: every preset)."""
    account = require_account(request)
    data = await read_json(request)
    name, description, presets = text_field(data, "name"), text_field(data, "description", ""), presets_field(data)
    _changed(request, account)
    record, token = accounts(request).create_bot(account, name, description, presets)
    return no_store(JSONResponse({"bot_id": record.bot_id, "name": record.name, "token": token,
                                  "presets": presets}, status_code=201))


@json_errors
async def bot_presets(request: Request) -> Response:
    """The presets one of the account's bots plays (``[]``: every preset)."""
    account = require_account(request)
    record = accounts(request).owned_bot(account, request.path_params["name"])
    chosen = accounts(request).presets_of([record.bot_id])[record.bot_id]
    return JSONResponse({"bot": record.name, "presets": list(chosen)})


@json_errors
async def set_bot_presets(request: Request) -> Response:
    """Choose the presets one of the account's bots plays, ``{"presets": [...]}`` (``[]``:
    every preset again): the preset of its new versions' automatic SPRT, and the ladders
    and automatic round robins it is entered in."""
    account = require_account(request)
    presets = presets_field(await read_json(request))
    _changed(request, account)
    name = request.path_params["name"]
    chosen = accounts(request).set_presets(account, name, presets)
    return JSONResponse({"bot": name, "presets": list(chosen)})


@json_errors
async def rotate_bot_token(request: Request) -> Response:
    """A new token for one of the account's bots; the old one stops working."""
    account = require_account(request)
    _changed(request, account)
    token = accounts(request).rotate_bot_token(account, request.path_params["name"])
    return no_store(JSONResponse({"token": token}))


@json_errors
async def list_tokens(request: Request) -> Response:
    """The account's API tokens (never the tokens themselves)."""
    account = require_account(request)
    return JSONResponse({"tokens": [token_json(t) for t in accounts(request).tokens(account)]})


@json_errors
async def mint_token(request: Request) -> Response:
    """A new personal API token (shown once)."""
    account = require_account(request)
    label = text_field(await read_json(request), "label", "")
    _changed(request, account)
    record, token = accounts(request).mint_token(account, label)
    return no_store(JSONResponse({**token_json(record), "token": token}, status_code=201))


@json_errors
async def revoke_token(request: Request) -> Response:
    """Revoke one of the account's API tokens."""
    account = require_account(request)
    accounts(request).revoke_token(account, request.path_params["token_id"])
    return Response(status_code=204)


def _admin_switch(request: Request) -> bool:
    """Whether the operator's call (admin token required) disables (else enables)."""
    check_admin(arena(request).config.admin_token, bearer(request))
    switch = request.path_params["switch"]
    if switch not in ("disable", "enable"):
        raise HTTPException(404, "the switch is 'disable' or 'enable'")
    return bool(switch == "disable")


@json_errors
async def set_account_disabled(request: Request) -> Response:
    """The operator disables or enables an account (admin token)."""
    account = accounts(request).set_disabled(request.path_params["name"], _admin_switch(request))
    return JSONResponse({"account": account.name, "disabled": account.disabled})


@json_errors
async def set_bot_disabled(request: Request) -> Response:
    """The operator disables or enables a bot (admin token)."""
    disabled = _admin_switch(request)
    record = accounts(request).set_bot_disabled(request.path_params["name"], disabled)
    return JSONResponse({"bot": record.name, "disabled": disabled})


@json_errors
async def unknown(request: Request) -> Response:
    """Any other ``/api/v1`` path: a JSON 404, not a page."""
    raise HTTPException(404, f"no API endpoint {request.method} {request.url.path[:80]}")


routes = [
    Route("/api/v1/accounts", sign_up, methods=["POST"]),
    Route("/api/v1/login", log_in, methods=["POST"]),
    Route("/api/v1/me", me, methods=["GET"]),
    Route("/api/v1/bots", list_bots, methods=["GET"]),
    Route("/api/v1/bots", create_bot, methods=["POST"]),
    Route("/api/v1/bots/{name}/token", rotate_bot_token, methods=["POST"]),
    Route("/api/v1/bots/{name}/presets", bot_presets, methods=["GET"]),
    Route("/api/v1/bots/{name}/presets", set_bot_presets, methods=["PUT"]),
    Route("/api/v1/tokens", list_tokens, methods=["GET"]),
    Route("/api/v1/tokens", mint_token, methods=["POST"]),
    Route("/api/v1/tokens/{token_id}", revoke_token, methods=["DELETE"]),
    Route("/api/v1/admin/accounts/{name}/{switch}", set_account_disabled, methods=["POST"]),
    Route("/api/v1/admin/bots/{name}/{switch}", set_bot_disabled, methods=["POST"]),
]

#: After every other API route: unknown API paths answer JSON.
not_found_route = Route("/api/v1/{rest:path}", unknown, methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
