"""The named presets: each a ruleset built from its seed text, with a lookup by name.

Every preset cites the seed paragraph it implements; options the seeds mention are
fields of the ruleset (``preset("ipitch", target=11, dealer_steal=True)``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pitch_sdk.rules.errors import UnknownPresetError
from pitch_sdk.rules.ruleset import (
    FOUR_POINTS,
    AllPass,
    BiddingRules,
    CountOrder,
    Exchange,
    MoonMade,
    MoonRules,
    MoonSet,
    PointCategory,
    PointRule,
    Ruleset,
    ScoringRules,
    Seating,
    TrumpRules,
    TrumpSelection,
    WhoMayWin,
    WinMode,
    WinRules,
)


@dataclass(frozen=True)
class Preset:
    """A registered variant: its name, the seed it comes from, and how to build it."""

    name: str
    seed: str
    summary: str
    build: Callable[[], Ruleset]


def _ipitch() -> Ruleset:
    """Seed 000 (iPitch): "each player has one chance to bid ... The only legal bids are
    pass, 2, 3 or 4"; "If no other player bids, the dealer must bid at least 2.
    Optionally ... the dealer may 'steal the bid'" (off by default: ``dealer_steal``);
    "The first player to reach at least 7 points at the end of a hand in which he was the
    pitcher wins the game" (we read it as RULES.md does: in which he made his bid).
    Options: target 11/15/21, ``win_by=2``."""
    return Ruleset(
        name="ipitch",
        seating=Seating(players=4, team_size=1),
        bidding=BiddingRules(minimum_bid=2, maximum_bid=4, dealer_steal=False),
        win=WinRules(target=7, who_may_win=WhoMayWin.BID_MADE),
    )


def _partnership() -> Ruleset:
    """Seed 001 (four-point partnership Pitch): bids 2, 3, 4; "The dealer, who bids last,
    may match the highest bid and take the contract. If the first three players pass, the
    dealer must bid at least 2"; "A team wins when it has at least 21 points at the end of
    a hand in which it made its bid. Simply reaching 21 while defending does not finish
    the game." """
    return Ruleset(
        name="partnership",
        seating=Seating(players=4, team_size=2),
        bidding=BiddingRules(minimum_bid=2, maximum_bid=4, dealer_steal=True),
        win=WinRules(target=21, who_may_win=WhoMayWin.BID_MADE),
    )


_SEED_002_EXCHANGE = TrumpRules(trump_selection=TrumpSelection.DECLARE, exchange=Exchange.ANY)


def _cutthroat() -> Ruleset:
    """Seed 002 (three-player Pitch): bids Pass, 2, 3, 4 (option: 3-4, ``minimum_bid=3``);
    "the dealer may always match the high bid"; trump is declared, then "players will
    discard any number of cards ... and receive that many new cards from the dealer"
    (option: ``trump_selection=pitch, exchange=none``); "If a making player has 11 points
    at the end of a hand, that player wins the game, regardless of the other players'
    scores. If one or more non-making players have 11 points ..., the player with the
    most points wins the game; in case of a tie, play continues." """
    return Ruleset(
        name="cutthroat",
        seating=Seating(players=3, team_size=1),
        bidding=BiddingRules(minimum_bid=2, maximum_bid=4, dealer_steal=True),
        trump=_SEED_002_EXCHANGE,
        win=WinRules(target=11, win_mode=WinMode.MAKER_FIRST, who_may_win=WhoMayWin.ANY),
    )


def _partnership_five() -> Ruleset:
    """Seed 002 (four-player Pitch): as three-player, in two teams, plus "Five -- The Five
    of the trump suit is worth 5 points to the player or partnership holding that card in
    their scoring pile"; "valid bids are now Pass, 2, 3, ... 9" (option 3-9); "A player
    is permitted to outbid his or her partner"; "If a making team has 21 points at the end
    of a hand, that team wins the game, regardless of the other team's score." """
    return Ruleset(
        name="partnership-five",
        seating=Seating(players=4, team_size=2),
        bidding=BiddingRules(minimum_bid=2, maximum_bid=9, dealer_steal=True),
        trump=_SEED_002_EXCHANGE,
        scoring=ScoringRules(points=(*FOUR_POINTS, PointRule(PointCategory.FIVE, 5))),
        win=WinRules(target=21, win_mode=WinMode.MAKER_FIRST, who_may_win=WhoMayWin.ANY),
    )


def _high_low_jack() -> Ruleset:
    """Seed 002 ("Variations", High-Low Jack): four players in teams; "The Five of trump
    plays no special role and is worth no game points"; "cards are never exchanged once
    trump has been declared"; "Trump is not announced; the highest bidder simply plays a
    card. The suit of that card becomes trump."  Winning as seed 002's four-player game."""
    return Ruleset(
        name="high-low-jack",
        seating=Seating(players=4, team_size=2),
        bidding=BiddingRules(minimum_bid=2, maximum_bid=4, dealer_steal=True),
        win=WinRules(target=21, win_mode=WinMode.MAKER_FIRST, who_may_win=WhoMayWin.ANY),
    )


def _simple() -> Ruleset:
    """Seed 004 (Pitch or blind all fours): no auction; "Eldest hand leads to the first
    trick" and its suit is trump; "The scoring points accrue strictly in the order given
    in the table [High, Low, Jack, Game], preventing ties in case more than one team
    reaches the target score"; the target is agreed beforehand (default 7).  Two or more
    players individually (``players``) or in equal teams (``team_size``)."""
    return Ruleset(
        name="simple",
        seating=Seating(players=4, team_size=1),
        bidding=BiddingRules(auction=False),
        win=WinRules(target=7, who_may_win=WhoMayWin.ANY, count_order=CountOrder.CATEGORIES),
    )


def _auction() -> Ruleset:
    """Seed 004 (Auction pitch): "the minimum bid being 1"; "A bid of four (the highest
    possible) is known as shoot the moon, slam or smudge"; "If no player bids, the deal
    is abandoned and the same dealer deals again"; "Any points won by the pitcher are
    counted first. Thereafter the remaining points are awarded in the order ... High,
    then Low, then Jack, then Game"; played to 11.  The moon follows "Common minor
    variations": a pitcher who makes the maximum bid wins the game unless in the hole
    (negative score before the hand); a failed moon is set back by 4."""
    return Ruleset(
        name="auction",
        seating=Seating(players=4, team_size=1),
        bidding=BiddingRules(minimum_bid=1, maximum_bid=4, dealer_steal=False, all_pass=AllPass.REDEAL),
        moon=MoonRules(moon_bid=4, moon_made=MoonMade.WIN_GAME, moon_score=4, moon_set=MoonSet.SET_BACK),
        win=WinRules(target=11, who_may_win=WhoMayWin.ANY, count_order=CountOrder.PITCHER_FIRST),
    )


PRESETS: dict[str, Preset] = {
    p.name: p for p in (
        Preset("ipitch", "000", "3-7 players alone, bids 2-4, to 7, only the pitcher goes out", _ipitch),
        Preset("partnership", "001", "4 in two teams, dealer may steal, to 21 after making the bid", _partnership),
        Preset("cutthroat", "002", "3 alone, trump declared then discard and draw, to 11", _cutthroat),
        Preset("partnership-five", "002", "4 in two teams, the five of trumps worth 5, bids 2-9, to 21",
               _partnership_five),
        Preset("high-low-jack", "002", "4 in two teams, trump by first card, no exchange, to 21", _high_low_jack),
        Preset("simple", "004", "no auction: eldest hand pitches, points in order, to 7", _simple),
        Preset("auction", "004", "minimum bid 1, all pass re-deals, bid 4 shoots the moon, to 11", _auction),
    )
}


def preset(name: str, options: dict[str, Any] | None = None, /, **more: Any) -> Ruleset:
    """The ruleset of preset ``name``, with any options changed."""
    try:
        entry = PRESETS[name]
    except KeyError:
        raise UnknownPresetError(
            f"unknown preset {name!r}; presets: {', '.join(sorted(PRESETS))}") from None
    rules = entry.build()
    if options or more:
        rules = rules.with_options(options, **more)
    return rules

