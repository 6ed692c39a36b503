"""The host's unpacked packages: each package (by sha256) fetched from the artifact store and
extracted once, read-only, shared by every version (and restart) that runs it.

A package is extracted into a fresh folder beside its final place and renamed there, so a
folder under its sha256 is always complete (a host killed mid-way leaves only a temporary
folder, removed by the next :meth:`PackageCache.clear_partial`), and two hosts sharing the
folder may race: the second rename fails and its copy is dropped."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import uuid
from pathlib import Path

from pitch_sdk.packages.archive import extract
from store.artifacts import Artifacts

_SHA256 = re.compile(r"[0-9a-f]{64}")
_PARTIAL = ".partial-"


def remove_tree(path: Path) -> None:
    """Remove a read-only tree (its folders are made writable first)."""
    if not path.exists():
        return
    for folder, _, _ in os.walk(path):
        os.chmod(folder, 0o700)
    shutil.rmtree(path)


class PackageCache:
    """Packages unpacked under ``root``, one folder per sha256."""

    def __init__(self, root: Path, artifacts: Artifacts) -> None:
        self.root = root
        self.artifacts = artifacts
        self._locks: dict[str, asyncio.Lock] = {}
        root.mkdir(parents=True, exist_ok=True)

    def clear_partial(self) -> None:
        """Remove the temporary folders of extractions that never finished."""
        for path in self.root.glob(f"{_PARTIAL}*"):
            remove_tree(path)

    async def folder(self, sha256: str) -> Path:
        """The package's folder, fetched and extracted when this host has not yet (off the
        event loop: a package may be tens of megabytes).  Raises ``KeyError`` for a package
        the store does not hold and :class:`pitch_sdk.packages.archive.PackageError` for
        one that does not pass the checks."""
        if not _SHA256.fullmatch(sha256):
            raise ValueError(f"not a sha256: {sha256[:60]!r}")
        done = self.root / sha256
        async with self._locks.setdefault(sha256, asyncio.Lock()):
            if not done.is_dir():
                await asyncio.to_thread(self._extract, sha256, done)
        return done

    def _extract(self, sha256: str, done: Path) -> None:
        partial = self.root / f"{_PARTIAL}{uuid.uuid4().hex[:8]}"
        extract(self.artifacts.get(sha256), partial)
        try:
            os.rename(partial, done)
        except OSError:  # another host sharing the folder finished first
            remove_tree(partial)
            if not done.is_dir():
                raise
