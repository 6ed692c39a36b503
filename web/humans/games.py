"""People's games: starting one (``RunMatch`` with a person's time control), following it
to its result, at most ``max_human_matches`` at once, and the streams they need.

The people's seat and the house bots connect only while at least one person's game runs,
and leave when the last one ends: while connected they are bots like any other, so a round
robin that enters "every connected bot" would enter them too; keeping them away between
people's games keeps them out of the arena's tournaments in practice.

A person's match is recorded by the referee (every ``RunMatch`` is) and rated by nobody:
only the Celery match task of a tournament applies ratings, and these matches are not part
of any tournament."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

import grpc

from pitch_sdk.proto.pitch.v1 import arena_pb2, bot_pb2
from pitch_sdk.protocol import wire
from pitch_sdk.remote.client import BotClient
from pitch_sdk.rules import RulesError, preset
from pitch_sdk.rules.presets import PRESETS
from web.arena import WebArena
from web.humans.house import HOUSE_BOTS, house_client
from web.humans.identities import Identity, ensure_identities
from web.humans.seat import PeopleSeat, Table

log = logging.getLogger("pitch.web.people")

#: Seats any preset has at most: a house bot may fill all but one of them in every game.
MOST_SEATS = max(preset(name).players for name in PRESETS)
#: Strikes after which a person's party forfeits: a person who walked away frees the
#: house bots after three timeouts instead of holding them for the whole match.
PERSON_MAX_STRIKES = 3
#: Seconds to wait for the streams to be welcomed by the referee before giving up.
CONNECT_TIMEOUT_S = 15.0
#: Finished games kept in memory for their tables; older ones are only in the store.
FINISHED_KEPT = 64
#: How a person's game's match id starts (the live list tells those games apart by it).
PERSON_MATCH_PREFIX = "web-"


class PlayError(Exception):
    """A game that cannot be started, with the HTTP status that says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Opponent:
    """Who plays one of the other seats: a house bot by name, or a registered bot by id."""

    house: str | None = None
    bot_id: str | None = None

    @classmethod
    def parse(cls, value: str) -> Opponent:
        """``house:heuristic``, ``house:random`` or ``bot:<id>`` (the form's values)."""
        kind, _, name = value.partition(":")
        if kind == "house" and name in HOUSE_BOTS:
            return cls(house=name)
        if kind == "bot" and name:
            return cls(bot_id=name)
        raise PlayError(400, f"not a seat choice: {value[:60]!r} (house:heuristic, house:random or bot:<id>)")


class PeopleGames:
    """Every person's game this web process runs, and the streams that play them."""

    def __init__(self, web: WebArena) -> None:
        self.web = web
        self.tables: dict[str, Table] = {}
        self._finished: OrderedDict[str, None] = OrderedDict()
        self._games: dict[str, asyncio.Task[None]] = {}
        self._identities: dict[str, Identity] | None = None
        self._holders = 0
        self._streams_lock = asyncio.Lock()
        self._stop: asyncio.Event | None = None
        self._stream_tasks: list[asyncio.Task[None]] = []
        self._seat: PeopleSeat | None = None

    @property
    def running(self) -> int:
        """People's games in progress now."""
        return len(self._games)

    async def identities(self) -> dict[str, Identity]:
        """The web service's identities (registered on first use; see :mod:`web.humans.identities`)."""
        if self._identities is None:
            self._identities = await asyncio.to_thread(ensure_identities, self.web.store, self.web.referee)
        return self._identities

    async def own_bot_ids(self) -> set[str]:
        """Ids of the web service's own identities (the form does not offer them as "connected bots")."""
        return {identity.bot_id for identity in (await self.identities()).values()}

    async def start(self, preset_name: str, options: dict[str, Any], seat: int, opponents: Sequence[Opponent],
                    client: str = "") -> Table:
        """Start a person's game in ``seat`` with ``opponents`` in the other seats, clockwise
        from the person's left (the next seat to play after theirs), for ``client`` (its
        address: a client has at most ``human_tables_per_client`` games at once); raises
        :class:`PlayError` naming what is wrong (and starts nothing)."""
        config = self.web.config
        if self.running >= config.max_human_matches:
            raise PlayError(503, f"the arena already runs {config.max_human_matches} people's games (the most "
                                 "it allows at once): try again when one has ended")
        mine = sum(1 for match_id in self._games if self.tables[match_id].client == client)
        if mine >= config.human_tables_per_client:
            raise PlayError(429, f"you already play {mine} games here, the most one visitor may play at once "
                                 f"(PITCH_WEB_HUMAN_TABLES_PER_CLIENT={config.human_tables_per_client}): finish one, "
                                 f"or leave it: a game left for {config.human_abandon_s:g} s is played out for you")
        try:
            rules = preset(preset_name, options)
        except RulesError as exc:
            raise PlayError(400, f"bad game: {exc}") from None
        if not 0 <= seat < rules.players:
            raise PlayError(400, f"seat {seat} does not exist: {preset_name} has {rules.players} seats")
        if len(opponents) != rules.players - 1:
            raise PlayError(400, f"{preset_name} needs {rules.players - 1} other seats, got {len(opponents)}")
        identities = await self.identities()
        own = {identity.bot_id for identity in identities.values()}
        wanted = [o.bot_id for o in opponents if o.bot_id is not None]
        names: dict[str, str] = {}
        if wanted:
            connected = await asyncio.to_thread(self.web.connected)  # PITCH_REFEREE relays the others' seats
            if connected is None:
                raise PlayError(503, "the referees cannot be reached: no game was started")
            for bot_id in wanted:
                bot = connected.get(bot_id)
                if bot is None or bot_id in own or not bot.connected:
                    raise PlayError(400, f"not a connected bot: {bot_id[:60]!r}")
                names[bot_id] = bot.name
        seat_ids = [identities["people"].bot_id] * rules.players
        seat_names = [identities["people"].name] * rules.players
        for offset, opponent in enumerate(opponents, start=1):  # clockwise from the person's left
            index = (seat + offset) % rules.players
            if opponent.house is not None:
                house = identities[HOUSE_BOTS[opponent.house]]
                seat_ids[index], seat_names[index] = house.bot_id, house.name
            else:
                assert opponent.bot_id is not None
                seat_ids[index], seat_names[index] = opponent.bot_id, names[opponent.bot_id]
        match_id = f"{PERSON_MATCH_PREFIX}{secrets.token_hex(8)}"
        table = Table(match_id, secrets.token_urlsafe(24), preset_name, seat, seat_names, rules, client=client)
        request = arena_pb2.RunMatchRequest(
            preset=preset_name, options_json=json.dumps(options), seat_bot_ids=seat_ids,
            seed=random.getrandbits(48), games=1, match_id=match_id,
            time_control=bot_pb2.TimeControl(per_decision_ms=config.human_decision_ms, bank_ms=config.human_bank_ms),
            fault_policy=arena_pb2.FaultPolicy(max_strikes=PERSON_MAX_STRIKES))
        self.tables[match_id] = table
        self._games[match_id] = asyncio.create_task(self._play(table, request), name=f"person-{match_id}")
        return table

    def answer(self, table: Table, decision_id: str, index: int | None, cards: Sequence[str] | None) -> bool:
        """Send the person's answer (see :meth:`Table.choose`); False when the stream is down."""
        decision = table.choose(decision_id, index, cards)
        table.seen()
        return self._seat is not None and self._seat.send(decision)

    def play_out_abandoned(self, now: float) -> list[str]:
        """The games whose person has been gone (no page open, no answer) for
        ``human_abandon_s``: their seat answers by the first legal action from now on, the
        pending decision at once, so the game ends in moments and frees its table (it
        would otherwise hold it through every decision's time and the bank, minutes).
        Returns their match ids."""
        left = []
        for match_id in list(self._games):
            table = self.tables.get(match_id)
            if table is None or table.finished or table.abandoned \
                    or table.gone_for(now) < self.web.config.human_abandon_s:
                continue
            pending = table.abandon()
            if pending is not None and self._seat is not None:
                self._seat.send(wire.first_legal_decision(pending))  # else asked again when the seat reconnects
            log.info("person's game %s: the person left %.0f s ago; playing it out", match_id, table.gone_for(now))
            left.append(match_id)
        return left

    async def watch_abandoned(self) -> None:
        """Look for games whose person has gone, a few times per ``human_abandon_s``."""
        interval = min(10.0, self.web.config.human_abandon_s / 3)
        while True:
            await asyncio.sleep(interval)
            self.play_out_abandoned(time.monotonic())

    async def _play(self, table: Table, request: arena_pb2.RunMatchRequest) -> None:
        """Run the match to its end with the streams connected; the table gets its result or why it failed."""
        try:
            async with self._streams():
                call: Any = self.web.aio_stub().RunMatch(request, metadata=self.web.admin_metadata)
                response: arena_pb2.RunMatchResponse = await call
            table.end(response.result)
        except grpc.aio.AioRpcError as exc:
            if exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
                table.end(None, f"no room for this game now: {exc.details()}. Try again when a match has ended")
            else:
                table.end(None, f"the referee did not play the game: {exc.details()}")
        except (TimeoutError, grpc.RpcError, OSError) as exc:
            log.warning("person's game %s failed: %s", table.match_id, exc)
            table.end(None, "the web arena could not connect its seats to the referee")
        finally:
            self._games.pop(table.match_id, None)
            self._finished[table.match_id] = None
            while len(self._finished) > FINISHED_KEPT:
                old, _ = self._finished.popitem(last=False)
                self.tables.pop(old, None)

    @contextlib.asynccontextmanager
    async def _streams(self) -> AsyncIterator[None]:
        """Hold the people's seat and house bot streams connected for one game."""
        async with self._streams_lock:
            if self._holders == 0:
                await self._connect()
            self._holders += 1
        try:
            yield
        finally:
            async with self._streams_lock:
                self._holders -= 1
                if self._holders == 0:
                    await self._disconnect()

    async def _connect(self) -> None:
        identities = await self.identities()
        config = self.web.config
        self._stop = asyncio.Event()
        self._seat = PeopleSeat(config.referee, identities["people"].token, config.max_human_matches, self.tables)
        house: list[BotClient] = [house_client(spec, identities[role], config.referee,
                                               config.max_human_matches * MOST_SEATS)
                                  for spec, role in HOUSE_BOTS.items()]
        self._stream_tasks = [asyncio.create_task(self._seat.run(self._stop))]
        self._stream_tasks += [asyncio.create_task(client.run(self._stop)) for client in house]
        waits = [self._seat.connected.wait(), *(client.connected.wait() for client in house)]
        try:
            await asyncio.wait_for(asyncio.gather(*waits), CONNECT_TIMEOUT_S)
        except BaseException:
            await self._disconnect()
            raise

    async def _disconnect(self) -> None:
        if self._stop is not None:
            self._stop.set()
        for task in self._stream_tasks:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(task, 5)
        self._stream_tasks, self._stop, self._seat = [], None, None

    async def close(self) -> None:
        """Stop following every game and close the streams (on the web service's shutdown:
        the referee then plays fallbacks for the people's seats, as for any bot that left)."""
        for task in list(self._games.values()):
            task.cancel()
        for task in list(self._games.values()):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self._disconnect()


@contextlib.asynccontextmanager
async def serving(app: Any) -> AsyncIterator[None]:
    """People's games for the application's lifespan: ``app.state.people``, closed at shutdown."""
    people = PeopleGames(app.state.arena)
    app.state.people = people
    watching = asyncio.create_task(people.watch_abandoned(), name="abandoned-games")
    try:
        yield
    finally:
        watching.cancel()
        await people.close()
