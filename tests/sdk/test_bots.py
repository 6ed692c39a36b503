"""The Bot base class, the built-in bots and the bot loader, on real game positions."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest

from pitch_sdk.bot import Bot
from pitch_sdk.bots import BUILTIN_BOTS, BotLoadError, HeuristicBot, RandomBot, load_bot
from pitch_sdk.bots.cardsense import rules_sense
from pitch_sdk.bots.strength import best_suit
from pitch_sdk.local import play_game
from pitch_sdk.rules import PRESETS, Action, Bid, GameState, Observation, observe, parse_action, preset

from .positions import decide, position

# Partnership, dealer 0: seat 1 is eldest and bids first; seats 1 + 3 are partners.
FILLER = ["5H 6D 7C 9D 2H 3C", "AS KS 9H 5C 7D 8C", "QH 4D 6C 8H 2D JD", "10H KD 4C 3D 7H 9C"]
SEAT_1_PITCHES = ["bid 2", "pass", "pass", "pass"]


# --------------------------------------------------------------------------- the base class
class PlaysFirstCard(Bot):
    """Implements only ``play``: the default ``act`` must route play decisions to it."""

    def play(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        return legal_actions[0]


def test_act_dispatches_to_the_method_of_the_decision_kind():
    state = position("partnership", FILLER, SEAT_1_PITCHES)
    assert decide(PlaysFirstCard(), state) == str(state.legal_actions()[0])


def test_a_missing_decision_method_fails_naming_the_class_and_method():
    state = position("partnership", FILLER)  # bidding
    with pytest.raises(NotImplementedError, match=r"PlaysFirstCard was asked for a bid decision: implement bid\(\)"):
        decide(PlaysFirstCard(), state)


def test_start_game_gives_the_bot_its_ruleset_seat_and_rng():
    bot, rng = RandomBot(), random.Random(5)
    bot.start_game(preset("cutthroat"), 2, rng)
    assert (bot.ruleset.name, bot.seat, bot.rng) == ("cutthroat", 2, rng)


# --------------------------------------------------------------------------- random bot
def test_random_bot_is_uniform_over_legal_actions_and_seeded():
    state = position("partnership", FILLER)  # seat 1: pass, bid 2, 3, 4
    observation = observe(state, 1)
    picks = []
    for seed in range(400):
        bot = RandomBot()
        bot.start_game(state.rules, 1, random.Random(seed))
        picks.append(str(bot.act(observation, observation.legal_actions)))
    counts = Counter(picks)
    assert set(counts) == {"pass", "bid 2", "bid 3", "bid 4"} and min(counts.values()) > 60  # ~100 each
    again = RandomBot()
    again.start_game(state.rules, 1, random.Random(7))
    assert str(again.act(observation, observation.legal_actions)) == picks[7]


# --------------------------------------------------------------------------- heuristic: bids
def test_heuristic_bids_a_strong_hand_and_passes_a_weak_one():
    strong = position("partnership", ["5H 6D 7C 9D 2H 3C", "AS KS JS 2S 10H AD",
                                      "QH 4D 6C 8H 2D JD", "10C KD 4C 3D 7H 9C"])
    weak = position("partnership", ["5H 6D 7C 9D 2H 3C", "7H 5D 4C 9C 6H 8D",
                                    "QH 4D 6C 8H 2D JD", "10H KD 5C 3D 8S 9S"])
    assert decide(HeuristicBot(), strong) == "bid 3"  # estimate 3.8: never bids above it
    assert decide(HeuristicBot(), weak) == "pass"


def test_heuristic_dealer_forced_to_bid_takes_the_cheapest_contract():
    state = position("partnership", ["7H 5D 4C 9C 6H 8D", *FILLER[1:3], "10H KD 3C 3D 8S 9S"],
                     ["pass", "pass", "pass"])
    assert Bid(2) in state.legal_actions() and "pass" not in map(str, state.legal_actions())
    assert decide(HeuristicBot(), state) == "bid 2"


def test_heuristic_does_not_take_the_contract_from_its_partner():
    strong = "AS KS JS 2S 10H AD"
    others = ["5H 6D 7C 9D 2H 3C", "QH 4D 6C 8H 2D JD", "10C KD 4C 3D 7H 9C"]
    as_partner = position("partnership", [others[0], others[1], others[2], strong], ["bid 2", "pass"])
    as_opponent = position("partnership", [others[0], others[1], strong, others[2]], ["bid 2"])
    assert decide(HeuristicBot(), as_opponent) == "bid 3"
    assert decide(HeuristicBot(), as_partner) == "pass"


def test_heuristic_never_bids_above_its_estimate_unless_forced():
    rules = preset("partnership")
    checked = 0
    for seed in range(150):
        state = GameState.new(rules, seed=seed)
        bots = [HeuristicBot() for _ in range(4)]
        for seat, bot in enumerate(bots):
            bot.start_game(rules, seat, random.Random(seed))
        while state.phase == "bidding" and state.hand_number == 1:
            seat = state.to_move
            observation = observe(state, seat)
            action = bots[seat].act(observation, observation.legal_actions)
            forced = all(isinstance(a, Bid) for a in observation.legal_actions)
            if isinstance(action, Bid) and not forced:
                _, estimate = best_suit(rules_sense(rules), observation.hand)
                assert action.amount <= estimate, (seed, seat, observation.hand, action)
                checked += 1
            state.apply(action)
    assert checked > 20  # the property was exercised, not vacuously true


# --------------------------------------------------------------------------- heuristic: trump, exchange
def test_heuristic_names_its_best_suit_and_keeps_trumps_aces_and_tens():
    hands = ["QH 4D 6C 8H 2D JD", "AS KS 2S 10H 7D 4C", "5H 6D 7C 9D 2H 3C"]
    state = position("cutthroat", hands, ["bid 2", "pass", "pass"])
    assert decide(HeuristicBot(), state) == "trump S"
    state.apply(parse_action("trump S"))
    assert state.phase == "exchange" and state.to_move == 1
    assert decide(HeuristicBot(), state) == "cards 4C 7D"


# --------------------------------------------------------------------------- heuristic: play
def test_heuristic_pitches_the_ace_or_else_a_trump_that_risks_no_point():
    with_ace = position("partnership", ["5H 6D 7C 9D 2H 3C", "AS 7S 3S KH 5D 2C",
                                        "QH 4D 6C 8H 2D JD", "10H KD 4C 3D 7H 9C"], SEAT_1_PITCHES)
    without = position("partnership", ["5H 6D 7C 9D 2H 3C", "KS 8S 2S KH 5D 2C",
                                       "QH 4D 6C 8H 2D JD", "10H KD 4C 3D 7H 9C"], SEAT_1_PITCHES)
    assert decide(HeuristicBot(), with_ace) == "play AS"
    assert decide(HeuristicBot(), without) == "play 8S"  # not the 2 (Low), not the king


def test_heuristic_dumps_a_ten_on_its_partners_unbeatable_trick():
    state = position("partnership", FILLER, [*SEAT_1_PITCHES, "play AS", "play 2D"])
    assert decide(HeuristicBot(), state) == "play 10H"


def test_heuristic_draws_trumps_with_the_top_one_left():
    state = position("partnership", FILLER,
                     [*SEAT_1_PITCHES, "play AS", "play 2D", "play 10H", "play 3C"])
    assert state.to_move == 1
    assert decide(HeuristicBot(), state) == "play KS"  # the ace is gone: the king is top


def test_heuristic_does_not_overtake_a_partner_who_is_winning():
    hands = ["5H 6D 7C 9D 2H 3C", "AS KS 9H 5C 7D 8C", "QH 4D 6C 8H 2D JD", "10H KH 4C 3D 7H 9C"]
    state = position("partnership", hands, [*SEAT_1_PITCHES, "play AS", "play 2D", "play 4C", "play 3C",
                                            "play 9H", "play 8H"])
    assert {str(a) for a in state.legal_actions()} == {"play 10H", "play KH", "play 7H"}
    assert decide(HeuristicBot(), state) == "play 7H"


def test_heuristic_captures_the_jack_when_it_is_sure_to_hold():
    hands = ["KS QS 6S 3S 9H 4C", "AS JS 5D 6H 7C 2C", "4S 10D 2H 3H 8C 9C", "5S JD 7H 6C 10C KC"]
    state = position("partnership", hands, [*SEAT_1_PITCHES, "play AS", "play 4S", "play 5S", "play 6S",
                                            "play JS", "play 2H", "play 6C"])
    assert state.to_move == 0
    # Last to play, with the ace gone: either top trump takes the jack; the 3 would lose it.
    assert decide(HeuristicBot(), state) in {"play KS", "play QS"}


def test_heuristic_throws_low_junk_on_an_opponents_trick():
    hands = ["5H 6D 7C 9D 2H 3C", "AS AD 9H 5C 7D 8C", "QH 10C 2C 8H KH JC", "10H KD 4C 3D 7H 9C"]
    state = position("partnership", hands, [*SEAT_1_PITCHES, "play AS", "play 8H", "play 7H", "play 2H",
                                            "play AD"])
    assert state.to_move == 2
    assert decide(HeuristicBot(), state) == "play 2C"  # keeps the ten and the face cards


def test_heuristic_plays_every_preset_to_the_end():
    for name in PRESETS:
        rules = preset(name, max_hands=40)
        state = play_game(rules, [HeuristicBot() for _ in range(rules.players)], seed=3)
        assert state.is_over and state.results, name


# --------------------------------------------------------------------------- loader
def test_builtin_bots_load_by_name():
    assert set(BUILTIN_BOTS) == {"random", "heuristic"}
    assert isinstance(load_bot("heuristic"), HeuristicBot)
    assert load_bot("random").name == "random"
    assert load_bot("random") is not load_bot("random")  # a fresh bot per seat


def test_bots_load_from_a_file_and_from_a_module(tmp_path: Path):
    source = tmp_path / "mybot.py"
    source.write_text(
        "from pitch_sdk.bot import Bot\n"
        "class FirstLegal(Bot):\n"
        "    def act(self, observation, legal_actions):\n"
        "        return legal_actions[0]\n")
    bot = load_bot(f"{source}:FirstLegal")
    assert type(bot).__name__ == "FirstLegal" and bot.name == "FirstLegal"
    state = position("partnership", FILLER)
    assert decide(bot, state) == "pass"
    assert isinstance(load_bot("pitch_sdk.bots.heuristic:HeuristicBot"), HeuristicBot)


@pytest.mark.parametrize(("spec", "message"), [
    ("clever", r"unknown bot 'clever': use a built-in bot \(heuristic, random\)"),
    ("no/such/file.py:Bot", r"bot file 'no/such/file.py' does not exist"),
    ("pitch_sdk.bots.heuristic:Nope", r"no Bot subclass named 'Nope'; Bot subclasses there: HeuristicBot"),
    ("pitch_sdk.rules:Card", r"no Bot subclass named 'Card'"),
    ("no_such_module_xyz:Bot", r"cannot import bot module 'no_such_module_xyz'"),
])
def test_bad_bot_specs_fail_with_a_clear_message(spec: str, message: str):
    with pytest.raises(BotLoadError, match=message):
        load_bot(spec)


def test_a_bot_file_that_fails_to_import_is_reported(tmp_path: Path):
    source = tmp_path / "broken.py"
    source.write_text("raise RuntimeError('oops')\n")
    with pytest.raises(BotLoadError, match=r"failed to import: RuntimeError\('oops'\)"):
        load_bot(f"{source}:Anything")

