"""The PIMC bot: perfect-information Monte Carlo card play on top of the heuristic bot.

At each card it plays, the bot guesses the hidden hands many times over, each guess
consistent with everything its seat has seen, and plays every legal card out on each
guess with the engine's fast random rollout (:meth:`GameState.playout`).  It plays the
card whose outcomes are best on average.  The method of choice for trick-taking games
(bridge, skat); here in a few dozen lines, as an example of a search bot on the SDK:

1. :func:`knowledge` - what the seat knows: the cards it cannot see (the *pool*: other
   hands, or never dealt, discarded or lost unseen), how many cards each seat holds, and
   the suits a seat has shown it lacks by failing to follow.
2. :func:`sample_hands` - one guess: each other seat's hand drawn from the pool, never a
   card it has shown it cannot hold; the seat's own hand exact.
3. :func:`~pitch_sdk.rules.determinize.determinize` - the engine builds the state of the
   guess and replays the hand's tricks on it; a guess the tricks contradict is rejected.
4. :func:`outcome` - a guess played out after one candidate card: the hand's score change
   for the seat's party against the others' average, plus the game itself when the hand
   ends it (a win is worth the target score).

Every candidate is played out on the same guesses (their differences then come from the
card, not from the luck of the guess).  The search stops at ``budget_ms`` of wall time or
``max_samples`` guesses, whichever comes first: with only a sample limit the bot is
deterministic from its seed; with a time limit it plays as many guesses as the machine
allows.  Bidding, trump, calls, exchanges and burns are the heuristic bot's: before the
first lead the hidden cards depend on exchanges and draws the seat did not see.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from pitch_sdk.bots.cardsense import RulesSense, rules_sense
from pitch_sdk.bots.heuristic import HeuristicBot
from pitch_sdk.bots.rollout import play_hand_out
from pitch_sdk.rules import Action, GameState, Observation, PlayCard, Ruleset
from pitch_sdk.rules.cards import mask_of
from pitch_sdk.rules.determinize import determinize
from pitch_sdk.rules.ruleset import Follow, JokerRank
from pitch_sdk.rules.tables import deck_cards

#: Default wall time per card decision: a tenth of the referee's default 2 s per decision.
DEFAULT_BUDGET_MS = 200.0
#: Guesses at most per decision (the search also stops at the time budget).
DEFAULT_MAX_SAMPLES = 10_000
#: Tries to draw one guess that the seen voids allow before giving up on it.
DRAW_TRIES = 20


@dataclass(frozen=True)
class Knowledge:
    """What one seat knows about the hidden cards at a trick-play decision."""

    viewer: int
    hand: int
    """The seat's own cards (bit mask)."""
    pool: int
    """Cards the seat cannot see: in other hands, or out of play unseen (bit mask)."""
    sizes: tuple[int, ...]
    """How many cards each seat holds now."""
    barred: tuple[int, ...]
    """Per seat, the cards it has shown it does not hold (failed to follow their suit)."""


def knowledge(rules: Ruleset, obs: Observation) -> Knowledge:
    """What ``obs``'s seat has seen: its hand, the cards played, burned, shown by a coke or
    discarded by itself, and the voids the tricks reveal."""
    played = [card for trick in obs.tricks for _, card in trick.plays] + [c for _, c in obs.current_trick]
    seen = mask_of([*obs.hand, *played, *obs.my_discards,
                    *(c for _, cards in obs.burned for c in cards), *(c for _, cards in obs.cokes for c in cards)])
    barred = [0] * obs.players
    if obs.trump is not None and not _odd_following(rules):
        table = rules_sense(rules).of(obs).table
        tricks = [trick.plays for trick in obs.tricks] + [obs.current_trick]
        for plays in tricks:
            if not plays:
                continue
            lead_suit = table.effective_suit[plays[0][1]]
            for seat, card in plays[1:]:
                suit = table.effective_suit[card]
                trumped = table.trump_mask >> card & 1 and rules.play.follow is not Follow.MUST_FOLLOW
                if suit != lead_suit and not trumped:  # could not follow: holds none of the suit
                    barred[seat] |= table.suit_masks[lead_suit]
    deck = mask_of(deck_cards(rules.deck))
    return Knowledge(obs.viewer, mask_of(obs.hand), deck & ~seen, obs.hand_sizes, tuple(barred))


def _odd_following(rules: Ruleset) -> bool:
    """Following rules where failing to follow proves nothing simple (two-trump pitch's
    suitless jokers, the revoke option): the replay alone checks those guesses."""
    return rules.play.revoke_penalty or rules.trump.sub_trump or (
        rules.deck.jokers > 0 and rules.deck.joker_rank is JokerRank.UNRANKED)


def sample_hands(known: Knowledge, rng: random.Random) -> list[int] | None:
    """One guess of every seat's hand (bit masks), or ``None`` if the draws kept running
    into the voids.  Most constrained seats draw first, each uniformly from what is left."""
    seats = sorted((s for s in range(len(known.sizes)) if s != known.viewer),
                   key=lambda s: -known.barred[s].bit_count())
    for _ in range(DRAW_TRIES):
        hands = [0] * len(known.sizes)
        hands[known.viewer] = known.hand
        left = known.pool
        for seat in seats:
            allowed = [c for c in range(left.bit_length()) if (left & ~known.barred[seat]) >> c & 1]
            if len(allowed) < known.sizes[seat]:
                break
            hands[seat] = mask_of(rng.sample(allowed, known.sizes[seat]))
            left &= ~hands[seat]
        else:
            return hands
    return None


def outcome(state: GameState, party: int, rules: RulesSense) -> float:
    """Play the hand out (:mod:`~pitch_sdk.bots.rollout`); the score change of ``party``
    minus the others' average, plus the target score if the hand ends the game (minus it
    if lost)."""
    play_hand_out(state, rules)
    result = state.results[-1]
    changes = result.score_changes
    value = changes[party] - (sum(changes) - changes[party]) / (len(changes) - 1)
    if result.game_over and result.winner is not None:
        value += state.rules.win.target * (1 if result.winner == party else -1)
    return value


class PimcBot(HeuristicBot):
    """Plays its cards by perfect-information Monte Carlo; decides the rest like
    :class:`HeuristicBot`."""

    name = "pimc"

    def __init__(self, budget_ms: float = DEFAULT_BUDGET_MS, max_samples: int = DEFAULT_MAX_SAMPLES) -> None:
        super().__init__()
        self.budget_ms = budget_ms
        self.max_samples = max_samples
        self.last_samples = 0
        """Guesses the last search played out (for tests and benchmarks)."""

    def play(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """The card whose playouts score best on average over the sampled guesses."""
        if len(legal_actions) == 1:
            self.last_samples = 0
            return legal_actions[0]
        cards = [a for a in legal_actions if isinstance(a, PlayCard)]
        totals = self.search(observation, cards)
        if self.last_samples == 0:  # no guess survived: the heuristic's card
            return super().play(observation, legal_actions)
        return cards[max(range(len(cards)), key=lambda i: totals[i])]

    def search(self, observation: Observation, cards: Sequence[PlayCard]) -> list[float]:
        """Each card's total outcome over the guesses the budget allows (``last_samples``)."""
        rules = self.sense.ruleset
        known = knowledge(rules, observation)
        party = observation.viewer % observation.parties
        deadline = time.perf_counter() + (self.budget_ms or DEFAULT_BUDGET_MS) / 1000
        totals = [0.0] * len(cards)
        samples = tries = 0
        while samples < self.max_samples and tries < 4 * self.max_samples and time.perf_counter() < deadline:
            tries += 1
            hands = sample_hands(known, self.rng)
            if hands is None:
                continue
            try:
                state = determinize(rules, observation, hands)
            except ValueError:  # the tricks contradict this guess: draw another
                continue
            samples += 1
            for i, card in enumerate(cards):
                branch = state.clone()
                branch.apply(card)
                totals[i] += outcome(branch, party, self.sense)
        self.last_samples = samples
        return totals
