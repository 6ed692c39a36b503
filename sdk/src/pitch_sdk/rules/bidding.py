"""Which bids are legal: a pure function of the ruleset, the bidder's seat and the high bid.

A bidder's options depend only on whether they are the dealer (forced bid, steal) and on
the current high bid, so each ruleset's menu is computed once and shared by every game
played with it: listing bids allocates nothing in the rollout loop.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from types import MappingProxyType

from pitch_sdk.rules.actions import BIDS, PASS, Action, Bid
from pitch_sdk.rules.ruleset import AllPass, Ruleset


def legal_bids(rules: Ruleset, is_dealer: bool, high_bid: int) -> tuple[Action, ...]:
    """Pass (unless the dealer is forced to bid) and every bid above ``high_bid``; the
    shoot-the-moon bid where it lies above the numbered bids; the dealer's steal (matching
    the high bid) where the ruleset allows it."""
    bidding = rules.bidding
    forced = is_dealer and high_bid == 0 and bidding.all_pass is AllPass.FORCE_DEALER
    amounts = list(range(max(bidding.minimum_bid, high_bid + 1), bidding.maximum_bid + 1))
    moon = rules.moon
    if moon is not None and moon.moon_bid > bidding.maximum_bid and moon.moon_bid > high_bid:
        amounts.append(moon.moon_bid)
    if is_dealer and bidding.dealer_steal and high_bid > 0:
        amounts.insert(0, high_bid)
    bids = tuple(BIDS[a] if a < len(BIDS) else Bid(a) for a in amounts)
    return bids if forced else (PASS, *bids)


@cache
def bid_menu(rules: Ruleset) -> Mapping[tuple[bool, int], tuple[Action, ...]]:
    """:func:`legal_bids` for every (is the dealer, high bid) that can occur under ``rules``."""
    top = rules.bidding.maximum_bid if rules.moon is None else max(rules.bidding.maximum_bid, rules.moon.moon_bid)
    return MappingProxyType({(is_dealer, high): legal_bids(rules, is_dealer, high)
                             for is_dealer in (False, True) for high in range(top + 1)})
