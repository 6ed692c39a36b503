"""Shared machinery of the property tests: ruleset strategies, a checked random playout,
and an independent scoring oracle written from RULES.md (not from the engine's tables).

A game is driven by ``random.Random(action_seed)`` choosing among ``legal_actions()``;
hypothesis draws the ruleset, the deal seed and the action seed.  ``checked_game`` runs
one game and asserts the per-step properties selected by its flags, so every test file
can pick the checks it can afford per game.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import random
from collections.abc import Callable, Iterable
from typing import Any

from hypothesis import assume, note
from hypothesis import strategies as st

from pitch_sdk.rules import (
    BIG_JOKER,
    CARDS,
    LITTLE_JOKER,
    PASS,
    PRESETS,
    Bid,
    CallCard,
    Card,
    Choose,
    ChooseCards,
    DecisionKind,
    DeclareTrump,
    GameOverError,
    GameState,
    IllegalActionError,
    InvalidRulesetError,
    MuckHand,
    Phase,
    PlayCard,
    PointCategory,
    Ruleset,
    Suit,
    Trick,
    WinReason,
    parse_action,
    preset,
)
from pitch_sdk.rules.actions import PLAYS
from pitch_sdk.rules.events import (
    AllPassed,
    Burned,
    Coked,
    Dealt,
    Exchanged,
    HandScored,
    MuckShown,
    PartnerCalled,
    TrumpSet,
)
from pitch_sdk.rules.ruleset import (
    AllPass,
    Backdoor,
    BurnedPoints,
    Exchange,
    FirstLead,
    Follow,
    JokerRank,
    LowGoesTo,
    MadeScores,
    MoonMade,
    MoonSet,
    Muck,
    PartnerCall,
    SetPenalty,
    WhoMayWin,
    WinMode,
)

# --------------------------------------------------------------------------- rulesets
PRESET_NAMES: tuple[str, ...] = tuple(PRESETS)

_HLJG = ["high", "low", "jack", "game"]

#: Named option combinations from RULES.md (preset, options).  Every one must build.
VARIANTS: tuple[tuple[str, dict[str, Any]], ...] = (
    # seating: 2/3/5/6/7 players, teams of two and of three
    ("simple", {"players": 2}),
    ("simple", {"players": 2, "removed_ranks": [3, 4, 5]}),
    ("ipitch", {"players": 3}),
    ("ipitch", {"players": 5}),
    ("ipitch", {"players": 6}),
    ("ipitch", {"players": 7}),
    ("ipitch", {"players": 8, "removed_ranks": [3]}),
    ("simple", {"players": 6, "team_size": 2}),
    ("simple", {"players": 6, "team_size": 3}),
    ("partnership", {"players": 6, "team_size": 2}),
    ("auction", {"players": 5}),
    ("cutthroat", {"players": 7, "exchange": "non-trumps"}),
    # jokers
    ("partnership", {"jokers": 2, "points": ["high", "low", "jack", "joker", "game"]}),
    ("ipitch", {"jokers": 1, "joker_rank": "below-two", "points": [*_HLJG, "joker"]}),
    ("cutthroat", {"jokers": 2, "joker_may_lead_first_trick": True}),
    ("high-low-jack", {"jokers": 2, "joker_may_lead_first_trick": True, "trump_selection": "declare"}),
    ("ipitch", {"jokers": 1, "joker_rank": "top", "points": [*_HLJG, "joker"]}),
    ("auction", {"jokers": 1, "joker_rank": "top", "low_trump_wins": True, "points": [*_HLJG, "joker"]}),
    # off-jack and odd trumps
    ("partnership", {"off_jack": True, "points": ["high", "low", "jack", "off-jack", "game"]}),
    ("ipitch", {"off_jack": True, "jokers": 2, "maximum_bid": 7,
                "points": ["high", "low", "jack", "off-jack", "joker", "game"]}),
    ("partnership-five", {"points": [*_HLJG, "five:5", "three:3"]}),
    ("partnership-five", {"off_three": True, "maximum_bid": 12,
                          "points": [*_HLJG, "five:5", "three:3", "off-three:3"]}),
    # scoring options
    ("ipitch", {"low_goes_to": "player"}),
    ("partnership", {"low_goes_to": "player", "no_junk_points": True}),
    ("auction", {"no_junk_points": True, "target": 5}),
    # card distribution: mucking a hand with no point cards, the widow
    ("partnership", {"muck": "new-hand"}),
    ("auction", {"muck": "redeal"}),
    ("partnership", {"widow": True}),
    ("cutthroat", {"widow": True, "muck": "new-hand"}),
    # exchange variants and trump selection
    ("cutthroat", {"exchange": "non-trumps"}),
    ("cutthroat", {"exchange": "all-non-trumps"}),
    ("partnership-five", {"exchange": "all-non-trumps"}),
    ("cutthroat", {"trump_selection": "pitch", "exchange": "none"}),
    ("partnership", {"trump_selection": "declare"}),
    ("partnership", {"trump_selection": "declare", "exchange": "any", "hand_size": 9}),
    # play
    ("partnership", {"follow": "must-follow"}),
    ("ipitch", {"follow": "must-follow", "players": 5}),
    # bidding and moon
    ("cutthroat", {"minimum_bid": 3}),
    ("ipitch", {"dealer_steal": True, "all_pass": "redeal"}),
    ("auction", {"moon_set": "lose-game"}),
    ("auction", {"moon_made": "score", "moon_score": 8, "moon_all_tricks": True}),
    ("partnership", {"moon": {"moon_bid": 5, "moon_all_tricks": True}}),
    # winning
    ("ipitch", {"win_by": 2}),
    ("ipitch", {"target_formula": True}),
    ("partnership", {"who_may_win": "pitching-party", "count_order": "categories"}),
    ("high-low-jack", {"win_mode": "first-to-reach", "who_may_win": "any", "target": 11}),
)


def build_variant(name: str, options: dict[str, Any]) -> Ruleset:
    """A preset with options; a ``moon`` dict is turned into the moon piece's options."""
    options = dict(options)
    moon = options.pop("moon", None)
    rules = preset(name, options)
    if moon is not None:
        rules = rules.with_options({f"moon.{k}": v for k, v in moon.items()})
    return rules


_SEATINGS = ((2, 1), (3, 1), (4, 1), (5, 1), (6, 1), (7, 1), (4, 2), (6, 2), (6, 3), (8, 2), (9, 3))
_EXTRA_RANKS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13)
#: (trump selection, exchange) pairs; seed 003's discard-all-non-trumps comes with its own
#: options (refill, leftovers, burning, trump-only play) drawn below.
_SELECTIONS = (("pitch", "none"), ("declare", "none"), ("declare", "any"), ("declare", "non-trumps"),
               ("declare", "all-non-trumps"), ("declare", "discard-non-trumps"))
_VALUES = {"five:5": 5, "three:3": 3, "off-three:3": 3, "nine:9": 9}


@st.composite
def random_rulesets(draw: Callable[..., Any]) -> Ruleset:
    """A preset with a random combination of options, the seed 003/004 pieces included,
    drawn so that they are valid together (the rare invalid rest are rejected)."""
    name = draw(st.sampled_from(PRESET_NAMES))
    base = preset(name).without_moon()
    auction = base.bidding.auction
    selection, exchange = draw(st.sampled_from(_SELECTIONS))
    pitching = selection == "pitch"
    calling = "none"
    if auction and draw(st.integers(0, 5)) == 0:
        calling = "lead" if pitching else "holder"
    players, team_size = draw(st.sampled_from(
        [s for s in _SEATINGS if s[1] == 1 and s[0] >= 3] if calling != "none" else _SEATINGS))
    jokers = draw(st.integers(0, 2))
    # "unranked" (two-trump pitch's suitless jokers) needs trump named before play
    joker_rank = draw(st.sampled_from(["below-jack", "below-two"] + ([] if pitching else ["unranked"])
                                      + (["top"] if jokers == 1 else [])))
    flags = {flag: draw(st.booleans()) for flag in ("off_jack", "off_three", "off_ace", "off_ten", "off_two")}
    removed = draw(st.lists(st.sampled_from(_EXTRA_RANKS), max_size=2, unique=True))
    deck_size = 4 * (13 - len(removed)) + jokers
    smallest = jokers + 1 if pitching else 1  # a pitcher needs a suited card to pitch
    hand_size = draw(st.integers(smallest, max(smallest, min(10, deck_size // players))))
    points = ["high", "low", "jack", "game"]
    points = [p for p in points if draw(st.integers(0, 3))] or ["jack"]
    for point, needs in (("off-jack", "off_jack"), ("off-ace", "off_ace"), ("off-ten", "off_ten"),
                         ("off-two", "off_two"), ("off-three:3", "off_three")):
        if flags[needs] and draw(st.booleans()):
            points.append(point)
    if jokers and draw(st.booleans()):
        points.append("joker")
    for point in ("ace", "ten", "two", "three:3", "nine:9"):
        if draw(st.integers(0, 2)) == 0:
            points.append(point)
    if draw(st.booleans()):
        points.append(f"five:{draw(st.sampled_from([1, 5]))}")
    points = draw(st.permutations(points))
    in_play = sum(_VALUES.get(p, 1) * (jokers if p == "joker" else 1) for p in points)
    discarding = exchange == "discard-non-trumps"
    spare = deck_size - players * hand_size  # a new hand for a mucker, or a widow, needs hand_size of them
    muck = draw(st.sampled_from(["none", "none", "redeal"] + (["new-hand"] if spare >= hand_size else [])))
    # the maker discards hand_size of 2 x hand_size cards: every set is listed, so keep them few
    widow = (auction and spare >= hand_size * (2 if muck == "new-hand" else 1)
             and math.comb(2 * hand_size, hand_size) <= _MAX_BURN_SETS and draw(st.integers(0, 3)) == 0)
    two_sides = calling != "none" or players // team_size == 2
    options: dict[str, Any] = {
        "players": players, "team_size": team_size, "partner_call": calling, "jokers": jokers,
        "joker_rank": joker_rank, "joker_half_pip": draw(st.booleans()), **flags, "removed_ranks": removed,
        "hand_size": hand_size, "deal_batch": draw(st.integers(1, 3)), "points": points,
        "trump_selection": selection, "exchange": exchange,
        "refill_to": draw(st.integers(0, hand_size)) if discarding else 0,
        "burn_to": draw(st.sampled_from([0, 0, 1, 3, 6])),
        "leftovers_to_bidder": False, "pass_leftovers": False, "sub_trump": False, "dealer_picks": False,
        "discards_face_up": exchange != "none" and draw(st.booleans()),
        "low_goes_to": draw(st.sampled_from(["capturer", "player"])),
        "two_goes_to": draw(st.sampled_from(["capturer", "player"])),
        "no_junk_points": draw(st.booleans()),
        "made_scores": draw(st.sampled_from(["points-won", "bid"])),
        "set_penalty": draw(st.sampled_from(["bid", "bid", "pookie"])),
        "burned_points": draw(st.sampled_from(["nobody", "opponents"])) if two_sides else "nobody",
        "follow": draw(st.sampled_from(["may-trump", "must-follow"])),
        "joker_may_lead_first_trick": not pitching and draw(st.booleans()),
        "first_lead": "pitcher", "first_lead_trump": False, "double_down_override": False,
        "trumps_only": not pitching and draw(st.booleans()),
        "lowest_wins": joker_rank != "top" and draw(st.integers(0, 3)) == 0,
        "low_trump_wins": draw(st.integers(0, 3)) == 0,
        "trump_must_be_broken": not pitching and draw(st.integers(0, 3)) == 0,
        "target": draw(st.integers(1, 21)), "target_formula": draw(st.integers(0, 5)) == 0,
        "win_by": draw(st.integers(1, 2)),
        "muck": muck,
        "widow": widow,
        "win_mode": draw(st.sampled_from(["first-to-reach", "maker-first"])),
        "count_order": draw(st.sampled_from(["pitcher-first", "categories"])),
        "backdoor": draw(st.sampled_from(["none", "none", "wins", "loses", "draw"])),
        "backdoor_score": draw(st.sampled_from([0, -1, -5])),
        "max_hands": draw(st.integers(1, 6)),
        "look_option": False, "lookers_lose_card": False, "bidder_takes_lost": False,
        "forced_nine": False, "coke": False,
    }
    if discarding:
        leftovers = draw(st.booleans())
        options.update(leftovers_to_bidder=leftovers,
                       pass_leftovers=leftovers and team_size >= 2 and draw(st.booleans()))
    if auction:
        minimum = draw(st.integers(1, min(3, in_play)))
        maximum = draw(st.integers(minimum, in_play))
        options.update(minimum_bid=minimum, maximum_bid=maximum,
                       dealer_steal=draw(st.booleans()), double_bids=draw(st.integers(0, 3)) == 0,
                       all_pass=draw(st.sampled_from(["force-dealer", "redeal"])),
                       forced_minimum_only=draw(st.booleans()), forced_moon=False,
                       who_may_win=draw(st.sampled_from(["any", "pitching-party", "bid-made", "bid-made-or-set"])))
        if draw(st.booleans()):
            options["forced_moon"] = options["forced_minimum_only"] and draw(st.booleans())
            options.update({
                "moon.moon_bid": draw(st.integers(maximum, maximum + 1)),
                "moon.moon_all_tricks": draw(st.booleans()),
                "moon.moon_made": draw(st.sampled_from(["win-game", "score", "to-target", "bid"])),
                "moon.moon_score": draw(st.integers(1, 8)),
                "moon.moon_set": draw(st.sampled_from(["set-back", "lose-game"])),
                "moon.moon_blocked_in_hole": draw(st.booleans()),
                "moon.blind_moon_bid": 0,
            })
    else:
        options["who_may_win"] = draw(st.sampled_from(["any", "pitching-party"]))
    options["burn_to"] = _affordable_burn(options, deck_size)
    try:
        return base.with_options(options)
    except InvalidRulesetError:
        assume(False)
        raise


#: The most card sets a burn may offer in a random game: ``legal_actions()`` lists every
#: one, and a bidder given a whole stock of leftovers (refill_to 0) burning 40-odd cards
#: down to 6 would be offered millions.
_MAX_BURN_SETS = 5000


def _affordable_burn(options: dict[str, Any], deck_size: int) -> int:
    """``burn_to`` lowered (to 3, 1 or off) until the biggest hand that may burn offers at
    most ``_MAX_BURN_SETS`` choices: the bidder's hand plus every card left in the stock."""
    players, hand_size, burn_to = options["players"], options["hand_size"], options["burn_to"]
    biggest = hand_size
    if options["leftovers_to_bidder"]:
        biggest += max(0, deck_size - players * hand_size)
    for allowed in (burn_to, 3, 1, 0):
        if allowed <= burn_to and math.comb(biggest, allowed) <= _MAX_BURN_SETS:
            return allowed
    return 0


def capped(rules: Ruleset, max_hands: int) -> Ruleset:
    """``rules`` with at most ``max_hands`` hands (keeps random games cheap)."""
    return rules.with_options(max_hands=min(max_hands, rules.win.max_hands))


# --------------------------------------------------------------------------- snapshots
def snapshot(state: GameState) -> dict[str, Any]:
    """Every slot of the state, lists copied, for before/after comparisons."""
    out = {}
    for name in GameState.__slots__:
        value = getattr(state, name, _MISSING)
        out[name] = list(value) if isinstance(value, list) else value
    return out


_MISSING = object()


def diff_snapshots(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    return [name for name in before if before[name] != after[name]]


# --------------------------------------------------------------------------- cards
JOKERS = (1 << int(BIG_JOKER)) | (1 << int(LITTLE_JOKER))


def mask(cards: Iterable[int]) -> int:
    """The bit mask of card ids (``Card`` is an ``int``: no conversion in this hot loop)."""
    out = 0
    for card in cards:
        out |= 1 << card
    return out


def deck_mask(rules: Ruleset) -> int:
    """The pack, computed from the ruleset's options (not from the engine's deck)."""
    cards = [Card.of(rank, suit) for suit in Suit for rank in range(2, 15)
             if rank not in rules.deck.removed_ranks]
    cards += [BIG_JOKER, LITTLE_JOKER][:rules.deck.jokers]  # a lone joker is the big one
    return mask(cards)


def trick_of(event: Any) -> Trick | None:
    """The completed trick an event records (the log stores ``Trick``s, or wrappers of one)."""
    if isinstance(event, Trick):
        return event
    trick = getattr(event, "trick", None)
    return trick if isinstance(trick, Trick) else None


def hand_events(history: list[Any]) -> list[Any]:
    """The events since the last deal."""
    for index in range(len(history) - 1, -1, -1):
        if isinstance(history[index], Dealt):
            return history[index:]
    return []


def out_of_play(events: list[Any]) -> tuple[int, int]:
    """Cards that left the hands this hand without being played: (discarded and not drawn
    back, burned).  Lost cards (Abacos) are discarded; man-o-war draws some back."""
    discarded = burned = 0
    for event in events:
        if isinstance(event, Exchanged):
            discarded = discarded & ~event.drawn | event.discarded
        elif isinstance(event, Burned):
            burned |= event.cards
    return discarded, burned


def check_conservation(state: GameState, deck: int) -> None:
    """Hands + stock + current trick + completed tricks + discards + burned == the deck,
    disjointly."""
    parts: list[tuple[str, int, int]] = []  # (where, mask, count)
    for seat, hand in enumerate(state.hands):
        parts.append((f"hand {seat}", hand, hand.bit_count()))
    parts.append(("stock", mask(state.stock), len(state.stock)))
    parts.append(("trick", mask(c for _, c in state.trick), len(state.trick)))
    trick_cards = [c for t in state.tricks for _, c in t.plays]
    parts.append(("tricks", mask(trick_cards), len(trick_cards)))
    discarded, burned = out_of_play(hand_events(state.history))
    if state.phase is Phase.DISCARD and state.offered >= 0:  # man-o-war: the lost card taken is in hand
        discarded &= ~(1 << state.offered)
    parts.append(("discards", discarded, discarded.bit_count()))
    parts.append(("widow", mask(state.widow), len(state.widow)))
    parts.append(("burned", burned, burned.bit_count()))
    union = 0
    total = 0
    for where, m, count in parts:
        assert m.bit_count() == count, f"duplicate card inside {where}"
        assert not union & m, f"{where} shares cards {CARDS_OF(union & m)} with another place"
        union |= m
        total += count
    assert union == deck, (f"cards missing {CARDS_OF(deck & ~union)}, "
                           f"foreign {CARDS_OF(union & ~deck)}")
    assert total == deck.bit_count()


def CARDS_OF(m: int) -> list[str]:
    return [CARDS[i].name for i in range(54) if m >> i & 1]


# --------------------------------------------------------------------------- legality
def action_key(action: Any) -> tuple[Any, ...]:
    """The engine's documented order within one decision kind."""
    if action is PASS:
        return (0,)
    if isinstance(action, Bid):
        return (1, action.amount)
    if isinstance(action, PlayCard):
        return (int(action.card),)
    if isinstance(action, DeclareTrump):
        return (int(action.suit),)
    if type(action).__name__ == "Coke":  # offered after the bids
        return (2,)
    if isinstance(action, CallCard):
        return (int(action.card),)
    if isinstance(action, Choose):
        return (int(action.yes),)
    if isinstance(action, MuckHand):  # keep, then muck
        return (int(action.muck),)
    if isinstance(action, ChooseCards):
        return (len(action.cards), sorted(int(c) for c in action.cards))
    return (str(action),)


def check_legal_list(state: GameState, legal: list[Any], rng: random.Random) -> None:
    assert legal, f"no legal action in phase {state.phase} before the game is over"
    again = state.legal_actions()
    assert again == legal, "legal_actions() is not deterministic"
    assert len(set(legal)) == len(legal), "legal_actions() repeats an action"
    keys = [action_key(a) for a in legal]
    assert keys == sorted(keys), f"legal_actions() is not sorted: {legal}"
    decision = state.decision()
    assert decision.seat == state.to_move
    assert list(decision.legal_actions) == legal
    # long exchange lists: check a sample (is_legal on a card set lists them all again)
    sample = legal if len(legal) <= 12 else [legal[0], legal[-1], *rng.sample(legal, 10)]
    for action in sample:
        assert action.kind is decision.kind, f"{action} is not a {decision.kind} action"
        assert state.is_legal(action)
        state.verify(action)
        assert parse_action(str(action)) == action, f"parse_action(str({action!r})) differs"
    if decision.kind is DecisionKind.CHOOSE_CARDS:
        rule = decision.card_set
        assert rule is not None
        hand = state.hands[state.to_move]
        source = mask(state.stock) if state.phase is Phase.DEALER_PICK else hand
        assert mask(rule.allowed) & ~source == 0, "card set allows cards not in hand (or stock)"
        for action in legal:
            chosen = mask(action.cards)
            assert chosen & ~mask(rule.allowed) == 0
            assert mask(rule.required) & ~chosen == 0
            assert rule.min_count <= len(action.cards) <= rule.max_count
            if state.phase is Phase.EXCHANGE:
                assert len(action.cards) <= len(state.stock), "discarding more than can be drawn"
        expected_rule = expected_card_set(state)
        if expected_rule is not None:
            got = (mask(rule.allowed), mask(rule.required), rule.min_count, rule.max_count)
            assert got == expected_rule, f"card-set rule {got} != the rule text's {expected_rule}"
        optional = len(rule.allowed) - len(rule.required)
        expected = sum(math.comb(optional, k - len(rule.required))
                       for k in range(rule.min_count, rule.max_count + 1))
        assert len(legal) == expected, "legal exchanges are not every set the card-set rule allows"
    bidding, moon = state.rules.bidding, state.rules.moon
    if (decision.kind is DecisionKind.BID and bidding.forced_minimum_only and state.to_move == state.dealer
            and state.high_bid == 0 and bidding.all_pass is AllPass.FORCE_DEALER and not bidding.forced_nine
            and not (moon is not None and moon.blind_moon_bid)):
        # seed 003: "the dealer MUST take the bid for four"; Roadhouse: "(or "shoot the moon")"
        expected_bids = [Bid(bidding.minimum_bid)]
        if bidding.forced_moon and moon is not None and moon.moon_bid != bidding.minimum_bid:
            expected_bids.append(Bid(moon.moon_bid))
        assert legal == expected_bids, f"a forced dealer's bids {legal} != {expected_bids}"
    if decision.kind is DecisionKind.MUCK:  # seed 004: "Players who have received no point cards ... may"
        assert state.rules.deal.muck is not Muck.NONE, "a muck asked with muck=none"
        assert legal == [MuckHand(False), MuckHand(True)], f"muck answers {legal}"
        assert state.phase is Phase.MUCK and not state.bids, "a muck asked after the auction began"
        dealt = hand_events(state.history)[0]
        assert not any(pips2(c, state.rules.deck.joker_half_pip) for c in range(54)
                       if dealt.hands[state.to_move] >> c & 1), "a hand with point cards is asked to muck"
        assert state.to_move not in mucked_seats(hand_events(state.history)), "a seat asked to muck twice"
        if state.rules.deal.muck is Muck.NEW_HAND:
            assert len(state.stock) >= state.rules.deal.hand_size, "a muck asked with no new hand in the stock"
        else:
            assert state.deal_number < state.rules.win.max_hands, "a re-deal asked at the deal limit"
    mucking = decision.kind is DecisionKind.BID and state.rules.deal.muck is Muck.NEW_HAND
    if mucking and PASS in legal and state.to_move in mucked_seats(hand_events(state.history)):
        assert legal == [PASS], f"a mucked hand may bid: {legal}"  # "may not bid unless forced"
    if decision.kind is DecisionKind.PLAY:
        expected_plays = expected_legal_plays(state)
        if expected_plays is not None:
            got_plays = mask(int(a.card) for a in legal)
            assert got_plays == expected_plays, (
                f"legal plays {CARDS_OF(got_plays)} != the rule text's {CARDS_OF(expected_plays)} "
                f"(hand {CARDS_OF(state.hands[state.to_move])}, trick {state.trick})")


def mucked_seats(events: list[Any]) -> set[int]:
    """The seats whose hands were mucked this deal: the exchanges right after the deal."""
    return {event.seat for event in mucked_exchanges(events)}


def expected_card_set(state: GameState) -> tuple[int, int, int, int] | None:
    """(allowed, required, min, max) of an exchange or a burn, from the rule text."""
    rules = state.rules
    hand = state.hands[state.to_move]
    if state.phase is Phase.BURN:  # burn down to burn_to, any cards but one that must be led
        count = hand.bit_count() - rules.deal.burn_to
        assert count > 0, "a seat burns that holds no more than burn_to cards"
        must = _must_lead(state)
        return hand & ~(1 << must if must >= 0 else 0), 0, count, count
    if state.phase is not Phase.EXCHANGE:  # man-o-war's discard, nine-five's dealer pick: not modelled
        return None
    trumps = mask(trump_order(rules, Suit(state.trump)))
    non_trumps = hand & ~trumps
    stock = len(state.stock)
    exchange = rules.trump.exchange
    if exchange is Exchange.ANY:
        return hand, 0, 0, min(stock, hand.bit_count())
    if exchange is Exchange.NON_TRUMPS:
        return non_trumps, 0, 0, min(stock, non_trumps.bit_count())
    if exchange is Exchange.ALL_NON_TRUMPS:
        count = non_trumps.bit_count()
        if count > stock:
            return non_trumps, 0, stock, stock
        return non_trumps, non_trumps, count, count
    return None


def _suit_of(rules: Ruleset, trumps: int, trump: int, card: int) -> int:
    """The suit a card follows: trump for every trump (off-cards, ranked jokers), -1 for a
    suitless (unranked) joker."""
    if trumps >> card & 1:
        return trump
    if CARDS[card].is_joker:
        return -1
    return int(CARDS[card].suit)


def expected_legal_plays(state: GameState) -> int | None:
    """The cards the player to move may play, from RULES.md (``None``: not modelled)."""
    rules = state.rules
    if rules.bidding.coke:
        return None
    hand = state.hands[state.to_move]
    trump = state.trump
    if trump < 0:  # the pitch: any card may be led but a joker (it has no suit to pitch)
        must = _must_lead(state)
        if must >= 0 and hand >> must & 1:
            return 1 << must
        return hand & ~JOKERS or hand
    trumps = _suit_masks(rules.deck, trump)[trump]
    jokers = hand & JOKERS
    if not state.trick:  # a lead
        allowed = hand
        if not state.tricks:
            must = _must_lead(state)
            if must >= 0 and hand >> must & 1:
                return 1 << must
            if not rules.play.joker_may_lead_first_trick:
                allowed = allowed & ~JOKERS or allowed
            if rules.play.first_lead_trump:
                allowed = allowed & trumps or allowed
        if rules.play.trump_must_be_broken:
            broken = any(trumps >> card & 1 for trick in state.tricks for _, card in trick.plays)
            if not broken:
                allowed = allowed & ~trumps or allowed
        return allowed
    sub = getattr(state, "sub_trump", -1)
    plays = [card for _, card in state.trick]
    suited = [card for card in plays if _suit_of(rules, trumps, trump, card) >= 0]
    if not suited:  # only a suitless joker led so far: the next card sets the suit
        return hand
    led = _suit_of(rules, trumps, trump, suited[0])
    suits = _suit_masks(rules.deck, trump)
    follow = hand & suits[led]
    if not follow:
        return hand
    suitless = rules.deck.jokers > 0 and rules.deck.joker_rank is JokerRank.UNRANKED
    # seed 004, auction pitch: "A player who can follow suit but discards a card of a different
    # non-trump suit is punished for the revoke" (under the option the revoke may be played)
    revokes = hand & ~trumps & ~suits[led] & ~JOKERS if rules.play.revoke_penalty else 0
    doubled_down = jokers if suitless and rules.play.double_down_override and CARDS[plays[0]].is_joker else 0
    if led == trump:
        return follow | doubled_down | revokes
    # seed 004, two-trump: "If a trump suit is lead, jokers may not be cut in if the player in
    # possession of the joker has cards of that trump remaining" (the sub-trump is one too);
    # "A joker may be cut in at any time if a non-trump suit is lead"
    cut_in_jokers = doubled_down if sub >= 0 and led == sub else jokers if suitless else 0
    if rules.play.follow is Follow.MUST_FOLLOW:
        return follow | cut_in_jokers | revokes
    allowed = follow | hand & trumps | cut_in_jokers | revokes
    if sub >= 0 and led != sub:  # sub-trumps may trump in on a plain lead
        allowed |= hand & suits[sub]
    return allowed


def _must_lead(state: GameState) -> int:
    """The called card, where it must be led to the first trick: by its holder (call for
    partner), or by the bidder playing alone when it was not dealt (five-handed)."""
    call = state.rules.seating.partner_call
    if state.called < 0 or call is PartnerCall.NONE:
        return -1
    if call is PartnerCall.LEAD or state.partner < 0:
        return state.called
    return -1


def illegal_candidates(state: GameState, legal: list[Any], rng: random.Random, limit: int) -> list[Any]:
    """Up to ``limit`` random actions that are not legal now: of the decision's own kind
    (unplayable cards, bids that are not allowed, card sets breaking the rule) and, one
    time in three, of another kind."""
    legal_set = set(legal)
    kind = state.decision().kind if not state.is_over else None
    rules = state.rules
    own: list[Any] = []
    if kind is DecisionKind.PLAY:
        playable = mask(a.card for a in legal if type(a) is PlayCard)  # no action hashing per card
        own = [PLAYS[c] for c in range(54) if not playable >> c & 1]
    elif kind is DecisionKind.BID:
        top = rules.bidding.maximum_bid + 2 + (rules.moon.moon_bid if rules.moon else 0)
        own = [PASS] + [Bid(n) for n in range(-1, top + 1)]
    elif kind is DecisionKind.CHOOSE_CARDS:
        hand = list(state.hand(state.to_move))
        others = [c for c in CARDS if c not in hand]
        for _ in range(4):
            chosen = set(rng.sample(hand, rng.randint(0, len(hand))))
            if rng.random() < 0.5:
                chosen.add(rng.choice(others))
            own.append(ChooseCards(frozenset(chosen)))
        own.append(ChooseCards(frozenset(hand)))
    foreign = [PASS, Bid(rules.bidding.minimum_bid), PLAYS[rng.randrange(54)],
               DeclareTrump(rng.choice(list(Suit))), CallCard(rng.choice(CARDS)),
               Choose(rng.random() < 0.5), ChooseCards(frozenset())]
    if kind is not DecisionKind.PLAY:  # the unplayable cards above are none of the legal plays
        own = [a for a in own if a not in legal_set]
    foreign = [a for a in foreign if a not in legal_set]
    out = []
    for _ in range(limit):
        pool = foreign if not own or (foreign and rng.random() < 1 / 3) else own
        if pool:
            out.append(rng.choice(pool))
    return out


def check_illegal(state: GameState, legal: list[Any], rng: random.Random, limit: int) -> int:
    """Illegal actions raise IllegalActionError and leave every slot unchanged."""
    before = snapshot(state)
    tried = illegal_candidates(state, legal, rng, limit)
    for action in tried:
        assert not state.is_legal(action), f"{action} is both listed illegal and is_legal"
        try:
            state.apply(action)
        except IllegalActionError as exc:
            if not state.is_over:
                assert tuple(exc.legal) == tuple(legal), "the error lists other legal actions"
        else:
            raise AssertionError(f"illegal {action} was accepted in {state.phase}")
    changed = diff_snapshots(before, snapshot(state))
    assert not changed, f"rejecting {tried} changed {changed}"
    return len(tried)


def check_game_over(state: GameState, rng: random.Random) -> None:
    assert state.legal_actions() == []
    if state.results and state.results[-1].game_over:
        assert state.winner == state.results[-1].winner
        assert all(not r.game_over for r in state.results[:-1])
    else:  # the game stopped at the deal limit while everyone kept passing
        assert state.win_reason is WinReason.HAND_LIMIT and state.deal_number >= state.rules.win.max_hands
        assert all(not r.game_over for r in state.results)
    before = snapshot(state)
    for action in [*illegal_candidates(state, [], rng, 6), PlayCard(CARDS[0])]:
        try:
            state.apply(action)
        except GameOverError:
            pass
        else:
            raise AssertionError(f"{action} accepted after the game ended")
    assert not diff_snapshots(before, snapshot(state))


# --------------------------------------------------------------------------- scoring oracle
_PIPS = {10: 10, 14: 4, 13: 3, 12: 2, 11: 1}


def pips2(card: int, joker_half_pip: bool = True) -> int:
    """Doubled game pips: 10=10, A=4, K=3, Q=2, J=1, a joker half a pip where the variant
    says so (RULES.md: "jokers 1/2 where a variant says so")."""
    c = CARDS[card]
    return int(joker_half_pip) if c.is_joker else 2 * _PIPS.get(c.rank, 0)


def trump_order(rules: Ruleset, trump: Suit) -> list[int]:
    return list(_trump_order(rules.deck, Suit(trump)))


@functools.cache
def _suit_masks(deck: Any, trump: int) -> tuple[int, ...]:
    """Per suit the cards that follow it (index 4: suitless jokers), from ``trump_order``."""
    trumps = mask(_trump_order(deck, Suit(trump)))
    out = [0] * 5
    for card in range(54):
        if trumps >> card & 1:
            out[trump] |= 1 << card
        elif CARDS[card].is_joker:
            out[4] |= 1 << card
        else:
            out[int(CARDS[card].suit)] |= 1 << card
    return tuple(out)


@functools.cache
def _trump_order(deck: Any, trump: Suit) -> tuple[int, ...]:
    """The trumps of the pack, highest first, from RULES.md and seeds 003/004: A, off-ace,
    K, Q, J, off-jack, jokers (below the jack), 10, off-ten, 9 .. 3, off-three, 2, off-two,
    jokers (below the two); a top joker above the ace.  Off-cards rank just below their counterparts; unranked
    jokers (two-trump pitch) are no trumps."""
    removed = set(deck.removed_ranks)
    other = trump.partner
    off = {14: deck.off_ace, 11: deck.off_jack, 10: deck.off_ten, 3: deck.off_three, 2: deck.off_two}
    jokers = [int(BIG_JOKER), int(LITTLE_JOKER)][:deck.jokers]  # a lone joker is the big one
    order: list[int] = list(jokers) if deck.joker_rank is JokerRank.TOP else []  # "the ultimate trump"
    for rank in range(14, 1, -1):
        if rank in removed:
            continue
        order.append(int(Card.of(rank, trump)))
        if off.get(rank):
            order.append(int(Card.of(rank, other)))
        if rank == 11 and deck.joker_rank is JokerRank.BELOW_JACK:
            order += jokers
    if deck.joker_rank is JokerRank.BELOW_TWO:
        order += jokers
    return tuple(order)


def trick_winner(rules: Ruleset, order: list[int], sub: int, plays: tuple[tuple[int, int], ...]) -> int:
    """RULES.md: the highest trump wins; with no trump, the highest card of the suit led.
    Reverse pitch / reverse hierarchy (``lowest_wins``): the lowest trump, else the lowest
    card of the suit led.  ``low_trump_wins``: the lowest trump of the pack wins the trick
    it is played to.  Two-trump pitch: a sub-trump beats plain cards, an unranked joker
    never wins, and after a joker lead the next card sets the suit."""
    low_first = rules.play.lowest_wins
    position = {card: i for i, card in enumerate(order)}
    if rules.play.low_trump_wins and order:
        for seat, card in plays:
            if card == order[-1]:
                return seat
    trumps = [(position[c], seat) for seat, c in plays if c in position]
    if trumps:
        return (max if low_first else min)(trumps)[1]

    def by_rank(cards: list[tuple[int, int]]) -> int:
        ranked = [(CARDS[c].rank, seat) for seat, c in cards]
        return (min(ranked) if low_first else max(ranked))[1]

    suited = [(seat, c) for seat, c in plays if not CARDS[c].is_joker]
    if not suited:  # only suitless jokers, which capture nothing: no suit was set, the lead stands
        return plays[0][0]
    subs = [(seat, c) for seat, c in suited if CARDS[c].suit == sub]
    if subs:
        return by_rank(subs)
    led = CARDS[suited[0][1]].suit
    return by_rank([(seat, c) for seat, c in suited if CARDS[c].suit == led])


#: The single-card point categories: (rank, the card is the off-card of that rank).
_CARD_POINTS = {
    PointCategory.JACK: (11, False), PointCategory.OFF_JACK: (11, True), PointCategory.FIVE: (5, False),
    PointCategory.THREE: (3, False), PointCategory.OFF_THREE: (3, True), PointCategory.ACE: (14, False),
    PointCategory.TEN: (10, False), PointCategory.TWO: (2, False), PointCategory.NINE: (9, False),
    PointCategory.OFF_ACE: (14, True), PointCategory.OFF_TEN: (10, True), PointCategory.OFF_TWO: (2, True),
}


def point_cards(rules: Ruleset, trump: Suit, order: list[int], sub: int) -> dict[Any, list[int]]:
    """The cards each card category is earned with (those of this pack only)."""
    out: dict[Any, list[int]] = {}
    trumps = set(order)
    for rule in rules.scoring.points:
        cat = rule.category
        if cat in _CARD_POINTS:
            rank, is_off = _CARD_POINTS[cat]
            card = int(Card.of(rank, trump.partner if is_off else trump))
            out[cat] = [card] if card in trumps else []
        elif cat is PointCategory.JOKER:
            out[cat] = [int(BIG_JOKER), int(LITTLE_JOKER)][:rules.deck.jokers]
        elif cat is PointCategory.SUB_JACK and sub >= 0 and 11 not in rules.deck.removed_ranks:
            card = int(Card.of(11, Suit(sub)))
            out[cat] = [] if card in trumps else [card]
    return out


def _hand_facts(rules: Ruleset, events: list[Any]) -> dict[str, Any]:
    """What the log says about one hand: the deal, bids, trump, partner call, preparation."""
    facts: dict[str, Any] = {"trump": None, "sub": -1, "called": None, "cokes": 0, "bid": None,
                             "double": False, "bidder": None}
    dealt = next(e for e in events if isinstance(e, Dealt))
    facts["dealt"] = dealt
    hands = list(dealt.hands)
    burned = [0] * rules.players
    for event in events:
        name = type(event).__name__
        if name == "BidMade" and event.amount:
            facts["bid"], facts["double"], facts["bidder"] = event.amount, event.double, event.seat
        elif isinstance(event, TrumpSet):
            if event.sub:
                facts["sub"] = int(event.suit)
            else:
                facts["trump"], facts["pitched"], facts["trump_seat"] = event.suit, event.pitched, event.seat
        elif isinstance(event, PartnerCalled):
            holder = next((s for s in range(rules.players) if hands[s] >> event.card & 1), -1)
            facts["called"], facts["caller"], facts["holder"] = event.card, event.seat, holder
        elif isinstance(event, Coked):
            facts["cokes"] |= 1 << event.seat
        elif isinstance(event, Exchanged):  # man-o-war may discard the lost card it takes
            hands[event.seat] |= event.drawn
            assert not event.discarded & ~hands[event.seat], f"seat {event.seat} discards cards it does not hold"
            hands[event.seat] &= ~event.discarded
        elif isinstance(event, Burned):
            assert not event.cards & ~hands[event.seat], f"seat {event.seat} burns cards it does not hold"
            hands[event.seat] &= ~event.cards
            burned[event.seat] |= event.cards
    facts["playing_hands"], facts["burned"] = hands, burned
    return facts


def check_preparation(rules: Ruleset, events: list[Any], facts: dict[str, Any], pitcher: int) -> None:
    """Seed 003's hand preparation, replayed from the log: every non-trump discarded, each
    seat from eldest refilled to ``refill_to`` from the top of the stock, the rest to the
    bidder (or passed, unseen, to the partner), non-trumps thrown away for trump-only
    play, then everyone above ``burn_to`` burns down to it, eldest first."""
    bidding = rules.bidding
    if (rules.trump.exchange is not Exchange.DISCARD_NON_TRUMPS or rules.trump.dealer_picks
            or bidding.look_option or bidding.coke or rules.deal.muck is Muck.NEW_HAND or rules.deal.widow):
        return
    dealt = facts["dealt"]
    n = rules.players
    trumps = mask(trump_order(rules, facts["trump"]))
    hands, stock = list(dealt.hands), list(dealt.stock)
    actual = [e for e in events if isinstance(e, (Exchanged, Burned))]
    expected: list[Any] = []
    order = [(dealt.dealer + 1 + k) % n for k in range(n)]
    for seat in order:
        discarded = hands[seat] & ~trumps
        need = max(0, rules.deal.refill_to - (hands[seat] & trumps).bit_count())
        drawn = mask(stock[:need])
        del stock[:need]
        hands[seat] = hands[seat] & trumps | drawn
        if discarded or drawn:
            expected.append(Exchanged(seat, discarded, drawn, rules.trump.discards_face_up))
    if rules.trump.leftovers_to_bidder and stock:
        got = actual[len(expected)] if len(actual) > len(expected) else None
        partner = (pitcher + rules.parties) % n
        receiver = got.seat if isinstance(got, Exchanged) and got.seat == partner != pitcher else pitcher
        assert receiver == pitcher or rules.trump.pass_leftovers
        expected.append(Exchanged(receiver, 0, mask(stock)))
        hands[receiver] |= mask(stock)
    if rules.play.trumps_only:
        for seat in order:
            if hands[seat] & ~trumps:
                expected.append(Exchanged(seat, hands[seat] & ~trumps, 0))
                hands[seat] &= trumps
    assert actual[:len(expected)] == expected, f"hand preparation {actual} != {expected}"
    burns = actual[len(expected):]
    over = [seat for seat in order if rules.deal.burn_to and hands[seat].bit_count() > rules.deal.burn_to]
    assert [e.seat for e in burns] == over and all(isinstance(e, Burned) for e in burns), \
        f"burns {burns} != seats {over} above {rules.deal.burn_to}"
    for event in burns:
        assert event.cards.bit_count() == hands[event.seat].bit_count() - rules.deal.burn_to


def _uncapture_low(order: list[int], tricks: list[Trick], capturer: dict[int, int], player: dict[int, int],
                   pips: list[int], parties: int) -> None:
    """Seed 004: a joker "as the ultimate trump, capturing everything but the low trump":
    the lowest trump in play (the joker aside), played to the trick the joker won, stays
    with the party that played it."""
    low = [c for c in order if c in capturer and not CARDS[c].is_joker]
    if not low:
        return
    card = low[-1]
    trick = next(t for t in tricks if any(c == card for _, c in t.plays))
    if any(seat == trick.winner and CARDS[c].is_joker for seat, c in trick.plays):
        pips[capturer[card]] -= pips2(card)
        capturer[card] = player[card]
        pips[capturer[card]] += pips2(card)


def _pointless(rules: Ruleset, hand: int) -> bool:
    """Seed 004: "no point cards (that is, no cards which could contribute toward the Game point)"."""
    return not any(pips2(card, rules.deck.joker_half_pip) for card in range(54) if hand >> card & 1)


def check_muck(rules: Ruleset, events: list[Any]) -> None:
    """Seed 004's muck: "Players who have received no point cards (that is, no cards which
    could contribute toward the Game point) may lay their cards face down and receive a
    new hand": those that chose to (a subset of them, from eldest hand) take the next
    cards of the stock, while it holds a whole hand (after the widow, if any)."""
    if rules.deal.muck is not Muck.NEW_HAND:
        return
    dealt = next(e for e in events if isinstance(e, Dealt))
    n, size = rules.players, rules.deal.hand_size
    pointless = [seat for seat in ((dealt.dealer + 1 + k) % n for k in range(n))
                 if _pointless(rules, dealt.hands[seat])]
    stock = list(dealt.stock)[size if rules.deal.widow else 0:]
    mucks = mucked_exchanges(events)
    for muck in mucks:
        assert muck.seat in pointless, f"seat {muck.seat} mucked a hand with point cards"
        del pointless[:pointless.index(muck.seat) + 1]  # asked from eldest, once each
        assert len(stock) >= size
        assert muck == Exchanged(muck.seat, dealt.hands[muck.seat], mask(stock[:size])), f"muck {muck}"
        del stock[:size]


def mucked_exchanges(events: list[Any]) -> list[Exchanged]:
    """The mucks of a hand's events (from its deal): the exchanges right after the deal."""
    mucks = []
    for event in events[1:]:
        if not isinstance(event, Exchanged):
            break
        mucks.append(event)
    return mucks


def check_mucks_shown(rules: Ruleset, history: list[Any], hand_start: int, end: int) -> None:
    """Seed 004: "The cards can be checked by the other players after the hand has been
    played": right after the hand ends (scored, or all passed), each mucked hand is shown,
    in the order mucked; under ``redeal``, the hand of the seat that asked is shown at once
    and the same dealer deals the same hand again."""
    shown = []
    for event in history[end + 1:]:
        if not isinstance(event, MuckShown):
            break
        shown.append(event)
    mucks = mucked_exchanges(history[hand_start:end]) if rules.deal.muck is Muck.NEW_HAND else []
    assert shown == [MuckShown(e.seat, e.discarded) for e in mucks], f"shown {shown} != mucked {mucks}"


def check_redeal_shown(rules: Ruleset, history: list[Any], index: int) -> None:
    """A ``MuckShown`` re-deal (seed 004: "may ask for a complete re-deal by the same
    dealer"): only under ``redeal``, right after the deal it voids (nothing else happened
    in it), showing the asking seat's pointless hand, followed by the same hand dealt again."""
    event = history[index]
    assert rules.deal.muck is Muck.REDEAL, f"{event} under muck={rules.deal.muck}"
    dealt, again = history[index - 1], history[index + 1]
    assert isinstance(dealt, Dealt) and isinstance(again, Dealt), "a re-deal asked after the deal's first decision"
    assert event.cards == dealt.hands[event.seat] and _pointless(rules, event.cards)
    assert (again.hand_number, again.dealer) == (dealt.hand_number, dealt.dealer), "a re-deal by another dealer"


def check_hand_result(state: GameState, events: list[Any], result: Any) -> None:
    """Property 4 for one scored hand: trick play, awards, sides and the bid's effect on
    the scores recomputed from the rule text and the log alone."""
    rules = state.rules
    parties = rules.parties
    n = rules.players
    tricks = [t for t in map(trick_of, events) if t is not None]
    facts = _hand_facts(rules, events)
    dealt = facts["dealt"]
    auction = rules.bidding.auction
    pitcher = facts["bidder"] if auction else (dealt.dealer + 1) % n
    assert result.pitcher == pitcher, f"pitcher {result.pitcher} != {pitcher}"
    pp = pitcher % parties
    assert result.trump == facts["trump"] and result.trump is not None
    trump: Suit = result.trump
    sub = facts["sub"]
    order = trump_order(rules, trump)
    if facts.get("pitched"):
        assert tricks and int(CARDS[tricks[0].plays[0][1]].suit) == int(trump), "trump is not the pitched suit"
    elif auction:
        assert facts["trump_seat"] == pitcher, "trump declared by another seat than the pitcher"

    # sides: the called card's holder (at the call) partners the bidder for this hand
    sides = None
    if rules.seating.partner_call is not PartnerCall.NONE:
        assert facts["called"] is not None and facts["caller"] == pitcher
        assert facts["holder"] != pitcher, "the bidder called a card it holds"
        team = {pp, facts["holder"] % parties if facts["holder"] >= 0 else pp}
        sides = tuple(0 if p in team else 1 for p in range(parties))
    assert result.sides == sides, f"sides {result.sides} != {sides}"
    side_of = sides if sides is not None else tuple(range(parties))

    check_muck(rules, events)
    check_preparation(rules, events, facts, pitcher)
    # trick play: seats still holding cards play in turn from the leader; all cards are played
    remaining = list(facts["playing_hands"])
    capturer: dict[int, int] = {}
    player: dict[int, int] = {}
    pips = [0] * parties
    won = [0] * parties
    first = pitcher
    if rules.seating.partner_call is PartnerCall.LEAD and facts["holder"] not in (None, -1):
        first = facts["holder"]  # "The 'called' card is the first played"
    if rules.play.first_lead is FirstLead.LEFT_OF_PITCHER:
        first = (pitcher + 1) % n
    leader = next((s for s in ((first + k) % n for k in range(n)) if remaining[s]), -1)
    modelled_seats = not rules.bidding.coke and not rules.trump.sub_trump
    suit_masks = _suit_masks(rules.deck, int(trump))
    trump_mask = suit_masks[int(trump)]
    revoked = False
    for index, trick in enumerate(tricks):
        seats = [s for s, _ in trick.plays]
        if modelled_seats:
            assert trick.leader == leader, f"trick {index} led by {trick.leader}, expected {leader}"
            expected_seats = [s for s in ((leader + k) % n for k in range(n)) if remaining[s]]
            assert seats == expected_seats, f"trick {index} played by {seats}, expected {expected_seats}"
        assert len(set(seats)) == len(seats)
        if index == 0 and rules.seating.partner_call is PartnerCall.LEAD and facts["holder"] not in (None, -1):
            assert trick.plays[0][1] == facts["called"], "the called card was not led first"
        winner = trick_winner(rules, order, sub, trick.plays)
        assert trick.winner == winner, f"trick {trick} won by {trick.winner}, expected {winner}"
        won[winner % parties] += 1
        led_suit = next((_suit_of(rules, trump_mask, int(trump), c) for _, c in trick.plays
                         if _suit_of(rules, trump_mask, int(trump), c) >= 0), -1)
        for seat, card in trick.plays:
            assert remaining[seat] >> card & 1, f"seat {seat} played {CARDS[card]} it does not hold"
            plain = not (trump_mask | suit_masks[led_suit]) >> card & 1 and not CARDS[card].is_joker
            if rules.play.revoke_penalty and led_suit >= 0 and remaining[seat] & suit_masks[led_suit] and plain:
                revoked = True  # held the suit led, played another plain suit
            remaining[seat] ^= 1 << card
            capturer[card] = winner % parties
            player[card] = seat % parties
            pips[winner % parties] += pips2(card, rules.deck.joker_half_pip)
        leader = next((s for s in ((winner + k) % n for k in range(n)) if remaining[s]), -1)
    assert not any(remaining), "cards in play were not played"
    if rules.deck.jokers and rules.deck.joker_rank is JokerRank.TOP:
        _uncapture_low(order, tricks, capturer, player, pips, parties)
    assert tuple(won) == result.tricks_won
    assert tuple(p / 2 if p % 2 else p // 2 for p in pips) == result.pips
    if revoked:
        # Not modelled here: a revoking party is "set back by the value of the bid" instead
        # of its points; tests/rules/test_revoke_sweep_discards.py checks those hands.
        return

    # awards, in the ruleset's counting order
    burned = facts["burned"]
    credited: dict[int, set[int]] = {}  # burned card -> the parties that may be credited
    if rules.scoring.burned_points is BurnedPoints.OPPONENTS:
        for seat, cards in enumerate(burned):
            for card in range(54):
                if cards >> card & 1:
                    credited[card] = {p for p in range(parties) if side_of[p] != side_of[seat % parties]}
    cards_of_point = point_cards(rules, trump, order, sub)
    in_play_trumps = [c for c in order if c in capturer]
    expected: list[tuple[Any, int, set[int], int | None]] = []
    for rule in rules.scoring.points:
        cat, value = rule.category, rule.value
        if cat is PointCategory.HIGH:
            if in_play_trumps:
                expected.append((cat, value, {capturer[in_play_trumps[0]]}, in_play_trumps[0]))
        elif cat is PointCategory.LOW:
            low = [c for c in in_play_trumps
                   if not (CARDS[c].is_joker and rules.deck.joker_rank is JokerRank.BELOW_TWO)]
            if low:
                owner = player if rules.scoring.low_goes_to is LowGoesTo.PLAYER else capturer
                expected.append((cat, value, {owner[low[-1]]}, low[-1]))
        elif cat is PointCategory.GAME:  # with called partners, per side ("earned as a team")
            team_of = list(result.sides) if result.sides is not None else list(range(len(pips)))
            side_pips = [sum(p for party, p in enumerate(pips) if team_of[party] == side)
                         for side in range(max(team_of) + 1)]
            best = max(side_pips)
            if side_pips.count(best) == 1:
                side = side_pips.index(best)
                expected.append((cat, value, {p for p in range(len(pips)) if team_of[p] == side}, None))
        elif cat in (PointCategory.SUB_HIGH, PointCategory.SUB_LOW):
            subs = sorted((CARDS[c].rank, c) for c in capturer
                          if sub >= 0 and not CARDS[c].is_joker and CARDS[c].suit == sub and c not in order)
            if subs:
                card = subs[-1][1] if cat is PointCategory.SUB_HIGH else subs[0][1]
                expected.append((cat, value, {capturer[card]}, card))
        else:
            for card in cards_of_point.get(cat, []):
                if card in capturer:
                    to_player = cat is PointCategory.TWO and rules.scoring.two_goes_to is LowGoesTo.PLAYER
                    expected.append((cat, value, {(player if to_player else capturer)[card]}, card))
                elif card in credited:
                    expected.append((cat, value, credited[card], card))
    got = [(a.category, a.value, a.party, None if a.card is None else int(a.card)) for a in result.awards]
    assert len(got) == len(expected) and all(
        g[0] == e[0] and g[1] == e[1] and g[3] == e[3] and g[2] in e[2] for g, e in zip(got, expected, strict=True)
    ), f"awards {got} != expected {expected}"
    check_points_in_play(rules, result, facts, cards_of_point, credited)

    points = [0] * parties
    for award in result.awards:
        points[award.party] += award.value
    assert tuple(points) == result.points_won
    side_points: dict[int, int] = {}
    for party, value in enumerate(points):
        side_points[side_of[party]] = side_points.get(side_of[party], 0) + value
    side_tricks = sum(won[p] for p in range(parties) if side_of[p] == side_of[pp])
    changes = [side_points[side_of[p]] for p in range(parties)]
    before = state.results[-2].scores if len(state.results) > 1 else (0,) * parties
    moon_decides = False
    made = None
    if auction:
        bid = facts["bid"]
        assert result.bid == bid and bid is not None and bid >= rules.bidding.minimum_bid
        assert result.doubled == facts["double"]
        stakes = 2 * bid if facts["double"] else bid
        moon_rules = rules.moon
        moon = moon_rules is not None and bid in (moon_rules.moon_bid, moon_rules.blind_moon_bid or -1)
        assert result.moon == moon
        # a moon bid above the points in play (ten-point's moon: all ten) needs them all
        made = side_points[side_of[pp]] >= min(bid, rules.points_in_play)
        if moon and moon_rules.moon_all_tricks and side_tricks != len(tricks):
            made = False
        assert result.made == made, f"made={result.made} with {side_points[side_of[pp]]} points on {bid}"
        for party in range(parties):
            if side_of[party] != side_of[pp]:
                continue
            if moon:
                worth = bid if moon_rules.moon_made is MoonMade.BID else moon_rules.moon_score
                if not made:
                    changes[party] = -worth
                    moon_decides = moon_rules.moon_set is MoonSet.LOSE_GAME
                elif moon_rules.moon_made in (MoonMade.SCORE, MoonMade.BID):
                    changes[party] = worth
                elif moon_rules.moon_made is MoonMade.TO_TARGET:  # to 52, or to zero from the hole
                    changes[party] = (rules.win.target if before[party] >= 0 else 0) - before[party]
                else:  # the game itself is the prize; what the hand scores follows made_scores
                    moon_decides = not (moon_rules.moon_blocked_in_hole and before[pp] < 0)
                    if rules.scoring.made_scores is MadeScores.BID:
                        changes[party] = stakes
            elif made:
                if rules.scoring.made_scores is MadeScores.BID:
                    changes[party] = stakes
            elif rules.scoring.set_penalty is SetPenalty.POOKIE:  # the score becomes -1 (or one less)
                changes[party] = min(before[party], 0) - 1 - before[party]
            else:
                changes[party] = -stakes
        if rules.scoring.no_junk_points:
            changes = [c if side_of[p] == side_of[pp] else 0 for p, c in enumerate(changes)]
    else:
        assert result.bid is None and result.made is None and not result.moon
    assert tuple(changes) == result.score_changes, f"score changes {result.score_changes} != {changes}"
    final = tuple(b + c for b, c in zip(before, changes, strict=True))
    assert final == result.scores
    check_game_end(state, result, before, final, pp, made, moon_decides, side_of)


def check_points_in_play(rules: Ruleset, result: Any, facts: dict[str, Any], cards_of_point: dict[Any, list[int]],
                         credited: dict[int, set[int]]) -> None:
    """Points awarded never exceed the points in play; where every point card necessarily
    reaches the tricks or is burned (seed 003's family: the whole pack reaches the hands,
    only non-trumps are thrown away), they add up exactly: every point card kept in play
    (held for the tricks or burned; a suitless joker may be either, or thrown away), less
    the burned ones nobody is credited with."""
    total = sum(a.value for a in result.awards)
    assert total <= rules.points_in_play
    categories = [a.category for a in result.awards]
    for cat in set(categories):
        limit = rules.deck.jokers if cat is PointCategory.JOKER else 1
        assert categories.count(cat) <= limit, f"{cat} awarded {categories.count(cat)} times"
    if any(cat not in cards_of_point for cat in (r.category for r in rules.scoring.points)):
        return  # High, Low, Game...: not tied to one card
    dealt = facts["dealt"]
    whole_pack = not dealt.stock or (rules.trump.exchange is Exchange.DISCARD_NON_TRUMPS
                                     and rules.trump.leftovers_to_bidder)
    trumps = mask(trump_order(rules, result.trump))
    only_non_trumps_leave = rules.trump.exchange in (Exchange.NONE, Exchange.DISCARD_NON_TRUMPS) and not (
        rules.bidding.look_option or rules.bidding.coke or rules.trump.dealer_picks
        or rules.deal.muck is Muck.NEW_HAND or rules.deal.widow)
    if not (whole_pack and only_non_trumps_leave):
        return
    burned = held = 0
    for cards in facts["burned"]:
        burned |= cards
    for cards in facts["playing_hands"]:
        held |= cards
    kept = held | burned  # what stayed in play after the discards
    value = {r.category: r.value for r in rules.scoring.points}
    point_mask = mask(card for cards in cards_of_point.values() for card in cards)
    assert not point_mask & trumps & ~kept, f"trump point cards {CARDS_OF(point_mask & trumps & ~kept)} left play"
    # a suitless (unranked) joker is no trump: thrown away with the non-trumps, or kept
    # (the bidder's leftovers) and then played or burned like any card in play
    in_pack = sum(value[cat] for cat, cards in cards_of_point.items() for card in cards if kept >> card & 1)
    lost = sum(value[cat] for cat, cards in cards_of_point.items() for card in cards
               if burned >> card & 1 and card not in credited)
    assert total == in_pack - lost, f"{total} points awarded, {in_pack} in play, {lost} burned"


def check_game_end(state: GameState, result: Any, before: tuple[int, ...], final: tuple[int, ...], pp: int,
                   made: bool | None, moon_decides: bool, side_of: tuple[int, ...]) -> None:
    """The end of the game, from the rule text: a decisive moon ends it first; then the
    target (a winner has reached it, is eligible, and leads by ``win_by``); then the
    backdoor; the hand limit at the latest."""
    rules = state.rules
    win = rules.win
    reason = result.win_reason.value if result.win_reason is not None else None
    if moon_decides:
        assert result.game_over and reason in ("shot-the-moon", "failed-moon"), f"moon decides, got {reason}"
        if made:
            assert result.winner == pp
        else:
            assert result.winner is None or side_of[result.winner] != side_of[pp], \
                "a party of the side that failed its moon won the game"
        return
    if len(state.results) >= win.max_hands:
        assert result.game_over
    if reason in ("reached-target", "maker-at-target", "most-at-target"):
        winner = result.winner
        assert winner is not None and final[winner] >= win.target
        if win.who_may_win is WhoMayWin.BID_MADE_OR_SET and made is False and win.win_mode is WinMode.FIRST_TO_REACH:
            assert side_of[winner] != side_of[pp], "the set bidder's side went out"  # "a team ... set the bidder"
        elif win.who_may_win is not WhoMayWin.ANY and win.win_mode is WinMode.FIRST_TO_REACH:
            assert side_of[winner] == side_of[pp]
            if win.who_may_win in (WhoMayWin.BID_MADE, WhoMayWin.BID_MADE_OR_SET):
                assert made
        if win.win_by > 1 and win.win_mode is WinMode.FIRST_TO_REACH:
            assert all(final[winner] - s >= win.win_by for p, s in enumerate(final) if p != winner)
        return
    line = win.backdoor_score or -win.target
    if win.backdoor is not Backdoor.NONE and min(final) <= line:
        assert result.game_over and reason == "backdoor", f"a score {min(final)} at the backdoor {line}, {reason}"
        lowest = [p for p, s in enumerate(final) if s == min(final)]
        if win.backdoor is Backdoor.DRAW:
            assert result.winner is None
        elif win.backdoor is Backdoor.WINS:
            assert result.winner == (lowest[0] if len(lowest) == 1 else None)
        else:
            assert result.winner is None or result.winner not in lowest
    elif reason == "backdoor":
        raise AssertionError(f"backdoor win with scores {final} above {line}")
    if not result.game_over and win.win_mode is WinMode.MAKER_FIRST:  # who_may_win and win_by still apply
        eligible = win.who_may_win not in (WhoMayWin.BID_MADE, WhoMayWin.BID_MADE_OR_SET) or made
        ahead = win.win_by <= 1 or all(final[pp] - s >= win.win_by for p, s in enumerate(final) if p != pp)
        assert final[pp] < win.target or not (eligible and ahead), "a maker at the target did not win"


# --------------------------------------------------------------------------- playout
@dataclasses.dataclass
class GameStats:
    steps: int = 0
    hands: int = 0
    illegal_tried: int = 0
    clones: int = 0
    observed: int = 0


def checked_game(rules: Ruleset, seed: int, action_seed: int, *, dealer: int = 0,
                 deals: tuple[Any, ...] = (), conservation: bool = True, legality: bool = True,
                 illegal: int = 0, scoring: bool = True, clone_every: int = 0,
                 on_step: Callable[[GameState], None] | None = None,
                 max_steps: int = 200_000) -> tuple[GameState, GameStats]:
    """Play one random game, asserting the selected properties at every step."""
    note(f"rules={rules.to_json()} seed={seed} action_seed={action_seed} dealer={dealer}")
    rng = random.Random(action_seed)
    state = GameState(rules, seed=seed, dealer=dealer, deals=deals)
    deck = deck_mask(rules)
    stats = GameStats()
    seen_events = 0
    hand_start = 0
    while True:
        # events since the last step: score the hands that ended
        history = state.history
        for index in range(seen_events, len(history)):
            event = history[index]
            if isinstance(event, Dealt):
                hand_start = index
            elif isinstance(event, HandScored):
                stats.hands += 1
                if scoring:
                    check_hand_result(_StateAt(state, event.result), history[hand_start:index],
                                      event.result)
                check_mucks_shown(rules, history, hand_start, index)
            elif isinstance(event, AllPassed):
                check_mucks_shown(rules, history, hand_start, index)
            elif isinstance(event, MuckShown) and event.redeal:
                check_redeal_shown(rules, history, index)
        seen_events = len(history)
        if conservation:
            check_conservation(state, deck)
        if on_step is not None:
            on_step(state)
        if state.is_over:
            break
        legal = state.legal_actions()
        if legality:
            check_legal_list(state, legal, rng)
        if illegal:
            stats.illegal_tried += check_illegal(state, legal, rng, illegal)
        if clone_every and stats.steps % clone_every == 0:
            check_clone(state, rng)
            stats.clones += 1
        state.apply(rng.choice(legal))
        stats.steps += 1
        assert stats.steps < max_steps, "game does not end"
    if legality:
        check_game_over(state, rng)
    return state, stats


class _StateAt:
    """The bits of the state the scoring oracle reads, as of one scored hand."""

    def __init__(self, state: GameState, result: Any) -> None:
        self.rules = state.rules
        index = next(i for i, r in enumerate(state.results) if r is result)
        self.results = state.results[:index + 1]


def check_clone(state: GameState, rng: random.Random) -> None:
    """Property 7: play on a clone; the original is untouched, and replaying the clone's
    moves on a second clone gives the same state (determinism)."""
    before = snapshot(state)
    legal = state.legal_actions()
    for action in legal if len(legal) <= 12 else rng.sample(legal, 12):  # every one applies
        other = state.clone()
        other.apply(action)
        check_conservation(other, deck_mask(state.rules))
    copy = state.clone()
    assert not diff_snapshots(before, snapshot(copy)), "clone differs from the original"
    moves = []
    for _ in range(rng.randint(1, 40)):
        if copy.is_over:
            break
        action = rng.choice(copy.legal_actions())
        copy.apply(action)
        moves.append(action)
    changed = diff_snapshots(before, snapshot(state))
    assert not changed, f"playing on a clone changed the original's {changed}"
    twin = state.clone()
    for action in moves:
        twin.apply(action)
    assert not diff_snapshots(snapshot(copy), snapshot(twin)), "same moves, different states"
    assert not diff_snapshots(before, snapshot(state))
