"""The bounded tail of a sandbox's output."""

from __future__ import annotations


class OutputTail:
    """The last ``limit`` bytes of a stream, however much is written: memory stays under
    twice the limit (the buffer is trimmed when it reaches that, not at every chunk)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.total = 0
        """Bytes seen, kept or not."""
        self._buffer = bytearray()

    def append(self, chunk: bytes) -> None:
        """Keep ``chunk`` (or its end), dropping what falls out of the tail."""
        self.total += len(chunk)
        self._buffer += chunk[-self.limit:] if self.limit else b""
        if len(self._buffer) > 2 * self.limit:
            del self._buffer[:-self.limit]

    def tail(self) -> bytes:
        """The last ``limit`` bytes seen."""
        return bytes(self._buffer[-self.limit:]) if self.limit else b""
