"""A referee's use of the fleet-wide seat ledger (:mod:`store.seats`): before a
match starts, its bots' seats are taken in Redis, so that a bot plays at most the capacity
it declared on all the referees together; they are given back when the match ends.

Seats are taken with one awaited round trip off the event loop (the answer decides whether
the match starts) and given back with another.  What must never happen is a leak while
this referee lives (a dead referee's seats stop counting when it leaves the directory):

* a take whose caller is cancelled (or whose Redis call fails after the script ran) gives
  the seats back once Redis has answered, unless the match started meanwhile;
* a release that fails (Redis down) is retried by every heartbeat until it is done.

And a referee whose heartbeat came late (it looked dead for a moment) writes its seats back
at its next heartbeat, in case a take deleted them meanwhile.

House seats (practice opponents) are not bots: they take nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence

import grpc
import redis

from referee.admission import RequestRefused, store_unreachable
from referee.config import echo
from referee.sessions import HousePresence, Presence
from store.seats import SeatLedger, SeatNeed, SeatRefusal

log = logging.getLogger("pitch.referee.fleet")


class FleetSeats:
    """The seats this referee holds in the ledger, by match."""

    def __init__(self, ledger: SeatLedger, referee_id: str) -> None:
        self.ledger = ledger
        self.referee_id = referee_id
        self.held: dict[str, dict[str, int]] = {}
        """Match id -> seat key (a bot's version) -> the seats of it this referee took (and has
        not given back)."""
        self.unreleased: dict[str, list[str]] = {}
        """Releases that failed (Redis down), retried by :meth:`beat`."""
        self._giving_back: set[asyncio.Task[None]] = set()

    async def take(self, match_id: str, seats: Sequence[Presence]) -> None:
        """Take the seats of ``match_id`` fleet-wide; raises :class:`RequestRefused` with
        RESOURCE_EXHAUSTED naming the bot that has no room (FAILED_PRECONDITION when its
        capacity is unknown: no stream of it is open to a live referee), or UNAVAILABLE when
        Redis cannot be reached."""
        needs: dict[str, SeatNeed] = {}
        names: dict[str, str] = {}
        for presence in seats:
            if isinstance(presence, HousePresence):
                continue
            key = presence.key  # each version of a bot has its own capacity
            names[key] = presence.label
            prior = needs.get(key)
            needs[key] = presence.seat_need((prior.seats if prior else 0) + 1)
        if not needs:
            return
        call = asyncio.ensure_future(asyncio.to_thread(self.ledger.take, self.referee_id, match_id, needs))
        try:
            refusal = await asyncio.shield(call)
        except BaseException as exc:  # the script may have run: give back what it took, once it answered
            self._give_back_after(call, match_id, list(needs))
            if isinstance(exc, redis.RedisError):
                raise RequestRefused(grpc.StatusCode.UNAVAILABLE, store_unreachable(exc)) from None
            raise
        if refusal is not None:
            raise refused(refusal, names[refusal.bot_id])
        self.held[match_id] = {key: need.seats for key, need in needs.items()}

    async def release(self, match_id: str) -> None:
        """Give back the seats of ``match_id`` (it ended, was aborted, or never started)."""
        bots = self.held.pop(match_id, None)
        if bots:
            await self._release(match_id, list(bots))

    async def beat(self) -> None:
        """The heartbeat's part: retry the releases that failed, write back missing seats;
        raises ``redis.RedisError`` while Redis cannot be reached."""
        for match_id, unreleased in list(self.unreleased.items()):
            del self.unreleased[match_id]
            if match_id not in self.held:  # taken again since: its entry is the running match's
                await self._release(match_id, unreleased)
        held = dict(self.held)
        if held:
            await asyncio.to_thread(self.ledger.reassert, self.referee_id, held)
        for match_id, seats in held.items():  # ended while they were written back: give them back again
            if match_id not in self.held:
                await self._release(match_id, list(seats))

    async def _release(self, match_id: str, bots: list[str]) -> None:
        try:
            await asyncio.to_thread(self.ledger.release, self.referee_id, match_id, bots)
        except redis.RedisError as exc:
            self.unreleased[match_id] = bots
            log.warning("match %s: its seats could not be given back to the fleet ledger (%s); retrying",
                        match_id, exc)

    def _give_back_after(self, call: asyncio.Future[SeatRefusal | None], match_id: str, bots: list[str]) -> None:
        async def give_back() -> None:
            with contextlib.suppress(Exception):
                await call
            if match_id not in self.held:
                await self._release(match_id, bots)

        task = asyncio.create_task(give_back(), name=f"seats-back-{match_id}")
        self._giving_back.add(task)
        task.add_done_callback(self._giving_back.discard)


def refused(refusal: SeatRefusal, name: str) -> RequestRefused:
    """The transient refusal placement handles (the match goes to the next referee, or the
    task retries), naming the bot and its capacity."""
    if refusal.capacity == 0:
        return RequestRefused(grpc.StatusCode.FAILED_PRECONDITION,
                              f"bot {echo(name)!r} has no stream open to a live referee: its capacity is unknown")
    return RequestRefused(grpc.StatusCode.RESOURCE_EXHAUSTED,
                          f"bot {echo(name)!r} plays {refusal.in_use} of its {refusal.capacity} seats on the "
                          f"referee fleet already; this match needs {refusal.needed} more")
