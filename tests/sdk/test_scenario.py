"""The scenario runner: the shipped examples, structured action errors, malformed input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pitch_sdk.harness.scenario import ScenarioError, load_scenario, run_scenario

EXAMPLES = Path(__file__).parents[2] / "docs" / "scenarios"


def example(name: str) -> dict[str, Any]:
    return load_scenario((EXAMPLES / name).read_text())


def awards(report: dict[str, Any], hand: int = 0) -> list[tuple[str, int, str | None]]:
    return [(a["category"], a["party"], a["card"]) for a in report["hands"][hand]["awards"]]


# --------------------------------------------------------------------------- the examples
def test_every_shipped_example_runs_and_is_json_ready():
    names = sorted(p.name for p in EXAMPLES.glob("*.json"))
    illegal = ["illegal-renege.json", "two-trump-joker-on-sub-trump-lead.json"]
    assert names == ["dealer-steal-set-back.json", "illegal-renege.json", "single-trump-high-and-low.json",
                     "ten-point-refill-leftovers-burn.json", "two-trump-joker-on-sub-trump-lead.json"]
    for name in names:
        report = run_scenario(example(name))
        assert json.loads(json.dumps(report)) == report
        assert report["ok"] is (name not in illegal)


def test_the_ten_point_example_scores_the_two_for_its_player_and_the_bid_when_made():
    """Seed 003: "The two goes to the person who plays it"; "If the bidder takes the number
    of points, or more, stated in their bid, they receive that number of points." """
    report = run_scenario(example("ten-point-refill-leftovers-burn.json"))
    hand = report["hands"][0]
    assert ("two", 1, "2S") in awards(report) and ("three", 1, "3S") in awards(report)
    assert hand["points_won"] == [3, 7] and hand["made"] is True
    assert hand["score_changes"] == [3, 5]  # the bidder scores its bid of 5, not the 7 taken


def test_a_single_trump_in_play_is_both_high_and_low():
    report = run_scenario(example("single-trump-high-and-low.json"))
    hand = report["hands"][0]
    assert awards(report) == [("high", 1, "AS"), ("low", 1, "AS"), ("game", 1, None)]
    assert (hand["pitcher"], hand["bid"], hand["trump"], hand["made"]) == (1, 2, "S", True)
    assert hand["pips"] == [7, 36] and hand["tricks_won"] == [1, 5]
    assert report["scores"] == [0, 3] and report["actions_applied"] == 28
    # The game goes on with a seeded deal: it reports who is to move and what they may do.
    assert (report["phase"], report["hand_number"], report["to_move"]) == ("bidding", 2, 2)
    assert report["legal_actions"] == ["pass", "bid 2", "bid 3", "bid 4"]
    assert report["game_over"] is False and report["winner"] is None


def test_the_dealer_steals_and_is_set_back():
    report = run_scenario(example("dealer-steal-set-back.json"))
    hand = report["hands"][0]
    assert (hand["pitcher"], hand["bid"], hand["made"]) == (0, 2, False)
    assert awards(report) == [("high", 1, "AH"), ("low", 1, "2H"), ("jack", 1, "JH"), ("game", 1, None)]
    assert hand["score_changes"] == [-2, 4] and report["scores"] == [-2, 4]


def test_options_apply_and_a_finished_game_reports_its_winner():
    data = example("single-trump-high-and-low.json") | {"options": {"target": 3}}
    report = run_scenario(data)
    assert report["game_over"] is True and report["winner"] == 1
    assert report["win_reason"] == "reached-target" and report["phase"] == "game-over"
    assert "to_move" not in report and "legal_actions" not in report


# --------------------------------------------------------------------------- action errors
def test_an_illegal_action_reports_index_action_reason_and_legal_plays():
    report = run_scenario(example("illegal-renege.json"))
    assert report["ok"] is False and report["actions_applied"] == 9
    assert report["error"] == {
        "kind": "illegal-action", "index": 9, "action": "play 2C", "seat": 2,
        "reason": "play 2C is not legal for seat 2 in play (hand 2C 2D 10H 4S 5S, AD led, trump H); "
                  "legal: play 2D, play 10H",
        "legal": ["play 2D", "play 10H"],
    }
    assert report["to_move"] == 2 and report["legal_actions"] == ["play 2D", "play 10H"]


def test_two_trump_refuses_a_joker_on_a_sub_trump_lead_from_a_holder_of_the_sub_trump():
    """Seed 004, two-trump pitch: "If a trump suit is lead, jokers may not be cut in if the
    player in possession of the joker has cards of that trump remaining." """
    report = run_scenario(example("two-trump-joker-on-sub-trump-lead.json"))
    assert report["ok"] is False and report["actions_applied"] == 7
    assert (report["error"]["kind"], report["error"]["action"], report["error"]["seat"]) == (
        "illegal-action", "play BJ", 2)
    assert report["error"]["legal"] == ["play 2H", "play 2S"] == report["legal_actions"]


def test_an_unparsable_action_is_reported_the_same_way():
    data = example("single-trump-high-and-low.json")
    data["actions"] = ["bid 2", "pass", "sing loudly"]
    report = run_scenario(data)
    error = report["error"]
    assert (error["kind"], error["index"], error["action"], error["seat"]) == ("unparsable-action", 2, "sing loudly", 3)
    assert error["reason"].startswith("unknown action 'sing loudly': expected 'pass', 'bid N'")
    assert error["legal"] == ["pass", "bid 3", "bid 4"]


def test_an_action_out_of_turn_order_is_illegal_for_the_seat_to_move():
    data = example("single-trump-high-and-low.json")
    data["actions"] = ["play AS"]  # seat 1 must bid or pass first
    error = run_scenario(data)["error"]
    assert error["kind"] == "illegal-action" and error["seat"] == 1
    assert error["legal"] == ["pass", "bid 2", "bid 3", "bid 4"]


# --------------------------------------------------------------------------- malformed input
def scenario_with(**changes: Any) -> dict[str, Any]:
    data = example("single-trump-high-and-low.json")
    for key, value in changes.items():
        if value is None:
            del data[key]
        else:
            data[key] = value
    return data


@pytest.mark.parametrize(("data", "message"), [
    (scenario_with(preset="bridge"), r"unknown preset 'bridge'; presets: abacos, auction, barn"),
    (scenario_with(preset=None), r"a scenario needs \"preset\""),
    (scenario_with(options={"targte": 11}), r"unknown ruleset option 'targte'; known options: .*target"),
    (scenario_with(options={"target": "eleven"}), r"option target must be an integer, got 'eleven'"),
    (scenario_with(dealer=4), r"dealer 4 is not a seat: partnership has seats 0..3"),
    (scenario_with(seed="x"), r"'seed' must be an integer"),
    (scenario_with(actions="bid 2"), r"'actions' must be a list"),
    (scenario_with(deals=[{"hands": ["AS"]}]), r"deals\[0\] has 1 hands for 4 players"),
    (scenario_with(deals=[{"hands": ["AS 2S 3S 4S 5S 6S", "AS 7S 8S 9S 10S JS", "2H 3H 4H 5H 6H 7H",
                                     "2D 3D 4D 5D 6D 7D"]}]), r"deals\[0\] is impossible: card AS is dealt twice"),
    (scenario_with(deals=[{"hands": ["AS 2S 3S 4S 5S", "KS 7S 8S 9S 10S JS", "2H 3H 4H 5H 6H 7H",
                                     "2D 3D 4D 5D 6D 7D"]}]), r"deals\[0\] is impossible: seat 0 is dealt 5 cards"),
    (scenario_with(deals=[{"hands": ["AS 2S 3S 4S 5S 6S", "KS 7S 8S 9S 10S ZZ", "2H 3H 4H 5H 6H 7H",
                                     "2D 3D 4D 5D 6D 7D"]}]), r"deals\[0\]\.hands\[1\]: unknown card 'ZZ'"),
    (scenario_with(deals=[{"hands": [], "widow": "AS"}]), r"deals\[0\] has unknown keys \['widow'\]"),
    (scenario_with(players=5), r"unknown scenario keys \['players'\]; allowed: description, preset"),
])
def test_malformed_scenarios_name_what_is_wrong(data: dict[str, Any], message: str):
    with pytest.raises(ScenarioError, match=message):
        run_scenario(data)


@pytest.mark.parametrize(("text", "message"), [
    ('{"preset": "partnership",', r"scenario is not valid JSON: Expecting"),
    ("[1, 2]", r"a scenario must be a JSON object, got list"),
])
def test_text_that_is_not_a_scenario_object_is_rejected(text: str, message: str):
    with pytest.raises(ScenarioError, match=message):
        load_scenario(text)
