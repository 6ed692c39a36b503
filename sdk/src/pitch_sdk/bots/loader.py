"""Turning a bot spec (``heuristic``, ``bots/mine.py:MyBot``, ``pkg.mod:MyBot``) into a bot."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from pitch_sdk.bot import Bot
from pitch_sdk.bots.heuristic import HeuristicBot
from pitch_sdk.bots.pimc import PimcBot
from pitch_sdk.bots.random_bot import RandomBot

#: Built-in bots by name.
BUILTIN_BOTS: dict[str, type[Bot]] = {"random": RandomBot, "heuristic": HeuristicBot, "pimc": PimcBot}


class BotLoadError(ValueError):
    """A bot spec that names no bot; the message says what was tried and what exists."""


def load_bot(spec: str, budget_ms: float | None = None) -> Bot:
    """A new bot from ``spec``: a built-in name, ``file.py:Class`` or ``module:Class``;
    ``budget_ms``, when given, becomes its :attr:`Bot.budget_ms` (bots that do not search
    ignore it)."""
    bot = _new_bot(spec)
    if budget_ms is not None:
        bot.budget_ms = budget_ms
    return bot


def _new_bot(spec: str) -> Bot:
    if spec in BUILTIN_BOTS:
        return BUILTIN_BOTS[spec]()
    where, colon, class_name = spec.rpartition(":")
    if not colon or not where or not class_name:
        raise BotLoadError(
            f"unknown bot {spec!r}: use a built-in bot ({', '.join(sorted(BUILTIN_BOTS))}), "
            "path/to/file.py:ClassName or module:ClassName")
    module = _load_file(where) if where.endswith(".py") else _import(where)
    cls = getattr(module, class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Bot)):
        found = sorted(name for name, value in vars(module).items()
                       if isinstance(value, type) and issubclass(value, Bot) and value is not Bot)
        raise BotLoadError(f"{where} has no Bot subclass named {class_name!r}; "
                           f"Bot subclasses there: {', '.join(found) or 'none'}")
    bot = cls()
    if bot.name == Bot.name:
        bot.name = class_name
    return bot


def _load_file(path_text: str) -> ModuleType:
    path = Path(path_text)
    if not path.is_file():
        raise BotLoadError(f"bot file {path_text!r} does not exist")
    digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:10]
    name = f"pitch_user_bot_{path.stem}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise BotLoadError(f"cannot load {path_text!r} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look modules up by name
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise BotLoadError(f"bot file {path_text!r} failed to import: {exc!r}") from exc
    return module


def _import(module_name: str) -> ModuleType:
    try:
        return importlib.import_module(module_name)
    except ImportError as exc:
        raise BotLoadError(f"cannot import bot module {module_name!r}: {exc}") from exc
