"""Telling a penalised revoke from a play that follows the rules, for the built-in bots.

Under ``revoke_penalty`` (seed 004, auction pitch: "A player who can follow suit but
discards a card of a different non-trump suit is punished for the revoke by being set back
by the value of the bid") the engine lists the revoke among the legal plays, so that a bot
may choose it; a bot that picks uniformly among them revokes several times a hand and its
games run to the hand limit.  :func:`without_revokes` keeps the plays that cost nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from pitch_sdk.bots.cardsense import rules_sense
from pitch_sdk.rules import Action, Observation, PlayCard, Ruleset
from pitch_sdk.rules.tables import NO_SUIT


def without_revokes(ruleset: Ruleset, observation: Observation,
                    legal_actions: Sequence[Action]) -> Sequence[Action]:
    """``legal_actions`` less the penalised revokes: holding the suit led (the trump suit
    when trump is led), a card neither of that suit nor a trump.  ``legal_actions`` itself
    (not a copy: a lazy list of card sets may hold millions) when the ruleset has no revoke
    penalty, before trump is known, when the seat leads or when it is not a play; never
    empty (a seat holding the suit led may always follow)."""
    if (not ruleset.play.revoke_penalty or observation.trump is None or not observation.current_trick
            or not isinstance(legal_actions[0], PlayCard)):
        return legal_actions
    table = rules_sense(ruleset).of(observation).table
    # The suit led: the first card with one (a suitless joker led leaves it to the next card).
    led = next((table.effective_suit[card] for _, card in observation.current_trick
                if table.effective_suit[card] != NO_SUIT), NO_SUIT)
    if led == NO_SUIT or not any(table.suit_masks[led] >> card & 1 for card in observation.hand):
        return legal_actions
    allowed = table.suit_masks[led] | table.trump_mask
    return [action for action in legal_actions if not isinstance(action, PlayCard) or allowed >> action.card & 1]
