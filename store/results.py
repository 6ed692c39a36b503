"""A match result as the store keeps it (JSON-ready data) and as the protocol sends it
(``MatchResult``): the referee writes results in one form, the workers, the web and the
command line read them back in the other.
"""

from __future__ import annotations

from google.protobuf import json_format

from pitch_sdk.proto.pitch.v1 import bot_pb2
from store.redis_store import EXTRA_RESULT_KEYS


def result_to_dict(result: bot_pb2.MatchResult) -> dict[str, object]:
    """A match result as JSON-ready data (how the store keeps it)."""
    return json_format.MessageToDict(result, preserving_proto_field_name=True)


def result_from_dict(data: dict[str, object]) -> bot_pb2.MatchResult:
    """The inverse of :func:`result_to_dict`; the version fields the store adds to a
    result (:data:`store.redis_store.EXTRA_RESULT_KEYS`) are not the message's."""
    return json_format.ParseDict({k: v for k, v in data.items() if k not in EXTRA_RESULT_KEYS}, bot_pb2.MatchResult())
