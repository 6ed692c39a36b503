"""The bubblewrap command line of a sandbox: a pure function of the sandbox and of what it
binds, and what of the host a bot's language runtime needs (read-only)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pitch_sdk
from hosting.spec import SandboxSpec

BWRAP = "/usr/bin/bwrap"
PACKAGE_MOUNT = "/bot"
SOCKET_MOUNT = "/run/pitch"
BASE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8"}

#: Top-level links or folders of the system (merged /usr: links into it).
SYSTEM_TOP = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: The files of /etc a dynamically linked runtime reads: the loader's cache and Debian's
#: alternatives (``node``, ``python3`` may be links through it).  Nothing else of /etc:
#: no passwd, shadow, hosts or the host's configuration.
SYSTEM_ETC = ("/etc/ld.so.cache", "/etc/alternatives")


@dataclass(frozen=True)
class Bind:
    """A bind mount: the host path bubblewrap reads (a staged view of it when the sandbox is
    unprivileged) shown at ``dest``."""

    source: str
    dest: str
    writable: bool = False


@dataclass(frozen=True)
class Link:
    """A symbolic link made inside (``/lib`` -> ``usr/lib`` on a merged-/usr system)."""

    target: str
    dest: str


def bwrap_argv(spec: SandboxSpec, binds: Sequence[Bind], links: Sequence[Link], bwrap: str = BWRAP) -> list[str]:
    """The bubblewrap command that runs ``spec.argv``: every namespace new (no network at
    all), no capabilities, only ``spec.env``, the ``binds`` and ``links`` (read-only unless
    writable), a private /proc and /dev, a bounded /tmp (the only writable place of its own),
    and the working directory /bot."""
    argv = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
            "--cap-drop", "ALL", "--hostname", "sandbox", "--clearenv"]
    for name, value in {**BASE_ENV, **spec.env}.items():
        argv += ["--setenv", name, value]
    # /tmp first: a bind beneath it (a runtime installed under /tmp) is then shown on top of
    # the private /tmp instead of being hidden by it
    argv += ["--size", str(spec.limits.tmp_mb << 20), "--tmpfs", "/tmp"]
    for link in links:
        argv += ["--symlink", link.target, link.dest]
    for bind in binds:
        argv += ["--bind" if bind.writable else "--ro-bind", bind.source, bind.dest]
    argv += ["--proc", "/proc", "--dev", "/dev",
             # bubblewrap's root and /dev are tmpfs of no set size: read-only, /tmp is the one scratch space
             "--remount-ro", "/dev", "--remount-ro", "/", "--chdir", PACKAGE_MOUNT, "--", *spec.argv]
    return argv


def system_view() -> tuple[list[Bind], list[Link]]:
    """What of this host every sandbox sees read-only: /usr, the top-level links into it (or
    the folders, on a system without merged /usr), the loader's files of /etc, and the Python
    runtime the SDK runs on: the interpreter's prefix, the virtualenv and the SDK's source
    folder (an editable install points outside the virtualenv), wherever they are."""
    binds = [Bind("/usr", "/usr")]
    links: list[Link] = []
    for path in SYSTEM_TOP:
        if os.path.islink(path):
            links.append(Link(os.readlink(path), path))
        elif os.path.isdir(path):
            binds.append(Bind(path, path))
    binds += [Bind(path, path) for path in SYSTEM_ETC if os.path.exists(path)]
    runtime = {str(Path(path).resolve()) for path in (sys.base_prefix, sys.prefix, Path(pitch_sdk.__file__).parent)}
    binds += [Bind(path, path) for path in sorted(runtime) if not Path(path).is_relative_to("/usr")]
    return binds, links
