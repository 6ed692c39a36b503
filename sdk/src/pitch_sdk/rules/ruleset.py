"""Rulesets: a variant of Pitch as frozen data made of small rule pieces.

The engine has one code path; everything a table may choose differently is a field of one
of the pieces below (seating, deck, deal, bidding, moon, trump, play, scoring, winning).
A ruleset checks its own consistency when built and round-trips through JSON, so it can
be stored with every match record and sent to bots.

Option names are unique across the pieces, so ``ruleset.with_options(target=11)`` and the
dotted form ``{"win.target": 11}`` both work.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Any

from pitch_sdk.rules.errors import InvalidRulesetError


def _enum(enum_cls: type[StrEnum], value: Any, option: str) -> Any:
    if isinstance(value, enum_cls):
        return value
    try:
        return enum_cls(value)
    except ValueError:
        choices = ", ".join(m.value for m in enum_cls)
        raise InvalidRulesetError(f"bad value {value!r} for {option}: expected one of {choices}") from None


class JokerRank(StrEnum):
    """Where jokers rank among the trumps (they always belong to the trump suit)."""

    BELOW_JACK = "below-jack"
    """Just below the jack (and the off-jack): seed 004, "Common minor variations"."""
    BELOW_TWO = "below-two"
    """Below the two of trumps and ignored for Low: seed 004, "Off-jack, jokers"."""
    UNRANKED = "unranked"
    """Suitless and unranked: a joker never wins a trick and is ignored for High and Low
    (seed 004, two-trump pitch)."""
    TOP = "top"
    """Seed 004, "Off-jack, jokers": "A joker may also be added to the pack as the ultimate
    trump, capturing everything but the low trump. It also represents a point."  The joker
    ranks above the ace (so it is High when in play: the seed exempts it only from
    capturing the low trump).  Read as RULES.md reads seed 003's two ("it cannot be
    captured"): the joker wins its trick, but the Low card (the lowest trump in play, the
    joker aside) played to that trick stays in the pile of the party that played it.  The
    other reading, the low trump beating the joker, is this rank with ``low_trump_wins``.
    One joker only; add the ``joker`` point for "It also represents a point"."""


class AllPass(StrEnum):
    """What happens when every player before the dealer passes."""

    FORCE_DEALER = "force-dealer"
    """The dealer must bid at least the minimum (seeds 000, 001, 002)."""
    REDEAL = "redeal"
    """Everyone may pass; the same dealer deals again (seed 004, auction pitch)."""
    PASS_DEAL = "pass-deal"
    """Everyone may pass; the deal passes to the left (seed 004, nine-five's variant:
    "the cards are shown face up ... and the deal is passed to the left")."""


class Muck(StrEnum):
    """What happens to a hand dealt no point cards, "no cards which could contribute toward
    the Game point" (seed 004, "Card distribution variations": 10, J, Q, K, A, and jokers
    where they have a pip value).

    The seed makes it the player's option ("may"): each seat dealt such a hand is asked,
    from eldest hand, before the auction (``Phase.MUCK``, ``DecisionKind.MUCK``: keep or
    muck; :mod:`pitch_sdk.rules.mucking`).  With no honour a hand can still hope for Low,
    so a player may keep it."""

    NONE = "none"
    """Play the cards dealt (seed 004's nine-card ten-point: "Mucking a Hand and Misdeal are
    prohibited")."""
    NEW_HAND = "new-hand"
    """Seed 004: "Players who have received no point cards ... may lay their cards face down
    and receive a new hand ... A player who has made use of this option may not bid unless
    forced to do so (i.e., if the player is the dealer)."  Each such player, from eldest
    hand, that chooses to muck takes the next ``hand_size`` cards of the stock (asked once
    per deal, while the stock holds a whole hand); the mucked cards leave play face down
    and are shown to the table after the hand ("The cards can be checked by the other
    players after the hand has been played").  A mucker may only pass, unless it is the
    dealer forced to bid."""
    REDEAL = "redeal"
    """Seed 004: "A player who has received no point cards may ask for a complete re-deal by
    the same dealer."  Each seat dealt such a hand, from eldest, is asked; the first that
    mucks shows its hand and the same dealer deals again (a new shuffle, the same hand
    number); asked only while the deal count is below ``max_hands``."""


class FirstLead(StrEnum):
    """Who leads to the first trick."""

    PITCHER = "pitcher"
    """The pitcher (every seed but one)."""
    LEFT_OF_PITCHER = "left-of-pitcher"
    """Seed 004, nine-five's variant: "The player to the left of the pitcher leads the
    first card, and is not required to lead trump"."""


class CokeSitsOut(StrEnum):
    """Which trick a player who declared coke (the Scranton rule) does not play."""

    LAST = "last"
    """Seed 004: "refrains from playing the final trick of the round"."""
    FIRST = "first"
    """Seed 004: "In a New York variation, the player refrains from playing the first trick"."""


class TrumpSelection(StrEnum):
    """How the trump suit is chosen."""

    PITCH = "pitch"
    """The suit of the pitcher's first lead becomes trump (pitching)."""
    DECLARE = "declare"
    """The pitcher names trump before play (seed 002's three- and four-player Pitch)."""


class Exchange(StrEnum):
    """The discard-and-draw phase after trump is declared, eldest hand first."""

    NONE = "none"
    """No exchange: play the cards dealt."""
    ANY = "any"
    """Discard any number of cards and draw as many from the stock (seed 002)."""
    NON_TRUMPS = "non-trumps"
    """Discard as many non-trumps as desired, then be refilled (seed 004)."""
    ALL_NON_TRUMPS = "all-non-trumps"
    """Discard every non-trump, then be refilled (seed 004); when the stock cannot refill
    them all, discard only as many non-trumps (of one's choice) as it can replace."""
    DISCARD_NON_TRUMPS = "discard-non-trumps"
    """Seed 003: every player throws away every non-trump (no choice), then each in turn
    from eldest hand is refilled to ``refill_to`` cards from the stock; see also
    ``leftovers_to_bidder`` and ``burn_to``."""
    NON_TRUMPS_OR_ALL = "non-trumps-or-all"
    """Seed 004, "Players start with more than six cards": each player "discards at least
    three non-trumps, or exactly three cards including all non-trumps, after which the
    dealer completes each hand to six cards".  Three is read as the hand's size less
    ``refill_to`` (nine dealt, six played); a player holding that many non-trumps discards
    that many or more, all non-trumps (as many more as the stock can replace), else exactly
    that many, every non-trump among them; then each is refilled to ``refill_to``."""
    DOWN_TO_SIZE = "down-to-size"
    """Seed 004: "As a simpler alternative, each player brings their hand down to six by
    discarding the appropriate number of cards. The discarded cards must all be non-trumps
    or include all of the player's non-trumps."  Each discards exactly its hand's size less
    ``refill_to`` cards, none drawn."""


class Follow(StrEnum):
    """What a player must play to a trick that has been led."""

    MAY_TRUMP = "may-trump"
    """Follow suit or trump; any card when void (seeds 000-002, 004's standard rule)."""
    MUST_FOLLOW = "must-follow"
    """Follow suit when able; trump only when void (Roadhouse pitch, seed 004)."""


class LowGoesTo(StrEnum):
    """Which party scores the Low point (and, with ``two_goes_to``, the two of trumps)."""

    CAPTURER = "capturer"
    """The party that won the trick containing the lowest trump (seeds 000, 001, 002)."""
    PLAYER = "player"
    """The party whose player held and played it (seed 004: "awarded to the owner")."""


class WinMode(StrEnum):
    """How the game's winner is decided at the end of a hand."""

    FIRST_TO_REACH = "first-to-reach"
    """Points are counted in order; the first eligible party to reach the target wins."""
    MAKER_FIRST = "maker-first"
    """Seed 002: a making party at the target wins regardless; else the non-making party
    with the most points at the target wins; a tie for most plays on (``who_may_win`` and
    ``win_by`` still restrict who may go out)."""


class WhoMayWin(StrEnum):
    """Which parties may go out at the end of a hand."""

    ANY = "any"
    """Any party, e.g. one that reaches the target by setting the pitcher."""
    PITCHING_PARTY = "pitching-party"
    """Only the pitching party (seed 004: "only the pitching party can win")."""
    BID_MADE = "bid-made"
    """Only the pitching party, and only in a hand where it made its bid (bid to go out)."""
    BID_MADE_OR_SET = "bid-made-or-set"
    """Bid to go out, and also a defending party in a hand where the pitcher was set (seed
    004, "Bid to go out": "In some variants, a team can win if they reach the goal during a
    hand in which they set the bidder"); no preset's own text asks for it."""


class CountOrder(StrEnum):
    """The order points are counted in when deciding who reached the target first."""

    PITCHER_FIRST = "pitcher-first"
    """The pitcher's points first, then High, Low, Jack, Game (seed 004, auction pitch)."""
    CATEGORIES = "categories"
    """Strictly in the order of the point categories (seed 004, simple pitch)."""


class MoonMade(StrEnum):
    """What making a shoot-the-moon bid earns."""

    WIN_GAME = "win-game"
    """The pitching party wins the game (unless in the hole, see ``moon_blocked_in_hole``)."""
    SCORE = "score"
    """The pitching party scores ``moon_score`` points."""
    BID = "bid"
    """The pitching party scores the bid itself, and a failure sets it back by the bid
    (seed 004, nine-five: "A 'smudge' bid is worth 19 points ... blind smudge ... 20")."""
    TO_TARGET = "to-target"
    """Seed 003: the score "advances to 52 if their score was above zero or to zero if
    their score was below zero" (the target, or zero from the hole)."""


class MadeScores(StrEnum):
    """What a pitching party that makes its bid scores."""

    POINTS_WON = "points-won"
    """Every point it won (seeds 000-002, 004's auction pitch)."""
    BID = "bid"
    """The amount bid (seed 003: "they receive that number of points"); a double bid
    scores twice the amount (seed 004, Oklahoma ten-point)."""


class SetPenalty(StrEnum):
    """What a pitching party that fails its bid loses."""

    BID = "bid"
    """The bid is subtracted (set back); twice the bid for a double bid."""
    POOKIE = "pookie"
    """Seed 004, three teams: "they must give back any points (chips) they have
    accumulated and receive 1 negative point" - the score becomes -1 (or one less, if it
    was already below zero)."""


class BurnedPoints(StrEnum):
    """Who scores a point card that was burned (removed from play before the tricks)."""

    NOBODY = "nobody"
    """Burned cards are out of play and score for nobody (seed 003)."""
    OPPONENTS = "opponents"
    """Seed 004, off-ace eleven-point: "If a player is forced to burn a card worth points,
    those points are awarded to the opposing team."""


class Backdoor(StrEnum):
    """What reaching the negative of the target (or ``backdoor_score``) does."""

    NONE = "none"
    """Nothing: scores may fall without limit."""
    WINS = "wins"
    """Seed 004: "Reaching the negative equivalent of the goal wins in some versions"."""
    LOSES = "loses"
    """Seed 004, nine-five: "if a team reaches -100 points the other team is declared winner"."""
    DRAW = "draw"
    """Seed 004, nine-five's variant: "if a team reaches -200 points it is considered a
    'backdoor' and the game is a draw"."""


class PartnerCall(StrEnum):
    """Whether partners are fixed or called each hand."""

    NONE = "none"
    """Fixed parties: partners sit alternately (``team_size``)."""
    HOLDER = "holder"
    """Seed 003, five-handed: after naming trump the bidder calls a card; its holder is
    the bidder's partner against the rest for this hand; a called card in the blind
    leaves the bidder alone, and the bidder must lead it."""
    LEAD = "lead"
    """Seed 004, call for partner: after the auction the bidder calls a card; "the player
    who has it becomes their partner until the next bid. The 'called' card is the first
    played, and sets the trump" (an undealt card leaves the bidder alone, pitching)."""


class MoonSet(StrEnum):
    """What failing a shoot-the-moon bid costs."""

    SET_BACK = "set-back"
    """Set back by ``moon_score`` like any failed bid."""
    LOSE_GAME = "lose-game"
    """The pitching party loses the game (seed 004, "Shoot the moon")."""


class PointCategory(StrEnum):
    """A way of scoring points in a hand, awarded to a party."""

    HIGH = "high"
    """The highest trump in play, to the party whose pile holds it."""
    LOW = "low"
    """The lowest trump in play, to its capturer or player (``low_goes_to``)."""
    JACK = "jack"
    """The jack of trumps, if it is in play."""
    OFF_JACK = "off-jack"
    """The jack of the other suit of trump's colour, when it belongs to trump."""
    GAME = "game"
    """Strictly the most pips in a party's pile; a tie for most awards nothing."""
    JOKER = "joker"
    """Each joker in play, to the party whose pile holds it."""
    FIVE = "five"
    """The five of trumps (seed 002's four-player Pitch: worth 5)."""
    THREE = "three"
    """The three of trumps (seed 004's odd trumps: worth 3)."""
    OFF_THREE = "off-three"
    """The three of the other suit of trump's colour, a trump just below the three."""
    ACE = "ace"
    """The ace of trumps (the ten-point family's "High 'Ace'")."""
    TEN = "ten"
    """The ten of trumps (the ten-point family's "Game '10'")."""
    TWO = "two"
    """The two of trumps, to its player or capturer (``two_goes_to``)."""
    NINE = "nine"
    """The nine of trumps (seed 004's nine-five: worth 9)."""
    OFF_ACE = "off-ace"
    """The ace of the other suit of trump's colour, a trump just below the ace."""
    OFF_TEN = "off-ten"
    """The ten of the other suit of trump's colour, a trump just below the ten."""
    OFF_TWO = "off-two"
    """The two of the other suit of trump's colour, a trump just below the two."""
    SUB_HIGH = "sub-high"
    """The highest sub-trump in play (seed 004, two-trump pitch)."""
    SUB_LOW = "sub-low"
    """The lowest sub-trump in play (seed 004, two-trump pitch)."""
    SUB_JACK = "sub-jack"
    """The jack of the sub-trump suit, if it is in play (seed 004, two-trump pitch)."""
    SWEEP = "sweep"
    """Not a scoring category to configure: the award recording ``sweep_bonus``, paid to
    each party of a side that took every point in play (seed 004, all fours)."""
    REVOKE = "revoke"
    """Not a scoring category to configure: the award recording a revoke under
    ``revoke_penalty``, worth minus the bid to the revoking party, with the card revoked."""


#: Award categories the engine records but a ruleset may not list among its ``points``.
RECORDED_ONLY = frozenset({PointCategory.SWEEP, PointCategory.REVOKE})


@dataclass(frozen=True)
class PointRule:
    """One scoring category and what it is worth."""

    category: PointCategory
    value: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "category", _enum(PointCategory, self.category, "points"))
        if not isinstance(self.value, int) or self.value < 1:
            raise InvalidRulesetError(f"point {self.category} must be worth >= 1, got {self.value!r}")


FOUR_POINTS = (PointRule(PointCategory.HIGH), PointRule(PointCategory.LOW),
               PointRule(PointCategory.JACK), PointRule(PointCategory.GAME))


@dataclass(frozen=True)
class Seating:
    """How many play and how they form parties (partners sit alternately)."""

    players: int = 4
    team_size: int = 2
    partner_call: PartnerCall = PartnerCall.NONE
    call_any_card: bool = False
    """With ``partner_call=holder`` the bidder may call any card it does not hold, not only a
    trump (seed 003 says "the card he/she wants to see played"; the default reads it as a
    trump, since only trumps are played)."""

    @cached_property
    def parties(self) -> int:
        """Number of parties; seat ``s`` belongs to party ``s % parties``."""
        return self.players // self.team_size


@dataclass(frozen=True)
class DeckRules:
    """Which cards are in the pack and which extra cards belong to trump."""

    jokers: int = 0
    joker_rank: JokerRank = JokerRank.BELOW_JACK
    off_jack: bool = False
    off_three: bool = False
    off_ace: bool = False
    off_ten: bool = False
    off_two: bool = False
    """Off-cards (the card of the same rank in the other suit of trump's colour) are
    trumps ranking just below their counterparts (seeds 003, 004)."""
    removed_ranks: tuple[int, ...] = ()
    joker_half_pip: bool = True
    """Whether a joker is worth half a pip toward Game.  Seed 004's two-joker option says so
    ("Jokers are worth half a pip"), and three-teams ("each joker worth 1/2 point"); the
    presets whose seeds are silent (Contway, Kentucky and Missouri seven-point, two-trump)
    set it false, since RULES.md counts jokers "1/2 where a variant says so", others 0."""


@dataclass(frozen=True)
class DealRules:
    """How many cards each player gets and in what batches."""

    hand_size: int = 6
    deal_batch: int = 3
    refill_to: int = 0
    """After the discard, each player is refilled to this many cards (0: no refill); the
    playing hand's size for the ``non-trumps-or-all`` and ``down-to-size`` exchanges."""
    burn_to: int = 0
    """A player holding more cards than this before play burns down to it (0: never)."""
    muck: Muck = Muck.NONE
    widow: bool = False
    """Seed 004: "a widow (extra hand) is dealt along with the players' hands. Before deciding
    the trump suit, the maker adds the widow to their hand and brings the number of cards
    back down to six by discarding."  The widow is ``hand_size`` cards, the first of the
    stock (so the log's dealt stock starts with it), seen by nobody until the high bidder
    takes it after the auction and discards, face down, down to ``hand_size`` cards.  Needs
    an auction (it goes to "the maker")."""


@dataclass(frozen=True)
class BiddingRules:
    """The auction for the right to pitch."""

    auction: bool = True
    minimum_bid: int = 2
    maximum_bid: int = 4
    dealer_steal: bool = True
    all_pass: AllPass = AllPass.FORCE_DEALER
    forced_minimum_only: bool = False
    """A dealer forced to bid takes exactly the minimum: seed 003 "the dealer MUST take the
    bid for four"; otherwise any bid (the moon included)."""
    forced_moon: bool = False
    """With ``forced_minimum_only``, the forced dealer may instead shoot the moon: only
    Roadhouse's text says so ("the dealer must assume the minimum bid (or 'shoot the
    moon')").  Needs a moon bid."""
    double_bids: bool = False
    """Every number may also be bid "for double": "6 for 12" scores 12 when made and is
    set 12 when failed (seed 004, Oklahoma ten-point)."""
    look_option: bool = False
    """Each player decides, before acting in the auction, whether to look at the hand
    (seed 004, Abacos pitch; nine-five's blind smudge); a player who has not looked bids
    blind."""
    lookers_lose_card: bool = False
    """Seed 004, Abacos: "each player who looked at his/her cards before acting loses one
    card, chosen at random"."""
    bidder_takes_lost: bool = False
    """Seed 004, man-o-war: the high bidder looks at the lost cards one at a time, may take
    each, and discards a card of his choice for each one taken."""
    offer_own_lost: bool = False
    """Man-o-war: the bidder is also offered back the card it lost itself (the seed says
    "the cards given up by players who looked"; by default the bidder's own is not offered)."""
    forced_nine: bool = False
    """Seed 004, nine-five: "A minimum bid of 9 is forced if a player holds the 9 and
    another card of the same suit" (a player who looked, while the high bid is below 9)."""
    coke: bool = False
    """Seed 004, the Scranton rule: a player whose cards are all below ten may bid "coke":
    shows the hand, gets five fresh cards, and takes no further part in the auction."""
    coke_sits_out: CokeSitsOut = CokeSitsOut.LAST


@dataclass(frozen=True)
class MoonRules:
    """Shoot the moon / smudge: a bid of ``moon_bid`` with its own consequences."""

    moon_bid: int = 4
    moon_all_tricks: bool = False
    moon_made: MoonMade = MoonMade.WIN_GAME
    moon_score: int = 4
    moon_set: MoonSet = MoonSet.SET_BACK
    moon_blocked_in_hole: bool = True
    blind_moon_bid: int = 0
    """A second moon bid, legal only before looking at the hand (seed 004, nine-five's
    "blind smudge ... worth 20 points"); 0: none.  Needs ``look_option``."""


@dataclass(frozen=True)
class TrumpRules:
    """How trump is chosen and whether hands are improved afterwards."""

    trump_selection: TrumpSelection = TrumpSelection.PITCH
    exchange: Exchange = Exchange.NONE
    leftovers_to_bidder: bool = False
    """After the refills the bidder takes what is left of the stock (seed 003; the blind
    in five-handed)."""
    pass_leftovers: bool = False
    """The bidder may instead pass the leftovers, unseen, to the partner (seed 003)."""
    sub_trump: bool = False
    """After naming trump the bidder names a sub-trump suit, ranking above plain suits and
    below trump (seed 004, two-trump pitch)."""
    dealer_picks: bool = False
    """Seed 004, nine-five: after refilling the others, "the dealer brings their own hand to
    six cards, and is allowed to look at remaining cards when doing so"."""
    discards_face_up: bool = False
    """The exchange's discards are laid face up for the whole table to see (the cards drawn
    stay secret): seed 004's Kentucky seven-point, "players discard non-trump cards face up
    in the center of the table".  Other exchanges discard face down (seed 002 and 003 say
    nothing of showing them), so only their number is public.  Needs an exchange."""


@dataclass(frozen=True)
class PlayRules:
    """Which cards may be played to a trick."""

    follow: Follow = Follow.MAY_TRUMP
    joker_may_lead_first_trick: bool = False
    first_lead: FirstLead = FirstLead.PITCHER
    first_lead_trump: bool = False
    """The first lead must be a trump when the leader holds one (seed 004, nine-five, whose
    variant says "The pitcher need not lead a trump")."""
    trumps_only: bool = False
    """Only trumps may be played: non-trumps are thrown away before play, and a player
    with no cards left is out while the others play on (seed 003)."""
    lowest_wins: bool = False
    """The lowest trump (or lowest card of the suit led) takes the trick: seed 004's
    reverse pitch and seed 003's reverse hierarchy."""
    low_trump_wins: bool = False
    """The lowest trump of the pack wins the trick it is played to (seed 004)."""
    trump_must_be_broken: bool = False
    """Trump may not be led until a trump has been played, unless the leader holds only
    trumps (seed 004, barn pitch)."""
    double_down_override: bool = False
    """After a joker lead the other joker may always be played (two-trump pitch)."""
    revoke_penalty: bool = False
    """Seed 004, auction pitch: "A player who can follow suit but discards a card of a
    different non-trump suit is punished for the revoke by being set back by the value of
    the bid."  When true such a play (holding the suit led, playing a card neither of that
    suit nor a trump) is legal, and at the hand's end each revoke sets the revoking party
    back by the bid (twice it for a double bid): "set back" read as the seed uses it for a
    failed pitcher, who "does not receive any of the points, and is instead set back", so
    the party's score change for the hand is minus the bid per revoke, replacing whatever
    it won (its points go to nobody; it earns no sweep bonus).  A revoking pitching side
    has not made its bid (a made moon does not win; a failed moon still loses).  Each
    revoke is recorded in the hand result as a ``revoke`` award (the card, the party, minus
    the bid).  False: the play is refused, as every other seed reads standard trick play.
    Needs an auction (a bid to be set back by) and is not combined with two-trump pitch's
    following rules."""


@dataclass(frozen=True)
class ScoringRules:
    """The point categories in counting order, and who scores them."""

    points: tuple[PointRule, ...] = FOUR_POINTS
    low_goes_to: LowGoesTo = LowGoesTo.CAPTURER
    two_goes_to: LowGoesTo = LowGoesTo.CAPTURER
    """Who scores the two of trumps: seed 003 "The two goes to the person who plays it"
    (``player``); "Dirty" pitch carries it like any card (``capturer``)."""
    no_junk_points: bool = False
    made_scores: MadeScores = MadeScores.POINTS_WON
    set_penalty: SetPenalty = SetPenalty.BID
    burned_points: BurnedPoints = BurnedPoints.NOBODY
    sweep_bonus: int = 0
    """Seed 004, all fours: "Side payments are made for winning all four points in a single
    hand."  Extra points, on top of its score for the hand, for each party of a side that
    took every point in play (all ``points_in_play``: no sweep when a point was not awarded,
    such as a Jack nobody held or a tied Game), recorded as a ``sweep`` award; 0: none.  The
    seed's stakes are paid outside the game; as points they can be rated."""

    def __post_init__(self) -> None:
        items = tuple(_point_rule(p) for p in self.points)
        object.__setattr__(self, "points", items)


@dataclass(frozen=True)
class WinRules:
    """When the game ends and who wins it."""

    target: int = 21
    win_mode: WinMode = WinMode.FIRST_TO_REACH
    who_may_win: WhoMayWin = WhoMayWin.BID_MADE
    win_by: int = 1
    count_order: CountOrder = CountOrder.PITCHER_FIRST
    backdoor: Backdoor = Backdoor.NONE
    backdoor_score: int = 0
    """The score at or below which the backdoor applies (0: minus the target)."""
    max_hands: int = 500
    """Deals (re-deals after all pass included) after which the game stops: the highest
    score wins, a tie is a draw.  Keeps games between bots finite."""
    target_formula: bool = False
    """Seed 004: "Sometimes the following formula is used to determine the number of points
    required to win: (points available) * (number of players) + 1."  When true, ``target``
    is derived as ``points_in_play * players + 1`` (players are seats, as the text says,
    also in partnerships) and any value given for it is replaced, so it follows later
    changes of players or points."""


_PIECES: dict[str, type] = {
    "seating": Seating, "deck": DeckRules, "deal": DealRules, "bidding": BiddingRules,
    "moon": MoonRules, "trump": TrumpRules, "play": PlayRules, "scoring": ScoringRules,
    "win": WinRules,
}
#: option name -> the piece that owns it (names are unique across pieces).
OPTION_PIECE: dict[str, str] = {
    f.name: piece for piece, cls in _PIECES.items() for f in dataclasses.fields(cls)
}


@dataclass(frozen=True)
class Ruleset:
    """A complete, validated variant of Pitch.  Build presets with :func:`preset`.

    Derived facts (``parties``, ``points_in_play``...) are computed once per ruleset: the
    engine asks for them every hand."""

    name: str = "custom"
    seating: Seating = field(default_factory=Seating)
    deck: DeckRules = field(default_factory=DeckRules)
    deal: DealRules = field(default_factory=DealRules)
    bidding: BiddingRules = field(default_factory=BiddingRules)
    moon: MoonRules | None = None
    trump: TrumpRules = field(default_factory=TrumpRules)
    play: PlayRules = field(default_factory=PlayRules)
    scoring: ScoringRules = field(default_factory=ScoringRules)
    win: WinRules = field(default_factory=WinRules)

    def __post_init__(self) -> None:
        for piece, cls in _PIECES.items():
            value = getattr(self, piece)
            if value is None and piece == "moon":
                continue
            if not isinstance(value, cls):
                raise InvalidRulesetError(f"ruleset piece {piece!r} must be a {cls.__name__}")
            _coerce_enums(value)
        if self.win.target_formula:
            object.__setattr__(self, "win", dataclasses.replace(self.win, target=self.formula_target))
        _validate(self)

    # ----------------------------------------------------------------- derived facts
    @cached_property
    def players(self) -> int:
        """Number of seats."""
        return self.seating.players

    @cached_property
    def parties(self) -> int:
        """Number of parties (players, or teams)."""
        return self.seating.parties

    def party_of(self, seat: int) -> int:
        """The party a seat belongs to: partners sit alternately."""
        return seat % self.seating.parties

    @cached_property
    def points_in_play(self) -> int:
        """The most points one hand can award (each joker counted once)."""
        total = 0
        for rule in self.scoring.points:
            count = self.deck.jokers if rule.category is PointCategory.JOKER else 1
            total += rule.value * count
        return total

    @property
    def formula_target(self) -> int:
        """Seed 004's target formula, "(points available) * (number of players) + 1"."""
        return self.points_in_play * self.players + 1

    @cached_property
    def deck_size(self) -> int:
        """How many cards are in the pack."""
        return 4 * (13 - len(self.deck.removed_ranks)) + self.deck.jokers

    # ----------------------------------------------------------------- conversions
    def with_options(self, options: dict[str, Any] | None = None, /, **more: Any) -> Ruleset:
        """A copy with options changed, by option name (``target``) or dotted path."""
        changes: dict[str, dict[str, Any]] = {}
        top: dict[str, Any] = {}
        for key, value in {**(options or {}), **more}.items():
            piece, _, name = key.rpartition(".")
            if name == "name" and not piece:
                top["name"] = value
                continue
            if not piece:
                if name not in OPTION_PIECE:
                    raise InvalidRulesetError(
                        f"unknown ruleset option {key!r}; known options: "
                        + ", ".join(sorted(OPTION_PIECE)))
                piece = OPTION_PIECE[name]
            if piece not in _PIECES or name not in {f.name for f in dataclasses.fields(_PIECES[piece])}:
                raise InvalidRulesetError(f"unknown ruleset option {key!r}")
            changes.setdefault(piece, {})[name] = value
        pieces: dict[str, Any] = dict(top)
        for piece, values in changes.items():
            current = getattr(self, piece) or _PIECES[piece]()
            try:
                pieces[piece] = dataclasses.replace(current, **values)
            except (TypeError, ValueError) as exc:
                if isinstance(exc, InvalidRulesetError):
                    raise
                raise InvalidRulesetError(f"bad value for {piece} options {values!r}: {exc}") from None
        return dataclasses.replace(self, **pieces)

    def without_moon(self) -> Ruleset:
        """A copy with no shoot-the-moon bid (so a forced dealer cannot shoot it either)."""
        bidding = dataclasses.replace(self.bidding, forced_moon=False)
        return dataclasses.replace(self, moon=None, bidding=bidding)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data; :meth:`from_dict` restores an equal ruleset."""
        return json.loads(self._plain_json)  # type: ignore[no-any-return]

    def to_json(self) -> str:
        """Compact JSON text of :meth:`to_dict`, keys sorted."""
        return self._canonical_json

    @cached_property
    def _plain_json(self) -> str:
        """:meth:`to_dict`'s data, encoded once: ``asdict`` walks every nested piece (about
        0.2 ms, paid per game log and per match otherwise) and a ruleset never changes;
        decoding the text gives every caller its own copy."""
        return json.dumps(_to_plain(dataclasses.asdict(self)))

    @cached_property
    def _canonical_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Ruleset:
        """Rebuild a ruleset from :meth:`to_dict` output (missing pieces take defaults)."""
        if not isinstance(data, dict):
            raise InvalidRulesetError(f"a ruleset must be a JSON object, got {type(data).__name__}")
        unknown = set(data) - set(_PIECES) - {"name"}
        if unknown:
            raise InvalidRulesetError(f"unknown ruleset keys: {sorted(unknown)}")
        kwargs: dict[str, Any] = {"name": str(data.get("name", "custom"))}
        for piece, piece_cls in _PIECES.items():
            if piece not in data:
                continue
            values = data[piece]
            if values is None:
                kwargs[piece] = None
                continue
            if not isinstance(values, dict):
                raise InvalidRulesetError(f"ruleset piece {piece!r} must be an object")
            names = {f.name for f in dataclasses.fields(piece_cls)}
            bad = set(values) - names
            if bad:
                raise InvalidRulesetError(f"unknown options in {piece!r}: {sorted(bad)}")
            try:
                kwargs[piece] = piece_cls(**values)
            except TypeError as exc:
                raise InvalidRulesetError(f"bad {piece!r} options: {exc}") from None
        return cls(**kwargs)

    @classmethod
    def from_json(cls, text: str) -> Ruleset:
        """Parse :meth:`to_json` output."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidRulesetError(f"ruleset is not valid JSON: {exc}") from None
        return cls.from_dict(data)


# --------------------------------------------------------------------- helpers
def _point_rule(item: Any) -> PointRule:
    if isinstance(item, PointRule):
        return item
    if isinstance(item, str):
        category, _, value = item.partition(":")
        return PointRule(category, int(value) if value else 1)  # type: ignore[arg-type]
    if isinstance(item, dict):
        return PointRule(item.get("category"), item.get("value", 1))  # type: ignore[arg-type]
    raise InvalidRulesetError(f"bad point rule {item!r}: expected 'high' or {{'category': ..., 'value': ...}}")


def _coerce_enums(piece: Any) -> None:
    """Accept enum values given as strings (from JSON) and lists given for tuples."""
    for f in dataclasses.fields(piece):
        value = getattr(piece, f.name)
        kind = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", "")
        enum_cls = globals().get(kind)
        if isinstance(enum_cls, type) and issubclass(enum_cls, StrEnum):
            object.__setattr__(piece, f.name, _enum(enum_cls, value, f.name))
        elif kind.startswith("tuple") and isinstance(value, list):
            object.__setattr__(piece, f.name, tuple(value))
        elif kind == "bool" and not isinstance(value, bool):
            raise InvalidRulesetError(f"option {f.name} must be true or false, got {value!r}")
        elif kind == "int" and (isinstance(value, bool) or not isinstance(value, int)):
            raise InvalidRulesetError(f"option {f.name} must be an integer, got {value!r}")


def _to_plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_to_plain(v) for v in value]
    if isinstance(value, StrEnum):
        return value.value
    return value


def _validate(rules: Ruleset) -> None:
    """Reject rulesets that cannot be played, naming the offending option."""
    seating, deck, bidding = rules.seating, rules.deck, rules.bidding

    def fail(message: str) -> None:
        raise InvalidRulesetError(f"ruleset {rules.name!r}: {message}")

    if seating.players < 2:
        fail(f"players must be at least 2, got {seating.players}")
    if seating.team_size < 1 or seating.players % seating.team_size:
        fail(f"team_size {seating.team_size} does not divide players {seating.players}")
    if seating.parties < 2:
        fail("there must be at least two parties")
    if deck.jokers not in (0, 1, 2):
        fail(f"jokers must be 0, 1 or 2, got {deck.jokers}")
    if any(not isinstance(r, int) or not 2 <= r <= 14 for r in deck.removed_ranks):
        fail(f"removed_ranks must be ranks 2..14, got {list(deck.removed_ranks)}")
    for kept in (11, 14):
        if kept in deck.removed_ranks:
            fail("the jacks and aces cannot be removed")
    needed = seating.players * rules.deal.hand_size
    if needed > rules.deck_size:
        fail(f"{seating.players} players x {rules.deal.hand_size} cards need {needed} cards "
             f"but the deck has {rules.deck_size}")
    if rules.deal.hand_size < 1 or rules.deal.deal_batch < 1:
        fail("hand_size and deal_batch must be positive")
    categories = [p.category for p in rules.scoring.points]
    if not categories:
        fail("at least one point category is needed")
    if len(set(categories)) != len(categories):
        fail(f"point categories repeat: {[c.value for c in categories]}")
    for category in RECORDED_ONLY.intersection(categories):
        fail(f"{category} is recorded by the engine, not a point to score")
    if rules.scoring.sweep_bonus < 0:
        fail(f"sweep_bonus must be zero (off) or positive, got {rules.scoring.sweep_bonus}")
    if rules.play.revoke_penalty:
        if not bidding.auction:
            fail("revoke_penalty needs an auction: a revoke is set back by the bid")
        if rules.trump.sub_trump or (deck.jokers and deck.joker_rank is JokerRank.UNRANKED):
            fail("revoke_penalty cannot be combined with two-trump pitch's following rules")
    for category, flag in ((PointCategory.OFF_JACK, "off_jack"), (PointCategory.OFF_THREE, "off_three"),
                           (PointCategory.OFF_ACE, "off_ace"), (PointCategory.OFF_TEN, "off_ten"),
                           (PointCategory.OFF_TWO, "off_two")):
        if category in categories and not getattr(deck, flag):
            fail(f"the {category} point needs {flag}=true")
    for category in (PointCategory.SUB_HIGH, PointCategory.SUB_LOW, PointCategory.SUB_JACK):
        if category in categories and not rules.trump.sub_trump:
            fail(f"the {category} point needs sub_trump=true")
    if PointCategory.JOKER in categories and not deck.jokers:
        fail("the joker point needs jokers in the deck")
    if not 1 <= bidding.minimum_bid <= bidding.maximum_bid:
        fail(f"bids {bidding.minimum_bid}..{bidding.maximum_bid} are not a range starting at 1 or more")
    if bidding.maximum_bid > rules.points_in_play:
        fail(f"maximum_bid {bidding.maximum_bid} exceeds the {rules.points_in_play} points in play")
    if bidding.forced_moon and (rules.moon is None or not bidding.forced_minimum_only):
        fail("forced_moon needs forced_minimum_only=true and a moon bid")
    if rules.moon is not None:
        if not bidding.auction:
            fail("shoot the moon needs an auction")
        if not bidding.minimum_bid <= rules.moon.moon_bid <= bidding.maximum_bid + 1:
            fail(f"moon_bid {rules.moon.moon_bid} must be a normal bid or one above maximum_bid")
    if rules.trump.exchange is not Exchange.NONE and rules.trump.trump_selection is not TrumpSelection.DECLARE:
        fail(f"exchange {rules.trump.exchange} needs trump_selection=declare")
    if (deck.jokers and rules.play.joker_may_lead_first_trick
            and rules.trump.trump_selection is TrumpSelection.PITCH):
        fail("a joker has no suit to pitch: joker_may_lead_first_trick needs trump_selection=declare")
    if deck.jokers >= rules.deal.hand_size and rules.trump.trump_selection is TrumpSelection.PITCH:
        fail(f"hand_size {rules.deal.hand_size} with {deck.jokers} jokers: a pitcher dealt only "
             "jokers would have no suit to pitch")
    _validate_hand_preparation(rules, fail)
    _validate_deal_options(rules, fail)
    if rules.win.backdoor_score > 0:
        fail(f"backdoor_score must be zero (minus the target) or negative, got {rules.win.backdoor_score}")
    if rules.win.target < 1 or rules.win.win_by < 1 or rules.win.max_hands < 1:
        fail("target, win_by and max_hands must be positive")
    if not bidding.auction and rules.win.who_may_win in (WhoMayWin.BID_MADE, WhoMayWin.BID_MADE_OR_SET):
        fail(f"who_may_win={rules.win.who_may_win} needs an auction")


def _validate_deal_options(rules: Ruleset, fail: Callable[[str], None]) -> None:
    """Seed 004's top joker, muck and widow: say which combination cannot be played."""
    deck, deal = rules.deck, rules.deal
    if deck.jokers and deck.joker_rank is JokerRank.TOP:
        if deck.jokers != 1:
            fail(f"joker_rank=top needs jokers=1 (seed 004: \"A joker ... as the ultimate trump\"), got {deck.jokers}")
        if rules.play.lowest_wins:
            fail("joker_rank=top cannot be combined with lowest_wins: the ultimate trump would never win")
    if deal.muck is not Muck.NONE and rules.bidding.look_option:
        fail(f"muck={deal.muck} needs look_option=false: a hand is mucked once its player has seen it")
    spare = rules.deck_size - rules.players * deal.hand_size
    if deal.muck is Muck.NEW_HAND and spare < deal.hand_size:
        fail(f"muck=new-hand needs a new hand of {deal.hand_size} cards in the stock, but only {spare} are left")
    if deal.widow:
        if not rules.bidding.auction:
            fail("widow needs an auction: the maker (high bidder) takes it")
        if spare < deal.hand_size:
            fail(f"widow needs {deal.hand_size} cards beyond the hands, but the deck leaves {spare}")
        if deal.muck is Muck.NEW_HAND and spare < 2 * deal.hand_size:
            fail(f"widow with muck=new-hand needs {2 * deal.hand_size} cards beyond the hands, "
                 f"but the deck leaves {spare}")


def _validate_hand_preparation(rules: Ruleset, fail: Callable[[str], None]) -> None:
    """The seed 003 pieces (discard and refill, leftovers, burning, trump-only play, called
    partners) only make sense together in certain ways; say which option is missing."""
    deal, trump, play, seating = rules.deal, rules.trump, rules.play, rules.seating
    declared = trump.trump_selection is TrumpSelection.DECLARE
    discarding = trump.exchange is Exchange.DISCARD_NON_TRUMPS
    if deal.refill_to < 0 or deal.burn_to < 0:
        fail("refill_to and burn_to must be zero (off) or positive")
    sized = trump.exchange in (Exchange.NON_TRUMPS_OR_ALL, Exchange.DOWN_TO_SIZE)
    if deal.refill_to and not (discarding or sized):
        fail("refill_to needs exchange=discard-non-trumps, non-trumps-or-all or down-to-size")
    if sized and not deal.refill_to:
        fail(f"exchange={trump.exchange} needs refill_to: the size hands are brought down to (seed 004: six)")
    if deal.refill_to > deal.hand_size:
        fail(f"refill_to {deal.refill_to} exceeds hand_size {deal.hand_size}")
    if trump.leftovers_to_bidder and not discarding:
        fail("leftovers_to_bidder needs exchange=discard-non-trumps")
    if trump.pass_leftovers and (not trump.leftovers_to_bidder or seating.team_size < 2):
        fail("pass_leftovers needs leftovers_to_bidder=true and a partner (team_size >= 2)")
    for option, used in (("trumps_only", play.trumps_only), ("trump_must_be_broken", play.trump_must_be_broken),
                         ("partner_call=holder", seating.partner_call is PartnerCall.HOLDER),
                         ("sub_trump", trump.sub_trump),
                         ("joker_rank=unranked", rules.deck.jokers > 0
                          and rules.deck.joker_rank is JokerRank.UNRANKED)):
        if used and not declared:
            fail(f"{option} needs trump_selection=declare (trump must be known before the first lead)")
    if seating.partner_call is PartnerCall.LEAD and declared:
        fail("partner_call=lead needs trump_selection=pitch: the called card sets trump")
    if seating.call_any_card and seating.partner_call is not PartnerCall.HOLDER:
        fail("call_any_card needs partner_call=holder")
    if rules.bidding.offer_own_lost and not rules.bidding.bidder_takes_lost:
        fail("offer_own_lost needs bidder_takes_lost=true")
    if seating.partner_call is not PartnerCall.NONE:
        if seating.team_size != 1:
            fail("partner_call needs team_size=1: partners are called each hand")
        if not rules.bidding.auction:
            fail("partner_call needs an auction: the bidder calls the partner")
    sides = 2 if seating.partner_call is not PartnerCall.NONE else seating.parties
    if rules.scoring.burned_points is not BurnedPoints.NOBODY and sides != 2:
        fail("burned_points=opponents needs exactly two sides (two teams, or a called partner)")
    bidding = rules.bidding
    if bidding.double_bids and not bidding.auction:
        fail("double_bids needs an auction")
    for option, used in (("look_option", bidding.look_option), ("coke", bidding.coke),
                         ("forced_nine", bidding.forced_nine)):
        if used and not bidding.auction:
            fail(f"{option} needs an auction")
    if (bidding.lookers_lose_card or bidding.bidder_takes_lost) and not bidding.look_option:
        fail("lookers_lose_card and bidder_takes_lost need look_option=true")
    if bidding.bidder_takes_lost and not bidding.lookers_lose_card:
        fail("bidder_takes_lost needs lookers_lose_card=true (the lost cards are what is offered)")
    moon = rules.moon
    if moon is not None and moon.blind_moon_bid:
        if not bidding.look_option:
            fail("blind_moon_bid needs look_option=true: it is bid before looking")
        if moon.blind_moon_bid <= max(moon.moon_bid, bidding.maximum_bid):
            fail(f"blind_moon_bid {moon.blind_moon_bid} must be above moon_bid {moon.moon_bid} and maximum_bid")
    if trump.discards_face_up and trump.exchange is Exchange.NONE:
        fail("discards_face_up needs an exchange: there is no discard to lay face up")
    if trump.dealer_picks and (not discarding or not deal.refill_to):
        fail("dealer_picks needs exchange=discard-non-trumps and refill_to")
    if play.first_lead_trump and not declared:
        fail("first_lead_trump needs trump_selection=declare")
