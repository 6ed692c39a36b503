"""Web sessions: a random session id in a cookie names an account and the CSRF token its
forms carry.  Only the id's SHA-256 is a key, so a dump of the store holds no live session.

Keys: ``{p}web-session:{sha256 of the id}`` hash: account, csrf (expires after
:data:`SESSION_TTL_S` without use)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from store.redis_store import Store, hash_token

#: A session ends after this long without a request.
SESSION_TTL_S = 7 * 86_400


@dataclass(frozen=True)
class Session:
    """A signed-in browser: its account key and the CSRF token its forms must carry."""

    session_id: str
    account: str
    csrf: str


class Sessions:
    """Create, find and end web sessions."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def _key(self, session_id: str) -> str:
        return f"{self.store.prefix}web-session:{hash_token(session_id)}"

    def start(self, account: str) -> Session:
        """A new session for ``account``."""
        session = Session(secrets.token_urlsafe(32), account, secrets.token_urlsafe(24))
        pipe = self.store.client.pipeline()
        pipe.hset(self._key(session.session_id), mapping={"account": account, "csrf": session.csrf})
        pipe.expire(self._key(session.session_id), SESSION_TTL_S)
        pipe.execute()
        return session

    def find(self, session_id: str) -> Session | None:
        """The live session with this id (its lifetime extended), or ``None``."""
        if not session_id or len(session_id) > 100:
            return None
        key = self._key(session_id)
        pipe = self.store.client.pipeline()
        pipe.hmget(key, ["account", "csrf"])
        pipe.expire(key, SESSION_TTL_S)
        (account, csrf), _ = pipe.execute()
        return None if account is None else Session(session_id, str(account), str(csrf))

    def end(self, session_id: str) -> None:
        """Log the session out."""
        if session_id and len(session_id) <= 100:
            self.store.client.delete(self._key(session_id))
