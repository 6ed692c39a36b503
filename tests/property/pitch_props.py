"""Shared machinery of the property tests: ruleset strategies, a checked random playout,
and an independent scoring oracle written from RULES.md (not from the engine's tables).

A game is driven by ``random.Random(action_seed)`` choosing among ``legal_actions()``;
hypothesis draws the ruleset, the deal seed and the action seed.  ``checked_game`` runs
one game and asserts the per-step properties selected by its flags, so every test file
can pick the checks it can afford per game.
"""

from __future__ import annotations

import dataclasses
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
from pitch_sdk.rules.events import Dealt, Exchanged, HandScored
from pitch_sdk.rules.ruleset import JokerRank, LowGoesTo, MoonMade

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


_SEATINGS = ((2, 1), (3, 1), (4, 1), (5, 1), (6, 1), (7, 1), (4, 2), (6, 2), (6, 3), (8, 2))
_EXTRA_RANKS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13)


@st.composite
def random_rulesets(draw: Callable[..., Any]) -> Ruleset:
    """A preset with a random combination of options (rarely invalid: those are rejected)."""
    name = draw(st.sampled_from(PRESET_NAMES))
    base = preset(name).without_moon()
    auction = base.bidding.auction
    players, team_size = draw(st.sampled_from(_SEATINGS))
    jokers = draw(st.integers(0, 2))
    off_jack = draw(st.booleans())
    off_three = draw(st.booleans())
    removed = draw(st.lists(st.sampled_from(_EXTRA_RANKS), max_size=2, unique=True))
    selection, exchange = draw(st.sampled_from(
        [("pitch", "none"), ("declare", "none"), ("declare", "any"),
         ("declare", "non-trumps"), ("declare", "all-non-trumps")]))
    pitching = selection == "pitch"
    deck_size = 4 * (13 - len(removed)) + jokers
    smallest = jokers + 1 if pitching else 1  # a pitcher needs a suited card to pitch
    hand_size = draw(st.integers(smallest, max(smallest, min(9, deck_size // players))))
    points = ["high", "low", "jack", "game"]
    if off_jack and draw(st.booleans()):
        points.append("off-jack")
    if jokers and draw(st.booleans()):
        points.append("joker")
    if draw(st.booleans()):
        points.append(f"five:{draw(st.sampled_from([1, 5]))}")
    if draw(st.booleans()):
        points.append("three:3")
    if off_three and draw(st.booleans()):
        points.append("off-three:3")
    points = draw(st.permutations(points))
    values = {"five:5": 5, "three:3": 3, "off-three:3": 3}
    in_play = sum(values.get(p, 1) * (jokers if p == "joker" else 1) for p in points)
    options: dict[str, Any] = {
        "players": players, "team_size": team_size, "jokers": jokers,
        "joker_rank": draw(st.sampled_from(["below-jack", "below-two"])),
        "off_jack": off_jack, "off_three": off_three, "removed_ranks": removed,
        "hand_size": hand_size, "deal_batch": draw(st.integers(1, 3)), "points": points,
        "trump_selection": selection, "exchange": exchange,
        "low_goes_to": draw(st.sampled_from(["capturer", "player"])),
        "no_junk_points": draw(st.booleans()),
        "follow": draw(st.sampled_from(["may-trump", "must-follow"])),
        "joker_may_lead_first_trick": not pitching and draw(st.booleans()),
        "target": draw(st.integers(1, 21)), "win_by": draw(st.integers(1, 2)),
        "win_mode": draw(st.sampled_from(["first-to-reach", "maker-first"])),
        "count_order": draw(st.sampled_from(["pitcher-first", "categories"])),
        "max_hands": draw(st.integers(1, 6)),
    }
    if auction:
        minimum = draw(st.integers(1, min(3, in_play)))
        maximum = draw(st.integers(minimum, in_play))
        options.update(minimum_bid=minimum, maximum_bid=maximum,
                       dealer_steal=draw(st.booleans()),
                       all_pass=draw(st.sampled_from(["force-dealer", "redeal"])),
                       who_may_win=draw(st.sampled_from(["any", "pitching-party", "bid-made"])))
        if draw(st.booleans()):
            options.update({
                "moon.moon_bid": draw(st.integers(maximum, maximum + 1)),
                "moon.moon_all_tricks": draw(st.booleans()),
                "moon.moon_made": draw(st.sampled_from(["win-game", "score"])),
                "moon.moon_score": draw(st.integers(1, 8)),
                "moon.moon_set": draw(st.sampled_from(["set-back", "lose-game"])),
                "moon.moon_blocked_in_hole": draw(st.booleans()),
            })
    else:
        options["who_may_win"] = draw(st.sampled_from(["any", "pitching-party"]))
    try:
        return base.with_options(options)
    except InvalidRulesetError:
        assume(False)
        raise


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
def mask(cards: Iterable[int]) -> int:
    out = 0
    for card in cards:
        out |= 1 << int(card)
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


def check_conservation(state: GameState, deck: int) -> None:
    """Hands + stock + current trick + completed tricks + discards == the deck, disjointly."""
    parts: list[tuple[str, int, int]] = []  # (where, mask, count)
    for seat, hand in enumerate(state.hands):
        parts.append((f"hand {seat}", hand, hand.bit_count()))
    parts.append(("stock", mask(state.stock), len(state.stock)))
    parts.append(("trick", mask(c for _, c in state.trick), len(state.trick)))
    trick_cards = [c for t in state.tricks for _, c in t.plays]
    parts.append(("tricks", mask(trick_cards), len(trick_cards)))
    for event in hand_events(state.history):
        if isinstance(event, Exchanged):
            parts.append((f"discards {event.seat}", event.discarded, event.discarded.bit_count()))
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
        assert mask(rule.allowed) & ~hand == 0, "card set allows cards not in hand"
        for action in legal:
            chosen = mask(action.cards)
            assert chosen & ~mask(rule.allowed) == 0
            assert mask(rule.required) & ~chosen == 0
            assert rule.min_count <= len(action.cards) <= rule.max_count
            assert len(action.cards) <= len(state.stock), "discarding more than can be drawn"
        from math import comb
        optional = len(rule.allowed) - len(rule.required)
        expected = sum(comb(optional, k - len(rule.required))
                       for k in range(rule.min_count, rule.max_count + 1))
        assert len(legal) == expected, "legal exchanges are not every set the card-set rule allows"


def illegal_candidates(state: GameState, legal: list[Any], rng: random.Random, limit: int) -> list[Any]:
    """Up to ``limit`` random actions that are not legal now: of the decision's own kind
    (unplayable cards, bids that are not allowed, card sets breaking the rule) and, one
    time in three, of another kind."""
    legal_set = set(legal)
    kind = state.decision().kind if not state.is_over else None
    rules = state.rules
    own: list[Any] = []
    if kind is DecisionKind.PLAY:
        own = [PLAYS[c] for c in range(54) if PLAYS[c] not in legal_set]
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


def pips2(card: int) -> int:
    """Doubled game pips: 10=10, A=4, K=3, Q=2, J=1, joker half a pip."""
    c = CARDS[card]
    return 1 if c.is_joker else 2 * _PIPS.get(c.rank, 0)


def trump_order(rules: Ruleset, trump: Suit) -> list[int]:
    """The trumps of the pack, highest first, from RULES.md: A K Q J, off-jack, jokers
    (below the jack, or below the two), 10 .. 3, off-three, 2."""
    deck = rules.deck
    removed = set(deck.removed_ranks)
    other = trump.partner
    jokers = [int(BIG_JOKER), int(LITTLE_JOKER)][:deck.jokers]
    order: list[int] = []
    for rank in range(14, 1, -1):
        if rank not in removed:
            order.append(int(Card.of(rank, trump)))
            if rank == 3 and deck.off_three:
                order.append(int(Card.of(3, other)))
        if rank == 11:
            if deck.off_jack:
                order.append(int(Card.of(11, other)))
            if deck.joker_rank is JokerRank.BELOW_JACK:
                order += jokers
    if deck.joker_rank is JokerRank.BELOW_TWO:
        order += jokers
    return order


def trick_winner(order: list[int], plays: tuple[tuple[int, int], ...]) -> int:
    """The highest trump wins; with no trump, the highest card of the suit led."""
    position = {card: i for i, card in enumerate(order)}
    trumps = [(position[c], seat) for seat, c in plays if c in position]
    if trumps:
        return min(trumps)[1]
    led = CARDS[plays[0][1]].suit
    return max((CARDS[c].rank, seat) for seat, c in plays if CARDS[c].suit == led)[1]


def check_hand_result(state: GameState, events: list[Any], result: Any) -> None:
    """Property 4 for one scored hand: awards recomputed independently, the bid applied."""
    rules = state.rules
    parties = rules.parties
    tricks = [t for t in map(trick_of, events) if t is not None]
    dealt = next(e for e in events if isinstance(e, Dealt))
    assert result.trump is not None or not tricks
    order = trump_order(rules, result.trump)
    capturer: dict[int, int] = {}
    player: dict[int, int] = {}
    pips = [0] * parties
    won = [0] * parties
    for trick in tricks:
        assert trick.winner == trick_winner(order, trick.plays), f"wrong trick winner {trick}"
        won[trick.winner % parties] += 1
        for seat, card in trick.plays:
            capturer[card] = trick.winner % parties
            player[card] = seat % parties
            pips[trick.winner % parties] += pips2(card)
    # in play = dealt to the hands, less discards, plus draws: exactly the cards played
    in_hands = 0
    for hand in dealt.hands:
        in_hands |= hand
    for event in events:
        if isinstance(event, Exchanged):
            in_hands = in_hands & ~event.discarded | event.drawn
    assert in_hands == mask(capturer), "the cards played are not the cards in play"
    assert tuple(won) == result.tricks_won
    assert tuple(p / 2 if p % 2 else p // 2 for p in pips) == result.pips

    trumps_in_play = [c for c in order if c in capturer]
    table_cards = {
        PointCategory.JACK: Card.of(11, result.trump),
        PointCategory.OFF_JACK: Card.of(11, result.trump.partner),
        PointCategory.FIVE: Card.of(5, result.trump),
        PointCategory.THREE: Card.of(3, result.trump),
        PointCategory.OFF_THREE: Card.of(3, result.trump.partner),
    }
    expected: list[tuple[Any, ...]] = []
    for rule in rules.scoring.points:
        cat, value = rule.category, rule.value
        if cat is PointCategory.HIGH:
            if trumps_in_play:
                expected.append((cat, value, capturer[trumps_in_play[0]], trumps_in_play[0]))
        elif cat is PointCategory.LOW:
            low = [c for c in trumps_in_play
                   if not (CARDS[c].is_joker and rules.deck.joker_rank is JokerRank.BELOW_TWO)]
            if low:
                owner = player if rules.scoring.low_goes_to is LowGoesTo.PLAYER else capturer
                expected.append((cat, value, owner[low[-1]], low[-1]))
        elif cat is PointCategory.GAME:
            best = max(pips)
            if pips.count(best) == 1:
                expected.append((cat, value, pips.index(best), None))
        elif cat is PointCategory.JOKER:
            for joker in (int(BIG_JOKER), int(LITTLE_JOKER)):
                if joker in capturer:
                    expected.append((cat, value, capturer[joker], joker))
        else:
            card = int(table_cards[cat])
            if card in capturer and card in order:
                expected.append((cat, value, capturer[card], card))
    got = [(a.category, a.value, a.party, None if a.card is None else int(a.card)) for a in result.awards]
    assert got == expected, f"awards {got} != expected {expected}"
    categories = [a.category for a in result.awards]
    for cat in set(categories):
        limit = rules.deck.jokers if cat is PointCategory.JOKER else 1
        assert categories.count(cat) <= limit, f"{cat} awarded {categories.count(cat)} times"
    assert sum(a.value for a in result.awards) <= rules.points_in_play

    points = [0] * parties
    for award in result.awards:
        points[award.party] += award.value
    assert tuple(points) == result.points_won
    assert result.pitcher is not None and result.pitcher >= 0
    pp = result.pitcher % parties
    changes = list(points)
    if rules.bidding.auction:
        bid = result.bid
        assert bid is not None and rules.bidding.minimum_bid <= bid
        moon = rules.moon is not None and bid == rules.moon.moon_bid
        assert result.moon == moon
        # a moon bid above the points in play (partnership smudge: 5) needs them all
        made = points[pp] >= min(bid, rules.points_in_play)
        if moon and rules.moon.moon_all_tricks and won[pp] != len(tricks):
            made = False
        assert result.made == made, f"made={result.made} with {points[pp]} points on a bid of {bid}"
        if moon:
            if made and rules.moon.moon_made is MoonMade.SCORE:
                changes[pp] = rules.moon.moon_score
            elif not made:
                changes[pp] = -rules.moon.moon_score
        elif not made:
            changes[pp] = -bid
        if rules.scoring.no_junk_points:
            changes = [c if p == pp else 0 for p, c in enumerate(changes)]
    else:
        assert result.bid is None and result.made is None and not result.moon
    assert tuple(changes) == result.score_changes
    before = state.results[-2].scores if len(state.results) > 1 else (0,) * parties
    assert tuple(b + c for b, c in zip(before, changes, strict=False)) == result.scores

    # the game ends at the hand limit at the latest; a winner by target has reached it
    if len(state.results) >= rules.win.max_hands:
        assert result.game_over
    if result.game_over and result.win_reason is not None:
        reason = result.win_reason.value
        if reason in ("reached-target", "maker-at-target", "most-at-target"):
            assert result.winner is not None and result.scores[result.winner] >= rules.win.target


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
