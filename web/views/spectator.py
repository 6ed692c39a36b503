"""The spectator's table: the public events of a match folded into what a watcher may see.

Pure (no I/O), so the page, the event stream and the tests share one reading of the events.
The referee's spectator stream carries no hidden card (a deal arrives without hands, an
exchange as counts), and nothing here adds one: the model only ever holds cards some event
showed the whole table (plays, tricks, burned or coke cards, hands shown after an all-pass,
mucked hands shown, a called card, scoring cards), and hidden hands are counts. :meth:`SpectatorTable.apply`
returns each event as a JSON-ready dict for the browser; :meth:`SpectatorTable.to_dict`
is the table after it, which the browser draws as it is (no second copy of these rules in
JavaScript)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pitch_sdk.proto.pitch.v1 import bot_pb2
from pitch_sdk.proto.pitch.v1 import game_pb2 as pb
from pitch_sdk.protocol import wire
from pitch_sdk.rules import Ruleset


def card_name(message: pb.Card) -> str:
    """A card message's short name (``10H``, ``BJ``), checked through the SDK's decoding."""
    return wire.card_from_pb(message).name


def suit_letter(value: int) -> str | None:
    """A suit enum as its letter (``C``, ``D``, ``H``, ``S``), ``None`` when unset."""
    suit = wire.suit_from_pb(value)
    return None if suit is None else suit.letter


@dataclass
class SpectatorTable:
    """Everything public about a match so far: seats and names, the game and hand, dealer,
    auction, trump, the trick in play and the last one, tricks won, how many cards each
    seat holds, the points that fell in each hand of this game, scores and games won."""

    names: list[str]
    parties: int
    hand_size: int
    game: int = 0
    hand: int = 0
    dealer: int | None = None
    bids: list[dict[str, Any]] = field(default_factory=list)
    trump: str | None = None
    sub_trump: str | None = None
    pitcher: int | None = None
    called: str | None = None
    trick: list[dict[str, Any]] = field(default_factory=list)
    last_trick: dict[str, Any] | None = None
    tricks_won: list[int] = field(default_factory=list)
    held: list[int] = field(default_factory=list)
    shown: list[list[str]] = field(default_factory=list)
    hands: list[dict[str, Any]] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    games_won: list[int] = field(default_factory=list)
    events: int = 0
    result: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        players = len(self.names)
        self.tricks_won = [0] * players
        self.held = [0] * players
        self.shown = [[] for _ in range(players)]
        self.scores = [0] * self.parties
        self.games_won = [0] * self.parties

    @classmethod
    def of(cls, ruleset: Ruleset, names: list[str]) -> SpectatorTable:
        """An empty table for ``ruleset`` with the bots' display names by seat."""
        if len(names) != ruleset.players:
            raise ValueError(f"{ruleset.players} seats but {len(names)} names")
        return cls(list(names), ruleset.parties, ruleset.deal.hand_size)

    @property
    def players(self) -> int:
        """Number of seats."""
        return len(self.names)

    def party_names(self) -> list[str]:
        """Each party's label: its seats' names (partners sit alternately)."""
        return [" & ".join(self.names[s] for s in range(party, self.players, self.parties))
                for party in range(self.parties)]

    # ------------------------------------------------------------------ folding events
    def apply(self, event: bot_pb2.MatchEvent) -> dict[str, Any]:
        """Fold one public event into the table; the event as the browser shows it: its
        kind, game, seat and public cards where it has them, and a line of text."""
        self.events += 1
        kind = event.WhichOneof("event")
        if event.game != self.game:
            self._new_game(event.game)
        described: dict[str, Any] = {"n": self.events, "game": event.game, "kind": kind or "unknown"}
        handler = _HANDLERS.get(kind or "")
        if handler is None:  # an event a newer referee sends: counted, shown by name only
            described["text"] = f"({kind or 'unknown event'})"
            return described
        described.update(handler(self, event))
        return described

    def finish(self, result: bot_pb2.MatchResult) -> dict[str, Any]:
        """The match's result (the stream's last message) as the browser shows it."""
        parties = self.party_names()
        wins = list(result.party_wins)
        if result.forfeited:
            text = f"{parties[result.forfeiting_party]} forfeited"
        elif not result.completed:
            text = "the referee aborted the match"
        else:
            best = max(wins, default=0)
            leaders = [parties[p] for p, won in enumerate(wins) if won == best]
            text = f"{leaders[0]} won the match" if len(leaders) == 1 else "the match was drawn"
        self.result = {"kind": "result", "text": text, "party_wins": wins, "completed": result.completed,
                       "forfeited": result.forfeited,
                       "games": [{"scores": list(g.scores), "winner": g.winner if g.has_winner else None,
                                  "hands": g.hands, "reason": g.win_reason} for g in result.games]}
        return self.result

    def to_dict(self) -> dict[str, Any]:
        """The table as JSON-ready data (only what the events showed everybody)."""
        return {"names": self.names, "parties": self.party_names(), "game": self.game, "hand": self.hand,
                "dealer": self.dealer, "bids": self.bids, "trump": self.trump, "sub_trump": self.sub_trump,
                "pitcher": self.pitcher, "called": self.called, "trick": self.trick,
                "last_trick": self.last_trick, "tricks_won": self.tricks_won, "held": self.held,
                "shown": self.shown, "hands": self.hands, "scores": self.scores, "games_won": self.games_won,
                "events": self.events, "result": self.result}

    def _new_game(self, game: int) -> None:
        self.game = game
        self.hand = 0
        self.hands = []
        self.scores = [0] * self.parties
        self._new_hand(None)

    def _new_hand(self, dealer: int | None) -> None:
        self.dealer = dealer
        self.bids = []
        self.trump = self.sub_trump = None
        self.pitcher = None
        self.called = None
        self.trick = []
        self.last_trick = None
        self.tricks_won = [0] * self.players
        self.held = [self.hand_size if dealer is not None else 0] * self.players
        self.shown = [[] for _ in range(self.players)]

    def _name(self, seat: int) -> str:
        return self.names[seat] if 0 <= seat < self.players else f"seat {seat}"

    def _take(self, seat: int, count: int) -> None:
        if 0 <= seat < self.players:
            self.held[seat] = max(0, self.held[seat] - count)

    def _dealt(self, event: bot_pb2.MatchEvent) -> dict[str, Any]:
        dealt = event.hand_dealt
        self.hand = dealt.hand_number
        self._new_hand(dealt.dealer)
        return {"seat": dealt.dealer, "text": f"game {event.game}, hand {dealt.hand_number}: "
                                              f"{self._name(dealt.dealer)} deals"}

    def _bid(self, event: bot_pb2.MatchEvent) -> dict[str, Any]:
        bid = event.bid
        self.bids.append({"seat": bid.seat, "amount": bid.amount, "double": bid.double})
        said = "passes" if bid.amount == 0 else f"bids {bid.amount}" + (f" for {2 * bid.amount}" if bid.double else "")
        return {"seat": bid.seat, "amount": bid.amount, "text": f"{self._name(bid.seat)} {said}"}

    def _trump(self, event: bot_pb2.MatchEvent) -> dict[str, Any]:
        trump = event.trump
        letter = suit_letter(trump.suit)
        if trump.sub:
            self.sub_trump = letter
        else:
            self.trump = letter
            self.pitcher = trump.seat
        what = "sub-trump" if trump.sub else "trump"
        how = "pitches" if trump.pitched else "names"
        return {"seat": trump.seat, "suit": letter, "text": f"{self._name(trump.seat)} {how} {what} {letter}"}

    def _exchange(self, event: bot_pb2.MatchEvent) -> dict[str, Any]:
        exchange = event.exchange
        if 0 <= exchange.seat < self.players:
            self.held[exchange.seat] = max(0, self.held[exchange.seat] - exchange.count + exchange.drawn)
        return {"seat": exchange.seat, "count": exchange.count, "drawn": exchange.drawn,
                "text": f"{self._name(exchange.seat)} discards {exchange.count}, draws {exchange.drawn}"}

    def _play(self, event: bot_pb2.MatchEvent) -> dict[str, Any]:
        play = event.play
        card = card_name(play.card)
        if len(self.trick) >= self.players:  # the previous trick's event did not come: start afresh
            self.trick = []
        self.trick.append({"seat": play.seat, "card": card})
        self._take(play.seat, 1)
        return {"seat": play.seat, "card": card, "text": f"{self._name(play.seat)} plays {card}"}

    def _trick(self, event: bot_pb2.MatchEvent) -> dict[str, Any]:
        trick = event.trick
        plays = [{"seat": p.seat, "card": card_name(p.card)} for p in trick.plays]
        self.last_trick = {"leader": trick.leader, "winner": trick.winner, "plays": plays}
        self.trick = []
        if 0 <= trick.winner < self.players:
            self.tricks_won[trick.winner] += 1
        return {"seat": trick.winner, "cards": [p["card"] for p in plays],
                "text": f"{self._name(trick.winner)} takes the trick"}

    def _hand_result(self, event: bot_pb2.MatchEvent) -> dict[str, Any]:
        result = event.hand_result
        awards = [{"category": a.category, "value": a.value, "party": a.party,
                   "card": card_name(a.card) if a.HasField("card") else None} for a in result.awards]
        self.scores = list(result.scores)
        self.hands.append({"hand": result.hand_number, "pitcher": result.pitcher, "bid": result.bid,
                           "made": result.made, "awards": awards, "changes": list(result.score_changes),
                           "scores": list(result.scores)})
        text = f"hand {result.hand_number} scored: " + ", ".join(str(s) for s in result.scores)
        if result.game_over:
            if result.has_winner and 0 <= result.winner < self.parties:
                self.games_won[result.winner] += 1
                text += f"; {self.party_names()[result.winner]} win game {event.game}"
            else:
                text += f"; game {event.game} is drawn"
        return {"scores": list(result.scores), "awards": awards, "game_over": result.game_over, "text": text}

    def _all_passed(self, event: bot_pb2.MatchEvent) -> dict[str, Any]:
        if event.WhichOneof("event") == "all_passed":
            dealer = event.all_passed.dealer
            for seat_cards in event.all_passed.shown:
                if 0 <= seat_cards.seat < self.players:
                    self.shown[seat_cards.seat] = [card_name(c) for c in seat_cards.cards]
        else:
            dealer = event.all_passed_dealer
        return {"seat": dealer, "text": "everybody passed: a new deal"}

    def _looked(self, event: bot_pb2.MatchEvent) -> dict[str, Any]:
        looked = event.looked
        return {"seat": looked.seat,
                "text": f"{self._name(looked.seat)} {'looks at its hand' if looked.looked else 'bids blind'}"}

    def _shown_cards(self, event: bot_pb2.MatchEvent) -> dict[str, Any]:
        kind = event.WhichOneof("event")
        seat_cards = event.coke if kind == "coke" else event.burned
        cards = [card_name(c) for c in seat_cards.cards]
        if 0 <= seat_cards.seat < self.players:
            self.shown[seat_cards.seat] = self.shown[seat_cards.seat] + cards
        if kind == "burned":
            self._take(seat_cards.seat, len(cards))
        verb = "declares coke, showing" if kind == "coke" else "burns"
        return {"seat": seat_cards.seat, "cards": cards, "text": f"{self._name(seat_cards.seat)} {verb} "
                                                                 + " ".join(cards)}

    def _muck_shown(self, event: bot_pb2.MatchEvent) -> dict[str, Any]:
        """A mucked hand shown to the table (seed 004): after the hand, or with a re-deal."""
        muck = event.muck_shown
        cards = [card_name(c) for c in muck.cards]
        if 0 <= muck.seat < self.players:
            self.shown[muck.seat] = cards
        verb = "asked for a re-deal, showing" if muck.redeal else "had mucked"
        return {"seat": muck.seat, "cards": cards, "text": f"{self._name(muck.seat)} {verb} " + " ".join(cards)}

    def _partner_called(self, event: bot_pb2.MatchEvent) -> dict[str, Any]:
        called = event.partner_called
        self.called = card_name(called.card)
        return {"seat": called.seat, "card": self.called, "text": f"{self._name(called.seat)} calls {self.called}"}


_HANDLERS = {
    "hand_dealt": SpectatorTable._dealt,
    "bid": SpectatorTable._bid,
    "trump": SpectatorTable._trump,
    "exchange": SpectatorTable._exchange,
    "play": SpectatorTable._play,
    "trick": SpectatorTable._trick,
    "hand_result": SpectatorTable._hand_result,
    "all_passed_dealer": SpectatorTable._all_passed,
    "all_passed": SpectatorTable._all_passed,
    "looked": SpectatorTable._looked,
    "coke": SpectatorTable._shown_cards,
    "burned": SpectatorTable._shown_cards,
    "partner_called": SpectatorTable._partner_called,
    "muck_shown": SpectatorTable._muck_shown,
}
