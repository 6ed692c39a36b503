"""The readings the presets take where their seed paragraph is silent or could be read two
ways: each a sentence saying what the text gives and what the engine does.

The presets' docstrings argue each choice at length; this is the list a player reads
before a game, shown in ``docs/variants.md`` (its "Readings" section is generated from
here by ``scripts/gen_variants_doc.py``).  Where an option plays the other reading, the
sentence names it.
"""

from __future__ import annotations

#: Preset name -> its readings, in registry order.
READINGS: dict[str, tuple[str, ...]] = {
    "ipitch": (
        "Seed 000's winner is \"the first player to reach at least 7 points at the end of a hand in which he "
        "was the pitcher\": a pitcher set back but still at 7 or more wins; a defender at 7 plays on "
        "(option `who_may_win=bid-made`: the pitcher goes out only in a hand where it made its bid).",
    ),
    "nine-card-ten-point": (
        "The paragraph gives no target; seed 004's off-ace game, \"Played much like Campbell ten-point ... "
        "Play ends at 51 points rather than 32\", makes this (Campbell) game's 32.  Leftovers, burning and "
        "trump-only play are seed 003's ten-point, the nearest fully written game.",
    ),
    "oklahoma-ten": (
        "Silent on a passed-out deal and the target: seed 003's ten-point gives both, \"If no one bids ... the "
        "dealer MUST take the bid\" (for the minimum, here 1, and not the moon) and 52.",
    ),
    "eleven-point-off-ace": (
        "\"The misdeal rule is in effect\" is the card distribution section's \"complete re-deal by the same "
        "dealer\" for a hand with no point card (`muck=redeal`): the Campbell game it is played like prohibits "
        "\"Mucking a Hand and Misdeal\", the section's two options, and this game names only the misdeal.",
    ),
    "contway-six": (
        "No target and no winning rule: to 21, and only a team that made its bid goes out (seed 001's "
        "partnership game).",
        "\"Based on auction pitch\": Low to its original holder, and auction pitch's revoke penalty "
        "(`revoke_penalty`: a revoke is played and set back by the bid).",
    ),
    "roadhouse": (
        "\"An auction pitch variant\" whose \"primary variation\" is the following rule: auction pitch's revoke "
        "penalty stands for a plain card discarded while holding the suit led; trumping in while able to follow "
        "stays refused.",
    ),
    "kentucky-seven": (
        "Played to 21, as the paragraph says; who may go out it does not say: only a team that made its bid "
        "(seed 001's partnership game).  Four players in two teams, as the ten-point family; Low to its "
        "original holder, seed 004's basic rule.",
    ),
    "missouri-seven": (
        "\"Points and bids are the same as described above\": Kentucky seven-point's readings.",
    ),
    "three-teams": (
        "No target: 21 (seed 004's partnership pitch), any team may go out; the \"low trump (2)\" goes to its "
        "original holder's team, seed 004's basic rule.",
    ),
    "reverse": (
        "\"Follows all of the rules of basic pitch\", read as auction pitch (it has an auction): bids 1-4, the "
        "moon at 4, a re-deal when all pass, Low to its original holder and the revoke penalty.",
    ),
    "two-trump": (
        "Silent on a passed-out deal: \"the deal is abandoned and the same dealer deals again\" (seed 004's "
        "auction pitch, whose forced bid belongs only to the dealer-steal variation).",
        "\"If a trump suit is lead, jokers may not be cut in if the player ... has cards of that trump "
        "remaining\": the sub-trump is one of the two trump suits, so a player holding the sub-trump led "
        "may not cut a joker in either.",
        "Low to its original holder (seed 004's basic rule); sub-low, of which nothing is said, to its capturer.",
    ),
    "call-partner": (
        "Auction pitch for five players: Low to its original holder and the revoke penalty, as there; an undealt "
        "called card leaves the bidder alone.",
    ),
    "nine-five": (
        "\"Game play is normal\" says nothing of Low: it goes to its original holder, seed 004's basic rule "
        "(\"often awarded to the player who won the trick ... rather than the original owner\" makes capture "
        "the variation).  \"Above 100 points\" is 101.",
    ),
    "scranton": (
        "Played over auction pitch: Low to its original holder and the revoke penalty, as there.",
    ),
}
