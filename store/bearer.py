"""The ``Authorization`` credentials every service reads: ``Bearer <token>``.

One parser for the referee's gRPC metadata and the web arena's HTTP header, so both take
the same spellings: the scheme is case-insensitive (RFC 7235, section 2.1: "It uses a
case-insensitive token as a means to identify the authentication scheme"), so
``bearer``, ``BEARER`` and ``Bearer`` all name it; the token is what follows the
scheme's whitespace, surrounding whitespace removed."""

from __future__ import annotations

SCHEME = "bearer"
"""The scheme's name, lower-cased (compared case-insensitively)."""


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization`` value with the Bearer scheme (in any case);
    ``None`` for no value or another scheme, ``""`` for the scheme without a token."""
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != SCHEME:
        return None
    return token.strip()
