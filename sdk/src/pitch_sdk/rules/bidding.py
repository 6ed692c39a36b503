"""Which bids are legal: a pure function of the ruleset, the bidder's seat and the high bid.

A bidder's options depend only on whether they are the dealer (forced bid, steal) and on
the current high bid, so each ruleset's menu is computed once and shared by every game
played with it: listing bids allocates nothing in the rollout loop.

Bids are ordered by amount, and at the same amount a double bid ("6 for 12") outranks a
straight one (it risks more): seed 004 does not say, and this is the reading that lets
"6 for 12" overcall "6" but not "7".
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from types import MappingProxyType

from pitch_sdk.rules.actions import PASS, Action, Bid, bid
from pitch_sdk.rules.ruleset import AllPass, Ruleset


def legal_bids(rules: Ruleset, is_dealer: bool, high_bid: int, high_double: bool = False) -> tuple[Action, ...]:
    """Pass (unless the dealer is forced to bid) and every bid above the high bid; the
    shoot-the-moon bid where it lies above the numbered bids; the dealer's steal (matching
    the high bid) where the ruleset allows it.  A dealer forced to take the minimum
    (``forced_minimum_only``) may shoot the moon only under ``forced_moon``."""
    bidding = rules.bidding
    forced = is_dealer and high_bid == 0 and bidding.all_pass is AllPass.FORCE_DEALER
    ladder = [bid(amount, double) for amount in range(bidding.minimum_bid, bidding.maximum_bid + 1)
              for double in ((False, True) if bidding.double_bids else (False,))]
    moon = rules.moon
    if moon is not None and moon.moon_bid > bidding.maximum_bid:
        ladder.append(bid(moon.moon_bid))
    high = (high_bid, high_double)
    bids: list[Bid] = [b for b in ladder if (b.amount, b.double) > high]
    if forced and bidding.forced_minimum_only:
        bids = [b for b in bids if (b.amount == bidding.minimum_bid and not b.double)
                or (bidding.forced_moon and moon is not None and b.amount == moon.moon_bid)]
    if is_dealer and bidding.dealer_steal and high_bid > 0:
        bids.insert(0, bid(high_bid, high_double))
    return tuple(bids) if forced else (PASS, *bids)


@cache
def bid_menu(rules: Ruleset) -> Mapping[tuple[bool, int, bool], tuple[Action, ...]]:
    """:func:`legal_bids` for every (is the dealer, high bid, high bid doubled) that can
    occur under ``rules``."""
    top = rules.bidding.maximum_bid if rules.moon is None else max(
        rules.bidding.maximum_bid, rules.moon.moon_bid, rules.moon.blind_moon_bid)
    return MappingProxyType({(is_dealer, high, double): legal_bids(rules, is_dealer, high, double)
                             for is_dealer in (False, True) for high in range(top + 1)
                             for double in (False, True)})
