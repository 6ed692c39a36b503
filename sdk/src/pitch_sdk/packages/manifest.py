"""A bot package's manifest: ``pitch-bot.json`` at the package's root says how to start the bot.

Two kinds of bot are hosted:

- a Python bot: ``{"bot": "strategy/mybot.py:MyBot"}``, a file of the package (or a module
  of it, ``strategy.mybot:MyBot``) and the :class:`pitch_sdk.bot.Bot` subclass in it; the
  arena starts it with ``python -m pitch_sdk.cli run <bot>`` from the package's root;
- any other program: ``{"command": ["node", "bot.js"]}`` (the Node kit's folder) or
  ``{"command": ["./pitch-go-bot"]}`` (a built Go kit binary), run from the package's root.

Either way the bot finds its referee and token where ``pitch-bot run`` and both kits look:
``PITCH_REFEREE`` and ``PITCH_BOT_TOKEN`` in its environment.  A hosted bot is given a
``unix:`` address and a placeholder token; the bot host puts the real token on the calls it
forwards, so the sandboxed program never sees it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

MANIFEST_NAME = "pitch-bot.json"
#: Longest manifest file accepted (it is a few lines).
MAX_MANIFEST_BYTES = 4096
#: Most words in a command and longest word.
MAX_COMMAND_WORDS = 16
MAX_WORD_CHARS = 200


class ManifestError(ValueError):
    """A manifest that cannot be used, saying what is wrong with it."""


@dataclass(frozen=True)
class Manifest:
    """How to start a bot: exactly one of ``bot`` (a Python ``file.py:Class`` or
    ``module:Class`` of the package) and ``command`` (a program and its arguments)."""

    bot: str | None = None
    command: tuple[str, ...] = ()

    @property
    def language(self) -> str:
        """``python`` for a Python bot class, else ``command``."""
        return "python" if self.bot is not None else "command"

    def to_json(self) -> str:
        """The manifest as ``pitch-bot.json`` holds it."""
        return json.dumps({"bot": self.bot} if self.bot is not None else {"command": list(self.command)})


def _word(what: str, value: object) -> str:
    if not isinstance(value, str) or not value or len(value) > MAX_WORD_CHARS or not value.isprintable():
        raise ManifestError(f"{what} must be a non-empty printable string of at most {MAX_WORD_CHARS} characters")
    return value


def parse_manifest(raw: bytes) -> Manifest:
    """The manifest in ``raw`` (the bytes of ``pitch-bot.json``), or :class:`ManifestError`."""
    if len(raw) > MAX_MANIFEST_BYTES:
        raise ManifestError(f"{MANIFEST_NAME} has {len(raw)} bytes, more than {MAX_MANIFEST_BYTES}")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise ManifestError(f"{MANIFEST_NAME} is not a JSON object in UTF-8") from None
    if not isinstance(data, dict):
        raise ManifestError(f"{MANIFEST_NAME} must hold a JSON object")
    unknown = sorted(str(key)[:40] for key in data if key not in ("bot", "command"))
    if unknown:
        raise ManifestError(f"{MANIFEST_NAME} has unknown keys {unknown[:5]}: it takes 'bot' or 'command'")
    if ("bot" in data) == ("command" in data):
        raise ManifestError(f"{MANIFEST_NAME} needs exactly one of 'bot' (file.py:Class or module:Class) "
                            "and 'command' (a list: program and arguments)")
    if "bot" in data:
        bot = _word("'bot'", data["bot"])
        path, colon, name = bot.rpartition(":")
        if not colon or not path or not name.isidentifier():
            raise ManifestError("'bot' must name a class: file.py:Class or module:Class")
        if path.startswith("/") or ".." in path.split("/"):
            raise ManifestError("'bot' must name a file inside the package (no absolute path, no '..')")
        return Manifest(bot=bot)
    command = data["command"]
    if not isinstance(command, list) or not 0 < len(command) <= MAX_COMMAND_WORDS:
        raise ManifestError(f"'command' must be a list of 1 to {MAX_COMMAND_WORDS} strings")
    return Manifest(command=tuple(_word("each word of 'command'", word) for word in command))
