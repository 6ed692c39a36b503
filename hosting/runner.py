"""One hosted version on a bot host: its ephemeral token, its proxy, its sandbox under a
supervisor, and what the owner reads about it (status and output) in Redis.

The proxy lives as long as the runner (its socket outlasts the bot's restarts); each start of
the sandbox is watched for the bot's hello, and a bot that has said none within the deadline
is killed like a crash (restarted with backoff, failing after repeated ones) with the reason
"no hello within 30 s".  The runner writes every status change and, whenever a sandbox ends,
its output's tail and how it ended; when the runner stops it revokes the token, so a bot
whose host moved on plays no more with it.

A version that has not passed the arena's compliance check yet is ``checking`` first
(:mod:`hosting.check`): one run of its sandbox plays the practice matches under its check
identity, and only then does the supervisor start it for the arena.  A version that fails
is ``rejected`` (resting: the runner ends, and its host stops it and revokes its token); one
whose check says nothing about it (the referee never welcomed it) is ``queued`` again."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import redis

from hosting.cache import PackageCache, remove_tree
from hosting.check import Verdict, check_version
from hosting.config import HostConfig
from hosting.proxy import MAX_SOCKET_PATH_BYTES, BotProxy, Upstream
from hosting.sandbox import Sandbox, SandboxSpec, python_bot_argv
from hosting.supervisor import Policy, Supervisor
from pitch_sdk.packages.manifest import ManifestError, parse_manifest
from store.artifacts import ArtifactError
from store.hosted import HostedVersion, HostedVersions

log = logging.getLogger("pitch.hosting")

SOCKET_NAME = "referee.sock"
SOCKET_INSIDE = f"unix:/run/pitch/{SOCKET_NAME}"
"""Where the bot finds its referee: the proxy's socket, as the sandbox sees its folder."""
STOPPED = "stopped by the host"
"""How a sandbox the host stopped ended (:class:`hosting.sandbox.ExitStatus`'s reason)."""
PLACEHOLDER_TOKEN = "hosted"
"""The token the bot is given: the proxy ignores it and sends the version's own."""


@dataclass(frozen=True)
class RunnerContext:
    """What every runner of a host shares."""

    config: HostConfig
    versions: HostedVersions
    cache: PackageCache
    sockets: Path
    """A short folder (a socket's path is bounded) for each version's socket folder."""


def short_id(bot_id: str, version: str) -> str:
    """A version's short name on this host (its socket folder, its sandbox)."""
    return hashlib.sha256(f"{bot_id}\0{version}".encode()).hexdigest()[:16]


class VersionRunner:
    """One hosted version, from :meth:`start` to :meth:`stop` (or until its bot is failing)."""

    def __init__(self, version: HostedVersion, context: RunnerContext) -> None:
        self.version = version
        self.context = context
        self.name = short_id(version.bot_id, version.version)
        self.token = ""
        self.proxy: BotProxy | None = None
        self.supervisor: Supervisor | None = None
        self.task: asyncio.Task[None] | None = None
        """The check, then the supervisor's run: done when the bot is failing, was rejected
        or could not be checked, or the runner stopped."""
        self._checked = ""
        """The summary of the check this runner passed, said by the first ``running``."""
        self._no_hello = False
        self._stopping = False
        self._output = b""
        """The output tail last written (of the sandbox running now)."""
        self._watchdog: asyncio.Task[None] | None = None
        self._socket_dir = context.sockets / self.name

    @property
    def key(self) -> tuple[str, str]:
        """The version's (bot id, version)."""
        return self.version.bot_id, self.version.version

    async def start(self) -> bool:
        """Unpack the package, issue the token, open the proxy and start the bot; ``False``
        (the version marked failing, saying why) when the package cannot run."""
        config = self.context.config
        await self._status("starting", "")
        try:
            argv = self._argv()
            package = await self.context.cache.folder(self.version.sha256)
        except (ManifestError, ValueError, KeyError, ArtifactError, OSError) as exc:  # PackageError is a ValueError
            await self._status("failing", f"the package cannot run: {str(exc)[:200]}")
            return False
        self.token = await asyncio.to_thread(self.context.versions.issue_token, self.version.bot_id,
                                             config.token_ttl_s)
        remove_tree(self._socket_dir)
        self._socket_dir.mkdir(parents=True)
        self._socket_dir.chmod(0o711)  # the sandbox's uid reaches the socket; nobody lists the folder
        self.proxy = BotProxy(self._socket_dir / SOCKET_NAME,
                              Upstream(config.referee, self.token, self.version.version, config.capacity),
                              hello_timeout_s=config.hello_deadline_s)
        await self.proxy.start()
        spec = SandboxSpec(name=f"bot-{self.name}", package_dir=package, argv=argv, socket_dir=self._socket_dir,
                           env={"PITCH_REFEREE": SOCKET_INSIDE, "PITCH_BOT_TOKEN": PLACEHOLDER_TOKEN},
                           limits=config.limits)
        self.task = asyncio.create_task(self._run(spec), name=f"hosted {self.name}")
        log.info("hosting %s of bot %s (sandbox bot-%s)", self.version.version, self.version.bot_id, self.name)
        return True

    async def _run(self, spec: SandboxSpec) -> None:
        """Check the version unless it passed already (or checks are off), then keep it running."""
        config = self.context.config
        if config.check and not self.version.checked:
            try:
                passed = await self._check(spec)
            except Exception as exc:  # the host's fault (Redis out of reach, ...), not the bot's: try again
                log.exception("bot %s %s: the compliance check could not run", *self.key)
                await self._status("queued", f"its bot host could not check it ({type(exc).__name__})")
                return
            if not passed:
                return
        self.supervisor = Supervisor(lambda: self._sandbox(spec), self._on_status, self._on_output,
                                     Policy(first_backoff_s=config.backoff_s, max_backoff_s=config.max_backoff_s))
        await self.supervisor.run()

    async def _check(self, spec: SandboxSpec) -> bool:
        """Run the compliance check and record its report; whether the version passed."""
        assert self.proxy is not None
        await self._status("checking", "compliance check: practice matches against the referee's house bots")
        outcome = await check_version(self.proxy, lambda: Sandbox.start(spec), self.context.versions, *self.key,
                                      self.context.config)
        await self._write(self.context.versions.write_log, *self.key,
                          outcome.output + f"--- compliance check: {outcome.summary}\n".encode(), append=True)
        if outcome.verdict == Verdict.INCONCLUSIVE:
            await self._status("queued", outcome.summary)
            return False
        passed = outcome.verdict == Verdict.PASSED
        await self._write(self.context.versions.record_check, *self.key, outcome.report, passed)
        if not passed:
            await self._status("rejected", outcome.summary)
            return False
        self._checked = outcome.summary
        return True

    def _argv(self) -> tuple[str, ...]:
        manifest = parse_manifest(self.version.manifest_json.encode())
        if manifest.bot is not None:
            return (*python_bot_argv(manifest.bot), "--capacity", str(self.context.config.capacity))
        return manifest.command

    async def _sandbox(self, spec: SandboxSpec) -> Sandbox:
        """Start the bot once more, watched for its hello."""
        assert self.proxy is not None
        self.proxy.greeted.clear()
        self._no_hello = False
        self._output = b""
        sandbox = await Sandbox.start(spec)
        if self._watchdog is not None:
            self._watchdog.cancel()
        self._watchdog = asyncio.create_task(self._hello_watch(sandbox, self.proxy))
        return sandbox

    async def _hello_watch(self, sandbox: Sandbox, proxy: BotProxy) -> None:
        """Kill a bot that says no hello within the deadline."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proxy.greeted.wait(), self.context.config.hello_deadline_s)
            return
        self._no_hello = True
        log.warning("bot %s %s said no hello within %g s: killing it", self.version.bot_id, self.version.version,
                    self.context.config.hello_deadline_s)
        await sandbox.stop(grace_s=0.5)

    async def _on_status(self, status: str, detail: str) -> None:
        """The supervisor's news (none once the runner stops: :meth:`stop` says what to
        write), with the reason a killed silent bot ended; each end is noted in the log."""
        if self._stopping:
            return
        if self._no_hello and detail.startswith(STOPPED):  # not when it ended by itself meanwhile
            detail = detail.replace(STOPPED, f"no hello within {self.context.config.hello_deadline_s:g} s", 1)
        if status == "running" and not detail:  # the first run after a check says how it went
            detail, self._checked = self._checked, ""
        if status in ("restarting", "failing"):
            await self._write(self.context.versions.write_log, *self.key, f"--- {status}: {detail}\n".encode(),
                              append=True)
        if status == "restarting":
            await self._write(self.context.versions.count_restart, *self.key)
        await self._status(status, detail)

    async def _on_output(self, tail: bytes) -> None:
        """Append what the bot printed since the last call to its log.  The tail is the
        output's last bytes: when it is no longer an extension of the one written last, it
        is a whole window, and the log (which keeps as many last bytes) becomes it."""
        new = tail[len(self._output):] if tail.startswith(self._output) else tail
        self._output = tail
        if new:
            await self._write(self.context.versions.write_log, *self.key, new, append=True)

    async def _status(self, status: str, detail: str) -> None:
        log.info("bot %s %s: %s%s", self.version.bot_id, self.version.version, status,
                 f" ({detail})" if detail else "")
        await self._write(self.context.versions.set_status, *self.key, status, detail)

    async def _write(self, write: Callable[..., object], *args: object, **options: object) -> None:
        """A write of the version's record or log, off the event loop; while Redis cannot be
        reached it is logged and dropped (the bot plays on; the next change writes again)."""
        try:
            await asyncio.to_thread(write, *args, **options)
        except redis.RedisError as exc:
            log.warning("bot %s %s: cannot write to Redis: %s", *self.key, str(exc)[:200])

    def renew_token(self) -> None:
        """Keep the token alive one more TTL, or give the proxy a new one when it lapsed (the
        host was paused past its TTL, say); blocking: called off the event loop."""
        versions, ttl_s = self.context.versions, self.context.config.token_ttl_s
        if not self.token or self.proxy is None or versions.renew_token(self.token, ttl_s):
            return
        log.warning("the token of bot %s %s lapsed: issuing a new one", *self.key)
        self.token = versions.issue_token(self.version.bot_id, ttl_s)
        self.proxy.upstream = replace(self.proxy.upstream, token=self.token)

    async def stop(self, status: str | None, detail: str = "") -> None:
        """Stop the bot and the proxy, revoke the token; write ``status`` unless ``None``
        (another host has the version, or its record already says why it ended)."""
        self._stopping = True
        if self.supervisor is not None:
            await self.supervisor.stop()
        elif self.task is not None:  # still checking: the check stops its sandbox and ends its identity
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        if self._watchdog is not None:
            self._watchdog.cancel()
        if self.proxy is not None:
            await self.proxy.stop()
        if self.token:  # unless Redis is out of reach: then it lapses after its TTL
            await self._write(self.context.versions.revoke_token, self.token)
        with contextlib.suppress(OSError):
            remove_tree(self._socket_dir)
        if status is not None:
            await self._status(status, detail)

    @property
    def ended(self) -> bool:
        """Whether the bot ended (failing, rejected, or its check inconclusive) while the
        runner was not stopped: its record says why."""
        return self.task is not None and self.task.done()


SHORT_ROOT_PREFIX = "pitch-host-"


def socket_root(work_dir: Path) -> Path:
    """The folder of the versions' socket folders, private to the host's user (a sandbox
    sees its own folder only, bound at ``/run/pitch``): ``s`` in the work directory, or,
    when that path is too long for a Unix socket (108 bytes with the version's folder and
    the socket's name), ``/tmp/pitch-host-<hash of the work directory>``, the same folder
    for every run of the host."""
    work_dir = work_dir.resolve()
    root = work_dir / "s"
    longest = root / short_id("", "") / SOCKET_NAME
    if len(str(longest).encode()) > MAX_SOCKET_PATH_BYTES:
        digest = hashlib.sha256(str(work_dir).encode()).hexdigest()[:16]
        root = Path("/tmp") / f"{SHORT_ROOT_PREFIX}{os.geteuid()}-{digest}"
    root.mkdir(parents=True, exist_ok=True)
    found = os.lstat(root)
    if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.geteuid():  # in /tmp, another user's trap
        raise OSError(f"{root} is not a folder of this user's: remove it, or set a shorter PITCH_HOST_DIR")
    os.chmod(root, 0o700)
    return root
