"""Property 5: no observation or visible log event shows a seat another seat's hidden cards.

Every ``Card`` found anywhere in ``observe(state, seat)`` (walking dataclasses, tuples and
tricks recursively) must be the seat's own (current hand, own discards and draws) or a
card played publicly in the current or last scored hand (or a discard laid face up, in
Kentucky seven-point); spectators see no hidden card at all; ``FULL_VIEW`` sees every
hand.  ``visible_event(event, seat)`` is checked over the whole history against what the
seat could know at that event.
"""

from __future__ import annotations

import contextlib
import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st
from pitch_props import (
    PRESET_NAMES,
    VARIANTS,
    build_variant,
    capped,
    checked_game,
    hand_events,
    random_rulesets,
    trick_of,
)

from pitch_sdk.rules import (
    CARDS,
    FULL_VIEW,
    SPECTATOR,
    Card,
    CardParseError,
    GameState,
    Phase,
    Trick,
    observe,
    preset,
)
from pitch_sdk.rules.events import AllPassed, Burned, Coked, Dealt, Exchanged, HandScored, MuckShown, PartnerCalled
from pitch_sdk.rules.observation import visible_event

SEEDS = st.integers(0, 2**32 - 1)
PRESET_GAMES = 80
COMBO_GAMES = 40

RULES = st.one_of(
    st.sampled_from(PRESET_NAMES).map(preset),
    st.sampled_from(VARIANTS).map(lambda v: build_variant(*v)),
)


def cards_in(value, out: set[int]) -> set[int]:
    """Every card in an observation: ``Card`` values, and the plays of ``Trick`` records
    (which hold plain card ids)."""
    if isinstance(value, Card):
        out.add(int(value))
    elif isinstance(value, Trick):
        out.update(card for _, card in value.plays)
        cards_in(value.leader, out)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            cards_in(getattr(value, f.name), out)
    elif isinstance(value, (tuple, list, frozenset, set)):
        for item in value:
            cards_in(item, out)
    elif isinstance(value, dict):
        for item in value.values():
            cards_in(item, out)
    return out


def cards_named(value, out: set[int]) -> set[int]:
    """Every card named in JSON-ready event data (card names inside strings)."""
    if isinstance(value, str):
        for word in value.split():
            with contextlib.suppress(CardParseError):
                out.add(int(Card.parse(word)))
    elif isinstance(value, dict):
        for item in value.values():
            cards_named(item, out)
    elif isinstance(value, (list, tuple)):
        for item in value:
            cards_named(item, out)
    return out


def public_cards(state: GameState) -> set[int]:
    """Cards played to tricks in the current hand and in the last scored hand."""
    history = state.history
    last_scored = max((i for i, e in enumerate(history) if isinstance(e, HandScored)), default=0)
    start = max((i for i, e in enumerate(history[:last_scored + 1]) if isinstance(e, Dealt)), default=0)
    public = {card for _, card in state.trick}
    for event in history[start:]:
        trick = trick_of(event)
        if trick is not None:
            public.update(card for _, card in trick.plays)
        elif isinstance(event, (Burned, Coked, PartnerCalled)):
            public.update(shown_cards(event))
        elif face_up(state, event):
            public.update(c for c in range(54) if event.discarded >> c & 1)
        elif type(event).__name__ == "CardPlayed":
            public.add(event.card)
    return public


def shown_cards(event) -> set[int]:
    """Cards an event shows the whole table: burned cards (seed 004 scores them), a coke
    hand (the Scranton rule: "must show his six cards to all players"), the called card, a
    mucked hand (seed 004: "The cards can be checked by the other players after the hand
    has been played"; pitch_props.check_mucks_shown checks it comes after the hand)."""
    if isinstance(event, PartnerCalled):
        return {event.card}
    return {c for c in range(54) if event.cards >> c & 1}


def face_up(state: GameState, event) -> bool:
    """An exchange whose discards lie face up for everyone (seed 004's Kentucky: "players
    discard non-trump cards face up in the center of the table"); only where the ruleset
    says so, whatever the event claims."""
    return isinstance(event, Exchanged) and event.face_up and state.rules.trump.discards_face_up


def names(cards) -> list[str]:
    return sorted(CARDS[c].name for c in cards)


def check_observations(state: GameState) -> None:
    public = public_cards(state)
    full = observe(state, FULL_VIEW)
    assert full.hands == tuple(state.hand(seat) for seat in range(state.players))
    assert full.hand == () and full.legal_actions == ()
    spectator = observe(state, SPECTATOR)
    assert spectator.hand == () and spectator.hands is None and spectator.legal_actions == ()
    assert spectator.my_discards == () and spectator.my_draws == ()
    leaked = cards_in(spectator, set()) - public
    assert not leaked, f"a spectator sees hidden cards {names(leaked)}"
    exchanges = [e for e in hand_events(state.history) if isinstance(e, Exchanged)]
    for seat in range(state.players):
        obs = observe(state, seat)
        assert obs.hands is None
        # seed 004 (Abacos, blind smudge): a seat that has not looked bids without its hand
        blind = not state.looked[seat] and state.phase in (Phase.LOOK, Phase.BIDDING)
        assert obs.hand_hidden is blind
        assert obs.hand == (() if blind else state.hand(seat))
        own = set(map(int, obs.hand))
        for event in exchanges:
            if event.seat == seat:
                own |= {c for c in range(54) if (event.discarded | event.drawn) >> c & 1}
        if seat == state.to_move and state.phase is Phase.DEALER_PICK:  # nine-five: sees the stock
            own |= set(state.stock)
        if seat == state.to_move and state.phase is Phase.CALL_CARD:  # naming a card shows nothing
            own |= {int(a.card) for a in obs.legal_actions}
        if seat == state.to_move and state.phase is Phase.OFFER:  # man-o-war: looks at a lost card
            own.add(state.offered)
        leaked = cards_in(obs, set()) - own - public
        assert not leaked, f"seat {seat} sees other seats' cards {names(leaked)}"
        if seat == state.to_move and not state.is_over:
            assert list(obs.legal_actions) == state.legal_actions()
        else:
            assert obs.legal_actions == ()


def check_log_visibility(state: GameState) -> None:
    """Sweep the history once per viewer, tracking what that viewer may know."""
    for viewer in [*range(state.players), SPECTATOR]:
        known: set[int] = set()
        for event in state.history:
            if isinstance(event, Dealt):
                known = set() if viewer < 0 else {c for c in range(54) if event.hands[viewer] >> c & 1}
            elif isinstance(event, Exchanged) and event.seat == viewer:
                known |= {c for c in range(54) if (event.discarded | event.drawn) >> c & 1}
            elif face_up(state, event):  # the discards only: the cards drawn stay hidden
                known |= {c for c in range(54) if event.discarded >> c & 1}
            elif (trick := trick_of(event)) is not None:
                known |= {card for _, card in trick.plays}
            elif type(event).__name__ == "CardPlayed":
                known.add(event.card)
            elif isinstance(event, (Burned, Coked, PartnerCalled, MuckShown)):
                known |= shown_cards(event)
            elif isinstance(event, AllPassed):  # hotshot: "the cards are shown face up"
                known |= {c for hand in event.shown for c in range(54) if hand >> c & 1}
            data = visible_event(event, viewer)
            shown = cards_named(data, set()) if data is not None else set()
            leaked = shown - known
            assert not leaked, f"viewer {viewer} sees {names(leaked)} in {type(event).__name__}"
    for event in state.history:
        assert visible_event(event, FULL_VIEW) == event.to_dict()


def _game(rules, seed, action_seed, dealer):
    state, _ = checked_game(rules, seed, action_seed, dealer=dealer % rules.players,
                            legality=False, scoring=False, on_step=check_observations)
    check_log_visibility(state)


@settings(max_examples=PRESET_GAMES)
@given(rules=RULES, seed=SEEDS, action_seed=SEEDS, dealer=st.integers(0, 7), hands=st.integers(1, 3))
def test_observations_never_leak_hidden_cards(rules, seed, action_seed, dealer, hands):
    _game(capped(rules, hands), seed, action_seed, dealer)


@settings(max_examples=COMBO_GAMES)
@given(rules=random_rulesets(), seed=SEEDS, action_seed=SEEDS, dealer=st.integers(0, 7))
def test_observations_never_leak_hidden_cards_random_options(rules, seed, action_seed, dealer):
    _game(capped(rules, 3), seed, action_seed, dealer)
