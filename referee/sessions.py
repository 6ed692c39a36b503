"""Connected bots: one presence per version of a registered bot, one session per open stream.

A *presence* outlives streams: it holds the seat count, pending decisions and active
matches of one version of a bot (its seat key, :mod:`store.seat_keys`), so a bot that
reconnects with the same token and version resumes where it was.  Two versions of one bot
are two presences, connected side by side (an SPRT of a new version against the old one
seats both), each playing the seats that name it; a seat naming the bot alone goes to its
newest connection.  A *session* is one open ``Connect`` stream with its outgoing queue.
Matches talk to presences; the service moves answers from the stream to the pending
decisions here.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import grpc

from pitch_sdk.proto.pitch.v1 import bot_pb2
from pitch_sdk.protocol import wire
from referee.protowire import field_tag, join_batch
from store.redis_store import BotRecord
from store.seat_keys import names_version, seat_key
from store.seats import SeatNeed

MAX_VERSIONS_CONNECTED = 8
"""Versions of one bot connected to one referee at once: each is a presence holding
memory, and a token cycling version strings must not create them without bound."""


class Session:
    """One open stream: messages queued here are written to the bot in order.

    Messages are queued encoded, so that a batch is the concatenation of its members'
    encodings (protobuf would otherwise copy each member into the batch message and encode
    it all again); the stream's serializer passes bytes through (see
    :func:`referee.service.add_bot_service`).  The queue is a plain deque with one waiter:
    every decision passes through it, and an ``asyncio.Queue`` costs several times more."""

    def __init__(self, hello: bot_pb2.Hello, batch: Callable[[list[bytes]], bytes] | None = None,
                 max_batch: int | None = None) -> None:
        self.session_id = uuid.uuid4().hex[:16]
        self.hello = hello
        self.open = True
        self.ending: tuple[grpc.StatusCode, str] | None = None
        """The status the stream ends with when the referee ends it (``None``: OK)."""
        self._outbox: deque[bytes] = deque()
        self._writer_waiting: asyncio.Future[None] | None = None
        self._batch = batch or encode_batch
        """Joins encoded messages into one batch message (other streams than a bot's, such
        as a relay's, have their own batch message)."""
        self._max_batch = max_batch
        """The most messages in one batch (``None``: no bound)."""

    def send(self, encoded: bytes) -> None:
        """Queue an encoded ``RefereeMessage`` (dropped silently once the stream has closed)."""
        if self.open:
            self._outbox.append(encoded)
            self._wake_writer()

    async def next_message(self) -> bytes | None:
        """The next encoded ``RefereeMessage`` to write: the oldest queued one or, for a bot
        that takes batches, every one queued by now as one batch; ``None`` once the stream
        is closed (messages queued before the close are written first).

        A writer that had nothing to write is woken by the first message queued; a
        batching writer then yields one turn of the event loop before it drains, so that
        the requests of the other matches woken by the same answers (and the answers read
        beside them) join the batch.  A write is the referee's dearest step (gRPC's
        completion queue, served by another thread), a turn of the loop costs far less, and
        the batches grow: ``bench/referee_throughput.py`` measured 12% less referee CPU
        per batched decision at 16 matches (7% against the single-message path of the same
        runs, the machine drifting; see the README's benchmarks)."""
        outbox = self._outbox
        while not outbox:
            if not self.open:
                return None
            self._writer_waiting = asyncio.get_running_loop().create_future()
            await self._writer_waiting
            if self.hello.batching:  # let the rest of this turn's messages join the batch
                await asyncio.sleep(0)
        if len(outbox) == 1 or not self.hello.batching:
            return outbox.popleft()
        if self._max_batch is not None and len(outbox) > self._max_batch:
            return self._batch([outbox.popleft() for _ in range(self._max_batch)])
        ready = list(outbox)
        outbox.clear()
        return self._batch(ready)

    def close(self) -> None:
        """Stop the stream's writer once it has written what is queued."""
        if self.open:
            self.open = False
            self._wake_writer()

    def end(self, code: grpc.StatusCode, message: str) -> None:
        """Close the stream with a status that says why (the first reason given wins): a
        stream the referee ends must never look like a clean end to the bot."""
        if self.ending is None and self.open:
            self.ending = (code, message)
        self.close()

    def _wake_writer(self) -> None:
        waiting = self._writer_waiting
        if waiting is not None:
            self._writer_waiting = None
            if not waiting.done():
                waiting.set_result(None)


_BATCH = field_tag(bot_pb2.RefereeMessage, "batch")
_MEMBER = field_tag(bot_pb2.RefereeMessages, "messages")


def encode_batch(encoded: list[bytes]) -> bytes:
    """The encoding of ``RefereeMessage(batch=RefereeMessages(messages=...))`` whose members
    have the given encodings, built by concatenation."""
    return join_batch(_BATCH, _MEMBER, encoded)


def named_seat(decision_id: str) -> tuple[str, int] | None:
    """The (match id, seat) a well-formed decision id, ``{match id}:{seat}:{number}`` (see
    :class:`referee.match.SeatRunner`), names; ``None`` for a malformed one."""
    seat_of, _, number = decision_id.rpartition(":")
    match_id, _, seat = seat_of.rpartition(":")
    return (match_id, int(seat)) if seat.isdecimal() and len(seat) < 4 and number.isdecimal() else None


@dataclass
class PendingDecision:
    """A decision request waiting for the bot's answer."""

    request: bytes
    """The encoded ``RefereeMessage`` (sent again if the bot reconnects)."""
    answer: asyncio.Future[bot_pb2.Decision | None]
    """The bot's answer, or ``None`` once the referee stopped waiting."""


@dataclass
class Presence:
    """One version of a registered bot as the referee knows it, across reconnections."""

    bot: BotRecord
    version: str = ""
    """The version its streams say in their hello (empty: none said)."""
    session: Session | None = None
    seats_in_use: int = 0
    pending: dict[str, PendingDecision] = field(default_factory=dict)
    ignored: dict[tuple[str, int], int] = field(default_factory=dict)
    """Ignored answers per (match id, seat) of a match in progress, for that seat's outcome."""
    impersonations: dict[tuple[str, int], int] = field(default_factory=dict)
    """Of those, the answers naming another seat's decision in the match."""
    ignored_messages: int = 0
    """Ignored messages that name no seat of a match in progress (for the logs only)."""
    resume_messages: dict[tuple[str, int], bot_pb2.RefereeMessage] = field(default_factory=dict)
    """``match_started`` per (match id, seat) in progress, re-sent on reconnection."""
    reconnected: asyncio.Event = field(default_factory=asyncio.Event)
    watchers: set[Callable[[], None]] = field(default_factory=set)
    """Called whenever a stream of the bot opens or ends (a relay tells its runner)."""
    relayed: dict[str, Callable[[bot_pb2.Decision], None]] = field(default_factory=dict)
    """Where answers naming a match another referee runs go (match id -> its relay, see
    :mod:`referee.relay`), when no pending decision here takes them."""
    rated_id: str = ""
    """The id this version is rated under (:mod:`store.versions`), set at its hello."""
    checking: bool = False
    """The arena is checking this version (:mod:`referee.version_check`): its stream plays
    the check's practice matches and no other match seats it."""

    @property
    def key(self) -> str:
        """Its seat key, ``{bot id}@{version}``: how the fleet's directory and seat ledger
        know this stream apart from the bot's other versions."""
        return seat_key(self.bot.bot_id, self.version)

    @property
    def label(self) -> str:
        """How refusals and logs name it: the bot's name and version."""
        return f"{self.bot.name}@{self.version}" if self.version else self.bot.name

    @property
    def idle(self) -> bool:
        """Holds nothing a reconnection would resume: no seat, decision, match or relay."""
        return not (self.seats_in_use or self.pending or self.resume_messages or self.relayed or self.watchers)

    @property
    def connected(self) -> bool:
        """Whether a stream is open now."""
        return self.session is not None and self.session.open

    @property
    def playable(self) -> bool:
        """Whether an arena match may seat it now: connected, and not being checked."""
        return self.connected and not self.checking

    @property
    def capacity(self) -> int:
        """Seats the bot declared it plays at once (at least 1)."""
        return max(1, self.session.hello.capacity) if self.session is not None else 0

    def wants_events(self) -> bool:
        """Whether the bot takes events (the default; a disconnected bot's are held for it)."""
        return self.session is None or not self.session.hello.skip_events

    def send(self, message: bot_pb2.RefereeMessage) -> bool:
        """Send on the current stream; ``False`` when disconnected."""
        return self.send_encoded(message.SerializeToString())

    def send_encoded(self, encoded: bytes) -> bool:
        """Send an encoded ``RefereeMessage`` (the hot path's requests are built encoded)."""
        if not self.connected:
            return False
        self.session.send(encoded)  # type: ignore[union-attr]
        return True

    def seat_need(self, seats: int) -> SeatNeed:
        """What a match seating this bot ``seats`` times asks of the fleet-wide seat ledger
        (:mod:`referee.capacity`): bounded by the capacity declared on this stream."""
        return SeatNeed(seats, self.capacity)

    def resolve(self, decision: bot_pb2.Decision) -> bool:
        """Hand an answer to its pending decision, or to the relay of the match it names (by
        its ``match_id`` or its decision id, see :attr:`relayed`); ``False`` (and counted)
        if neither takes it."""
        pending = self.pending.get(decision.decision_id)
        if pending is None or pending.answer.done():
            named = named_seat(decision.decision_id)
            relay = self.relayed.get(decision.match_id) or (self.relayed.get(named[0]) if named else None)
            if relay is not None:
                relay(decision)  # late or unknown: the referee running the match counts it
                return True
            self.ignore(decision)
            return False
        pending.answer.set_result(decision)
        return True

    def ignore(self, decision: bot_pb2.Decision) -> None:
        """Count an answer no pending decision took against the seat that sent it, so every
        stray answer shows in that seat's outcome: a stale, duplicate or late one (its
        decision id names a seat this bot plays), one naming another seat's decision (also
        an impersonation attempt), one whose decision id is malformed. The sending seat is
        the one its decision id names when this bot plays it; otherwise this bot's seat in
        the match that the id (``{match id}:{seat}:{number}``, see
        :class:`referee.match.SeatRunner`) or the answer's ``match_id`` names, its lowest
        when it plays several. An answer naming no match this bot plays counts in no
        result (only in the logs)."""
        decision_id = decision.decision_id
        named = named_seat(decision_id)
        if named is not None and named in self.resume_messages:
            self.ignored[named] = self.ignored.get(named, 0) + 1
            return
        sender = self._seat_in(named[0] if named is not None else "", decision.match_id, decision_id)
        if sender is None:
            self.ignored_messages += 1
            return
        self.ignored[sender] = self.ignored.get(sender, 0) + 1
        if named is not None and named[0] == sender[0]:
            self.impersonations[sender] = self.impersonations.get(sender, 0) + 1

    def _seat_in(self, named_match: str, answer_match: str, decision_id: str) -> tuple[str, int] | None:
        """This bot's (lowest) seat in the first match it plays of: the one a well-formed
        decision id names, the answer's ``match_id``, the one the decision id starts with."""
        seats = sorted(self.resume_messages)
        for wanted in (named_match, answer_match):
            if wanted:
                for key in seats:
                    if key[0] == wanted:
                        return key
        return next((key for key in seats if decision_id.startswith(f"{key[0]}:")), None)


class TooManyVersions(Exception):
    """A bot already has :data:`MAX_VERSIONS_CONNECTED` other versions connected here."""


class Registry:
    """Presences by seat key, the newest connection of each bot, and the attach/detach of
    streams."""

    def __init__(self) -> None:
        self._presences: dict[str, Presence] = {}
        self._newest: dict[str, list[str]] = {}
        """Bot id -> the seat keys of its presences, the most recently attached last."""
        self.current: dict[str, str] = {}
        """Bot id -> the rated id of its current version (pinned by its owner, else its
        newest that may play: :mod:`store.versions`), as the store said at the bot's latest
        hello or the fleet's latest heartbeat."""
        self.on_change: Callable[[], None] = lambda: None

    def presence(self, bot: BotRecord, version: str = "") -> Presence:
        """The presence of ``bot`` at ``version`` (created on first use)."""
        key = seat_key(bot.bot_id, version)
        presence = self._presences.get(key)
        if presence is None:
            presence = self._presences[key] = Presence(bot, version)
            self._newest.setdefault(bot.bot_id, []).append(key)
        return presence

    def get(self, seat: str) -> Presence | None:
        """The presence a seat names: ``{bot id}@{version}`` exactly; a bot id alone, its
        current version where that may play here, else its newest version that may play
        (else its newest connected one, which is being checked, else the newest one,
        disconnected); ``None`` for a bot that never connected here."""
        if names_version(seat):
            return self._presences.get(seat)
        versions = self.versions(seat)
        current = self.current.get(seat)
        return next((p for p in versions if p.playable and p.rated_id == current),
                    next((p for p in reversed(versions) if p.playable),
                         next((p for p in reversed(versions) if p.connected), versions[-1] if versions else None)))

    def versions(self, bot_id: str) -> list[Presence]:
        """Every presence of ``bot_id`` here, the most recently attached last."""
        return [self._presences[key] for key in self._newest.get(bot_id, [])]

    def connected(self) -> list[Presence]:
        """The presences with an open stream now."""
        return [presence for presence in self._presences.values() if presence.connected]

    def playable(self) -> list[Presence]:
        """The presences an arena match may seat now (connected, not being checked)."""
        return [presence for presence in self._presences.values() if presence.playable]

    def attach(self, bot: BotRecord, hello: bot_pb2.Hello) -> tuple[Presence, Session]:
        """Open a session for ``bot`` at its hello's version; a previous stream of the same
        bot and version is replaced (another version's stream is not: each plays its own
        seats).  Raises :class:`TooManyVersions` when :data:`MAX_VERSIONS_CONNECTED` other
        versions of the bot are connected here.

        Matches in progress and pending decisions are re-sent on the new stream."""
        key = seat_key(bot.bot_id, hello.bot_version)
        others = [p for p in self.versions(bot.bot_id) if p.connected and p.key != key]
        if len(others) >= MAX_VERSIONS_CONNECTED:
            raise TooManyVersions(f"{len(others)} other versions of the bot are connected to this referee, the "
                                  f"most at once: end one of them first")
        presence = self.presence(bot, hello.bot_version)
        newest = self._newest[bot.bot_id]
        newest.remove(key)
        newest.append(key)
        session = Session(hello)
        if presence.session is not None:  # the service's log line says so
            presence.session.end(grpc.StatusCode.ABORTED, "replaced by a newer connection of the same bot and "
                                 f"version (session {session.session_id})")
        presence.session = session
        for message in presence.resume_messages.values():
            session.send(message.SerializeToString())
        for pending in presence.pending.values():
            if not pending.answer.done():
                session.send(pending.request)
        presence.reconnected.set()
        presence.reconnected = asyncio.Event()
        self._changed(presence)
        return presence, session

    def detach(self, presence: Presence, session: Session) -> None:
        """The stream ``session`` ended.  A version left idle and disconnected is forgotten
        unless it is the bot's newest (which a bot alone names): a bot cycling versions
        leaves no presence behind."""
        session.close()
        if presence.session is session:
            presence.session = None
        self._changed(presence)
        newest = self._newest.get(presence.bot.bot_id, [])
        if not presence.connected and presence.idle and newest and newest[-1] != presence.key:
            newest.remove(presence.key)
            del self._presences[presence.key]

    def end_streams(self, code: grpc.StatusCode, message: str) -> None:
        """End every open stream with a status, after what is queued on it (a stopping
        referee's last messages, such as a relayed match's end, still reach the bot)."""
        for presence in self.connected():
            if presence.session is not None:
                presence.session.end(code, message)

    def _changed(self, presence: Presence) -> None:
        for watch in list(presence.watchers):
            watch()
        self.on_change()


class HousePresence(Presence):
    """A referee-side seat for practice matches: answers every request with the first
    legal action at once, and is never disconnected."""

    @property
    def connected(self) -> bool:
        return True

    @property
    def capacity(self) -> int:
        return 1

    def wants_events(self) -> bool:
        return False  # house bots read nothing but the requests

    def send_encoded(self, encoded: bytes) -> bool:
        message = bot_pb2.RefereeMessage.FromString(encoded)
        if message.HasField("decision_request"):
            self.resolve(wire.first_legal_decision(message.decision_request))
        return True
