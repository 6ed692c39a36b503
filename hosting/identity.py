"""The unprivileged uids a root host runs its sandboxes as: one per live sandbox, so that
nothing inside maps to the host's root and each sandbox's process rlimit counts its own
processes only."""

from __future__ import annotations

import os

UID_BASE_VARIABLE = "PITCH_SANDBOX_UID_BASE"
DEFAULT_UID_BASE = 61000
SLOTS = 1000
"""Uids ``base`` to ``base + SLOTS - 1`` (gid the same): more sandboxes than one host holds.
Bot hosts sharing a machine should be given bases ``SLOTS`` apart."""


class Identities:
    """Hands out the lowest free uid of the host's range and takes it back."""

    def __init__(self, base: int | None = None) -> None:
        self.base = int(os.environ.get(UID_BASE_VARIABLE, DEFAULT_UID_BASE)) if base is None else base
        if not 1000 <= self.base <= 2**31 - SLOTS:
            raise ValueError(f"{UID_BASE_VARIABLE} must be a uid from 1000 to {2**31 - SLOTS}, got {self.base}")
        self._taken: set[int] = set()

    def take(self) -> int:
        """A uid no live sandbox of this host runs as."""
        uid = next((self.base + slot for slot in range(SLOTS) if self.base + slot not in self._taken), None)
        if uid is None:
            raise RuntimeError(f"every one of the {SLOTS} sandbox uids from {self.base} is in use")
        self._taken.add(uid)
        return uid

    def give_back(self, uid: int) -> None:
        """``uid``'s sandbox has ended (and nothing of it runs any more)."""
        self._taken.discard(uid)
