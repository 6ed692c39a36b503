"""Who is asking: an account named by a personal API token (``Authorization: Bearer pat_…``,
what the SDK's commands send: the JSON API) or by a session cookie (a browser that logged in:
the pages, whose forms carry the session's CSRF token), and the client's address for
per-client rate limits.

The client address is the TCP peer's.  Behind a reverse proxy that is the proxy: run
uvicorn with ``--forwarded-allow-ips`` for that proxy so the peer becomes the real client."""

from __future__ import annotations

import hmac

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from store.accounts import Account, Accounts, Unauthorized
from store.rate_limits import RateLimiter
from store.sessions import Session, Sessions
from web.auth import bearer
from web.pages.common import arena

#: The session cookie's name.
SESSION_COOKIE = "pitch_session"


def accounts(request: Request) -> Accounts:
    """The arena's accounts (one password hasher per application)."""
    found: Accounts | None = getattr(request.app.state, "accounts", None)
    if found is None:
        found = request.app.state.accounts = Accounts(arena(request).store)
    return found


def limiter(request: Request) -> RateLimiter:
    """The arena's rate limits."""
    return RateLimiter(arena(request).store)


def sessions(request: Request) -> Sessions:
    """The arena's web sessions."""
    return Sessions(arena(request).store)


def client_address(request: Request) -> str:
    """The client's address, the subject of per-client limits."""
    return request.client.host if request.client else "unknown"


def session_of(request: Request) -> Session | None:
    """The request's live session, if its cookie names one."""
    return sessions(request).find(request.cookies.get(SESSION_COOKIE, ""))


def require_account(request: Request) -> Account:
    """The account whose personal API token the request carries, or 401.  The JSON API takes
    tokens only, never the session cookie: a page of another site can make a browser send
    its cookies, not its tokens, so the API needs no CSRF check."""
    token = bearer(request)
    if token is None:
        raise HTTPException(401, "this needs an account: send a personal API token (Authorization: Bearer pat_…); "
                                 "pitch-bot login gets one")
    try:
        return accounts(request).for_token(token)
    except Unauthorized as refused:
        raise HTTPException(401, str(refused)) from None


def session_account(request: Request) -> tuple[Session, Account] | None:
    """The signed-in browser's session and account (``None`` without a session, or for a
    disabled account)."""
    session = session_of(request)
    account = None if session is None else accounts(request).get(session.account)
    if session is None or account is None or account.disabled:
        return None
    return session, account


def check_csrf(request: Request, session: Session | None, given: str) -> Session:
    """The session whose form this is; 403 unless the form carries its CSRF token (a page
    of another site cannot post to the arena in the user's name)."""
    if session is None:
        raise HTTPException(401, "your session has ended: log in again")
    if not hmac.compare_digest(session.csrf.encode(), given.encode()):
        raise HTTPException(403, "the form is stale or did not come from this arena: reload the page")
    return session


def set_session_cookie(request: Request, response: Response, session_id: str) -> None:
    """Give the browser its session cookie: HttpOnly (no script reads it), SameSite=Lax (no
    cross-site form posts carry it), Secure when the arena is served over https."""
    response.set_cookie(SESSION_COOKIE, session_id, max_age=7 * 86_400, httponly=True, samesite="lax",
                        secure=request.url.scheme == "https", path="/")
