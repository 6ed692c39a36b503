"""The accounts' pages: sign up, log in and out, and the account page where an author
creates bots, rotates their tokens and mints or revokes API tokens.  A new secret is shown
once, on a page that is never cached.

Forms post with the session's CSRF token; refusals come back to the form with the reason
(sign-up and login) or as an error page."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from store.accounts import Account, AccountError, Unauthorized
from store.rate_limits import (
    CHANGES_PER_ACCOUNT,
    LOGIN_PER_ACCOUNT,
    LOGIN_PER_CLIENT,
    SIGNUP_PER_CLIENT,
    RateLimited,
)
from store.redis_store import StoreError
from store.sessions import Session
from web.accounts.identity import (
    SESSION_COOKIE,
    accounts,
    check_csrf,
    client_address,
    limiter,
    session_of,
    sessions,
    set_session_cookie,
)
from web.pages.common import render, shown
from web.security_headers import no_store
from web.templating import path_for

#: Longest field a form of these pages reads.
MAX_FIELD = 1024


async def read_form(request: Request) -> FormData:
    """The posted form, with every field bounded (starlette bounds the number of fields)."""
    form = await request.form(max_files=0, max_fields=10)
    if any(isinstance(value, str) and len(value) > MAX_FIELD for value in form.values()):
        raise HTTPException(400, f"a field is at most {MAX_FIELD} characters")
    return form


def _field(form: FormData, name: str) -> str:
    value = form.get(name, "")
    return value if isinstance(value, str) else ""


def _signed_in(request: Request, session: Session) -> Response:
    response = RedirectResponse(path_for(request, "account"), status_code=303)
    set_session_cookie(request, response, session.session_id)
    return response


async def sign_up_page(request: Request) -> Response:
    """The sign-up form (GET) and the sign-up itself (POST)."""
    if request.method == "GET":
        return render(request, "signup.html")
    form = await read_form(request)
    name, password = _field(form, "name"), _field(form, "password")
    try:
        limiter(request).hit(SIGNUP_PER_CLIENT, client_address(request))
        account = await run_in_threadpool(accounts(request).create, name, password)
    except (AccountError, RateLimited) as refused:
        return render(request, "signup.html", status_code=429 if isinstance(refused, RateLimited) else 400,
                      error=str(refused), name=shown(name))
    return _signed_in(request, sessions(request).start(account.key))


async def log_in_page(request: Request) -> Response:
    """The login form (GET) and the login itself (POST)."""
    if request.method == "GET":
        return render(request, "login.html")
    form = await read_form(request)
    name, password = _field(form, "name"), _field(form, "password")
    try:
        limiter(request).hit(LOGIN_PER_CLIENT, client_address(request))
        limiter(request).hit(LOGIN_PER_ACCOUNT, name.lower()[:32])
        account = await run_in_threadpool(accounts(request).log_in, name, password)
    except (Unauthorized, RateLimited) as refused:
        return render(request, "login.html", status_code=429 if isinstance(refused, RateLimited) else 401,
                      error=str(refused), name=shown(name))
    return _signed_in(request, sessions(request).start(account.key))


async def log_out(request: Request) -> Response:
    """End the session (POST with its CSRF token)."""
    session = check_csrf(request, session_of(request), _field(await read_form(request), "csrf"))
    sessions(request).end(session.session_id)
    response = RedirectResponse(path_for(request, "login"), status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


def account_page(request: Request) -> Response:
    """The signed-in author's bots and API tokens (the login form for a browser without a session)."""
    session = session_of(request)
    if session is None:
        return RedirectResponse(path_for(request, "login"), status_code=303)
    account = accounts(request).get(session.account)
    if account is None or account.disabled:
        raise HTTPException(403, "this account is disabled by the arena's operator")
    owned = accounts(request).bots(account)
    playable = accounts(request).playable([b.bot_id for b in owned])
    return render(request, "account.html", account=account, bots=owned, playable=playable,
                  tokens=accounts(request).tokens(account), csrf=session.csrf)


async def _change(request: Request) -> tuple[FormData, Account]:
    """A form post from the account page: its fields and account, CSRF and rate limit checked."""
    form = await read_form(request)
    session = check_csrf(request, session_of(request), _field(form, "csrf"))
    account = accounts(request).get(session.account)
    if account is None or account.disabled:
        raise HTTPException(403, "this account is disabled by the arena's operator")
    try:
        limiter(request).hit(CHANGES_PER_ACCOUNT, account.key)
    except RateLimited as refused:
        raise HTTPException(429, str(refused)) from None
    return form, account


def _secret(request: Request, title: str, secret: str, note: str) -> Response:
    return no_store(render(request, "secret.html", status_code=201, title=title, secret=secret, note=note))


async def new_bot(request: Request) -> Response:
    """Create a bot the account owns; show its token once."""
    form, account = await _change(request)
    try:
        record, token = accounts(request).create_bot(account, _field(form, "name").strip(),
                                                     _field(form, "description").strip())
    except StoreError as refused:
        raise HTTPException(409 if "already registered" in str(refused) else 400, str(refused)) from None
    return _secret(request, f"Bot {record.name}", token,
                   "the bot's token: connect it with PITCH_BOT_TOKEN=… pitch-bot run")


async def rotate_bot_token(request: Request) -> Response:
    """A new token for one of the account's bots; shown once."""
    _, account = await _change(request)
    try:
        token = accounts(request).rotate_bot_token(account, request.path_params["name"])
    except AccountError as refused:
        raise HTTPException(404, str(refused)) from None
    return _secret(request, f"New token for {shown(request.path_params['name'])}", token,
                   "the bot's new token; the old one no longer connects")


async def new_token(request: Request) -> Response:
    """Mint a personal API token; shown once."""
    form, account = await _change(request)
    try:
        _, token = accounts(request).mint_token(account, _field(form, "label").strip())
    except AccountError as refused:
        raise HTTPException(400, str(refused)) from None
    return _secret(request, "New API token", token, "a personal API token: PITCH_API_TOKEN for pitch-bot, or "
                   "Authorization: Bearer on the API")


async def revoke_token(request: Request) -> Response:
    """Revoke one of the account's API tokens."""
    _, account = await _change(request)
    try:
        accounts(request).revoke_token(account, request.path_params["token_id"])
    except AccountError as refused:
        raise HTTPException(404, str(refused)) from None
    return RedirectResponse(path_for(request, "account"), status_code=303)


routes = [
    Route("/signup", sign_up_page, name="signup", methods=["GET", "POST"]),
    Route("/login", log_in_page, name="login", methods=["GET", "POST"]),
    Route("/logout", log_out, name="logout", methods=["POST"]),
    Route("/account", account_page, name="account", methods=["GET"]),
    Route("/account/bots", new_bot, name="account_new_bot", methods=["POST"]),
    Route("/account/bots/{name}/token", rotate_bot_token, name="account_rotate_bot_token", methods=["POST"]),
    Route("/account/tokens", new_token, name="account_new_token", methods=["POST"]),
    Route("/account/tokens/{token_id}/revoke", revoke_token, name="account_revoke_token", methods=["POST"]),
]
