"""The admin token guards everything that changes the arena (registering a bot, starting a
tournament): a request carries it as ``Authorization: Bearer <token>`` or, from a page's
form, as the ``admin_token`` field.  Comparison is constant-time."""

from __future__ import annotations

import hmac

from starlette.exceptions import HTTPException
from starlette.requests import Request

from store.bearer import bearer_token


def bearer(request: Request) -> str | None:
    """The bearer token of the request's ``Authorization`` header (the scheme in any case,
    see :mod:`store.bearer`), if any."""
    return bearer_token(request.headers.get("authorization"))


def check_admin(expected: str, given: str | None) -> None:
    """Raise 403 unless ``given`` is the admin token (an arena without one refuses all)."""
    if not expected or not given or not hmac.compare_digest(expected.encode(), given.encode()):
        raise HTTPException(403, "this needs the arena's admin token (PITCH_ADMIN_TOKEN)")
