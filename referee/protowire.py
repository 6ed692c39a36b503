"""Protobuf encodings assembled from parts, for the referee's hot path.

A length-delimited field is its tag, its length as a varint, then its bytes, and a message
is the concatenation of its fields in any order (repeated fields append).  So a request
can be joined from parts encoded once and cached (legal actions, events, observation
lists) and written as it is, instead of parsed into a message and encoded again.
"""

from __future__ import annotations

from google.protobuf.message import Message


def varint(value: int) -> bytes:
    """Protobuf's base-128 varint of a non-negative ``value``."""
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def field_tag(message: type[Message], name: str) -> bytes:
    """The tag of ``message``'s length-delimited field ``name`` (a message, bytes or string)."""
    return varint(message.DESCRIPTOR.fields_by_name[name].number << 3 | 2)


def length_delimited(tag: bytes, payload: bytes) -> bytes:
    """One length-delimited field: ``tag``, then ``payload``'s length, then ``payload``."""
    return tag + varint(len(payload)) + payload


def join_batch(batch_tag: bytes, member_tag: bytes, encoded: list[bytes]) -> bytes:
    """A batch field (``batch_tag``) whose repeated members (``member_tag``) have the given
    encodings: the encoding of a batch message, built by concatenation."""
    return length_delimited(batch_tag, b"".join([length_delimited(member_tag, message) for message in encoded]))
