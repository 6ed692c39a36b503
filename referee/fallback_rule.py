"""When a match is kept off the ratings: a seat whose moves were mostly the referee's.

A seat whose bot is slow, wrong or gone gets a fallback legal move from the referee for
each decision it missed (:meth:`referee.match.SeatRunner._fallback`).  A few of those are
part of normal play (a slow bot's occasional timeout is its own weakness, and its rating
should show it), but a seat that was gone for a large part of a match was not played by
its bot: the result then measures the referee's fallback policy, and rating it would move
both sides' ratings on games their bots did not play.  Such a match is recorded as played
(its result, logs and the bots' conduct totals count it) but *unrated*: the live Elo, the
Bradley–Terry tables, ladders' matchmaking and SPRT evidence all leave it out.

The rule is decided once, by the referee that played the match, and travels in the result
(``MatchResult.unrated``, ``SeatOutcome.fallback_heavy``), so every consumer agrees.  It is
a constant, not a setting: every referee of a fleet must apply the same rule, or whether a
match is rated would depend on which referee happened to play it.

A forfeited match stays rated whatever its fallbacks: the forfeit is its defined outcome (a
bot that stayed away past the grace window, or struck out, loses it), and rating that loss
keeps a bot from dodging a lost match by leaving it for good.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: The percentage of a seat's decisions that may be fallbacks in a rated match.  10%: a bot
#: that misses one decision in ten still chooses nine in ten of its moves; past that the
#: fallbacks (the first legal move, a weak policy) start to decide the games instead.  A
#: whole percentage, so the bound is exact (no float rounding at the boundary).
MAX_FALLBACK_PERCENT = 10
#: Fallbacks a seat may always have, however few decisions it made: one or two timeouts of a
#: slow bot are normal play, and in a short match (a one-hand game has about seven decisions
#: a seat) even a single one would already be over the share.
FREE_FALLBACKS = 2


@dataclass(frozen=True)
class SeatFallbacks:
    """One seat's decisions: those its bot answered and those the referee played for it."""

    seat: int
    answered: int
    fallbacks: int


def fallback_heavy(answered: int, fallbacks: int) -> bool:
    """Whether a seat played more of its decisions by fallback than a rated match allows:
    more than :data:`FREE_FALLBACKS` and more than :data:`MAX_FALLBACK_PERCENT` percent of all of them."""
    return fallbacks > FREE_FALLBACKS and 100 * fallbacks > MAX_FALLBACK_PERCENT * (answered + fallbacks)


def unrated_reason(seats: Sequence[SeatFallbacks], *, forfeited: bool) -> str:
    """Why a match is kept off the ratings, or ``""`` when it is rated."""
    heavy = [seat for seat in seats if fallback_heavy(seat.answered, seat.fallbacks)]
    if forfeited or not heavy:
        return ""
    described = ", ".join(f"seat {seat.seat + 1} {seat.fallbacks} of {seat.answered + seat.fallbacks}"
                          for seat in heavy)
    return (f"fallback-heavy: the referee played more than {MAX_FALLBACK_PERCENT}% of a seat's decisions "
            f"(and more than {FREE_FALLBACKS}) for it: {described}")
