"""A bot host: runs hosted bot versions, spread over the arena's live hosts by leases in Redis.

Every ``poll_s`` a host beats (its id, slots and load, with a TTL: a dead host drops out of
the live hosts on its own), reads the versions that should run, renews the leases and tokens
of those it runs, stops those that should not run any more (deleted, failing, rejected by
the compliance check, replaced by a newer version of their bot whose automatic test against
them is over, their bot or account disabled) or whose lease another host
took, and claims unclaimed versions for its free slots.  It claims at most its fair share
(the wanted versions over the live hosts) of a round's unclaimed versions, so that hosts
started together split the work; a version left unclaimed for a whole round is claimed
beyond the share, so a full or stopped host's versions never wait for a host that has no
room.  A SIGKILLed host's leases lapse after ``lease_s``, and the next poll of another host
claims them: its versions start elsewhere within ``lease_s + poll_s``.  On SIGTERM a host
stops its bots and releases its leases, so they start elsewhere at once."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
import signal
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import redis

from hosting.cache import PackageCache
from hosting.config import HostConfig, default_host_id
from hosting.runner import RunnerContext, VersionRunner, socket_root
from store.artifacts import Artifacts
from store.data_dir import data_dir
from store.hosted import RESTING, HostedVersion, HostedVersions
from store.redis_store import Store
from store.seat_keys import seat_key
from store.version_tests import VersionTestStore
from store.versions import BotVersions

log = logging.getLogger("pitch.hosting")
Key = tuple[str, str]
"""A hosted version: (bot id, version)."""
STARTS_PER_POLL = 8
"""At most this many versions are claimed in one poll: starting many sandboxes at once kept
a host from its next poll past its leases' TTL (64 at once lost leases to the other hosts),
so the rest wait a poll or two while the leases held are renewed."""
UNWANTED = "queued"
"""The status of a version its host stops while it may run again (its bot was disabled, its
host stopped): another host, or this one, starts it when it is wanted again."""


@dataclass
class Survey:
    """One poll's decisions, made off the event loop."""

    start: list[HostedVersion] = field(default_factory=list)
    """Versions this host claimed."""
    stop: dict[Key, str | None] = field(default_factory=dict)
    """Versions to stop, with the status to write (``None``: leave the record as it is)."""


def playing_versions(versions: list[HostedVersion], settled: Callable[[HostedVersion], bool],
                     pinned: Mapping[str, str] | None = None,
                     ) -> tuple[list[HostedVersion], list[tuple[HostedVersion, HostedVersion]]]:
    """The versions that should run: each bot's newest, the version its owner pinned
    (``pinned``: bot id -> version; the bot plays it as its current one) and, while
    ``settled`` says the newest's automatic SPRT against its predecessor is not over, the
    version before it (the test's opponent: the two play side by side, each its own
    player); and each other version with the newest one that replaces it."""
    by_bot: dict[str, list[HostedVersion]] = {}
    for version in sorted(versions, key=lambda v: (v.submitted, v.version)):
        by_bot.setdefault(version.bot_id, []).append(version)
    playing: list[HostedVersion] = []
    replaced: list[tuple[HostedVersion, HostedVersion]] = []
    for ordered in by_bot.values():
        newest = ordered[-1]
        kept = ordered[-2:] if len(ordered) > 1 and not settled(newest) else [newest]
        kept += [v for v in ordered if v.version == (pinned or {}).get(v.bot_id) and v not in kept]
        playing += kept
        replaced += [(version, newest) for version in ordered if version not in kept]
    return playing, replaced


class BotHost:
    """One bot host process's work: its runners and the poll that places versions."""

    def __init__(self, config: HostConfig, store: Store, artifacts: Artifacts) -> None:
        self.config = config
        self.host_id = config.host_id or default_host_id()
        self.versions = HostedVersions(store)
        self.tests = VersionTestStore(store)
        work = Path(config.work_dir) if config.work_dir else data_dir() / "bot-host"
        cache = PackageCache(work / "packages", artifacts)
        cache.clear_partial()
        self.context = RunnerContext(config, self.versions, cache, socket_root(work))
        self.runners: dict[Key, VersionRunner] = {}
        self._unclaimed: set[Key] = set()

    async def run(self, stop: asyncio.Event) -> None:
        """Poll until ``stop`` is set, then stop every bot and release every lease."""
        log.info("bot host %s: %d slots, %d seats per version, playing through %s%s", self.host_id,
                 self.config.slots, self.config.capacity, self.config.referee,
                 "" if self.config.check else "; no compliance check (PITCH_HOSTED_CHECK=0)")
        try:
            while not stop.is_set():
                try:
                    await self.poll()
                except redis.RedisError as exc:  # the bots play on; leases lapse only after lease_s
                    log.warning("bot host %s cannot reach Redis (%s); trying again in %g s", self.host_id,
                                str(exc)[:200], self.config.poll_s)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), self.config.poll_s)
        finally:
            await self.shutdown()

    async def poll(self) -> None:
        """One round: drop ended runners, survey Redis, stop and start what it says."""
        for key, runner in list(self.runners.items()):
            if runner.ended:  # failing, rejected or not checked: its record says why
                await self._drop(key, None)
        survey = await asyncio.to_thread(self._survey)
        for key, status in survey.stop.items():
            await self._drop(key, status)
        started = await asyncio.gather(*(self._start(version) for version in survey.start), return_exceptions=True)
        for version, outcome in zip(survey.start, started, strict=True):
            if isinstance(outcome, BaseException):
                log.error("bot host %s: starting %s of bot %s failed", self.host_id, version.version,
                          version.bot_id, exc_info=outcome)

    async def _start(self, version: HostedVersion) -> None:
        runner = VersionRunner(version, self.context)
        key = runner.key
        self.runners[key] = runner
        try:
            ok = await runner.start()
        except BaseException as exc:  # the host's fault, not the bot's: another host may start it
            await self._drop(key, UNWANTED, f"its bot host could not start it ({type(exc).__name__})")
            raise
        if not ok:
            await self._drop(key, None)

    async def _drop(self, key: Key, status: str | None, detail: str = "") -> None:
        runner = self.runners.pop(key, None)
        if runner is not None:
            await runner.stop(status, detail)
        await asyncio.to_thread(self.versions.release, *key, self.host_id)

    def _survey(self) -> Survey:
        """Beat, renew, and decide what to stop and what to claim (blocking Redis calls)."""
        config = self.config
        survey = Survey()
        self.versions.beat(self.host_id, {"slots": config.slots, "running": len(self.runners),
                                          "capacity": config.capacity, "referee": config.referee}, config.lease_s)
        wanted_now = self.versions.wanted()
        pins = BotVersions(self.versions.store).pinned_versions(sorted({v.bot_id for v in wanted_now}))
        playing, replaced = playing_versions(wanted_now, self._settled, pins)
        for old, new in replaced:
            self.versions.stop(old.bot_id, old.version, f"replaced by the bot's newer version {new.version}")
        wanted = {(version.bot_id, version.version): version for version in playing}
        for key, runner in self.runners.items():
            if key not in wanted:
                survey.stop[key] = self._why_unwanted(key)
            elif not self.versions.renew(*key, self.host_id, config.lease_s):
                log.warning("bot host %s lost the lease of %s of bot %s", self.host_id, key[1], key[0])
                survey.stop[key] = None  # its new host writes its status
            else:
                runner.renew_token()
        running = len(self.runners) - len(survey.stop)
        share = math.ceil(len(wanted) / max(1, len(self.versions.live_hosts())))
        unclaimed = [key for key in wanted if key not in self.runners and self.versions.holder(*key) is None]
        random.shuffle(unclaimed)
        for key in unclaimed:
            if running >= config.slots or len(survey.start) >= STARTS_PER_POLL:
                break
            if running >= share and key not in self._unclaimed:
                continue  # another host may take it this round; claimed next round if none did
            if self.versions.claim(*key, self.host_id, config.lease_s):
                survey.start.append(wanted[key])
                running += 1
        claimed = {(version.bot_id, version.version) for version in survey.start}
        self._unclaimed = set(unclaimed) - claimed
        return survey

    def _settled(self, version: HostedVersion) -> bool:
        """Whether the version's automatic test against its predecessor is over (always,
        with the automatic SPRTs off: then a bot's newest version alone runs)."""
        return not self.config.auto_sprt or self.tests.settled(seat_key(version.bot_id, version.version))

    def _why_unwanted(self, key: Key) -> str | None:
        """The status to write for a version that should not run any more: none when its
        record says why (deleted: stopped; failing; rejected), else it waits for its bot to be enabled."""
        record = self.versions.get(*key)
        if record is None or record.status in RESTING:
            return None
        return UNWANTED

    async def shutdown(self) -> None:
        """Stop every bot and release every lease (their versions start elsewhere at once)."""
        keys = list(self.runners)
        await asyncio.gather(*(self._drop(key, UNWANTED, "its bot host stopped") for key in keys),
                             return_exceptions=True)
        try:
            await asyncio.to_thread(self.versions.leave, self.host_id)
        except redis.RedisError as exc:  # its heartbeat lapses on its own
            log.warning("bot host %s could not say it left: %s", self.host_id, str(exc)[:200])
        log.info("bot host %s stopped (%d versions handed back)", self.host_id, len(keys))


async def serve(config: HostConfig, store: Store, artifacts: Artifacts) -> None:
    """Run a bot host until SIGINT or SIGTERM."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await BotHost(config, store, artifacts).run(stop)
