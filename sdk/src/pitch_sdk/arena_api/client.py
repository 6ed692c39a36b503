"""A small client of the arena's JSON API (``/api/v1``, served by ``pitch-arena web``),
on the standard library's ``urllib``: the SDK adds no HTTP dependency for a handful of calls.

Every call raises :class:`ApiError` with the server's own error text (or what went wrong
reaching it), and reads at most :data:`MAX_ANSWER` bytes of an answer."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

#: Largest answer read (a version's log is at most 64 KiB).
MAX_ANSWER = 1 << 20
#: Seconds a call may take (an upload of a large package included).
TIMEOUT_S = 120.0


def _part(value: str) -> str:
    """``value`` as one path segment (a name with '/' or '?' stays one segment)."""
    return urllib.parse.quote(value, safe="")


class ApiError(Exception):
    """A call the arena refused (``status`` is its HTTP status) or that could not reach it (0)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class ArenaApi:
    """The API of the arena at ``url``, as the account whose personal API token is ``token``."""

    def __init__(self, url: str, token: str = "") -> None:
        self.url = url.rstrip("/")
        self.token = token

    def _call(self, method: str, path: str, body: bytes | None = None, content_type: str = "application/json",
              query: dict[str, str] | None = None) -> bytes:
        target = f"{self.url}/api/v1{path}" + (f"?{urllib.parse.urlencode(query)}" if query else "")
        request = urllib.request.Request(target, data=body, method=method)
        if body is not None:
            request.add_header("Content-Type", content_type)
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:
                return bytes(answer.read(MAX_ANSWER))
        except urllib.error.HTTPError as refused:
            text = refused.read(4096).decode("utf-8", "replace")
            try:
                message = str(json.loads(text)["error"])
            except (ValueError, KeyError, TypeError):
                message = text.strip()[:200] or refused.reason
            raise ApiError(refused.code, message) from None
        except (urllib.error.URLError, OSError, ValueError) as failed:
            reason = getattr(failed, "reason", failed)
            raise ApiError(0, f"cannot reach the arena at {self.url}: {reason}") from None

    def _json(self, method: str, path: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        body = None if payload is None else json.dumps(payload).encode()
        raw = self._call(method, path, body)
        found: dict[str, Any] = json.loads(raw) if raw else {}
        return found

    def sign_up(self, name: str, password: str) -> dict[str, Any]:
        """A new account; the answer holds its first API token."""
        return self._json("POST", "/accounts", {"name": name, "password": password})

    def log_in(self, name: str, password: str, label: str = "pitch-bot login") -> dict[str, Any]:
        """A new API token for the account."""
        return self._json("POST", "/login", {"name": name, "password": password, "label": label})

    def me(self) -> dict[str, Any]:
        """The account, its bots and its tokens."""
        return self._json("GET", "/me")

    def create_bot(self, name: str, description: str = "", presets: list[str] | None = None) -> dict[str, Any]:
        """A new bot of the account, playing ``presets`` (default: every preset), with its
        token (shown once)."""
        return self._json("POST", "/bots", {"name": name, "description": description, "presets": presets or []})

    def presets(self, bot: str) -> list[str]:
        """The presets the account's bot plays (empty: every preset)."""
        return list(self._json("GET", f"/bots/{_part(bot)}/presets")["presets"])

    def set_presets(self, bot: str, presets: list[str]) -> list[str]:
        """Choose the presets the account's bot plays (empty: every preset again); the choice."""
        return list(self._json("PUT", f"/bots/{_part(bot)}/presets", {"presets": presets})["presets"])

    def rotate_bot_token(self, name: str) -> str:
        """A new token for the account's bot (the old one stops working)."""
        return str(self._json("POST", f"/bots/{_part(name)}/token")["token"])

    def mint_token(self, label: str) -> dict[str, Any]:
        """A new personal API token (shown once)."""
        return self._json("POST", "/tokens", {"label": label})

    def revoke_token(self, token_id: str) -> None:
        """Revoke one of the account's API tokens."""
        self._call("DELETE", f"/tokens/{_part(token_id)}")

    def submit(self, bot: str, package: bytes, version: str | None = None) -> dict[str, Any]:
        """Send a bot package as a new version of the account's bot."""
        raw = self._call("POST", f"/bots/{_part(bot)}/versions", package,
                         "application/gzip", {"version": version} if version else None)
        found: dict[str, Any] = json.loads(raw)
        return found

    def versions(self, bot: str) -> list[dict[str, Any]]:
        """The bot's hosted versions, newest first."""
        return list(self._json("GET", f"/bots/{_part(bot)}/versions")["versions"])

    def status(self, bot: str, version: str | None = None) -> dict[str, Any]:
        """Where a version of the account's bot (default: its newest) stands: its check, its
        automatic SPRT against its predecessor, its verdict."""
        raw = self._call("GET", f"/bots/{_part(bot)}/status", query={"version": version} if version else None)
        found: dict[str, Any] = json.loads(raw)
        return found

    def pin(self, bot: str, version: str | None) -> dict[str, Any]:
        """Pin ``version`` as the bot's current version (``None``: unpin); the bot's current
        version after it."""
        return self._json("POST", f"/bots/{_part(bot)}/pin", {"version": version})

    def log(self, bot: str, version: str) -> str:
        """The last kilobytes of a hosted version's output."""
        return self._call("GET", f"/bots/{_part(bot)}/versions/{_part(version)}/log").decode("utf-8", "replace")

    def stop(self, bot: str, version: str) -> None:
        """Stop hosting a version."""
        self._call("DELETE", f"/bots/{_part(bot)}/versions/{_part(version)}")
