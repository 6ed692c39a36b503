"""The local match harness: bots play the real engine in-process, no referee needed.

It is what bot authors use to test a bot and compare it with others, so it is strict the
same way the referee is: every decision is checked against the legal actions, and a bot
that raises or answers illegally stops the game with an error naming the bot, its seat,
the action and what was legal.  Everything is seeded: the deals from the game seed, each
bot's ``rng`` from the seed and its seat, so a match replays exactly.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pitch_sdk.bot import Bot
from pitch_sdk.clock import Clock
from pitch_sdk.harness.stats import wilson_interval
from pitch_sdk.rules import Action, GameState, HandResult, Ruleset
from pitch_sdk.rules.cards import cards_of
from pitch_sdk.rules.cardsets import CardSetChoices
from pitch_sdk.rules.events import Event, MuckShown
from pitch_sdk.rules.lazy_observation import observe_lazily
from pitch_sdk.rules.ruleset import Muck


class BotError(RuntimeError):
    """A bot raised, or answered with an action that was not legal."""

    def __init__(self, message: str, bot: str, seat: int, action: Any = None,
                 legal: Sequence[Action] = ()) -> None:
        super().__init__(message)
        self.bot = bot
        self.seat = seat
        self.action = action
        self.legal = tuple(legal)


def play_game(ruleset: Ruleset, bots: Sequence[Bot], seed: int, dealer: int = 0,
              bot_seed: int | None = None) -> GameState:
    """Play one game, ``bots[seat]`` at each seat, and return the finished state.

    The deals come from ``seed``; each bot's ``rng`` from ``bot_seed`` (default: ``seed``)
    and its seat, so that a match can replay one deal with fresh bot luck.
    """
    _check_seats(ruleset, bots)
    bot_seed = seed if bot_seed is None else bot_seed
    for seat, bot in enumerate(bots):
        _call(bot, seat, "start_game", bot.start_game, ruleset, seat,
              random.Random(f"{bot_seed}:seat:{seat}"))
    state = GameState.new(ruleset, seed=seed, dealer=dealer)
    mucks = ruleset.deal.muck is not Muck.NONE
    while not state.is_over:
        seat = state.to_move
        bot = bots[seat]
        legal = state.listed_actions() or _card_set_choices(state)  # () for a card set too large to list
        observation = observe_lazily(state, seat, legal)  # each field worked out if the bot reads it
        bot.clock = Clock()  # local games keep no time: every decision sees the referee's defaults
        action = _call(bot, seat, "act", bot.act, observation, legal)
        if action not in legal:
            shown = str(action) if isinstance(action, Action) else repr(action)
            raise BotError(
                f"bot {bot.name!r} at seat {seat} chose {shown}, which is not legal in "
                f"{state.phase} (hand {state.hand_number}); legal: {', '.join(map(str, legal))}",
                bot.name, seat, action, legal)
        hands_before, logged = len(state.results), len(state.history)
        state.apply(action)
        if len(state.results) > hands_before:
            result = state.results[-1]
            for other_seat, other in enumerate(bots):
                _call(other, other_seat, "on_hand_result", other.on_hand_result, result)
        if mucks:
            _show_mucks(bots, state.history[logged:])
    if state.results:  # a game capped before any hand was scored (every deal passed out) has no last result
        for seat, bot in enumerate(bots):
            _call(bot, seat, "on_game_end", bot.on_game_end, state.results[-1])
    return state


def _show_mucks(bots: Sequence[Bot], events: Sequence[Event]) -> None:
    """Tell every bot of each mucked hand the move showed the table."""
    for event in events:
        if isinstance(event, MuckShown):
            for seat, bot in enumerate(bots):
                _call(bot, seat, "on_muck_shown", bot.on_muck_shown, event.seat, cards_of(event.cards), event.redeal)


@dataclass(frozen=True)
class Standing:
    """How one bot, or one side (a team of bots), did over a match."""

    label: str
    members: tuple[int, ...]
    """Positions in the match's bot list (a bot's position is its seat in game 0)."""
    party: int
    """The side: positions ``i`` with ``i % parties == party`` are always partners."""
    games: int
    wins: int
    hands: int
    points: int
    """Net score changes of the side over all hands (set-backs subtract)."""
    bids_made: int
    bids_set: int

    @property
    def win_rate(self) -> float:
        """Wins per game."""
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """95% Wilson interval of the win rate."""
        return wilson_interval(self.wins, self.games)

    @property
    def points_per_hand(self) -> float:
        """Average net points per hand."""
        return self.points / self.hands if self.hands else 0.0


@dataclass(frozen=True)
class MatchResult:
    """A match's results table: one row per bot and one per side."""

    ruleset: str
    games: int
    seed: int
    bots: tuple[Standing, ...]
    sides: tuple[Standing, ...]
    draws: int
    """Games that ended without a winner (a tie at the hand limit)."""
    hands: int


def play_match(ruleset: Ruleset, bots: Sequence[Bot], games: int, seed: int,
               progress: Callable[[int], None] | None = None) -> MatchResult:
    """Play ``games`` games and tabulate them.

    Seats rotate by one each game (partners stay partners), and each block of as many
    consecutive games as there are sides replays one deal seed, so every side holds
    every party's cards in turn: the luck of the deal and of the seat cancels out.
    ``progress`` is called with the number of games finished after each one.
    """
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    _check_seats(ruleset, bots)
    n, parties = ruleset.players, ruleset.parties
    wins = [0] * parties
    points = [0] * parties
    made = [0] * n
    set_ = [0] * n
    draws = hands = 0
    for game in range(games):
        shift = game % n
        seating = [bots[(seat - shift) % n] for seat in range(n)]
        state = play_game(ruleset, seating, _derive(seed, "deals", game // parties),
                          bot_seed=_derive(seed, "bots", game))
        if state.winner is None:
            draws += 1
        else:
            wins[(state.winner - shift) % parties] += 1
        for result in state.results:
            hands += 1
            for party, change in enumerate(result.score_changes):
                points[(party - shift) % parties] += change
            _count_bid(result, shift, n, made, set_)
        if progress is not None:
            progress(game + 1)

    def standing(label: str, members: tuple[int, ...]) -> Standing:
        party = members[0] % parties
        return Standing(label, members, party, games, wins[party], hands, points[party],
                        sum(made[m] for m in members), sum(set_[m] for m in members))

    rows = tuple(standing(f"{bot.name} (seat {i})", (i,)) for i, bot in enumerate(bots))
    sides = rows if parties == n else tuple(
        standing(" + ".join(bots[i].name for i in range(p, n, parties)), tuple(range(p, n, parties)))
        for p in range(parties))
    return MatchResult(ruleset.name, games, seed, rows, sides, draws, hands)


def _count_bid(result: HandResult, shift: int, players: int, made: list[int], set_: list[int]) -> None:
    if result.bid is None or result.pitcher is None or result.made is None:
        return
    position = (result.pitcher - shift) % players
    (made if result.made else set_)[position] += 1


def _derive(seed: int, purpose: str, index: int) -> int:
    """A seed for one game's deals or bots, spread out so nearby match seeds never share."""
    return random.Random(f"{seed}:{purpose}:{index}").getrandbits(48)


def _check_seats(ruleset: Ruleset, bots: Sequence[Bot]) -> None:
    if len(bots) != ruleset.players:
        raise ValueError(f"{ruleset.name} needs {ruleset.players} bots, got {len(bots)}")
    if len({id(bot) for bot in bots}) != len(bots):
        raise ValueError("the same bot object sits at two seats: give each seat its own bot")


def _call(bot: Bot, seat: int, method: str, function: Callable[..., Any], *args: Any) -> Any:
    """Call into a bot, turning its exceptions into a :class:`BotError` that names it."""
    try:
        return function(*args)
    except Exception as exc:
        raise BotError(f"bot {bot.name!r} at seat {seat} raised in {method}(): "
                       f"{type(exc).__name__}: {exc}", bot.name, seat) from exc


def _card_set_choices(state: GameState) -> Sequence[Action]:
    """A card-set decision too large to list (``GameState.listed_actions``), offered as a
    lazy sequence, as the SDK's remote runner does."""
    card_set = state.decision().card_set
    assert card_set is not None, "only card-set decisions go unlisted"
    return CardSetChoices(card_set)
