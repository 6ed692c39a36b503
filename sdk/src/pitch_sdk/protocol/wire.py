"""Conversions between the rules engine's values and the ``pitch.v1`` protocol messages.

The referee and the SDK's connection runner both translate through this one module, so a
bot and the referee can never disagree on how a card, an action or an observation is
encoded.  Decoding never trusts its input: a malformed message raises
:class:`~pitch_sdk.rules.ActionParseError` naming what was wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any

from pitch_sdk.proto.pitch.v1 import bot_pb2
from pitch_sdk.proto.pitch.v1 import game_pb2 as pb
from pitch_sdk.protocol.encoding import DENSE_LAYOUT, encode_observation
from pitch_sdk.rules import (
    CARDS,
    Action,
    ActionParseError,
    Bid,
    CallCard,
    Card,
    Choose,
    ChooseCards,
    DecisionKind,
    DeclareTrump,
    HandResult,
    MuckHand,
    Observation,
    Pass,
    PlayCard,
    PointAward,
    PointCategory,
    Ruleset,
    Suit,
    Trick,
    WinReason,
    parse_action,
)
from pitch_sdk.rules.actions import CALLS, COKE, KEEP_HAND, MUCK_HAND, PASS, PLAYS, Coke, bid, choose_cards
from pitch_sdk.rules.cards import cards_of
from pitch_sdk.rules.cardsets import CardSetChoices
from pitch_sdk.rules.events import (
    AllPassed,
    BidMade,
    Burned,
    Coked,
    Dealt,
    Event,
    Exchanged,
    HandScored,
    Looked,
    MuckShown,
    PartnerCalled,
    TrumpSet,
)
from pitch_sdk.rules.state import CardSetRule, Phase

_KIND_TO_PB = {
    DecisionKind.BID: pb.DECISION_KIND_BID,
    DecisionKind.DECLARE_TRUMP: pb.DECISION_KIND_DECLARE_TRUMP,
    DecisionKind.CALL_CARD: pb.DECISION_KIND_CALL_CARD,
    DecisionKind.CHOOSE_CARDS: pb.DECISION_KIND_CHOOSE_CARDS,
    DecisionKind.PLAY: pb.DECISION_KIND_PLAY,
    DecisionKind.CHOICE: pb.DECISION_KIND_CHOICE,
    DecisionKind.MUCK: pb.DECISION_KIND_MUCK,
}
_KIND_FROM_PB = {value: kind for kind, value in _KIND_TO_PB.items()}
_PHASE_TO_PB = {
    Phase.LOOK: pb.PHASE_LOOK,
    Phase.BIDDING: pb.PHASE_BIDDING,
    Phase.OFFER: pb.PHASE_OFFER,
    Phase.DISCARD: pb.PHASE_DISCARD,
    Phase.DECLARE_TRUMP: pb.PHASE_DECLARE_TRUMP,
    Phase.DECLARE_SUB_TRUMP: pb.PHASE_DECLARE_SUB_TRUMP,
    Phase.CALL_CARD: pb.PHASE_CALL_CARD,
    Phase.EXCHANGE: pb.PHASE_EXCHANGE,
    Phase.PASS_LEFTOVERS: pb.PHASE_PASS_LEFTOVERS,
    Phase.DEALER_PICK: pb.PHASE_DEALER_PICK,
    Phase.BURN: pb.PHASE_BURN,
    Phase.MUCK: pb.PHASE_MUCK,
    Phase.PLAY: pb.PHASE_PLAY,
    Phase.GAME_OVER: pb.PHASE_GAME_OVER,
}
_PHASE_FROM_PB: dict[int, Phase] = {value: phase for phase, value in _PHASE_TO_PB.items()}


def phase_from_pb(value: int) -> Phase:
    """The protocol enum back to a phase (an unknown one, from a newer referee, reads as
    bidding, as it always has)."""
    return _PHASE_FROM_PB.get(value, Phase.BIDDING)


# ----------------------------------------------------------------------------- cards
_CARD_MESSAGES = tuple(pb.Card(id=card, name=card.name) for card in CARDS)
_CARD_NAMES = tuple(card.name for card in CARDS)


def card_to_pb(card: int) -> pb.Card:
    """A card id as a ``Card`` message (id and name).

    The message is shared: callers put it into a parent message (which copies it) and
    never modify it."""
    return _CARD_MESSAGES[card]


def card_from_pb(message: pb.Card) -> Card:
    """A ``Card`` message back to a card, from its id, its name, or both when they agree.

    Proto3 cannot tell an id of 0 (the two of clubs) from no id, so a card with id 0 and
    a name is the card the name says.  An id and a name that disagree are refused rather
    than one of them silently preferred: a client whose ids and names differ has a bug
    (an off-by-one in its numbering, say) that it should hear about, not play through."""
    card_id, name = message.id, message.name
    if card_id >= len(CARDS):
        raise ActionParseError(f"card id {card_id} is out of range 0..53")
    if not name or name == _CARD_NAMES[card_id]:  # the referee's own cards: no parsing
        return CARDS[card_id]
    named = Card.parse(name)
    if card_id and named != CARDS[card_id]:
        raise ActionParseError(f"card id {card_id} is {CARDS[card_id]} but its name says {name!r}")
    return named


def cards_from_pb(messages: Iterable[pb.Card]) -> tuple[Card, ...]:
    """Several ``Card`` messages back to cards, as :func:`card_from_pb` reads each (the
    referee's own cards, named by their ids' names, take a shortcut: an observation
    holds a few dozen cards, and a call per card was a tenth of a bot's decoding)."""
    cards = []
    for message in messages:
        card_id, name = message.id, message.name
        if card_id < len(CARDS) and name == _CARD_NAMES[card_id]:
            cards.append(CARDS[card_id])
        else:
            cards.append(card_from_pb(message))
    return tuple(cards)


def cards_to_pb(cards: Sequence[int]) -> list[pb.Card]:
    """Several cards as messages, in the order given."""
    return [card_to_pb(c) for c in cards]


def suit_to_pb(suit: Suit | None) -> pb.Suit.ValueType:
    """A suit as the protocol enum (unset for ``None``)."""
    return pb.SUIT_UNSPECIFIED if suit is None else pb.Suit.ValueType(int(suit) + 1)


def suit_from_pb(value: int) -> Suit | None:
    """The protocol enum back to a suit (``None`` when unspecified)."""
    if value == pb.SUIT_UNSPECIFIED:
        return None
    if not 1 <= value <= 4:
        raise ActionParseError(f"unknown suit value {value}")
    return Suit(value - 1)


# ----------------------------------------------------------------------------- actions
@lru_cache(maxsize=8192)
def action_to_pb(action: Action) -> pb.Action:
    """An engine action as an ``Action`` message (structured field plus text form).

    Cached (actions are immutable and a game repeats them); callers must not modify the
    returned message."""
    message = pb.Action(kind=_KIND_TO_PB[action.kind], text=str(action))
    if isinstance(action, Pass):
        setattr(message, "pass", True)  # "pass" is a Python keyword
    elif isinstance(action, Bid):
        message.bid = action.amount
        message.double = action.double
    elif isinstance(action, Coke):
        message.coke = True
    elif isinstance(action, DeclareTrump):
        message.trump = suit_to_pb(action.suit)
    elif isinstance(action, PlayCard):
        message.play.CopyFrom(card_to_pb(action.card))
    elif isinstance(action, CallCard):
        message.call.CopyFrom(card_to_pb(action.card))
    elif isinstance(action, ChooseCards):
        message.cards.cards.extend(cards_to_pb(sorted(action.cards)))
    elif isinstance(action, Choose):
        message.yes = action.yes
    elif isinstance(action, MuckHand):
        message.muck = action.muck
    return message


def action_from_pb(message: pb.Action) -> Action:
    """An ``Action`` message back to an engine action (``choice`` first, else ``text``)."""
    which = message.WhichOneof("choice")
    if which is None:
        if not message.text:
            raise ActionParseError("the action is empty: set one of its choice fields or its text")
        return parse_action(message.text)
    if which == "pass":
        return PASS
    if which == "bid":
        return bid(message.bid, message.double)
    if which == "coke":
        return COKE
    if which == "trump":
        suit = suit_from_pb(message.trump)
        if suit is None:
            raise ActionParseError("trump action without a suit")
        return DeclareTrump(suit)
    if which == "play":
        return PLAYS[card_from_pb(message.play)]
    if which == "call":
        return CALLS[card_from_pb(message.call)]
    if which == "cards":
        return choose_cards(cards_from_pb(message.cards.cards))
    if which == "muck":
        return MUCK_HAND if message.muck else KEEP_HAND
    return Choose(message.yes)


def kind_to_pb(kind: DecisionKind) -> pb.DecisionKind.ValueType:
    """A decision kind as the protocol enum."""
    return _KIND_TO_PB[kind]


def kind_from_pb(value: int) -> DecisionKind:
    """The protocol enum back to a decision kind."""
    try:
        return _KIND_FROM_PB[value]  # type: ignore[index]
    except KeyError:
        raise ActionParseError(f"unknown decision kind {value}") from None


def card_set_actions(rule: pb.CardSetRule) -> Sequence[Action]:
    """Every ``ChooseCards`` a card-set constraint allows (for requests sent without a
    list), as a lazy sequence: the constraint may admit millions of sets."""
    return CardSetChoices(CardSetRule(cards_from_pb(rule.allowed), cards_from_pb(rule.required),
                                      rule.min_count, rule.max_count))


def first_legal_decision(request: bot_pb2.DecisionRequest) -> bot_pb2.Decision:
    """The answer naming the request's first legal action (the first card set a constraint
    admits when the request lists none): what a placeholder player, which never thinks,
    plays."""
    if request.legal_actions or not request.HasField("card_set"):
        return bot_pb2.Decision(match_id=request.match_id, decision_id=request.decision_id, legal_action_index=0)
    return bot_pb2.Decision(match_id=request.match_id, decision_id=request.decision_id,
                            action=action_to_pb(card_set_actions(request.card_set)[0]))


def card_set_rule_to_pb(rule: CardSetRule) -> pb.CardSetRule:
    """A card-set constraint as a message."""
    return pb.CardSetRule(allowed=cards_to_pb(rule.allowed), required=cards_to_pb(rule.required),
                          min_count=rule.min_count, max_count=rule.max_count)


# ----------------------------------------------------------------------------- results
@lru_cache(maxsize=1024)
def hand_result_to_pb(result: HandResult) -> pb.HandResult:
    """A hand result as a message (cached: every observation of the next hand carries it;
    callers must not modify the returned message)."""
    return pb.HandResult(
        hand_number=result.hand_number, dealer=result.dealer, pitcher=result.pitcher or 0,
        bid=result.bid or 0, trump=suit_to_pb(result.trump),
        awards=[pb.PointAward(category=a.category.value, value=a.value, party=a.party,
                              card=None if a.card is None else card_to_pb(a.card)) for a in result.awards],
        pips=list(result.pips), tricks_won=list(result.tricks_won), points_won=list(result.points_won),
        made=bool(result.made), moon=result.moon, score_changes=list(result.score_changes),
        scores=list(result.scores), game_over=result.game_over, winner=result.winner or 0,
        has_winner=result.winner is not None,
        win_reason="" if result.win_reason is None else result.win_reason.value,
        doubled=result.doubled, sides=list(result.sides or ()),
    )


def hand_result_from_pb(message: pb.HandResult, auction: bool = True) -> HandResult:
    """A hand result message back to the engine record."""
    return HandResult(
        hand_number=message.hand_number, dealer=message.dealer, pitcher=message.pitcher,
        bid=message.bid if auction else None, trump=suit_from_pb(message.trump),
        awards=tuple(PointAward(PointCategory(a.category), a.value, a.party,
                                card_from_pb(a.card) if a.HasField("card") else None) for a in message.awards),
        pips=tuple(message.pips), tricks_won=tuple(message.tricks_won), points_won=tuple(message.points_won),
        made=message.made if auction else None, moon=message.moon, score_changes=tuple(message.score_changes),
        scores=tuple(message.scores), winner=message.winner if message.has_winner else None,
        win_reason=WinReason(message.win_reason) if message.win_reason else None, game_over=message.game_over,
        doubled=message.doubled, sides=tuple(message.sides) or None,
    )


@lru_cache(maxsize=1024)
def play_to_pb(seat: int, card: int) -> pb.PlayRecord:
    """A card played by a seat (cached; callers must not modify the returned message)."""
    return pb.PlayRecord(seat=seat, card=card_to_pb(card))


@lru_cache(maxsize=1024)
def bid_to_pb(seat: int, amount: int) -> pb.BidRecord:
    """A bid (0: a pass) by a seat (cached; callers must not modify the returned message)."""
    return pb.BidRecord(seat=seat, amount=amount)


def seat_cards_to_pb(seat: int, cards: Sequence[int]) -> pb.SeatCards:
    """Cards a seat showed the table (burned cards, a coke hand)."""
    return pb.SeatCards(seat=seat, cards=cards_to_pb(sorted(cards)))


@lru_cache(maxsize=4096)
def trick_to_pb(trick: Trick) -> pb.Trick:
    """A completed trick as a message (cached: every later observation of the hand carries
    it; callers must not modify the returned message)."""
    return pb.Trick(leader=trick.leader, winner=trick.winner, plays=[play_to_pb(s, c) for s, c in trick.plays])


def ruleset_to_pb(rules: Ruleset) -> pb.Ruleset:
    """A ruleset as a message: the full JSON plus a few facts for bots that skip JSON."""
    return pb.Ruleset(name=rules.name, json=rules.to_json(), players=rules.players, parties=rules.parties,
                      hand_size=rules.deal.hand_size, target=rules.win.target)


def ruleset_from_pb(message: pb.Ruleset) -> Ruleset:
    """The ruleset a message carries (its JSON is the authority)."""
    return _ruleset_from_json(message.json)


@lru_cache(maxsize=64)
def _ruleset_from_json(text: str) -> Ruleset:
    """A ruleset from its JSON, built once (rulesets are frozen; a bot is sent the same
    few again with every match and seat, and building one took about a millisecond)."""
    return Ruleset.from_json(text)


# ----------------------------------------------------------------------------- observations
# The referee builds an observation for every decision, and most of its lists (the scores,
# the bids, the seats that looked, ...) are the same from one decision to the next.  Each
# such list is therefore encoded once, as a serialized ``Observation`` holding only that
# field, and cached by value; protobuf parses concatenated messages as their merge
# (repeated fields append in order), so the encoded observation is the concatenation of
# such parts.  The lists that change at nearly every decision (a seat's hand, the trick
# being played, the tricks so far) would miss such a cache more often than not on fresh
# deals, so they are joined from cached encodings of their items instead (a card, a play,
# a finished trick).  The result parses to the message built field by field.
_OBSERVATION_LISTS: dict[str, Callable[[Any], list[Any]]] = {
    "scores": list,
    "hand_sizes": list,
    "bids": lambda bids: [bid_to_pb(seat, amount or 0) for seat, amount in bids],
    "looked": list,
    "burned": lambda shown: [seat_cards_to_pb(seat, cards) for seat, cards in shown],
    "cokes": lambda shown: [seat_cards_to_pb(seat, cards) for seat, cards in shown],
    "bid_doubles": list,
}
_OBSERVATION_ITEMS: dict[str, Callable[[Any], Any]] = {
    "hand": card_to_pb,
    "current_trick": lambda play: play_to_pb(*play),
    "tricks": trick_to_pb,
    "my_discards": card_to_pb,
    "my_draws": card_to_pb,
}


@lru_cache(maxsize=16384)
def _observation_list(field: str, values: tuple[Any, ...]) -> bytes:
    """A serialized ``Observation`` with only the repeated ``field`` set, to ``values``."""
    message = pb.Observation()
    getattr(message, field).extend(_OBSERVATION_LISTS[field](values))
    return message.SerializeToString()


def exchange_records_to_pb(exchanged: Sequence[tuple[int, int]],
                           face_up: Sequence[tuple[Card, ...]]) -> list[pb.ExchangeRecord]:
    """``Observation.exchanged`` as messages, each with its discards where they lie face up
    (``face_up`` is ``Observation.face_up_discards``: empty, or parallel)."""
    shown = face_up or ((),) * len(exchanged)
    return [pb.ExchangeRecord(seat=seat, count=count, discarded=cards_to_pb(cards))
            for (seat, count), cards in zip(exchanged, shown, strict=True)]


@lru_cache(maxsize=4096)
def _observation_exchanged(exchanged: tuple[tuple[int, int], ...],
                           face_up: tuple[tuple[Card, ...], ...]) -> bytes:
    """A serialized ``Observation`` with only ``exchanged`` set: kept out of the lists above
    because its records join two of the observation's fields."""
    return pb.Observation(exchanged=exchange_records_to_pb(exchanged, face_up)).SerializeToString()


@lru_cache(maxsize=4096)
def _observation_item(field: str, value: Any) -> bytes:
    """A serialized ``Observation`` whose repeated ``field`` holds only ``value``."""
    message = pb.Observation()
    getattr(message, field).append(_OBSERVATION_ITEMS[field](value))
    return message.SerializeToString()


@lru_cache(maxsize=1024)
def _observation_last_result(result: HandResult) -> bytes:
    """A serialized ``Observation`` with only ``last_result`` set."""
    return pb.Observation(last_result=hand_result_to_pb(result)).SerializeToString()


@lru_cache(maxsize=16384)
def _observation_scalars(viewer: int, players: int, parties: int, hand_number: int, dealer: int, phase: Phase,
                         to_move: int, pitcher: int | None, bid: int | None, trump: Suit | None, stock_size: int,
                         sub_trump: Suit | None, doubled: bool, hand_hidden: bool, partner: int | None,
                         called_card: Card | None, offered: Card | None) -> bytes:
    """A serialized ``Observation`` with only its scalar fields set: within a hand a seat's
    scalars barely change between its decisions (none do while tricks are played)."""
    scalars = pb.Observation(
        seat=viewer, players=players, parties=parties, hand_number=hand_number, dealer=dealer,
        phase=_PHASE_TO_PB[phase], to_move=max(to_move, 0), has_pitcher=pitcher is not None, pitcher=pitcher or 0,
        bid=bid or 0, trump=suit_to_pb(trump), stock_size=stock_size, sub_trump=suit_to_pb(sub_trump),
        doubled=doubled, hand_hidden=hand_hidden, has_partner=partner is not None, partner=partner or 0)
    if called_card is not None:
        scalars.called_card.CopyFrom(card_to_pb(called_card))
    if offered is not None:
        scalars.offered.CopyFrom(card_to_pb(offered))
    return scalars.SerializeToString()


def observation_bytes(observation: Observation, with_tensor: bool = True) -> bytes:
    """A seat's observation as an encoded ``Observation``, with the dense tensor encoding if
    asked: its scalars encoded together, its lists joined from cached parts (above)."""
    parts = [_observation_scalars(
        observation.viewer, observation.players, observation.parties, observation.hand_number, observation.dealer,
        observation.phase, observation.to_move, observation.pitcher, observation.bid, observation.trump,
        observation.stock_size, observation.sub_trump, observation.doubled, observation.hand_hidden,
        observation.partner, observation.called_card, observation.offered)]
    # An empty list encodes to nothing: most of them are empty most of the time (exchanges,
    # burns, cokes...), and skipping them saves a cache look-up each.
    parts += [_observation_list(field, values) for field in _OBSERVATION_LISTS
              if (values := getattr(observation, field))]
    if observation.exchanged:  # with Kentucky's face-up discards beside the counts
        parts.append(_observation_exchanged(observation.exchanged, observation.face_up_discards))
    parts += [_observation_item(field, value) for field in _OBSERVATION_ITEMS for value in getattr(observation, field)]
    if observation.last_result is not None:
        parts.append(_observation_last_result(observation.last_result))
    if with_tensor:
        parts.append(pb.Observation(tensor=pb.ObservationTensor(
            layout=DENSE_LAYOUT, values=encode_observation(observation))).SerializeToString())
    return b"".join(parts)


def observation_to_pb(observation: Observation, with_tensor: bool = True) -> pb.Observation:
    """A seat's observation as a message, with the dense tensor encoding if asked."""
    return pb.Observation.FromString(observation_bytes(observation, with_tensor))


# ----------------------------------------------------------------------------- events
def event_to_pb(item: Event | tuple[int, Action], viewer: int, game: int) -> bot_pb2.MatchEvent:
    """One engine event (or a card play, as ``(seat, PlayCard)``) as ``viewer`` (a seat, or
    a negative id for a spectator) may see it: a deal shows only the viewer's own hand, and
    none in a blind deal; an exchange shows counts, and its discards only where they lie
    face up (seed 004's Kentucky; a seat's own cards reach it in its observation);
    everything else is public."""
    number = game + 1
    if isinstance(item, Dealt):
        hand = cards_to_pb(cards_of(item.hands[viewer])) if viewer >= 0 and not item.blind else []
        return bot_pb2.MatchEvent(game=number, hand_dealt=bot_pb2.HandDealt(
            hand_number=item.hand_number, dealer=item.dealer, hand=hand))
    if isinstance(item, BidMade):
        return bot_pb2.MatchEvent(game=number, bid=pb.BidRecord(seat=item.seat, amount=item.amount,
                                                                double=item.double))
    if isinstance(item, AllPassed):
        if item.shown:
            return bot_pb2.MatchEvent(game=number, all_passed=bot_pb2.AllPassed(
                dealer=item.dealer, shown=[seat_cards_to_pb(s, cards_of(h)) for s, h in enumerate(item.shown)]))
        return bot_pb2.MatchEvent(game=number, all_passed_dealer=item.dealer)
    if isinstance(item, TrumpSet):
        return bot_pb2.MatchEvent(game=number, trump=bot_pb2.TrumpChosen(
            seat=item.seat, suit=suit_to_pb(item.suit), pitched=item.pitched, sub=item.sub))
    if isinstance(item, Exchanged):
        return bot_pb2.MatchEvent(game=number, exchange=pb.ExchangeRecord(
            seat=item.seat, count=item.discarded.bit_count(), drawn=item.drawn.bit_count(),
            discarded=cards_to_pb(cards_of(item.discarded)) if item.face_up else []))
    if isinstance(item, Looked):
        return bot_pb2.MatchEvent(game=number, looked=bot_pb2.SeatLooked(seat=item.seat, looked=item.looked))
    if isinstance(item, Coked):
        return bot_pb2.MatchEvent(game=number, coke=seat_cards_to_pb(item.seat, cards_of(item.cards)))
    if isinstance(item, PartnerCalled):
        return bot_pb2.MatchEvent(game=number, partner_called=bot_pb2.PartnerCalled(
            seat=item.seat, card=card_to_pb(item.card)))
    if isinstance(item, Burned):
        return bot_pb2.MatchEvent(game=number, burned=seat_cards_to_pb(item.seat, cards_of(item.cards)))
    if isinstance(item, Trick):
        return bot_pb2.MatchEvent(game=number, trick=trick_to_pb(item))
    if isinstance(item, HandScored):
        return bot_pb2.MatchEvent(game=number, hand_result=hand_result_to_pb(item.result))
    if isinstance(item, MuckShown):
        return bot_pb2.MatchEvent(game=number, muck_shown=bot_pb2.MuckShown(
            seat=item.seat, cards=cards_to_pb(cards_of(item.cards)), redeal=item.redeal))
    seat, action = item
    assert isinstance(action, PlayCard)
    return bot_pb2.MatchEvent(game=number, play=play_to_pb(seat, action.card))
