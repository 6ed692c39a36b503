"""The built-in bots and the loader that turns a bot spec into a bot.

A *spec* is how the CLI and match tools name a bot: a built-in name (``random``,
``heuristic``, ``pimc``), a file and class (``path/to/mybot.py:MyBot``) or a module and class
(``mypackage.bots:MyBot``).
"""

from __future__ import annotations

from pitch_sdk.bots.heuristic import HeuristicBot
from pitch_sdk.bots.loader import BUILTIN_BOTS, BotLoadError, load_bot
from pitch_sdk.bots.pimc import PimcBot
from pitch_sdk.bots.random_bot import RandomBot

__all__ = ["BUILTIN_BOTS", "BotLoadError", "HeuristicBot", "PimcBot", "RandomBot", "load_bot"]
