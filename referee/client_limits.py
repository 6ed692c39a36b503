"""What one client may ask of a referee: how often (a token bucket per bot token for each
kind of action) and how many practice matches at once (per bot, and all bots together).

Without these, one token could take the whole referee: a hello with capacity 1024 and a
batch of 260 practice requests started 256 practice matches, every match slot, and the
arena's own matches were refused with RESOURCE_EXHAUSTED until the workers gave up on
them.  Practice matches now have a bounded share of the slots (the rest always stays for
the arena's matches) and a bound per bot; every action a client drives is counted per
token, and a refusal names the limit, its value and the setting that changes it.

The counts live in this referee's memory: a fleet of N referees allows N times as much to
a client that spreads itself over all of them (the seat ledger bounds its seats fleet-wide
already).  At most :data:`MAX_CLIENTS` clients are tracked per limit, the least recently
seen forgotten first (an evicted client starts again with a full bucket)."""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from dataclasses import dataclass

import grpc

from referee.admission import RequestRefused
from referee.config import ENVIRONMENT, RefereeConfig

#: Clients each limit keeps a count for.
MAX_CLIENTS = 1000


class RateLimit:
    """At most ``per_minute`` actions a minute per client: a bucket of that many tokens per
    client, refilled evenly, so a client may send a burst of ``per_minute`` and then one
    every ``60 / per_minute`` seconds.  ``per_minute`` 0: no limit."""

    def __init__(self, what: str, per_minute: int, setting: str, max_clients: int = MAX_CLIENTS) -> None:
        self.what, self.per_minute, self.setting, self.max_clients = what, per_minute, setting, max_clients
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        """Client -> (tokens left, when they were counted), least recently seen first."""

    def describe(self) -> str:
        """The limit in words, as its refusal states it."""
        return f"at most {self.per_minute} {self.what} per minute per bot token ({self.setting}={self.per_minute})"

    def allow(self, client: str, now: float | None = None) -> bool:
        """Count one action of ``client``; ``False`` (and not counted) when its bucket is empty."""
        if self.per_minute <= 0:
            return True
        now = time.monotonic() if now is None else now
        tokens, counted = self._buckets.pop(client, (float(self.per_minute), now))
        tokens = min(float(self.per_minute), tokens + (now - counted) * self.per_minute / 60.0)
        allowed = tokens >= 1.0
        self._buckets[client] = (tokens - 1.0 if allowed else tokens, now)
        while len(self._buckets) > self.max_clients:
            self._buckets.popitem(last=False)
        return allowed

    def check(self, client: str) -> None:
        """:meth:`allow`, or raise RESOURCE_EXHAUSTED naming the limit."""
        if not self.allow(client):
            raise RequestRefused(grpc.StatusCode.RESOURCE_EXHAUSTED, f"too many {self.what}: {self.describe()}")

    def __len__(self) -> int:
        """Clients tracked now."""
        return len(self._buckets)


class PracticeSlots:
    """Practice matches running (or being set up) at once: at most ``per_bot`` per bot and
    ``total`` on the referee.  A slot is taken before a request is validated, so requests
    read back to back cannot all pass the check before the first match starts."""

    def __init__(self, per_bot: int, total: int) -> None:
        self.per_bot, self.total = per_bot, total
        self.running = 0
        self._by_bot: dict[str, int] = {}

    def take(self, bot_id: str) -> None:
        """Take a slot for ``bot_id``; raise RESOURCE_EXHAUSTED naming the bound it is at."""
        if self._by_bot.get(bot_id, 0) >= self.per_bot:
            name = ENVIRONMENT["practice_per_bot"]
            raise RequestRefused(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                 f"this bot has {self._by_bot.get(bot_id, 0)} practice matches running already: at "
                                 f"most {self.per_bot} at once per bot ({name}={self.per_bot}); ask again when one "
                                 "has ended")
        if self.running >= self.total:
            name = ENVIRONMENT["practice_share"]
            raise RequestRefused(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                 f"the referee runs {self.running} practice matches already, its share for them "
                                 f"({name}: at most {self.total} at once); ask again later")
        self.running += 1
        self._by_bot[bot_id] = self._by_bot.get(bot_id, 0) + 1

    def give_back(self, bot_id: str) -> None:
        """A practice match of ``bot_id`` ended, or its request was refused after :meth:`take`."""
        self.running -= 1
        left = self._by_bot.pop(bot_id) - 1
        if left:
            self._by_bot[bot_id] = left

    def of(self, bot_id: str) -> int:
        """Practice slots ``bot_id`` holds now."""
        return self._by_bot.get(bot_id, 0)


def bot_client(bot_id: str) -> str:
    """How logs and limits name a client that presented a bot's token."""
    return f"bot {bot_id}"


def peer_client(peer: str) -> str:
    """How logs and limits name a client by its address: gRPC's peer (``ipv4:1.2.3.4:5678``,
    ``ipv6:[::1]:5678``) without the port, which changes with every connection."""
    if peer.startswith(("ipv4:", "ipv6:")):
        peer = peer.rpartition(":")[0]
    return f"peer {peer}"


def practice_total(config: RefereeConfig) -> int:
    """Practice matches the referee runs at once: its share of ``max_matches``, at least one
    while the share is above zero (a referee of three slots still serves ``pitch-bot check``)."""
    if config.practice_share <= 0 or config.max_matches <= 0:
        return 0
    return max(1, math.floor(config.practice_share * config.max_matches))


@dataclass
class ClientLimits:
    """The referee's limits per client, from its settings."""

    practice_requests: RateLimit
    connects: RateLimit
    practice: PracticeSlots

    @classmethod
    def from_config(cls, config: RefereeConfig) -> ClientLimits:
        return cls(
            practice_requests=RateLimit("practice requests", config.practice_per_minute,
                                        ENVIRONMENT["practice_per_minute"]),
            connects=RateLimit("streams opened (hellos)", config.connects_per_minute,
                               ENVIRONMENT["connects_per_minute"]),
            practice=PracticeSlots(config.practice_per_bot, practice_total(config)))
