"""Game positions for the SDK tests: explicit hands, scripted actions, one bot decision."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from pitch_sdk.bot import Bot
from pitch_sdk.rules import Deal, GameState, observe, parse_action, parse_cards, preset


def position(preset_name: str, hands: Sequence[str], actions: Sequence[str] = (), dealer: int = 0,
             options: dict[str, Any] | None = None) -> GameState:
    """A game dealt ``hands`` (seat 0 first) after ``actions`` (text form) were applied."""
    rules = preset(preset_name, options or {})
    deal = Deal(tuple(tuple(parse_cards(hand)) for hand in hands))
    state = GameState.from_deals(rules, [deal], dealer=dealer)
    for text in actions:
        state.apply(parse_action(text))
    return state


def decide(bot: Bot, state: GameState) -> str:
    """What ``bot``, sitting at the seat to move, chooses there (text form)."""
    seat = state.to_move
    bot.start_game(state.rules, seat, random.Random(0))
    observation = observe(state, seat)
    action = bot.act(observation, observation.legal_actions)
    assert action in observation.legal_actions
    return str(action)
