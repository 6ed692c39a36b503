"""The ``Bot`` base class: what a Pitch bot implements, whoever runs it.

A bot is plain synchronous code.  Whatever drives it (the local harness, the referee
connection) calls :meth:`Bot.start_game` once per game, then :meth:`Bot.act` for every
decision of its seat, passing the seat's :class:`~pitch_sdk.rules.Observation` and the
legal actions, and the hooks as hands and games end.

Authors implement either ``act`` (one method for everything, as the random bot does) or
the per-decision methods ``bid``, ``declare_trump``, ``choose_cards``, ``play``,
``call_card``, ``choose`` and ``muck``, which the default ``act`` dispatches to by decision
kind: most bots only care about a few kinds, and a missing one fails loudly instead of
playing nonsense - except ``muck``, asked only under a ruleset option added later, whose
default keeps the hand, so bots written before it play on unchanged.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from pitch_sdk.clock import Clock
from pitch_sdk.rules import Action, Card, DecisionKind, HandResult, MuckHand, Observation, Ruleset

_METHODS: dict[DecisionKind, str] = {
    DecisionKind.BID: "bid",
    DecisionKind.DECLARE_TRUMP: "declare_trump",
    DecisionKind.CHOOSE_CARDS: "choose_cards",
    DecisionKind.PLAY: "play",
    DecisionKind.CALL_CARD: "call_card",
    DecisionKind.CHOICE: "choose",
    DecisionKind.MUCK: "muck",
}


class Bot:
    """Base class of Pitch bots.

    Attributes set by :meth:`start_game`: ``ruleset`` (the variant being played, for
    bots that reason about card ranks or points), ``seat`` and ``rng`` (a seeded
    ``random.Random``: use it for every random choice so seeded matches replay exactly).
    Set before every decision: ``clock``, the decision's time control
    (:class:`~pitch_sdk.clock.Clock`: ``clock.remaining_ms()`` is the time left before a
    timeout, ``clock.budget_left_ms()`` the time left before the bank is used).
    """

    #: Short name shown in result tables and error messages.
    name: str = "bot"
    #: Wall time a searching bot may spend per decision, in milliseconds (``None``: the
    #: bot's own choice); the CLI's ``--budget-ms`` sets it.  Playing on a referee, the SDK
    #: lowers it for each decision to half the time the referee allows it (2000 ms by
    #: default), so a search never runs into the time control.
    budget_ms: float | None = None

    def __init__(self) -> None:
        self.ruleset: Ruleset | None = None
        self.seat = -1
        self.rng = random.Random(0)
        self.clock = Clock()

    def start_game(self, ruleset: Ruleset, seat: int, rng: random.Random) -> None:
        """Called before each game.  Override to reset per-game memory (call ``super()``)."""
        self.ruleset = ruleset
        self.seat = seat
        self.rng = rng

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """Choose one of ``legal_actions`` (never empty, all of one decision kind).

        The default hands the decision to the method for its kind (``bid``, ``play``...).
        """
        method = _METHODS[legal_actions[0].kind]
        decide = getattr(self, method)
        return decide(observation, legal_actions)  # type: ignore[no-any-return]

    # ------------------------------------------------------------ per-decision methods
    def bid(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """Pass or bid: ``legal_actions`` holds ``Pass`` (unless forced) and ``Bid``s."""
        return self._missing("bid")

    def declare_trump(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """Name trump (``DeclareTrump``), in rulesets where trump is declared, not pitched."""
        return self._missing("declare_trump")

    def choose_cards(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """Choose a set of cards (``ChooseCards``): the discards of an exchange."""
        return self._missing("choose_cards")

    def play(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """Play a card to the trick (``PlayCard``)."""
        return self._missing("play")

    def call_card(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """Name a card (``CallCard``), e.g. to call a partner."""
        return self._missing("call_card")

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """Answer a yes/no question (``Choose``)."""
        return self._missing("choose")

    def muck(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """Keep a hand dealt no point cards, or lay it face down (``MuckHand``; the
        ruleset's ``muck`` option: a new hand, or a re-deal).  The default keeps it."""
        return next(a for a in legal_actions if isinstance(a, MuckHand) and not a.muck)

    # ------------------------------------------------------------ hooks
    def on_hand_result(self, result: HandResult) -> None:
        """Called after every hand with its scoring, for bots that learn or keep notes."""

    def on_muck_shown(self, seat: int, cards: tuple[Card, ...], redeal: bool) -> None:
        """Called when a mucked hand is shown to the table (the ``muck`` option; seed 004:
        "The cards can be checked by the other players after the hand has been played"):
        after ``on_hand_result`` for a new-hand muck, at once for a ``redeal``."""

    def on_game_end(self, result: HandResult) -> None:
        """Called once when the game ends, with the last hand's result (winner, scores);
        not called for a game that ended (at its hand cap) before any hand was scored."""

    def _missing(self, method: str) -> Action:
        raise NotImplementedError(
            f"{type(self).__name__} was asked for a {method} decision: implement "
            f"{method}() or act()")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, seat={self.seat})"
