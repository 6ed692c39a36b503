"""Password hashing for author accounts: argon2id from ``argon2-cffi``, a memory-hard KDF,
so a stolen store does not give up passwords to a GPU farm.

The cost is argon2-cffi's default profile (RFC 9106's low-memory choice: 64 MiB, 3 passes,
4 lanes; about 0.1 s on one core).  ``PITCH_ARGON2_MEMORY_KIB`` and ``PITCH_ARGON2_TIME_COST``
lower it where a weak machine or a test suite needs that; a stored hash made with other
parameters still verifies, and is replaced by one with the current parameters at the next
login (:meth:`Passwords.verify` says when)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

#: Shortest and longest password accepted (the upper bound keeps hashing bounded).
MIN_PASSWORD = 8
MAX_PASSWORD = 1024


class Passwords:
    """Hash and check passwords with one set of argon2id parameters."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        defaults = PasswordHasher()
        self._hasher = PasswordHasher(
            time_cost=int(env.get("PITCH_ARGON2_TIME_COST") or defaults.time_cost),
            memory_cost=int(env.get("PITCH_ARGON2_MEMORY_KIB") or defaults.memory_cost),
            parallelism=defaults.parallelism)
        # Spent on logins for unknown accounts, so that answering them takes as long as a
        # wrong password for a real one (no account enumeration by timing).
        self._decoy = self._hasher.hash("not a password of any account")

    def hash(self, password: str) -> str:
        """The argon2id hash (with its salt and parameters) to store."""
        return self._hasher.hash(password)

    def verify(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` matches ``stored``; ``None`` (no such account) costs a hash too."""
        try:
            return self._hasher.verify(stored or self._decoy, password) and stored is not None
        except (VerificationError, InvalidHashError):
            return False

    def needs_rehash(self, stored: str) -> bool:
        """Whether ``stored`` was made with other parameters than the current ones."""
        return self._hasher.check_needs_rehash(stored)


def password_problem(password: str) -> str | None:
    """What is wrong with a new password, or ``None``."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        return f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters"
    return None
