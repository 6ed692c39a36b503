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
    Backdoor,
    BiddingRules,
    BurnedPoints,
    CountOrder,
    DealRules,
    DeckRules,
    Exchange,
    FirstLead,
    Follow,
    JokerRank,
    LowGoesTo,
    MadeScores,
    MoonMade,
    MoonRules,
    MoonSet,
    Muck,
    PartnerCall,
    PlayRules,
    PointCategory,
    PointRule,
    Ruleset,
    ScoringRules,
    Seating,
    SetPenalty,
    TrumpRules,
    TrumpSelection,
    WhoMayWin,
    WinMode,
    WinRules,
)


@dataclass(frozen=True)
class Preset:
    """A registered variant: its name, the seed and paragraph it comes from, and how to
    build it."""

    name: str
    seed: str
    summary: str
    build: Callable[[], Ruleset]
    paragraph: str
    """The seed paragraph (its heading or opening words) the preset implements."""


def _ipitch() -> Ruleset:
    """Seed 000 (iPitch): "each player has one chance to bid ... The only legal bids are
    pass, 2, 3 or 4"; "If no other player bids, the dealer must bid at least 2.
    Optionally ... the dealer may 'steal the bid'" (off by default: ``dealer_steal``);
    "The first player to reach at least 7 points at the end of a hand in which he was the
    pitcher wins the game": only the pitcher goes out, and the sentence asks nothing more
    of the hand, so a pitcher that was set yet still has 7 or more wins (a set-back lowers
    the score, but from 9 a bid of 2 leaves 7).  "If he fails to make his bid, his bid is
    subtracted from his score" says what the hand scores, not who may go out.  Option
    ``who_may_win=bid-made``: the pitcher goes out only in a hand where it made its bid
    (RULES.md's general reading).  Options: target 11/15/21, ``win_by=2``."""
    return Ruleset(
        name="ipitch",
        seating=Seating(players=4, team_size=1),
        bidding=BiddingRules(minimum_bid=2, maximum_bid=4, dealer_steal=False),
        win=WinRules(target=7, who_may_win=WhoMayWin.PITCHING_PARTY),
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
    players individually (``players``) or in equal teams (``team_size``).  Low goes to the
    party of its original holder: the seed makes capture the variation ("The point for low
    is often awarded to the player who won the trick containing the lowest trump, rather
    than the original owner"; all fours: "In some areas the point for low is awarded to the
    eventual owner"), option ``low_goes_to=capturer``."""
    return Ruleset(
        name="simple",
        seating=Seating(players=4, team_size=1),
        bidding=BiddingRules(auction=False),
        scoring=ScoringRules(low_goes_to=LowGoesTo.PLAYER),
        win=WinRules(target=7, who_may_win=WhoMayWin.ANY, count_order=CountOrder.CATEGORIES),
    )


def _auction() -> Ruleset:
    """Seed 004 (Auction pitch): "the minimum bid being 1"; "A bid of four (the highest
    possible) is known as shoot the moon, slam or smudge"; "If no player bids, the deal
    is abandoned and the same dealer deals again"; "Any points won by the pitcher are
    counted first. Thereafter the remaining points are awarded in the order ... High,
    then Low, then Jack, then Game"; played to 11.  The moon follows "Common minor
    variations": a pitcher who makes the maximum bid wins the game unless in the hole
    (negative score before the hand); a failed moon is set back by 4.  "Auction pitch is
    played in exactly the same way as simple pitch": Low to its original holder (option
    ``low_goes_to=capturer``, the seed's common variation).  "A player who can follow suit
    but discards a card of a different non-trump suit is punished for the revoke by being
    set back by the value of the bid": ``revoke_penalty``, which every preset that says it
    follows basic or auction pitch keeps (reverse, Scranton, call for partner, Contway,
    Roadhouse).  The simple (basic) game does not: the sentence is in auction pitch's
    paragraph."""
    return Ruleset(
        name="auction",
        seating=Seating(players=4, team_size=1),
        bidding=BiddingRules(minimum_bid=1, maximum_bid=4, dealer_steal=False, all_pass=AllPass.REDEAL),
        moon=MoonRules(moon_bid=4, moon_made=MoonMade.WIN_GAME, moon_score=4, moon_set=MoonSet.SET_BACK),
        play=PlayRules(revoke_penalty=True),
        scoring=ScoringRules(low_goes_to=LowGoesTo.PLAYER),
        win=WinRules(target=11, who_may_win=WhoMayWin.ANY, count_order=CountOrder.PITCHER_FIRST),
    )


# ------------------------------------------------------------------ the ten-point family
def _points(*items: tuple[PointCategory, int]) -> tuple[PointRule, ...]:
    return tuple(PointRule(category, value) for category, value in items)


_A, _J, _OJ, _JK, _T, _2, _3 = ((PointCategory.ACE, 1), (PointCategory.JACK, 1), (PointCategory.OFF_JACK, 1),
                               (PointCategory.JOKER, 1), (PointCategory.TEN, 1), (PointCategory.TWO, 1),
                               (PointCategory.THREE, 3))
_OA, _OT, _O2, _O3 = ((PointCategory.OFF_ACE, 1), (PointCategory.OFF_TEN, 1), (PointCategory.OFF_TWO, 1),
                      (PointCategory.OFF_THREE, 3))
#: Seed 003: "each of the following is worth one point - ace, jack, off-jack, joker, joker,
#: ten, and two. The three is worth three points."
TEN_POINTS = _points(_A, _J, _OJ, _JK, _T, _2, _3)


def _ten_point(name: str = "ten-point", points: tuple[PointRule, ...] = TEN_POINTS,
               deck: DeckRules | None = None) -> Ruleset:
    """Seed 003 (10-point pitch): 54 cards ranked "Ace, King, Queen, Jack, Off-jack,
    Joker, Joker, 10 ... 2"; "nine cards to each player with the remainder being held";
    two teams; "The minimum bid is four ... If no one bids ... the dealer MUST take the
    bid for four"; the high bidder names trump; "Each player then discards the cards in
    his/her hand which are not in trump"; "Each player, in turn, then asks for a number of
    cards to fill their hand to six cards. Any cards remaining are given to the bidder. If
    the bidder so choses he/she can pass those cards to his/her partner provided he/she
    has not looked at them" (``pass_leftovers``); more than six trumps "must 'burn' cards
    until they have only six"; "Only those cards belonging to the trump suit are allowed
    as legal plays"; a player with no trumps is out and the lead passes left; the bidder
    making its bid "receive[s] that number of points", else is set; "The first team to
    reach 52 points is declared the winner"; shoot the moon (a bid above 10) "means taking
    all 10 points ... advances their score to 52 if their score was above zero or to zero
    if their score was below zero. Failure ... constitutes loss of game"; "The two goes to
    the person who plays it".  Open points, read from seed 004's auction pitch: defenders
    score the points they take, and when both teams cross 52 the pitcher's points count
    first; a score of exactly zero counts as "above zero" for the moon; any trump may lead
    the first trick, jokers included ("The bidder then leads a card"); the stuck dealer
    takes the bid "for four" and nothing else, the moon included (``forced_moon`` is off:
    only Roadhouse's text lets a forced dealer shoot the moon)."""
    total = sum(p.value * (2 if p.category is PointCategory.JOKER else 1) for p in points)
    return Ruleset(
        name=name,
        seating=Seating(players=4, team_size=2),
        deck=deck or DeckRules(jokers=2, joker_rank=JokerRank.BELOW_JACK, off_jack=True),
        deal=DealRules(hand_size=9, deal_batch=3, refill_to=6, burn_to=6),
        bidding=BiddingRules(minimum_bid=4, maximum_bid=total, dealer_steal=False, forced_minimum_only=True),
        moon=MoonRules(moon_bid=total + 1, moon_made=MoonMade.TO_TARGET, moon_score=total,
                       moon_set=MoonSet.LOSE_GAME, moon_blocked_in_hole=False),
        trump=TrumpRules(trump_selection=TrumpSelection.DECLARE, exchange=Exchange.DISCARD_NON_TRUMPS,
                         leftovers_to_bidder=True, pass_leftovers=True),
        play=PlayRules(trumps_only=True, joker_may_lead_first_trick=True),
        scoring=ScoringRules(points=points, two_goes_to=LowGoesTo.PLAYER, made_scores=MadeScores.BID),
        win=WinRules(target=52, who_may_win=WhoMayWin.ANY),
    )


_ALL_OFF_DECK = DeckRules(jokers=2, off_jack=True, off_ace=True, off_ten=True, off_two=True, off_three=True)


def _five_point() -> Ruleset:
    """Seed 003, "5 Point": "Same as 10 point pitch with the exception that the jokers and
    the three are not counted as points" (the jokers stay in the pack as trumps)."""
    return _ten_point("five-point", _points(_A, _J, _OJ, _T, _2))


def _seven_point() -> Ruleset:
    """Seed 003, "7 Point": "the three is not counted as a point"."""
    return _ten_point("seven-point", _points(_A, _J, _OJ, _JK, _T, _2))


def _eight_point() -> Ruleset:
    """Seed 003, "8 Point": "the jokers are not counted as points"."""
    return _ten_point("eight-point", _points(_A, _J, _OJ, _T, _2, _3))


def _thirteen_point() -> Ruleset:
    """Seed 003, "13 Point": "the off-three is also included in the game and is worth three
    points" (a trump just below the three)."""
    return _ten_point("thirteen-point", _points(_A, _J, _OJ, _JK, _T, _2, _3, _O3),
                      DeckRules(jokers=2, off_jack=True, off_three=True))


def _eleven_point() -> Ruleset:
    """Seed 003, "11 Point": "Same as 13 point pitch with the exception that the jokers do
    not count as points"."""
    return _ten_point("eleven-point", _points(_A, _J, _OJ, _T, _2, _3, _O3),
                      DeckRules(jokers=2, off_jack=True, off_three=True))


def _sixteen_point() -> Ruleset:
    """Seed 003, "16 Point": "ALL off-points are used and count as a point each except for
    the off-three which is three points. All off cards rank below their counterparts"."""
    return _ten_point("sixteen-point", _points(_A, _OA, _J, _OJ, _JK, _T, _OT, _2, _O2, _3, _O3), _ALL_OFF_DECK)


def _fifteen_point() -> Ruleset:
    """Seed 003, "15 Point": "Same as 16 point pitch with the exception that the off-two is
    not counted as a point" (it is still a trump, just below the two)."""
    return _ten_point("fifteen-point", _points(_A, _OA, _J, _OJ, _JK, _T, _OT, _2, _3, _O3), _ALL_OFF_DECK)


def _fourteen_point() -> Ruleset:
    """Seed 003, "14 Point": "Same as 16 point pitch with the exception that the jokers are
    not counted as points"."""
    return _ten_point("fourteen-point", _points(_A, _OA, _J, _OJ, _T, _OT, _2, _O2, _3, _O3), _ALL_OFF_DECK)


def _dirty() -> Ruleset:
    """Seed 003, "Dirty": "the two is not an automatic point. It must be 'carried' as any
    other card would be" (ten-point with ``two_goes_to=capturer``)."""
    return _ten_point("dirty").with_options(two_goes_to=LowGoesTo.CAPTURER)


def _reverse_hierarchy() -> Ruleset:
    """Seed 003, "Reverse Hierarchy": "the cards rank in the same order but from top to
    bottom. The two is the most powerful card with the ace being the lowest" (ten-point
    with ``lowest_wins``; the point cards are the same cards)."""
    return _ten_point("reverse-hierarchy").with_options(lowest_wins=True)


def _five_handed() -> Ruleset:
    """Seed 003, "Five-Handed": "ten cards dealt to each player. The remaining four cards are
    kept as a blind. The high bidder not only choses the suit but calls for the card he/she
    wants to see played. Whoever has that card in their hand is the bidder's partner
    against the other three. The blind then goes to the bidder. In the event the card is in
    the blind, the bidder has no partner against the other four AND is required to lead the
    card that was called."  Otherwise "as above" (ten-point).  Readings: with the blind
    going to the bidder nobody is refilled; scores are kept per player and each member of a
    side scores the side's result (seed 004's call for partner: "Points are kept
    individually, though they are earned as a team"); the called card must be a trump the
    bidder does not hold (only trumps are played; option ``call_any_card``)."""
    return _ten_point("five-handed").with_options(
        players=5, team_size=1, partner_call=PartnerCall.HOLDER, hand_size=10, refill_to=0,
        pass_leftovers=False)


# ------------------------------------------------------------------ seed 004's named variants
def _nine_card_ten_point() -> Ruleset:
    """Seed 004, the nine-card 10-point ("Played like Oklahoma ten-point with a few
    variations"): "Each player is initially dealt nine cards. Minimum bid is 5, and the
    Shoot the Moon rule is in effect. Players discard all non-trumps and the dealer
    distributes remaining undealt cards so all players have six. Points available are Ace,
    Jack, Off-Jack, 'High' Joker, 'Low' Joker, Ten, Three (worth three points), and Two (an
    automatic point for the player). This variant uses the Force Bid rule."  Shoot the moon
    follows seed 004's rule ("If the player or team makes the bid, they win the game; if
    they are set, they lose the game"); the rest (leftovers, burning, trump-only play) as
    seed 003's ten-point, the nearest fully specified variant.  This is the game seed 004's
    off-ace paragraph calls Campbell ten-point ("Played much like Campbell ten-point ...
    Play ends at 51 points rather than 32"), so it is played to 32, not seed 003's 52.  Low
    is no category here: the two is "an automatic point for the player"
    (``two_goes_to=player``)."""
    return _ten_point("nine-card-ten-point").with_options(
        minimum_bid=5, moon_made=MoonMade.WIN_GAME, moon_blocked_in_hole=False, target=32)


def _oklahoma_ten() -> Ruleset:
    """Seed 004, Oklahoma ten-point ("Pitch games based on 10 points"): "Each player is
    dealt six cards. Bids are usually from 1-9, and the Shoot the Moon rule is in effect.
    After bidding, players discard non-trumps and the dealer distributes cards so that
    each hand has six cards"; the ten points of seed 003 (option: the off-three, 3 more);
    "a player may bid a 'straight 6', or '6 for 12.' In the latter example, the player
    would score 12 points by earning six; or, failing ... would be set 12 points."
    Shooting the moon (bid 10: all ten points) wins or loses the game (seed 004); the rest
    as seed 003's ten-point.  "Low 'Two'" is the two's point, to the player who plays it
    (seed 003), so no Low category."""
    return _ten_point("oklahoma-ten").with_options(
        hand_size=6, minimum_bid=1, maximum_bid=9, moon_bid=10, double_bids=True,
        moon_made=MoonMade.WIN_GAME, moon_blocked_in_hole=False)


def _eleven_point_off_ace() -> Ruleset:
    """Seed 004, the off-ace eleven-point ("Played much like Campbell ten-point with the
    addition of the off-ace"): "The off-ace ... is worth one point and ranks just below the
    ace. Play ends at 51 points ... The minimum bid is 1 ... shoot the moon, which is
    differentiated from and superior to a perfect bid (11) in that shoot the moon
    automatically wins or loses the game. Only the 17 trump cards are legal for play. If a
    player is forced to burn a card worth points, those points are awarded to the opposing
    team."  Campbell ten-point read as the nine-card 10-point above (no Low category: the
    two scores for its player).  "The misdeal rule is in effect" (``muck=redeal``): the
    Campbell paragraph prohibits "Mucking a Hand and Misdeal", the two options of seed 004's
    card distribution section, so its "misdeal" is that section's "A player who has
    received no point cards may ask for a complete re-deal by the same dealer", and the
    off-ace game, which names the misdeal alone, takes it and not the new hand."""
    return _ten_point("eleven-point-off-ace", _points(_A, _OA, _J, _OJ, _JK, _T, _2, _3),
                      DeckRules(jokers=2, off_jack=True, off_ace=True)).with_options(
        minimum_bid=1, target=51, moon_made=MoonMade.WIN_GAME, burned_points=BurnedPoints.OPPONENTS,
        muck=Muck.REDEAL)


def _contway_six() -> Ruleset:
    """Seed 004, Contway 6-point pitch ("based on auction pitch"): "a regular 52-card deck
    plus one joker. The six points consist of high, low, jack, off-jack, joker, and game.
    Trump suit includes the off-jack and joker and is ordered ace, king, queen, jack,
    off-jack, joker, 10,9,8,...2. Four people play in teams of two ... Three people can
    play with the same rules but there are no teams. Each player is dealt six cards in two
    rounds of three ... Each player has the option to either pass or outbid the previous
    bid. The minimum bid is 2, and if all players pass, the dealer is given the minimum
    bid."  The target (not given) is seed 001's 21, reached after making the bid; "based on
    auction pitch", so Low goes to its original holder and a revoke is set back by the bid
    (``revoke_penalty``), as there."""
    return Ruleset(
        name="contway-six",
        seating=Seating(players=4, team_size=2),
        deck=DeckRules(jokers=1, joker_rank=JokerRank.BELOW_JACK, off_jack=True, joker_half_pip=False),
        bidding=BiddingRules(minimum_bid=2, maximum_bid=6, dealer_steal=False, forced_minimum_only=True),
        scoring=ScoringRules(points=_points((PointCategory.HIGH, 1), (PointCategory.LOW, 1), _J, _OJ, _JK,
                                            (PointCategory.GAME, 1)), low_goes_to=LowGoesTo.PLAYER),
        play=PlayRules(revoke_penalty=True),
        win=WinRules(target=21, who_may_win=WhoMayWin.BID_MADE),
    )


def _roadhouse() -> Ruleset:
    """Seed 004, Roadhouse pitch: "Four points are awarded for high, low, jack, and game,
    scored for their eventual owners. Games are played to 15, with a win by two
    requirement ... a minimum of two. In addition to bidding two, three, or four; players
    may also 'shoot the moon', requiring them to win every trick and all four points.
    Shooting the moon is valued at 15 points, failure ... results in a setback. Negative
    scoring is allowed ... the dealer must assume the minimum bid (or 'shoot the moon') ...
    Players must follow suit regardless of trump ... A player may not trump in unless they
    are unable to follow suit."  A failed moon sets back its 15; the forced dealer may bid
    2 or the moon (``forced_moon``).  Low is "scored for [its] eventual owner": the
    capturer, unlike seed 004's basic games.  "An auction pitch variant" whose "primary
    variation" is the following rule, so auction pitch's revoke penalty stands: a player
    holding the suit led may still discard another plain suit, and is set back by the bid
    (``revoke_penalty``); trumping in while able to follow stays refused."""
    return Ruleset(
        name="roadhouse",
        seating=Seating(players=4, team_size=1),
        bidding=BiddingRules(minimum_bid=2, maximum_bid=4, dealer_steal=False, forced_minimum_only=True,
                             forced_moon=True),
        moon=MoonRules(moon_bid=5, moon_all_tricks=True, moon_made=MoonMade.SCORE, moon_score=15),
        play=PlayRules(follow=Follow.MUST_FOLLOW, revoke_penalty=True),
        win=WinRules(target=15, win_by=2, who_may_win=WhoMayWin.ANY),
    )


_SEVEN_POINTS = _points((PointCategory.HIGH, 1), (PointCategory.LOW, 1), _J, _OJ, _JK, (PointCategory.GAME, 1))


def _kentucky_seven() -> Ruleset:
    """Seed 004, Kentucky seven-point (heckla): "seven possible points: high, low, jack,
    off-jack, big joker, little joker, and game. The game is played to 21 points. Bids
    between 3 and 7 are allowed. The highest bidder calls trumps, and players discard
    non-trump cards face up in the center of the table. The dealer then distributes 6 cards
    to each player".  Readings: four players in two teams (as the ten-point family), six
    dealt, the refill may bring non-trumps, which are played normally; Low goes to its
    original holder, seed 004's basic rule (the paragraph says nothing of it).  "Face up in
    the center" makes the discards public (``discards_face_up``): every seat and spectator
    sees which cards each seat laid down; the cards the dealer then distributes stay
    secret, as any dealt card."""
    return Ruleset(
        name="kentucky-seven",
        seating=Seating(players=4, team_size=2),
        deck=DeckRules(jokers=2, off_jack=True, joker_half_pip=False),
        deal=DealRules(hand_size=6, refill_to=6),
        bidding=BiddingRules(minimum_bid=3, maximum_bid=7, dealer_steal=False),
        trump=TrumpRules(trump_selection=TrumpSelection.DECLARE, exchange=Exchange.DISCARD_NON_TRUMPS,
                         discards_face_up=True),
        scoring=ScoringRules(points=_SEVEN_POINTS, low_goes_to=LowGoesTo.PLAYER),
        win=WinRules(target=21, who_may_win=WhoMayWin.BID_MADE),
    )


def _missouri_seven() -> Ruleset:
    """Seed 004, "In Southeast Missouri this version, called 7-point pitch, is played with a
    34 card deck (2s-6s removed with a 10 card blind, no discarding). Points and bids are
    the same as described above, and cards are dealt singly or 3 at a time."  The blind
    stays undealt; Low to its original holder, as in Kentucky seven-point.  "No discarding"
    leaves Kentucky's face-up discards nothing to show: off here."""
    return _kentucky_seven().with_options(
        name="missouri-seven", removed_ranks=(2, 3, 4, 5, 6), exchange=Exchange.NONE, refill_to=0,
        discards_face_up=False)


def _three_teams() -> Ruleset:
    """Seed 004, three teams of three: "pitch is played with 3 teams with 3 partners each.
    Partners are seated an equal 2 seat between each other. All 54 cards (including high
    joker and low joker). Points are awarded for high trump (ace), jack of trump, high
    joker, low joker, low trump (2) and trick/card points ... each joker worth 1/2 point.
    Each player left of the dealer has a chance to bid 1-6 points with the winning bidder
    leading their trump. If a team does not make their bid they must give back any points
    (chips) they have accumulated and receive 1 negative point (pookie)."  Nine seats, so
    that two seats lie between partners (seats 0, 3 and 6 are one team) and six cards each
    deal all 54.  The target (not given) is 21 (seed 004's partnership pitch).  The "low
    trump (2)" goes to its original holder's team, seed 004's basic rule (the paragraph
    does not say)."""
    return Ruleset(
        name="three-teams",
        seating=Seating(players=9, team_size=3),
        deck=DeckRules(jokers=2),
        bidding=BiddingRules(minimum_bid=1, maximum_bid=6, dealer_steal=False),
        scoring=ScoringRules(points=_points((PointCategory.HIGH, 1), (PointCategory.LOW, 1), _J, _JK,
                                            (PointCategory.GAME, 1)), set_penalty=SetPenalty.POOKIE,
                             low_goes_to=LowGoesTo.PLAYER),
        win=WinRules(target=21, who_may_win=WhoMayWin.ANY),
    )


def _reverse() -> Ruleset:
    """Seed 004, reverse pitch: "follows all of the rules of basic pitch, except the low
    card takes each trick (the lowest card of the suit lead or lowest card of the trump
    suit). High, low, jack, and game points are scored in the normal fashion."  Basic
    pitch read as seed 004's auction pitch, Low to its original holder and the revoke
    penalty included."""
    return _auction().with_options(name="reverse", lowest_wins=True)


def _barn() -> Ruleset:
    """Seed 004, barn pitch: "requires trump to be 'broken' before any trump can be played.
    Instead of leading with trump, the highest bidder must instead lead with a different
    suit. Trump is then only allowed to be played if a player cannot follow the led suit,
    once the first trump of the round is played then trump is broken. Once trump has been
    broken, or it is the only suit remaining in a players hand, it can be led."  Trump is
    therefore named before play; the rest is "classic Pitch", read as seed 001's
    partnership game, except Low, which goes to its original holder: seed 004's classic
    (basic) pitch makes capture the variation."""
    return _partnership().with_options(
        name="barn", trump_selection=TrumpSelection.DECLARE, follow=Follow.MUST_FOLLOW, trump_must_be_broken=True,
        low_goes_to=LowGoesTo.PLAYER)


def _two_trump() -> Ruleset:
    """Seed 004, two-trump pitch: "incorporates all 54 cards. It may be played with any
    combination of 3-9 players. Nine points are possible: high, low, jack, sub-high,
    sub-low, sub-jack, both jokers, and game. Bids 3 (or 4) to 9 are allowed. Games are
    played to 26 points. ... the player who wins the bid declares both the trump and
    sub-trump suits. sub-trump cards rank above non-trumps, but below trumps ... jokers are
    unranked and cannot be used to capture other cards. When leading a joker it is
    considered to be suit-less, the second play of the trick determines the lead suit"
    (the following rules: :func:`pitch_sdk.rules.tricks.two_trump_follow_mask`); option
    ``double_down_override``.  Readings: four players alone by default (``players`` 3-9);
    a joker may lead any trick; any party may win, the pitcher's points counted first
    (seed 004's auction pitch); when everyone passes, "the deal is abandoned and the same
    dealer deals again" (seed 004's auction pitch: the paragraph names no forced bid, and
    seed 004 forces the dealer only with the dealer-steal variation, "Under this variation
    the dealer is obliged to make at least the minimum bid", which it does not use); Low
    goes to its original holder (seed 004's basic rule), sub-low to the party that
    captured it (the seed says nothing of it)."""
    return Ruleset(
        name="two-trump",
        seating=Seating(players=4, team_size=1),
        deck=DeckRules(jokers=2, joker_rank=JokerRank.UNRANKED, joker_half_pip=False),
        bidding=BiddingRules(minimum_bid=3, maximum_bid=9, dealer_steal=False, all_pass=AllPass.REDEAL),
        trump=TrumpRules(trump_selection=TrumpSelection.DECLARE, sub_trump=True),
        play=PlayRules(joker_may_lead_first_trick=True),
        scoring=ScoringRules(points=_points(
            (PointCategory.HIGH, 1), (PointCategory.LOW, 1), (PointCategory.JACK, 1), (PointCategory.SUB_HIGH, 1),
            (PointCategory.SUB_LOW, 1), (PointCategory.SUB_JACK, 1), (PointCategory.JOKER, 1),
            (PointCategory.GAME, 1)), low_goes_to=LowGoesTo.PLAYER),
        win=WinRules(target=26, who_may_win=WhoMayWin.ANY),
    )


def _call_partner() -> Ruleset:
    """Seed 004, "Call for partner: ... There are no set teams; instead, the player who
    wins the bid calls for a specific card, and the player who has it becomes their
    partner until the next bid. The 'called' card is the first played, and sets the trump.
    Points are kept individually, though they are earned as a team."  Readings: auction
    pitch (seed 004) for five players; every member of a side scores the side's result;
    an undealt called card leaves the bidder alone, pitching as usual; Low to its original
    holder and the revoke penalty, as in auction pitch (a revoking partner is set back by
    the bid, the rest of its side scoring as usual)."""
    return _auction().with_options(name="call-partner", players=5, team_size=1, partner_call=PartnerCall.LEAD)


def _abacos() -> Ruleset:
    """Seed 004, Abacos pitch: "In the bidding round, each player may choose to look or not
    look at his/her hand before making a decision. At the end of the bidding round, each
    player who looked at his/her cards before acting loses one card, chosen at random.
    Players who lose a card have nothing to play in the sixth and final round of play.
    Play and scoring after the bidding round proceed exactly as in classic Pitch."
    Classic Pitch read as seed 001's partnership game, except Low, which goes to its
    original holder: seed 004's classic (basic) pitch makes capture the variation."""
    return _partnership().with_options(name="abacos", look_option=True, lookers_lose_card=True,
                                       low_goes_to=LowGoesTo.PLAYER)


def _man_o_war() -> Ruleset:
    """Seed 004, man-o-war pitch: "similar to Abacos pitch except after the bidding round,
    the player who made the highest bid looks at the cards given up by players who looked
    at their hand prior to bidding, one at a time. The player with the highest bid may
    choose to take or not take each card he looks at. If he chooses to take a card, he
    discards a card of his choice."  The bidder is offered the other players' lost cards
    (its own lost card is not offered back; option ``offer_own_lost``).  Low to its
    original holder, as in Abacos."""
    return _abacos().with_options(name="man-o-war", bidder_takes_lost=True)


def _nine_five() -> Ruleset:
    """Seed 004, nine-five: "Four players play in two partnerships ... the five of trumps
    and the nine of trumps score ... 5 and 9 ... The minimum bid is 4 or 9. The maximum
    number of points that can be won is 18. A minimum bid of 9 is forced if a player holds
    the 9 and another card of the same suit, however the high bidder may choose a trump
    suit other than the suit that forced their bid. Nine cards are dealt to each player. A
    'smudge' bid is worth 19 points ... A 'blind smudge' bid must be made before the player
    looks at their hand. It is worth 20 points. The winning bidder declares the trump suit,
    and each player discards any non-trump cards. If a player has more than six trumps, he
    or she must discard down to six cards. Next, the dealer will deal each player back up
    to six total cards. Finally, the dealer brings their own hand to six cards, and is
    allowed to look at remaining cards when doing so. If too few trump cards remain, the
    dealer may take any card he or she chooses. This discard process ensures that all
    trump cards are in play" (so the dealer takes the remaining trumps first) ... "Game
    play is normal with the 2 winning
    conditions: the first team to win a bid that brings them above 100 points or if a team
    reaches -100 points the other team is declared winner."  Readings: "above 100" is
    101; the pitcher leads a trump to the first trick (the variant's "The pitcher need not
    lead a trump" implies it); the forced 9 binds a player who looked; smudges need all 18
    points and score (or cost) their bid; option ``backdoor=draw, backdoor_score=-200``
    for the "backdoor" draw; "Game play is normal", so Low goes to its original holder,
    seed 004's basic rule."""
    return Ruleset(
        name="nine-five",
        seating=Seating(players=4, team_size=2),
        deal=DealRules(hand_size=9, refill_to=6, burn_to=6),
        bidding=BiddingRules(minimum_bid=4, maximum_bid=18, dealer_steal=False, forced_nine=True,
                             look_option=True),
        moon=MoonRules(moon_bid=19, moon_made=MoonMade.BID, moon_score=19, moon_blocked_in_hole=False,
                       blind_moon_bid=20),
        trump=TrumpRules(trump_selection=TrumpSelection.DECLARE, exchange=Exchange.DISCARD_NON_TRUMPS,
                         dealer_picks=True),
        play=PlayRules(first_lead_trump=True),
        scoring=ScoringRules(points=_points((PointCategory.HIGH, 1), (PointCategory.LOW, 1), _J,
                                            (PointCategory.GAME, 1), (PointCategory.NINE, 9),
                                            (PointCategory.FIVE, 5)), low_goes_to=LowGoesTo.PLAYER),
        win=WinRules(target=101, who_may_win=WhoMayWin.BID_MADE, backdoor=Backdoor.LOSES, backdoor_score=-100),
    )


def _hotshot() -> Ruleset:
    """Seed 004, nine-five's variant: "Legal bids are 9-18. 18 is called 'hotshot'. The
    pitcher need not lead a trump. Bidding 'hotshot' makes the game sudden death; if the
    bidder succeeds and collects all 18 points in the round, he wins the entire game, but
    if he fails, the game is over. The player to the left of the pitcher leads the first
    card, and is not required to lead trump. If all players pass, the cards are shown face
    up to prove the lack of a forced bid, and the deal is passed to the left."  Low to its
    original holder, as in nine-five."""
    return _nine_five().with_options(
        name="hotshot", minimum_bid=9, look_option=False, moon_bid=18, moon_made=MoonMade.WIN_GAME,
        moon_set=MoonSet.LOSE_GAME, blind_moon_bid=0, first_lead=FirstLead.LEFT_OF_PITCHER,
        first_lead_trump=False, all_pass=AllPass.PASS_DEAL)


def _scranton() -> Ruleset:
    """Seed 004, the Scranton rule: "when a player's hand contains exclusively cards below
    ten, the player may choose to enter a bid of 'coke.' ... the player who declares coke is
    then dealt a fresh five card hand, must show his six cards to all players, cannot bid
    further, and refrains from playing the final trick of the round" (option
    ``coke_sits_out=first``: "In a New York variation, the player refrains from playing the
    first trick").  Played over seed 004's auction pitch, Low to its original holder and
    the revoke penalty included."""
    return _auction().with_options(name="scranton", coke=True)


def _entry(name: str, seed: str, paragraph: str, summary: str, build: Callable[[], Ruleset]) -> Preset:
    return Preset(name=name, seed=seed, summary=summary, build=build, paragraph=paragraph)


PRESETS: dict[str, Preset] = {
    p.name: p for p in (
        _entry("ipitch", "000", "iPitch Game Rules",
               "3-7 players alone, bids 2-4, to 7, only the pitcher goes out", _ipitch),
        _entry("partnership", "001", "How to Play Pitch",
               "4 in two teams, dealer may steal, to 21 after making the bid", _partnership),
        _entry("cutthroat", "002", "Three-player Pitch",
               "3 alone, trump declared then discard and draw, to 11", _cutthroat),
        _entry("partnership-five", "002", "Four-player Pitch",
               "4 in two teams, the five of trumps worth 5, bids 2-9, to 21", _partnership_five),
        _entry("high-low-jack", "002", "Variations: High-Low Jack",
               "4 in two teams, trump by first card, no exchange, to 21", _high_low_jack),
        _entry("simple", "004", "Pitch or blind all fours",
               "no auction: eldest hand pitches, points in order, to 7", _simple),
        _entry("auction", "004", "Auction pitch",
               "minimum bid 1, all pass re-deals, bid 4 shoots the moon, to 11", _auction),
        _entry("ten-point", "003", "10-point pitch",
               "54 cards, 9 dealt, trump named, trumps only, A/J/off-J/jokers/10/2 and the 3, to 52", _ten_point),
        _entry("five-point", "003", "Point Variations: 5 Point", "ten-point without joker and three points",
               _five_point),
        _entry("seven-point", "003", "Point Variations: 7 Point", "ten-point without the three", _seven_point),
        _entry("eight-point", "003", "Point Variations: 8 Point", "ten-point without joker points", _eight_point),
        _entry("thirteen-point", "003", "Point Variations: 13 Point", "ten-point plus the off-three worth 3",
               _thirteen_point),
        _entry("eleven-point", "003", "Point Variations: 11 Point", "thirteen-point without joker points",
               _eleven_point),
        _entry("sixteen-point", "003", "Point Variations: 16 Point",
               "every off-card a trump and a point (off-three 3)", _sixteen_point),
        _entry("fifteen-point", "003", "Point Variations: 15 Point", "sixteen-point without the off-two point",
               _fifteen_point),
        _entry("fourteen-point", "003", "Point Variations: 14 Point", "sixteen-point without joker points",
               _fourteen_point),
        _entry("dirty", "003", "Other: Dirty", "ten-point where the two must be captured", _dirty),
        _entry("reverse-hierarchy", "003", "Other: Reverse Hierarchy", "ten-point where the lowest trump wins",
               _reverse_hierarchy),
        _entry("five-handed", "003", "Variations: Five-Handed",
               "5 alone, 10 dealt, 4-card blind, a called card picks the partner", _five_handed),
        _entry("nine-card-ten-point", "004", "Pitch games based on 10 points (nine cards)",
               "ten-point with minimum bid 5, the moon wins or loses", _nine_card_ten_point),
        _entry("oklahoma-ten", "004", "Pitch games based on 10 points (Oklahoma)",
               "6 dealt, bids 1-9 straight or double ('6 for 12'), moon 10", _oklahoma_ten),
        _entry("eleven-point-off-ace", "004", "Pitch games with other point variations (off-ace)",
               "ten-point plus the off-ace, to 51, burned points to the opponents", _eleven_point_off_ace),
        _entry("contway-six", "004", "Pitch games based on six points (Contway 6-point)",
               "53 cards, off-jack and joker, six points", _contway_six),
        _entry("roadhouse", "004", "Pitch games with other point variations (Roadhouse)",
               "must follow suit, moon = every trick and 15, to 15 by two", _roadhouse),
        _entry("kentucky-seven", "004", "Pitch games with other point variations (Kentucky 7-point)",
               "54 cards, trump named, discard non-trumps and refill, bids 3-7, to 21", _kentucky_seven),
        _entry("missouri-seven", "004", "Pitch games with other point variations (Southeast Missouri)",
               "34 cards (2s-6s out), 10-card blind, no discarding", _missouri_seven),
        _entry("three-teams", "004", "Further variations (three teams of three)",
               "9 players in 3 teams of 3, all 54 cards dealt, bids 1-6, a set team drops to -1", _three_teams),
        _entry("reverse", "004", "Further variations (reverse pitch)", "auction pitch where the low card wins",
               _reverse),
        _entry("two-trump", "004", "Further variations (two-trump pitch)",
               "54 cards, trump and sub-trump named, unranked jokers, 9 points, to 26", _two_trump),
        _entry("call-partner", "004", "Miscellaneous options (call for partner)",
               "5 alone, the bidder calls a card whose holder leads it and partners the bidder", _call_partner),
        _entry("abacos", "004", "Pitch games based on six points (Abacos pitch)",
               "look or bid blind; lookers lose a random card", _abacos),
        _entry("man-o-war", "004", "Pitch games based on six points (man-o-war pitch)",
               "Abacos where the high bidder may take the lost cards", _man_o_war),
        _entry("nine-five", "004", "Nine-five variants of pitch",
               "the 9 and 5 of trumps worth 9 and 5, forced 9, smudge 19, blind smudge 20, to 101",
               _nine_five),
        _entry("hotshot", "004", "Nine-five variants of pitch (Variant)",
               "nine-five with bids 9-18, hotshot 18 is sudden death", _hotshot),
        _entry("scranton", "004", "Miscellaneous options (the Scranton rule)",
               "auction pitch with the coke bid for a hand below tens", _scranton),
        _entry("barn", "004", "Pitch games based on breaking trump (barn pitch)",
               "trump named, must follow suit, trump led only once broken", _barn),
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

