"""What a sandbox is asked to run, and how it ended."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from hosting.limits import Limits

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")


class SpecError(ValueError):
    """A sandbox asked for something it cannot be given (the message names what)."""


@dataclass(frozen=True)
class SandboxSpec:
    """One sandbox: its name (for its cgroup and logs), the package it runs read-only at
    ``/bot`` (also the working directory: files and folders in it must be readable by others,
    as the sandbox runs under an unprivileged uid of its own when the host is root), the
    command, the one host directory it may reach (``socket_dir`` at ``/run/pitch``, made
    searchable by others when it starts: a Unix socket served there must be writable by
    others to be connectable; the sandbox can create nothing there unless the directory lets
    others write), its environment (the
    only variables besides ``PATH``, ``HOME=/tmp`` and ``LANG=C.UTF-8``) and its limits."""

    name: str
    package_dir: Path
    argv: tuple[str, ...]
    socket_dir: Path
    env: Mapping[str, str] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)

    def __post_init__(self) -> None:
        if not _NAME.fullmatch(self.name):
            raise SpecError(f"a sandbox name is 1-64 letters, digits, '_', '.' or '-', got {self.name[:60]!r}")
        if not self.argv:
            raise SpecError("a sandbox needs a command to run")
        for name, value in self.env.items():
            if not _ENV_NAME.fullmatch(name):
                raise SpecError(f"not an environment variable name: {name[:60]!r}")
            if "\0" in value:
                raise SpecError(f"the environment variable {name} holds a NUL character")
        if any("\0" in word for word in self.argv):
            raise SpecError("the command holds a NUL character")
        for what, path in (("package_dir", self.package_dir), ("socket_dir", self.socket_dir)):
            if not path.is_dir():
                raise SpecError(f"{what} is not a directory: {str(path)[:60]!r}")


@dataclass(frozen=True)
class ExitStatus:
    """How a sandbox ended: its command's exit code or the signal that killed it, and the
    reason an owner reads ("exited with status 1", "killed: memory limit 256 MB",
    "killed: process limit 64", "killed: output file size limit", "stopped by the host")."""

    code: int | None
    signal: int | None
    reason: str
