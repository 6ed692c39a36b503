"""Scenarios: a hand or a game written down as JSON, played by the engine, reported as JSON.

A scenario names a preset (and options), the dealer, the deals and the actions in their
text form; :func:`run_scenario` plays them and reports what the engine made of them.  It
is how rules questions and bug reports are settled: anyone can write one, and the output
shows every point awarded.  The format is documented in ``docs/scenarios.md``.

Two kinds of failure are kept apart.  Input that is not a scenario (bad JSON, an unknown
preset or option, an impossible deal) raises :class:`ScenarioError`.  A well-formed
scenario whose actions go wrong is a *result*: ``ok`` is false and ``error`` says which
action failed, why, and what was legal instead.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pitch_sdk.rules import (
    ActionParseError,
    CardParseError,
    Deal,
    GameState,
    IllegalActionError,
    InvalidDealError,
    InvalidRulesetError,
    Ruleset,
    parse_action,
    parse_cards,
    preset,
)

#: The keys a scenario may have (``description`` is free text for the reader).
SCENARIO_KEYS = ("description", "preset", "options", "dealer", "seed", "deals", "actions")


class ScenarioError(ValueError):
    """Input that is not a valid scenario; the message names the offending part."""


def load_scenario(text: str) -> dict[str, Any]:
    """Parse scenario JSON text (the structure is checked by :func:`run_scenario`)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"scenario is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ScenarioError(f"a scenario must be a JSON object, got {type(data).__name__}")
    return data


def run_scenario(data: Mapping[str, Any]) -> dict[str, Any]:
    """Play a scenario and return its JSON-ready report (see ``docs/scenarios.md``)."""
    state = build_state(data)
    actions = data.get("actions", [])
    if not isinstance(actions, list):
        raise ScenarioError("'actions' must be a list of action texts like \"bid 2\" or \"play AS\"")
    for index, text in enumerate(actions):
        legal = [] if state.is_over else state.legal_actions()
        seat = None if state.is_over else state.to_move
        try:
            state.apply(parse_action(text))
        except ActionParseError as exc:
            return _report(state, index, _failure("unparsable-action", index, text, seat, exc, legal))
        except IllegalActionError as exc:
            return _report(state, index, _failure("illegal-action", index, text, seat, exc, legal))
    return _report(state, len(actions))


def build_state(data: Mapping[str, Any]) -> GameState:
    """The game a scenario starts from: its ruleset, dealer, seed and explicit deals."""
    if not isinstance(data, Mapping):
        raise ScenarioError(f"a scenario must be a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - set(SCENARIO_KEYS))
    if unknown:
        raise ScenarioError(f"unknown scenario keys {unknown}; allowed: {', '.join(SCENARIO_KEYS)}")
    rules = _ruleset(data)
    dealer = _integer(data, "dealer", 0)
    seed = _integer(data, "seed", 0)
    if not 0 <= dealer < rules.players:
        raise ScenarioError(f"dealer {dealer} is not a seat: {rules.name} has seats 0..{rules.players - 1}")
    deals = _deals(data.get("deals", []), rules.players)
    for index, deal in enumerate(deals):
        try:  # one deal at a time, so the message can say which deal is impossible
            GameState.from_deals(rules, [deal], dealer=dealer, seed=seed)
        except InvalidDealError as exc:
            raise ScenarioError(f"deals[{index}] is impossible: {exc}") from None
    return GameState.from_deals(rules, deals, dealer=dealer, seed=seed)


def _ruleset(data: Mapping[str, Any]) -> Ruleset:
    name = data.get("preset")
    if not isinstance(name, str):
        raise ScenarioError("a scenario needs \"preset\": the name of a preset, e.g. \"partnership\"")
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise ScenarioError("'options' must be an object like {\"target\": 11}")
    try:
        return preset(name, options)
    except InvalidRulesetError as exc:
        raise ScenarioError(str(exc)) from None


def _integer(data: Mapping[str, Any], key: str, default: int) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScenarioError(f"'{key}' must be an integer, got {value!r}")
    return value


def _deals(raw: Any, players: int) -> list[Deal]:
    if not isinstance(raw, list):
        raise ScenarioError("'deals' must be a list of {\"hands\": [...], \"stock\": \"...\"}")
    deals = []
    for index, item in enumerate(raw):
        where = f"deals[{index}]"
        if not isinstance(item, dict) or not isinstance(item.get("hands"), list):
            raise ScenarioError(f"{where} must be an object with \"hands\": one card list per seat")
        extra = sorted(set(item) - {"hands", "stock"})
        if extra:
            raise ScenarioError(f"{where} has unknown keys {extra}; allowed: hands, stock")
        if len(item["hands"]) != players:
            raise ScenarioError(f"{where} has {len(item['hands'])} hands for {players} players")
        hands = tuple(tuple(_cards(hand, f"{where}.hands[{seat}]")) for seat, hand in enumerate(item["hands"]))
        deals.append(Deal(hands, tuple(_cards(item.get("stock", ""), f"{where}.stock"))))
    return deals


def _cards(raw: Any, where: str) -> list[Any]:
    if not isinstance(raw, (str, list)):
        raise ScenarioError(f"{where} must be card names like \"AS 10H 2C\", got {raw!r}")
    try:
        return parse_cards(raw)
    except CardParseError as exc:
        raise ScenarioError(f"{where}: {exc}") from None


def _failure(kind: str, index: int, text: Any, seat: int | None, exc: Exception,
             legal: list[Any]) -> dict[str, Any]:
    return {"kind": kind, "index": index, "action": text, "seat": seat, "reason": str(exc),
            "legal": [str(action) for action in legal]}


def _report(state: GameState, applied: int, error: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON-ready report of ``state`` after ``applied`` actions (and the error, if any)."""
    report: dict[str, Any] = {
        "ok": error is None,
        "ruleset": state.rules.name,
        "actions_applied": applied,
        "hands": [result.to_dict() for result in state.results],
        "scores": list(state.scores),
        "game_over": state.is_over,
        "winner": state.winner,
        "win_reason": None if state.win_reason is None else state.win_reason.value,
        "phase": state.phase.value,
    }
    if not state.is_over:
        report["hand_number"] = state.hand_number
        report["to_move"] = state.to_move
        report["legal_actions"] = [str(action) for action in state.listed_actions()]
    if error is not None:
        report["error"] = error
    return report
