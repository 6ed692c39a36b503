"""The PIMC bot: legal everywhere, seeded, within its budget, and its guesses
of the hidden hands never contradict what its seat has seen."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from pitch_sdk.bots import HeuristicBot, load_bot
from pitch_sdk.bots import pimc as pimc_module
from pitch_sdk.bots.cardsense import rules_sense
from pitch_sdk.bots.pimc import PimcBot, knowledge, sample_hands
from pitch_sdk.cli import app
from pitch_sdk.harness.local import play_game
from pitch_sdk.remote.client import capped_budget
from pitch_sdk.rules import PRESETS, GameState, Observation, Phase, observe, preset
from pitch_sdk.rules.cards import mask_of
from pitch_sdk.rules.determinize import determinize
from pitch_sdk.rules.ruleset import AllPass


def tiny(seat: int) -> PimcBot:
    """A PIMC bot that stops after two guesses: fast, and deterministic from its seed."""
    return PimcBot(budget_ms=60_000, max_samples=2)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_pimc_plays_every_preset_legally_to_the_end(name: str):
    """The local harness stops on any illegal answer; pimc in every seat (one guess per
    decision), a two-hand game (four deals where a passed-out deal is dealt again, as in
    two-trump, so that a hand is played and scored)."""
    redeals = preset(name).bidding.all_pass is not AllPass.FORCE_DEALER
    rules = preset(name, max_hands=4 if redeals else 2)
    state = play_game(rules, [PimcBot(budget_ms=60_000, max_samples=1) for _ in range(rules.players)], seed=5)
    assert state.is_over and state.results, name


def test_pimc_searches_rather_than_falling_back():
    """Every card decision with a choice is decided by guesses that the engine accepted."""
    rules = preset("partnership", max_hands=2)
    bot = PimcBot(budget_ms=60_000, max_samples=4)
    searched: list[int] = []
    search = bot.search

    def counting(observation: Observation, actions: list) -> list[list[float]]:  # type: ignore[type-arg]
        guesses = search(observation, actions)
        searched.append(len(guesses))
        return guesses

    bot.search = counting  # type: ignore[method-assign]
    play_game(rules, [bot, HeuristicBot(), HeuristicBot(), HeuristicBot()], seed=2)
    assert searched and all(samples == 4 for samples in searched), searched


def test_pimc_is_deterministic_from_its_seed():
    rules = preset("partnership", max_hands=2)
    games = [play_game(rules, [tiny(seat) for seat in range(4)], seed=9) for _ in range(2)]
    assert games[0].moves == games[1].moves
    other = play_game(rules, [tiny(seat) for seat in range(4)], seed=9, bot_seed=10)
    assert other.moves != games[0].moves  # the bots' luck does matter: the test could fail


class FakeClock:
    """A clock that moves ``step`` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def perf_counter(self) -> float:
        self.now += self.step
        return self.now


def test_pimc_stops_searching_at_its_time_budget(monkeypatch: pytest.MonkeyPatch):
    """With a clock that moves 10 ms per reading and a 50 ms budget, the search stops
    after at most five guesses, however many it is allowed."""
    monkeypatch.setattr(pimc_module, "time", FakeClock(0.010))
    rules = preset("partnership")
    observation = next(obs for obs, _ in play_decisions("partnership", seed=3) if len(obs.legal_actions) > 1)
    bot = PimcBot(budget_ms=50, max_samples=10_000)
    bot.start_game(rules, observation.viewer, random.Random(1))
    assert bot.play(observation, observation.legal_actions) in observation.legal_actions
    assert 1 <= bot.last_samples <= 5


def play_decisions(name: str, seed: int) -> Iterator[tuple[Observation, GameState]]:
    """Each trick-play decision of a heuristic game: the mover's observation and the state."""
    rules = preset(name, max_hands=4)
    bots = [HeuristicBot() for _ in range(rules.players)]
    for seat, bot in enumerate(bots):
        bot.start_game(rules, seat, random.Random(seat))
    state = GameState.new(rules, seed=seed)
    while not state.is_over:
        observation = observe(state, state.to_move)
        if state.phase is Phase.PLAY:
            yield observation, state
        state.apply(bots[state.to_move].act(observation, observation.legal_actions))


def revoked(observation: Observation, name: str) -> dict[int, int]:
    """Seat -> cards of the suits it failed to follow with a non-trump (seed 001: a
    player must follow suit or trump, and may discard anything only when void)."""
    table = rules_sense(preset(name)).of(observation).table
    out: dict[int, int] = {}
    for plays in [t.plays for t in observation.tricks] + [observation.current_trick]:
        for seat, card in plays[1:]:
            led = table.effective_suit[plays[0][1]]
            if table.effective_suit[card] != led and not table.trump_mask >> card & 1:
                out[seat] = out.get(seat, 0) | table.suit_masks[led]
    return out


@pytest.mark.parametrize("name", ["partnership", "cutthroat", "ten-point", "roadhouse", "auction", "five-handed",
                                  "two-trump"])
def test_pimc_guesses_are_consistent_with_what_the_seat_has_seen(name: str):
    """Own hand exact, no card played, burned or discarded, each seat's hand size, no card
    of a suit the seat failed to follow; the real deal is always among the possible
    guesses; and the engine replays the hand's tricks on the guess."""
    rules = preset(name)
    rng = random.Random(1)
    checked = 0
    for observation, state in play_decisions(name, seed=4):
        if observation.trump is None:
            continue
        known = knowledge(rules, observation)
        gone = mask_of([c for t in observation.tricks for _, c in t.plays] + [c for _, c in observation.current_trick]
                       + [c for _, cards in observation.burned for c in cards] + list(observation.my_discards))
        for seat in range(rules.players):  # the truth is a possible guess
            if seat != observation.viewer:
                assert state.hands[seat] & ~known.pool == 0
                assert state.hands[seat] & known.barred[seat] == 0
        voids = revoked(observation, name) if name in ("partnership", "cutthroat", "ten-point") else {}
        for _ in range(5):
            hands = sample_hands(known, rng)
            assert hands is not None
            assert hands[observation.viewer] == mask_of(observation.hand)
            assert [h.bit_count() for h in hands] == list(observation.hand_sizes)
            if rules.play.trumps_only:  # seed 003: "Only those cards belonging to the trump suit are allowed"
                trumps = rules_sense(rules).of(observation).table.trump_mask
                assert all(hand & ~trumps == 0 for hand in hands)
            everything = 0
            for seat, hand in enumerate(hands):
                assert hand & gone == 0
                assert hand & voids.get(seat, 0) == 0
                assert everything & hand == 0  # no card twice
                everything |= hand
            if name in ("partnership", "cutthroat", "ten-point", "roadhouse", "auction"):  # the engine replays it
                assert determinize(rules, observation, hands).to_move == observation.viewer
            checked += 1
    assert checked > 50
    assert any(revoked(obs, "partnership") for obs, _ in play_decisions("partnership", seed=4)
               if obs.trump is not None)  # voids were shown, so the void checks could fail


def test_budget_flag_reaches_the_bot_from_the_loader_and_the_cli():
    assert load_bot("pimc", 35).budget_ms == 35
    assert load_bot("pimc").budget_ms == pimc_module.DEFAULT_BUDGET_MS
    assert load_bot("heuristic", 35).budget_ms == 35  # harmless: a bot that does not search ignores it
    result = CliRunner(env={"COLUMNS": "120"}).invoke(
        app, ["play", "pimc", "heuristic", "pimc", "heuristic", "--games", "1", "-o", "max_hands=1",
              "--budget-ms", "1"])
    assert result.exit_code == 0, result.output
    assert "pimc + pimc" in result.output
    bad = CliRunner().invoke(app, ["play", "pimc", "heuristic", "pimc", "heuristic", "--budget-ms", "0"])
    assert bad.exit_code == 2


def test_the_referee_runner_caps_the_budget_at_half_the_decisions_time():
    assert capped_budget(60_000, 2000) == 1000
    assert capped_budget(200, 2000) == 200
    assert capped_budget(200, 0) == 200  # the referee did not say
    assert capped_budget(None, 2000) is None  # a bot that does not search
