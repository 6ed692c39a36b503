"""The Pitch rules engine: pure, deterministic, no I/O.

Typical use::

    from pitch_sdk.rules import GameState, preset

    state = GameState.new(preset("partnership"), seed=7)
    while not state.is_over:
        state.apply(state.legal_actions()[0])
    print(state.results[-1].scores)
"""

from pitch_sdk.rules.actions import (
    PASS,
    Action,
    Bid,
    CallCard,
    Choose,
    ChooseCards,
    DecisionKind,
    DeclareTrump,
    MuckHand,
    Pass,
    PlayCard,
    parse_action,
)
from pitch_sdk.rules.cards import BIG_JOKER, CARDS, LITTLE_JOKER, Card, Suit, parse_cards
from pitch_sdk.rules.cardsets import CardSetChoices
from pitch_sdk.rules.deal import Deal
from pitch_sdk.rules.errors import (
    ActionParseError,
    CardParseError,
    GameOverError,
    IllegalActionError,
    InvalidDealError,
    InvalidRulesetError,
    RulesError,
    UnknownPresetError,
)
from pitch_sdk.rules.observation import FULL_VIEW, SPECTATOR, Observation, observe
from pitch_sdk.rules.presets import PRESETS, Preset, preset
from pitch_sdk.rules.records import HandResult, PointAward, Trick, WinReason
from pitch_sdk.rules.replay import GameLog, replay
from pitch_sdk.rules.ruleset import PointCategory, Ruleset
from pitch_sdk.rules.state import CardSetRule, Decision, GameState, Phase

__all__ = [
    "BIG_JOKER",
    "CARDS",
    "FULL_VIEW",
    "LITTLE_JOKER",
    "PASS",
    "PRESETS",
    "SPECTATOR",
    "Action",
    "ActionParseError",
    "Bid",
    "CallCard",
    "Card",
    "CardParseError",
    "CardSetChoices",
    "CardSetRule",
    "Choose",
    "ChooseCards",
    "Deal",
    "Decision",
    "DecisionKind",
    "DeclareTrump",
    "GameLog",
    "GameOverError",
    "GameState",
    "HandResult",
    "IllegalActionError",
    "InvalidDealError",
    "InvalidRulesetError",
    "MuckHand",
    "Observation",
    "Pass",
    "Phase",
    "PlayCard",
    "PointAward",
    "PointCategory",
    "Preset",
    "RulesError",
    "Ruleset",
    "Suit",
    "Trick",
    "UnknownPresetError",
    "WinReason",
    "observe",
    "parse_action",
    "parse_cards",
    "preset",
    "replay",
]
