"""Who is asking: an account named by a personal API token (``Authorization: Bearer pat_…``,
what the SDK's commands send) or by a session cookie (a browser that logged in), the
client's address for per-client rate limits, and the CSRF check of a session's forms.

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


def account_from_request(request: Request) -> Account | None:
    """The account a request speaks for: its API token's, or its session's; ``None`` when it
    names none.  A token that is wrong, revoked or of a disabled account is a 401, not
    anonymity, so a client learns its token is bad."""
    token = bearer(request)
    if token is not None:
        try:
            return accounts(request).for_token(token)
        except Unauthorized as refused:
            raise HTTPException(401, str(refused)) from None
    session = session_of(request)
    if session is None:
        return None
    account = accounts(request).get(session.account)
    return None if account is None or account.disabled else account


def require_account(request: Request) -> Account:
    """The account a request speaks for, or 401."""
    account = account_from_request(request)
    if account is None:
        raise HTTPException(401, "this needs an account: log in, or send a personal API token "
                                 "(Authorization: Bearer pat_…)")
    return account


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


def no_store(response: Response) -> Response:
    """Mark a response that shows a secret as never to be cached."""
    response.headers["Cache-Control"] = "no-store"
    return response
