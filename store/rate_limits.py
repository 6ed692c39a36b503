"""Rate limits per client and per account, counted in Redis so that every web process and
referee of one arena shares them: a fixed window per (limit, subject), one INCR and one
EXPIRE per hit.  A refusal names the limit and says when to try again.

Keys: ``{p}rate:{limit}:{subject}:{window}`` (a counter that expires with its window)."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

from store.redis_store import Store


@dataclass(frozen=True)
class Limit:
    """At most ``count`` ``what`` per ``window_s`` seconds per ``per``."""

    name: str
    count: int
    window_s: int
    what: str
    per: str

    def describe(self) -> str:
        """The limit in words, as a refusal states it."""
        return f"at most {self.count} {self.what} per {_duration(self.window_s)} per {self.per}"


def _duration(seconds: int) -> str:
    for unit, size in (("day", 86_400), ("hour", 3600), ("minute", 60)):
        if seconds % size == 0:
            count = seconds // size
            return unit if count == 1 else f"{count} {unit}s"
    return f"{seconds} seconds"


#: The self-service actions' limits (sign-ups and logins per client address; the rest per account too).
SIGNUP_PER_CLIENT = Limit("signup-client", 5, 3600, "sign-ups", "client")
LOGIN_PER_CLIENT = Limit("login-client", 20, 300, "login attempts", "client")
LOGIN_PER_ACCOUNT = Limit("login-account", 10, 300, "login attempts", "account")
CHANGES_PER_ACCOUNT = Limit("changes-account", 60, 3600,
                            "changes of bots and tokens (new ones, token rotations, pins, preset choices)", "account")
SUBMISSIONS_PER_ACCOUNT = Limit("submit-account", 20, 3600, "submissions", "account")
SUBMISSIONS_PER_CLIENT = Limit("submit-client", 30, 3600, "submissions", "client")


class RateLimited(Exception):
    """A request over a limit: the message names the limit; ``retry_after_s`` says when
    the window ends."""

    def __init__(self, limit: Limit, retry_after_s: int) -> None:
        super().__init__(f"too many requests: {limit.describe()}; try again in {retry_after_s} s")
        self.limit = limit
        self.retry_after_s = retry_after_s


class RateLimiter:
    """Counts hits against :class:`Limit` s in the arena's Redis."""

    def __init__(self, store: Store, scale: float = 1.0) -> None:
        self.store = store
        self.scale = scale
        """Multiplies every count (an operator may loosen or tighten all limits at once)."""

    def hit(self, limit: Limit, subject: str) -> None:
        """Count one ``limit`` action by ``subject`` (a client address or an account);
        raise :class:`RateLimited` when it is over the limit in the current window."""
        now = time.time()
        window = int(now // limit.window_s)
        digest = hashlib.sha256(subject.encode()).hexdigest()[:24]  # bounded key whatever the subject
        key = f"{self.store.prefix}rate:{limit.name}:{digest}:{window}"
        pipe = self.store.client.pipeline()
        pipe.incr(key)
        pipe.expire(key, limit.window_s + 1)
        count = int(pipe.execute()[0])
        if count > max(1, int(limit.count * self.scale)):
            raise RateLimited(limit, max(1, int((window + 1) * limit.window_s - now + 0.999)))
