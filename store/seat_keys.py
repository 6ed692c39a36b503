"""How a match seat names what plays it: a bot, or one version of a bot.

A seat is either a bot id (``a1b2c3d4e5f6``: whichever version of the bot is connected,
its newest connection when several are) or ``{bot id}@{version}`` (the stream that said
that version in its hello).  Two versions of one bot may be connected at once (the new
version of an SPRT against the old one, a hosted version beside its predecessor), so each
stream is known to the fleet by its *seat key*, ``{bot id}@{version}`` (``{bot id}@`` for a
stream that said no version): the referees' registries, the fleet directory's index of
connected bots and the seat ledger are keyed by it, and the bot id alone is an alias the
directory lists while any version of the bot is connected.

A bot id never contains ``@`` (ids are hexadecimal), so the first ``@`` splits a seat; a
version may contain anything a hello allows.  Pure: no I/O, importable by every service.
"""

from __future__ import annotations

SEPARATOR = "@"


def seat_key(bot_id: str, version: str) -> str:
    """The key of a stream of ``bot_id`` that said ``version`` (possibly empty) in its hello."""
    return f"{bot_id}{SEPARATOR}{version}"


def bot_of_seat(seat: str) -> str:
    """The bot a seat names (the seat itself when it names no version)."""
    return seat.partition(SEPARATOR)[0]


def version_of_seat(seat: str) -> str | None:
    """The version a seat names, or ``None`` when it names the bot alone."""
    _, separator, version = seat.partition(SEPARATOR)
    return version if separator else None


def names_version(seat: str) -> bool:
    """Whether a seat (or a directory member) names one version rather than the bot."""
    return SEPARATOR in seat


def seat_label(seat: str, names: dict[str, str]) -> str:
    """How a page or the command line shows a seat: the bot's name (from ``names``, bot id
    -> name; the id when unknown), with ``@version`` when the seat names one."""
    bot_id = bot_of_seat(seat)
    version = version_of_seat(seat)
    name = names.get(bot_id, bot_id)
    return name if version is None else f"{name}@{version}"
