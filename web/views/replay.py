"""The replay's card table: a stored game, step by step, as one viewer saw it.

Step 0 is the table before the first decision; each logged action adds one step. Every
step is rebuilt by applying the log's moves, one at a time, to the engine's own
:class:`~pitch_sdk.rules.GameState`, and what a viewer sees is read through
:func:`~pitch_sdk.rules.observe` (a seat: its own hand and everything public; the face-up
view: every hand), so the replay can show neither a card the engine did not hold there
nor one the seat did not see. No rule is restated here: points come from the engine's
hand results, scores from its state.

A mucked hand (seed 004's ``muck`` option) is shown at the step that logged its reveal:
after the hand for a seat that took a new hand ("The cards can be checked by the other
players after the hand has been played"), at once for one that asked for a re-deal.

Points "fall" during a hand: an award tied to a fixed card (the Jack, a joker, ...) shows
from the trick that captured its card. High and Low depend on cards still unplayed, so a
seat's view shows them only when the hand is scored (the face-up view sees every hand
and shows them from the capturing trick too); Game always waits for the scoring.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pitch_sdk.display.render import party_labels
from pitch_sdk.rules import (
    FULL_VIEW,
    GameLog,
    GameState,
    HandResult,
    Observation,
    PointAward,
    PointCategory,
    observe,
    replay,
)
from pitch_sdk.rules import Trick as EngineTrick
from pitch_sdk.rules.actions import Action, ChooseCards
from pitch_sdk.rules.cards import CARDS, Card, Suit, cards_of
from pitch_sdk.rules.events import Dealt, Event, HandScored, MuckShown
from pitch_sdk.rules.state_fields import Phase

#: The ``view`` of the face-up table.
FACE_UP = "all"
#: Categories whose card is known only once the whole hand is: a seat sees them at the scoring.
_RELATIVE = frozenset({PointCategory.HIGH, PointCategory.LOW})


@dataclass(frozen=True)
class SeatView:
    """One seat at the table: who, its cards as the viewer may see them, its part in the hand."""

    seat: int
    name: str
    party: int
    cards: tuple[str, ...]
    """The faces the viewer sees (card names such as ``AS``, ``10H``, ``BJ``)."""
    backs: int
    """Cards held face down for this viewer (counted, never named)."""
    bid: str | None
    """This seat's latest word in the auction (``pass``, ``3``, ``3 for 6``), if any."""
    burned: tuple[str, ...]
    dealer: bool
    to_move: bool
    pitcher: bool


@dataclass(frozen=True)
class Play:
    """A card played to a trick, and by whom."""

    seat: int
    card: str


@dataclass(frozen=True)
class TrickView:
    """A completed trick: its plays in order and the seat that took it."""

    plays: tuple[Play, ...]
    winner: int


@dataclass(frozen=True)
class Award:
    """A point that fell: to which party, for which card (``None``: Game)."""

    party: int
    value: int
    card: str | None


@dataclass(frozen=True)
class PointLine:
    """One scoring category of the ruleset and what of it has fallen so far."""

    category: str
    awards: tuple[Award, ...]


@dataclass(frozen=True)
class HandEnd:
    """The hand that ended at this step: its last trick, its points and what they did to the scores."""

    hand_number: int
    last_trick: TrickView | None
    points: tuple[PointLine, ...]
    pips: tuple[float, ...]
    score_changes: tuple[int, ...]
    scores: tuple[int, ...]
    made: bool | None


@dataclass(frozen=True)
class MuckView:
    """A mucked hand shown to the table: by whom, its cards, and whether it asked a re-deal."""

    seat: int
    cards: tuple[str, ...]
    redeal: bool


@dataclass(frozen=True)
class Step:
    """The table at one step of a game, for one viewer."""

    index: int
    hand_number: int
    decision: int
    """Decisions taken so far in this hand (0: just dealt)."""
    phase: str
    action: tuple[int, str] | None
    """The decision that led here: (seat, what it did as the viewer may know it)."""
    seats: tuple[SeatView, ...]
    trick: tuple[Play, ...]
    last_trick: TrickView | None
    """The hand's latest completed trick, while the next one has no card yet."""
    trump: str | None
    sub_trump: str | None
    contract: int | None
    doubled: bool
    called: str | None
    points: tuple[PointLine, ...]
    """This hand's points fallen so far, one line per category of the ruleset."""
    tricks_won: tuple[int, ...]
    scores: tuple[int, ...]
    ended: HandEnd | None
    winner: int | None
    over: bool
    win_reason: str | None
    mucks: tuple[MuckView, ...] = ()
    """Mucked hands this step's move showed the table (public: every view sees them)."""


@dataclass(frozen=True)
class Replay:
    """A whole game for one viewer: its steps and what the navigation needs."""

    players: int
    parties: tuple[str, ...]
    names: tuple[str, ...]
    viewer: int
    """A seat, or ``FULL_VIEW`` for every hand face up."""
    steps: tuple[Step, ...]
    hand_starts: tuple[int, ...]
    """The first step of each hand (each deal)."""

    def next_hand(self, step: int) -> int:
        """The first step of the next hand, or the last step."""
        return next((s for s in self.hand_starts if s > step), len(self.steps) - 1)

    def previous_hand(self, step: int) -> int:
        """The start of this hand, or of the previous one when already at a start."""
        return max((s for s in self.hand_starts if s < step), default=0)


def parse_view(text: str, players: int) -> int:
    """The viewer a ``view`` parameter names (``all`` or ``seat-K``); ``ValueError`` otherwise."""
    if text == FACE_UP:
        return FULL_VIEW
    number = text.removeprefix("seat-")
    if number == text or not number.isdecimal() or not 0 <= int(number) < players:
        raise ValueError(f"view must be {FACE_UP!r} or seat-0 to seat-{players - 1}")
    return int(number)


def view_name(viewer: int) -> str:
    """The ``view`` parameter of a viewer (the inverse of :func:`parse_view`)."""
    return FACE_UP if viewer == FULL_VIEW else f"seat-{viewer}"


def game_replay(log: GameLog, names: Sequence[str], viewer: int) -> Replay:
    """Every step of the game ``log`` records, as ``viewer`` (a seat or ``FULL_VIEW``) saw it.

    Raises the engine's :class:`~pitch_sdk.rules.RulesError` if the log does not replay."""
    results = {result.hand_number: result for result in replay(log).results}
    state = GameState(log.ruleset, seed=log.seed, dealer=log.dealer, deals=log.deals)
    table = _Table(log, tuple(names), viewer, results)
    steps = [table.step(state, 0, 0, None, None)]
    starts = [0]
    decision = 0
    for index, (seat, action) in enumerate(log.moves, 1):
        hand, scored, logged = state.hand_number, len(state.results), len(state.history)
        state.apply(action)
        decision = 0 if state.hand_number != hand else decision + 1
        if decision == 0:
            starts.append(index)
        ended = state.results[-1] if len(state.results) > scored else None
        shown = tuple(MuckView(e.seat, tuple(c.name for c in cards_of(e.cards)), e.redeal)
                      for e in state.history[logged:] if isinstance(e, MuckShown))
        steps.append(table.step(state, index, decision, (seat, action), ended, shown))
    return Replay(log.ruleset.players, table.parties, table.names, viewer, tuple(steps), tuple(starts))


class _Table:
    """Builds the steps of one game for one viewer."""

    def __init__(self, log: GameLog, names: tuple[str, ...], viewer: int, results: dict[int, HandResult]) -> None:
        self.rules = log.ruleset
        self.names = tuple(names[seat] if seat < len(names) else f"seat {seat}" for seat in range(log.ruleset.players))
        self.parties = tuple(party_labels(log.ruleset))
        self.viewer = viewer
        self.results = results

    def step(self, state: GameState, index: int, decision: int, move: tuple[int, Action] | None,
             ended: HandResult | None, mucks: tuple[MuckView, ...] = ()) -> Step:
        """The table after ``index`` moves (``move`` the last of them, ``ended`` the hand it scored)."""
        seen = observe(state, self.viewer)
        tricks = tuple(_trick(t) for t in seen.tricks)
        captured = {play.card for trick in tricks for play in trick.plays}
        result = self.results.get(seen.hand_number)
        awards = result.awards if result is not None else ()
        return Step(
            index=index, hand_number=seen.hand_number, decision=decision, phase=str(seen.phase),
            action=None if move is None else (move[0], self._action_text(*move)),
            seats=tuple(self._seat(seen, seat) for seat in range(seen.players)),
            trick=tuple(Play(seat, card.name) for seat, card in seen.current_trick),
            last_trick=tricks[-1] if tricks and not seen.current_trick else None,
            trump=_suit(seen.trump), sub_trump=_suit(seen.sub_trump), contract=seen.bid, doubled=seen.doubled,
            called=None if seen.called_card is None else seen.called_card.name,
            points=self._points(a for a in awards if self._fallen(a, captured)),
            tricks_won=tuple(sum(1 for t in tricks if t.winner % seen.parties == p) for p in range(seen.parties)),
            scores=seen.scores, ended=None if ended is None else self._hand_end(ended, state.history),
            winner=state.winner, over=seen.phase is Phase.GAME_OVER,
            win_reason=None if state.win_reason is None else state.win_reason.value.replace("-", " "),
            mucks=mucks)

    def _seat(self, seen: Observation, seat: int) -> SeatView:
        if seen.hands is not None:
            cards: tuple[Card, ...] = seen.hands[seat]
        else:
            cards = seen.hand if seat == seen.viewer else ()
        bids = [(amount, double) for (bidder, amount), double in
                zip(seen.bids, seen.bid_doubles or [False] * len(seen.bids), strict=False) if bidder == seat]
        return SeatView(
            seat=seat, name=self.names[seat], party=seat % seen.parties, cards=tuple(c.name for c in cards),
            backs=seen.hand_sizes[seat] - len(cards), bid=_bid_text(*bids[-1]) if bids else None,
            burned=tuple(c.name for s, burned in seen.burned if s == seat for c in burned),
            dealer=seat == seen.dealer, to_move=seat == seen.to_move, pitcher=seat == seen.pitcher)

    def _action_text(self, seat: int, action: Action) -> str:
        """What a seat did, as the viewer may know it: another seat's chosen cards (an
        exchange, a discard) are counted, not named; burned cards show on the table."""
        if isinstance(action, ChooseCards) and self.viewer not in (FULL_VIEW, seat):
            return f"chooses {len(action.cards)} card{'' if len(action.cards) == 1 else 's'}"
        return str(action)

    def _fallen(self, award: PointAward, captured: set[str]) -> bool:
        """Whether the viewer sees ``award`` before the hand is scored (see the module's docstring)."""
        if award.card is None or award.card.name not in captured:
            return False
        return self.viewer == FULL_VIEW or award.category not in _RELATIVE

    def _points(self, awards: Iterable[PointAward]) -> tuple[PointLine, ...]:
        """One line per category of the ruleset's scoring, in its counting order."""
        fallen = list(awards)
        lines = []
        for category in dict.fromkeys(rule.category for rule in self.rules.scoring.points):
            shown = tuple(Award(a.party, a.value, None if a.card is None else a.card.name)
                          for a in fallen if a.category is category)
            lines.append(PointLine(category.value.replace("-", " ").capitalize(), shown))
        return tuple(lines)

    def _hand_end(self, result: HandResult, history: Sequence[Event]) -> HandEnd:
        last = _final_trick(history)
        return HandEnd(result.hand_number, None if last is None else _trick(last), self._points(result.awards),
                       result.pips, result.score_changes, result.scores, result.made)


def _trick(trick: EngineTrick) -> TrickView:
    return TrickView(tuple(Play(seat, CARDS[card].name) for seat, card in trick.plays), trick.winner)


def _final_trick(history: Sequence[Event]) -> EngineTrick | None:
    """The last trick of the hand scored most recently (the next hand is already dealt)."""
    scored = False
    for event in reversed(history):
        if isinstance(event, HandScored):
            scored = True
        elif scored and isinstance(event, EngineTrick):
            return event
        elif scored and isinstance(event, Dealt):
            return None
    return None


def _suit(suit: Suit | None) -> str | None:
    return None if suit is None else suit.letter


def _bid_text(amount: int | None, double: bool) -> str:
    if amount is None:
        return "pass"
    return f"{amount} for {2 * amount}" if double else str(amount)
