"""Where ``pitch-bot login`` keeps the arena's URL and the personal API token it minted:
``$XDG_CONFIG_HOME/pitch-arena/credentials.json`` (else ``~/.config/...``), readable by its
owner only (mode 0600, written atomically).  ``PITCH_ARENA_URL`` and ``PITCH_API_TOKEN``
override the file, for CI jobs that keep the token in a secret."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

DEFAULT_URL = "http://127.0.0.1:8080"


@dataclass(frozen=True)
class Credentials:
    """An arena's base URL and, once logged in, the account's API token."""

    url: str = DEFAULT_URL
    token: str = ""
    account: str = ""


def credentials_path(env: Mapping[str, str] | None = None) -> Path:
    """The credentials file of this user."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(base) / "pitch-arena" / "credentials.json"


def load(env: Mapping[str, str] | None = None) -> Credentials:
    """The saved credentials, overridden by ``PITCH_ARENA_URL`` / ``PITCH_API_TOKEN``."""
    env = os.environ if env is None else env
    saved: dict[str, str] = {}
    path = credentials_path(env)
    if path.is_file():
        try:
            raw = json.loads(path.read_text())
            saved = {key: str(raw[key]) for key in ("url", "token", "account") if key in raw}
        except (OSError, ValueError):
            saved = {}
    return Credentials(url=env.get("PITCH_ARENA_URL") or saved.get("url") or DEFAULT_URL,
                       token=env.get("PITCH_API_TOKEN") or saved.get("token", ""),
                       account=saved.get("account", ""))


def save(credentials: Credentials, env: Mapping[str, str] | None = None) -> Path:
    """Write ``credentials`` for the next commands (mode 0600 from the start: the token is
    never readable by others, even for a moment)."""
    path = credentials_path(env)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temporary = path.with_suffix(".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        json.dump({"url": credentials.url, "token": credentials.token, "account": credentials.account}, handle)
    os.replace(temporary, path)
    return path


def forget(env: Mapping[str, str] | None = None) -> bool:
    """Delete the saved credentials; whether there were any."""
    path = credentials_path(env)
    if path.exists():
        path.unlink()
        return True
    return False
