"""What the referee admits from a client: tokens from the call metadata, request sizes,
decoding, and bounds on every value (names, lists, options JSON, time controls, hellos).

A refused request raises :class:`RequestRefused` with the gRPC status that says why; its
message repeats client input only through :func:`referee.config.echo`, so a reply never
carries unbounded input.  Options JSON is bounded in length, depth and list sizes before it
is parsed, so building a ruleset costs about a millisecond whatever a client sends."""

from __future__ import annotations

import hmac
import json
from collections.abc import Sequence
from typing import Any, TypeVar

import grpc
import redis
from google.protobuf.message import DecodeError, Message

from pitch_sdk.proto.pitch.v1 import bot_pb2
from pitch_sdk.protocol import wire
from pitch_sdk.rules import Ruleset, preset
from referee import config as bounds
from referee.config import echo
from store.bearer import bearer_token as parse_bearer

Context = grpc.aio.ServicerContext[Any, Any]
M = TypeVar("M", bound=Message)


#: Why a disabled bot's stream is refused or ended (PERMISSION_DENIED).
DISABLED = "this bot is disabled by the arena's operator (the bot or its owner's account)"


def bearer_token(context: Context) -> str | None:
    """The token from ``authorization: Bearer <token>`` call metadata (the scheme in any
    case, see :mod:`store.bearer`), if any."""
    for key, value in context.invocation_metadata() or ():
        if key.lower() == "authorization" and isinstance(value, str) \
                and (token := parse_bearer(value)) is not None:
            return token
    return None


class RequestRefused(Exception):
    """A request that cannot be honoured, with the gRPC status that says why."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code


def invalid(message: str) -> RequestRefused:
    """An INVALID_ARGUMENT refusal (bad input)."""
    return RequestRefused(grpc.StatusCode.INVALID_ARGUMENT, message)


def store_unreachable(exc: redis.RedisError) -> str:
    """The message of an UNAVAILABLE answer while Redis is down (callers retry)."""
    return f"the arena's store (Redis) cannot be reached: {echo(str(exc) or type(exc).__name__, 200)}"


def decode(kind: type[M], raw: bytes, limit: int) -> M:
    """``raw`` parsed as a ``kind`` of at most ``limit`` bytes; raises an INVALID_ARGUMENT
    refusal with a short message (never the parser's exception text) otherwise."""
    if len(raw) > limit:
        raise invalid(f"a {kind.DESCRIPTOR.full_name} of {len(raw)} bytes is over the limit of {limit} bytes")
    try:
        return kind.FromString(raw)
    except DecodeError:
        raise invalid(f"undecodable {kind.DESCRIPTOR.full_name} ({len(raw)} bytes): not a valid encoding, or a "
                      "string that is not UTF-8") from None


def bounded(what: str, value: str, limit: int, printable: bool = True) -> str:
    """``value`` if it has at most ``limit`` characters (and only printable ones)."""
    if len(value) > limit:
        raise invalid(f"{what} has {len(value)} characters, more than {limit}: {echo(value)!r}")
    if printable and not value.isprintable():
        raise invalid(f"{what} {echo(value)!r} has control characters")
    return value


def bounded_list(what: str, values: Sequence[str], limit: int, item_limit: int) -> None:
    """Check a list of short strings: at most ``limit`` of at most ``item_limit`` characters."""
    if len(values) > limit:
        raise invalid(f"{what} has {len(values)} entries, more than {limit}")
    for value in values:
        bounded(f"an entry of {what}", value, item_limit)


def parse_options(text: str) -> dict[str, Any]:
    """A ruleset's options JSON as a dict, refused unless it is small: its length, nesting
    and list lengths are bounded so that parsing it and building the ruleset from it cost
    about a millisecond whatever a client sends (an 800 KB options list used to take the
    rules engine seconds, and a deeply nested one overflows the parser's recursion)."""
    if not text:
        return {}
    if len(text) > bounds.MAX_OPTIONS_JSON_CHARS:
        raise invalid(f"bad ruleset: options_json has {len(text)} characters, more than "
                      f"{bounds.MAX_OPTIONS_JSON_CHARS}")
    try:
        options = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise invalid(f"bad ruleset: options_json is not JSON: {echo(str(exc))}") from None
    if not isinstance(options, dict):
        raise invalid("bad ruleset: options_json must be a JSON object")
    _check_options_shape(options, 1)
    return options


def _check_options_shape(value: object, depth: int) -> None:
    if depth > bounds.MAX_OPTIONS_DEPTH:
        raise invalid(f"bad ruleset: options_json nests deeper than {bounds.MAX_OPTIONS_DEPTH} levels")
    if isinstance(value, list | dict):
        if len(value) > bounds.MAX_OPTIONS_LIST_ITEMS:
            raise invalid(f"bad ruleset: a list or object in options_json has {len(value)} entries, more "
                          f"than {bounds.MAX_OPTIONS_LIST_ITEMS}")
        for item in value.values() if isinstance(value, dict) else value:
            _check_options_shape(item, depth + 1)


def build_ruleset(preset_name: str, options_json: str) -> Ruleset:
    """The ruleset a request names (CPU work: called off the event loop); also encoded once,
    so that a value the protocol cannot carry (a target of 10**30) is refused here rather
    than failing the match."""
    bounded("preset", preset_name, bounds.MAX_NAME_CHARS)
    options = parse_options(options_json)
    try:
        rules = preset(preset_name, options)
        wire.ruleset_to_pb(rules)
    except (ValueError, TypeError, OverflowError) as exc:  # RulesError is a ValueError
        raise invalid(f"bad ruleset: {echo(str(exc), 800)}") from None
    return rules


def check_time_control(time_control: bot_pb2.TimeControl | None, max_strikes: int | None) -> None:
    """Refuse time controls and fault policies past their bounds."""
    if time_control is not None and max(time_control.per_decision_ms, time_control.bank_ms) > bounds.MAX_TIME_MS:
        raise invalid(f"time_control: per_decision_ms and bank_ms must be at most {bounds.MAX_TIME_MS}")
    if max_strikes is not None and max_strikes > bounds.MAX_STRIKES:
        raise invalid(f"fault_policy.max_strikes must be at most {bounds.MAX_STRIKES}")


def check_hello(hello: bot_pb2.Hello) -> None:
    """Bound every string and list of a hello (they end up in listings and terminals)."""
    bounded("bot_name", hello.bot_name, bounds.MAX_NAME_CHARS)
    bounded("bot_version", hello.bot_version, bounds.MAX_NAME_CHARS)
    bounded("sdk", hello.sdk, bounds.MAX_SDK_CHARS)
    bounded_list("protocol_versions", hello.protocol_versions, bounds.MAX_LIST_ITEMS, bounds.MAX_NAME_CHARS)
    bounded_list("rulesets", hello.rulesets, bounds.MAX_LIST_ITEMS, bounds.MAX_NAME_CHARS)
    if hello.capacity > bounds.MAX_CAPACITY:
        raise invalid(f"capacity {hello.capacity} is more than {bounds.MAX_CAPACITY}")


def bot_error_text(error: bot_pb2.BotError) -> str:
    """A strike's message for a bot that reported its own failure: the error's type and
    message, each cut to its bound, control characters escaped (the text goes to logs)."""
    kind = _escaped(error.type[:bounds.MAX_BOT_ERROR_TYPE_CHARS]) or "an unnamed error"
    message = _escaped(echo(error.message, bounds.MAX_BOT_ERROR_MESSAGE_CHARS))
    return f"the bot failed: {kind}: {message}" if message else f"the bot failed: {kind}"


def _escaped(text: str) -> str:
    """``text`` with control characters written as escapes (\\n, \\x1b...)."""
    return text if text.isprintable() else repr(text)[1:-1]


def is_admin(context: Context, admin_token: str) -> bool:
    """Whether the call carries the admin token (compared in constant time)."""
    given = bearer_token(context)
    return bool(admin_token) and given is not None and hmac.compare_digest(given.encode(), admin_token.encode())
