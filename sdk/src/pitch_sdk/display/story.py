"""One game told hand by hand, for ``pitch-bot watch``: deal, bids, trump, tricks, points.

The story is read back from the game's event log (the match record), with every hand
visible, so what is shown is exactly what the engine did.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from pitch_sdk.display.render import SUIT_SYMBOLS, card_text, hand_text, party_labels, seat_labels
from pitch_sdk.rules import GameState, HandResult, PointCategory, Ruleset, Suit, Trick
from pitch_sdk.rules.cards import cards_of
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
    PartnerCalled,
    TrumpSet,
)
from pitch_sdk.rules.tables import PIPS2

_CATEGORY_NAMES = {category: category.value.replace("-", " ").capitalize() for category in PointCategory}


def game_story(state: GameState, names: Sequence[str]) -> Iterator[RenderableType]:
    """Renderables telling the finished (or unfinished) game ``state``; ``names[seat]``
    is the bot at each seat."""
    rules = state.rules
    teller = _Teller(rules, seat_labels(names), party_labels(rules))
    yield teller.line_up(names)
    hand: list[Event] = []
    for event in state.history:
        hand.append(event)
        if isinstance(event, AllPassed):
            yield teller.hand(hand, None)
            hand = []
        elif isinstance(event, HandScored):
            yield teller.hand(hand, event.result)
            hand = []
    if hand:
        yield teller.hand(hand, None)
    yield teller.ending(state)


class _Teller:
    """Turns one hand's events into renderables, knowing who sits where."""

    def __init__(self, rules: Ruleset, seats: list[str], parties: list[str]) -> None:
        self.rules = rules
        self.seats = seats
        self.parties = parties

    def seat_and_party(self, seat: int) -> str:
        """``seat 3 (team B)``, or just ``seat 3`` when everyone plays alone."""
        if self.rules.seating.team_size == 1:
            return f"seat {seat}"
        return f"seat {seat} ({self.parties[self.rules.party_of(seat)]})"

    def line_up(self, names: Sequence[str]) -> RenderableType:
        rules = self.rules
        lines = []
        for party, label in enumerate(self.parties):
            members = range(party, rules.players, rules.parties)
            if rules.seating.team_size == 1:
                lines.append(f"{label}: {names[party]}")
            else:
                lines.append(f"{label}: " + " + ".join(f"seat {s} {names[s]}" for s in members))
        title = f"{rules.name} · {rules.players} players · to {rules.win.target}"
        return Panel("\n".join(lines), title=title, expand=False)

    def hand(self, events: list[Event], result: HandResult | None) -> RenderableType:
        deal = next(e for e in events if isinstance(e, Dealt))
        trump = next((e for e in events if isinstance(e, TrumpSet) and not e.sub), None)
        parts: list[RenderableType] = [
            Rule(f"Hand {deal.hand_number} · {self.seats[deal.dealer]} deals"),
            self._deal(deal, trump.suit if trump else None),
            self._bids(events, deal.dealer),
        ]
        parts += [line for event in events if (line := self._preparation(event)) is not None]
        tricks = [e for e in events if isinstance(e, Trick)]
        if tricks:
            parts.append(self._tricks(tricks))
        if result is not None:
            parts += [self._points(result), self._outcome(result)]
        return Group(*parts, Text(""))

    def _deal(self, deal: Dealt, trump: Suit | None) -> Table:
        grid = Table.grid(padding=(0, 2))
        for seat, mask in enumerate(deal.hands):
            grid.add_row(self.seats[seat], hand_text(cards_of(mask), trump))
        return grid

    def _bids(self, events: list[Event], dealer: int) -> Text:
        words: list[str] = []
        high = 0
        for event in events:
            if isinstance(event, AllPassed):
                words.append("all passed: the deal passes left" if event.shown
                             else "all passed: the same dealer deals again")
            elif isinstance(event, Looked) and not event.looked:
                words.append(f"seat {event.seat} bids blind")
            elif isinstance(event, Coked):
                words.append(f"seat {event.seat} declares coke")
            if not isinstance(event, BidMade):
                continue
            if not event.amount:
                words.append(f"seat {event.seat} passes")
            elif event.seat == dealer and event.amount == high:
                words.append(f"seat {event.seat} steals at {event.amount}")
            elif event.seat == dealer and not high:
                words.append(f"seat {event.seat} is forced to {event.amount}")
            else:
                words.append(f"seat {event.seat} bids {event.amount}"
                             + (f" for {2 * event.amount}" if event.double else ""))
            high = max(high, event.amount)
        return Text("Bids: " + (" · ".join(words) if words else "none (no auction)"))

    def _preparation(self, event: Event) -> Text | None:
        """One line for each thing done between the auction and the first trick: trump and
        sub-trump, a called partner card, exchanges, refills and leftovers, burned cards."""
        if isinstance(event, TrumpSet):
            verb = "pitches" if event.pitched else "names"
            what = "the sub-trump" if event.sub else "trump"
            return Text(f"{self.seats[event.seat]} {verb} {SUIT_SYMBOLS[event.suit]} as {what}", style="bold")
        if isinstance(event, PartnerCalled):
            return Text.assemble(f"{self.seats[event.seat]} calls ", card_text(event.card),
                                 ": its holder is the partner")
        if isinstance(event, Exchanged):
            return self._exchange(event)
        if isinstance(event, Burned):
            return Text.assemble(f"{self.seats[event.seat]} burns ", hand_text(cards_of(event.cards)))
        return None

    def _exchange(self, event: Exchanged) -> Text:
        text = Text(f"{self.seats[event.seat]} discards ")
        text.append_text(hand_text(cards_of(event.discarded)) or Text("nothing"))
        text.append(", draws ")
        text.append_text(hand_text(cards_of(event.drawn)) or Text("nothing"))
        return text

    def _tricks(self, tricks: list[Trick]) -> Table:
        table = Table(show_edge=False, pad_edge=False, box=None, header_style="dim")
        table.add_column("#", justify="right", style="dim")
        for seat in range(self.rules.players):
            table.add_column(f"seat {seat}")
        table.add_column("won by")
        for number, trick in enumerate(tricks, 1):
            cells = [Text("")] * self.rules.players
            for seat, card in trick.plays:
                style = "bold underline" if seat == trick.winner else ""
                cell = Text("▸" if seat == trick.leader else " ", style="dim")
                cells[seat] = cell.append_text(card_text(card, style))
            pips = sum(PIPS2[card] for _, card in trick.plays) / 2
            won = f"{self.seat_and_party(trick.winner)}, {pips:g} pip{'' if pips == 1 else 's'}"
            table.add_row(str(number), *cells, won)
        return table

    def _points(self, result: HandResult) -> Text:
        awarded = {award.category: award for award in result.awards}
        words: list[Text] = []
        for rule in self.rules.scoring.points:
            name = _CATEGORY_NAMES[rule.category]
            award = awarded.get(rule.category)
            word = Text(f"{name} ")
            if rule.category is PointCategory.GAME:
                word.append(f"→ {self.parties[award.party]}" if award else "tied, no point")
                word.append(" (pips " + " / ".join(f"{p:g}" for p in result.pips) + ")", style="dim")
            elif rule.category is PointCategory.JOKER:
                jokers = [a for a in result.awards if a.category is PointCategory.JOKER]
                word.append(", ".join(f"{a.card} → {self.parties[a.party]}" for a in jokers) or "not in play")
            elif award is None:
                word.append("not in play")
            else:
                assert award.card is not None
                word.append_text(card_text(award.card))
                word.append(f" → {self.parties[award.party]}")
            words.append(word)
        return Text("Points: ").append_text(Text(" · ").join(words))

    def _outcome(self, result: HandResult) -> Text:
        words = []
        for party, change in enumerate(result.score_changes):
            label = self.parties[party]
            if result.bid is not None and result.pitcher is not None and \
                    party == self.rules.party_of(result.pitcher):
                verdict = "made it" if result.made else "set back"
                words.append(f"{label} bid {result.bid}, took {result.points_won[party]}: "
                             f"{verdict}, {change:+d}")
            elif change:
                words.append(f"{label} {change:+d}")
        scores = " · ".join(f"{label} {score}" for label, score in zip(self.parties, result.scores, strict=True))
        return Text(" · ".join(words) + "\n", style="bold").append(f"Scores: {scores}", style="cyan")

    def ending(self, state: GameState) -> RenderableType:
        hands = len(state.results)
        scores = " · ".join(f"{label} {score}" for label, score in zip(self.parties, state.scores, strict=True))
        if not state.is_over:
            return Panel(f"Game not finished after {hands} hands: {scores}", expand=False)
        reason = state.win_reason.value.replace("-", " ") if state.win_reason else ""
        if state.winner is None:
            return Panel(f"Draw after {hands} hands ({reason}): {scores}", expand=False)
        headline = Text(f"{self.parties[state.winner]} wins", style="bold green")
        return Panel(headline.append(f" after {hands} hands ({reason}): {scores}", style=""), expand=False)
