"""The artifact store: submitted bot packages, kept by the SHA-256 of their bytes.

Content addressing makes every operation simple and safe to repeat: the name of a package
is its hash, so storing the same package twice stores it once, a stored artifact never
changes, and a reader can check what it got against the name it asked for (a corrupt or
tampered artifact is refused, never served to a bot host).

:class:`Artifacts` is what the web server (which stores submissions) and the bot hosts
(which fetch the packages they run) depend on.  :class:`FileArtifacts`, the embedded
default, keeps each artifact as a file ``{root}/sha256/{first two hex digits}/{hex}``:

- it needs no server beside Redis: an arena on one machine has nothing more to install,
  start or back up than a folder (by default ``{data dir}/artifacts``, see
  :mod:`store.data_dir`; ``PITCH_ARTIFACTS_DIR`` chooses another);
- an arena on several machines points ``PITCH_ARTIFACTS_DIR`` at a shared mount (NFS, a
  cloud file share) that its web servers and bot hosts all see;
- a deployment with an object store (S3 or anything speaking its API: MinIO, Ceph, R2)
  implements the same three methods over a bucket, keyed the same way; the hash check on
  read stays the reader's, so the store need not be trusted either.

Writes are atomic (a temporary file in the same folder, flushed to disk with ``fsync``,
then renamed into place), so a crash never leaves a partial artifact under a valid name.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from store.data_dir import data_dir

#: The environment variable that chooses the artifact folder.
ARTIFACTS_DIR_VARIABLE = "PITCH_ARTIFACTS_DIR"
#: What an artifact's name looks like: a SHA-256 in lower-case hexadecimal.
SHA256 = re.compile(r"[0-9a-f]{64}")


class ArtifactError(Exception):
    """An artifact that cannot be given: a malformed name, or stored bytes that are damaged."""


class MissingArtifact(ArtifactError, KeyError):
    """No artifact has that hash."""

    def __str__(self) -> str:
        return str(self.args[0])


class Artifacts(Protocol):
    """Content-addressed storage of bot packages."""

    def put(self, data: bytes) -> str:
        """Store ``data`` (once, however often it is put); its SHA-256 in hexadecimal."""

    def get(self, sha256: str) -> bytes:
        """The bytes stored under ``sha256``, checked against it; :class:`MissingArtifact` when
        there are none, :class:`ArtifactError` when they are damaged."""

    def has(self, sha256: str) -> bool:
        """Whether an artifact is stored under ``sha256``."""


def _checked_name(sha256: str) -> str:
    """``sha256`` when it is a well-formed name (it becomes part of a path: nothing else may)."""
    if not SHA256.fullmatch(sha256):
        shown = sha256 if len(sha256) <= 60 else sha256[:60] + "…"
        raise ArtifactError(f"{shown!r} is not an artifact name: 64 lower-case hexadecimal digits")
    return sha256


class FileArtifacts:
    """Artifacts as files under ``root`` (see the module's docstring)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> FileArtifacts:
        """The artifact folder ``PITCH_ARTIFACTS_DIR`` names, else ``artifacts`` in the data directory."""
        env = os.environ if env is None else env
        chosen = env.get(ARTIFACTS_DIR_VARIABLE)
        return cls(Path(chosen).expanduser().absolute() if chosen else data_dir(env=env) / "artifacts")

    def path(self, sha256: str) -> Path:
        """Where the artifact named ``sha256`` is (or would be) kept."""
        name = _checked_name(sha256)
        return self.root / "sha256" / name[:2] / name

    def put(self, data: bytes) -> str:
        sha256 = hashlib.sha256(data).hexdigest()
        target = self.path(sha256)
        if self._intact(target, sha256):
            return sha256
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=".incoming-", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(temporary, 0o444)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        folder = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(folder)  # the rename itself survives a crash
        finally:
            os.close(folder)
        return sha256

    def get(self, sha256: str) -> bytes:
        try:
            data = self.path(sha256).read_bytes()
        except FileNotFoundError:
            raise MissingArtifact(f"no artifact {sha256}") from None
        if hashlib.sha256(data).hexdigest() != sha256:
            raise ArtifactError(f"the artifact {sha256} is damaged: its bytes no longer have that hash")
        return data

    def has(self, sha256: str) -> bool:
        return self.path(sha256).is_file()

    @staticmethod
    def _intact(path: Path, sha256: str) -> bool:
        """Whether ``path`` holds the artifact already (a damaged copy is written again)."""
        try:
            return hashlib.sha256(path.read_bytes()).hexdigest() == sha256
        except FileNotFoundError:
            return False
