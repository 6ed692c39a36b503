"""The PIMC bot: perfect-information Monte Carlo search on top of the heuristic bot.

At each bid, trump and card decision the bot guesses the hidden cards many times over,
each guess consistent with everything its seat has seen, and plays every legal answer
out on each guess (:mod:`~pitch_sdk.bots.rollout`).  It answers what did best on
average.  The method of choice for trick-taking games (bridge, skat); here in about a
hundred lines, as an example of a search bot on the SDK:

1. :func:`knowledge` - in trick play, what the seat knows: the cards it cannot see (the
   *pool*: other hands, or never dealt, discarded or lost unseen), how many cards each
   seat holds, and the suits a seat has shown it lacks by failing to follow.
2. :func:`sample_hands` - one guess: each other seat's hand drawn from the pool, never a
   card it has shown it cannot hold; the seat's own hand exact.  In the auction a guess
   is a whole deal (:func:`random_deal`): the seat's hand, the rest shuffled.
3. :func:`~pitch_sdk.rules.determinize.determinize` (trick play) and
   :func:`~pitch_sdk.rules.determinize.determinize_auction` (bids, trump) - the engine
   builds the state of the guess and replays the hand so far on it; it refuses a guess
   that contradicts what was played.
4. :func:`value` - one answer played out on one guess: the hand's score change for the
   seat's party against the others' average, plus the game itself when the hand ends
   it (a win is worth the target score).  The rest of the auction, trump, exchanges and
   the pitch are played by heuristic stand-ins, the cards by a greedy policy.

Every answer is played out on the same guesses (their differences then come from the
answer, not from the luck of the guess).  The search stops at ``budget_ms`` of wall time
(checked before each playout; a guess cut short is dropped) or ``max_samples`` guesses,
whichever comes first: with only a sample limit the bot is deterministic from its seed;
with a time limit it plays as many guesses as the machine allows.  Partner calls,
exchanges, burns and yes/no questions are the heuristic bot's (card sets have too many
answers to play each out), and so is trump named after a widow or lost cards, and a bid
made blind or after a coke, which the auction replay cannot rebuild.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pitch_sdk.bots.cardsense import rules_sense
from pitch_sdk.bots.heuristic import HeuristicBot
from pitch_sdk.bots.rollout import finish_hand
from pitch_sdk.rules import Action, Bid, Deal, GameState, HandResult, Observation, Phase, Ruleset
from pitch_sdk.rules.cards import CARDS, mask_of
from pitch_sdk.rules.determinize import determinize, determinize_auction
from pitch_sdk.rules.ruleset import Follow, JokerRank
from pitch_sdk.rules.tables import deck_cards

#: Default wall time per decision: a tenth of the referee's default 2 s per decision.
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
    discarded by itself, and the voids the tricks reveal; where only trumps are played,
    that the others hold nothing else."""
    played = [card for trick in obs.tricks for _, card in trick.plays] + [c for _, c in obs.current_trick]
    seen = mask_of([*obs.hand, *played, *obs.my_discards,
                    *(c for _, cards in obs.burned for c in cards), *(c for _, cards in obs.cokes for c in cards)])
    barred = [0] * obs.players
    deck = mask_of(deck_cards(rules.deck))
    if obs.trump is not None and rules.play.trumps_only:  # seed 003: non-trumps left every hand before play
        deck &= rules_sense(rules).of(obs).table.trump_mask
    if obs.trump is not None and not _odd_following(rules):
        table = rules_sense(rules).of(obs).table
        must_follow = rules.play.follow is Follow.MUST_FOLLOW
        revokes = rules.play.revoke_penalty
        tricks = [trick.plays for trick in obs.tricks] + [obs.current_trick]
        for plays in tricks:
            if not plays:
                continue
            lead_suit = table.effective_suit[plays[0][1]]
            for seat, card in plays[1:]:
                if table.effective_suit[card] == lead_suit:
                    continue
                # Off the suit led: a trump shows a void only where trumping in needs one, a
                # plain card only where it cannot be a (penalised) revoke.
                shows_void = must_follow if table.trump_mask >> card & 1 else not revokes
                if shows_void:  # could not follow: holds none of the suit
                    barred[seat] |= table.suit_masks[lead_suit]
    return Knowledge(obs.viewer, mask_of(obs.hand), deck & ~seen, obs.hand_sizes, tuple(barred))


def _odd_following(rules: Ruleset) -> bool:
    """Following rules where failing to follow proves nothing simple (two-trump pitch's
    sub-trump and suitless jokers): the replay alone checks those guesses."""
    return rules.trump.sub_trump or (rules.deck.jokers > 0 and rules.deck.joker_rank is JokerRank.UNRANKED)


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


def value(result: HandResult | None, party: int, target: int) -> float:
    """What a played-out hand is worth to ``party``: its score change minus the others'
    average, plus ``target`` if the hand ends the game in its favour (minus it if not); 0
    for a deal thrown in."""
    if result is None:
        return 0.0
    changes = result.score_changes
    worth = changes[party] - (sum(changes) - changes[party]) / (len(changes) - 1)
    if result.game_over and result.winner is not None:
        worth += target * (1 if result.winner == party else -1)
    return worth


def random_deal(rules: Ruleset, observation: Observation, rng: random.Random) -> Deal:
    """A deal that gives the viewer its hand and everyone else, and the stock, a shuffle of
    the rest (nothing else is known before the first lead, bids aside)."""
    own = set(observation.hand)
    rest = [card for card in deck_cards(rules.deck) if card not in own]
    rng.shuffle(rest)
    size = rules.deal.hand_size
    hands = []
    for seat in range(rules.players):
        if seat == observation.viewer:
            hands.append(tuple(observation.hand))
        else:
            hands.append(tuple(CARDS[card] for card in rest[:size]))
            del rest[:size]
    return Deal(tuple(hands), tuple(CARDS[card] for card in rest))


class PimcBot(HeuristicBot):
    """Bids, names trump and plays its cards by perfect-information Monte Carlo; decides
    the rest (calls, exchanges, burns, yes/no questions) like :class:`HeuristicBot`."""

    name = "pimc"

    def __init__(self, budget_ms: float = DEFAULT_BUDGET_MS, max_samples: int = DEFAULT_MAX_SAMPLES) -> None:
        super().__init__()
        self.budget_ms = budget_ms
        self.max_samples = max_samples
        self.last_samples = 0
        """Guesses the last search played out (for tests and benchmarks)."""
        self.stand_ins: list[HeuristicBot] = []

    def start_game(self, ruleset: Ruleset, seat: int, rng: random.Random) -> None:
        """Also seats a heuristic stand-in for every player, who makes the rollouts'
        decisions before the first lead."""
        super().start_game(ruleset, seat, rng)
        self.stand_ins = [HeuristicBot() for _ in range(ruleset.players)]
        for other, stand_in in enumerate(self.stand_ins):
            stand_in.start_game(ruleset, other, random.Random(other))

    def bid(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """The bid (or pass) whose hands play out clearly better than the heuristic's bid
        (:meth:`best`).  Shooting the moon above the numbered bids stays the heuristic's
        call: it needs every point, and the rollouts' greedy defence lets it through too
        often."""
        heuristic = super().bid(observation, legal_actions)
        top = self.sense.ruleset.bidding.maximum_bid
        numbered = [a for a in legal_actions if not (isinstance(a, Bid) and a.amount > top)]
        if heuristic not in numbered:
            return heuristic
        return self.best(observation, numbered, heuristic) or heuristic

    def declare_trump(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """The trump whose hands play out clearly better than the heuristic's suit."""
        heuristic = super().declare_trump(observation, legal_actions)
        return self.best(observation, legal_actions, heuristic) or heuristic

    def play(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """The card whose hands play out best."""
        return self.best(observation, legal_actions) or super().play(observation, legal_actions)

    def best(self, observation: Observation, actions: Sequence[Action],
             default: Action | None = None) -> Action | None:
        """The action whose playouts score best on average (``None`` if no guess could be
        rebuilt).  Given a ``default`` (the heuristic's answer), the best replaces it only
        when it beats it by more than two standard errors of their paired difference: a
        whole hand played out varies by several points, so a bid or trump chosen on a few
        guesses would otherwise follow the luck of the guesses."""
        self.last_samples = 0
        if len(actions) == 1:
            return actions[0]
        guesses = self.search(observation, actions)
        if not guesses:
            return default
        means = [statistics.fmean(outcomes[i] for outcomes in guesses) for i in range(len(actions))]
        top = max(range(len(actions)), key=means.__getitem__)
        if default is None or default not in actions:
            return actions[top]
        gains = [outcomes[top] - outcomes[actions.index(default)] for outcomes in guesses]
        clear = len(gains) > 1 and statistics.fmean(gains) > 2 * statistics.stdev(gains) / len(gains) ** 0.5
        return actions[top] if clear else default

    def search(self, observation: Observation, actions: Sequence[Action]) -> list[list[float]]:
        """Per guess the budget allows, each action's outcome (``last_samples`` guesses)."""
        guess = self.guesser(observation)
        party, target = observation.viewer % observation.parties, self.sense.ruleset.win.target
        deadline = time.perf_counter() + (self.budget_ms or DEFAULT_BUDGET_MS) / 1000
        guesses: list[list[float]] = []
        tries = 0
        while len(guesses) < self.max_samples and tries < 4 * self.max_samples and time.perf_counter() < deadline:
            tries += 1
            try:
                state = guess()
            except ValueError:  # the guess contradicts what was seen: draw another
                continue
            outcomes: list[float] = []
            for action in actions:
                if guesses and time.perf_counter() > deadline:
                    break  # out of time within a guess: drop it rather than overrun
                branch = state.clone()
                branch.apply(action)
                outcomes.append(value(finish_hand(branch, self.stand_ins, self.sense), party, target))
            else:
                guesses.append(outcomes)
        self.last_samples = len(guesses)
        return guesses

    def guesser(self, observation: Observation) -> Callable[[], GameState]:
        """A function that draws one guess of the state, consistent with ``observation``
        (or raises ``ValueError``)."""
        rules = self.sense.ruleset
        if observation.phase is not Phase.PLAY:
            return lambda: determinize_auction(rules, observation, random_deal(rules, observation, self.rng))
        known = knowledge(rules, observation)

        def guess() -> GameState:
            hands = sample_hands(known, self.rng)
            if hands is None:
                raise ValueError("the voids left no room")
            return determinize(rules, observation, hands)
        return guess
