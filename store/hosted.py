"""Hosted bot versions in Redis: what authors submitted for the arena to run, where each runs,
how it is doing, its output, the bot hosts that are alive, and the short-lived tokens hosts
play with.

A submission is a *version* of a bot: its package (an artifact, by SHA-256, see
:mod:`store.artifacts`) and manifest, and a version string unique among the bot's versions
(the author's, or ``v<N>`` for the N-th submission), which the hosted bot says in its hello,
so each version is rated apart (:mod:`store.versions`).  A version is *wanted* (some bot
host should run it) until it is stopped (by its owner or the operator), marked failing (it
kept crashing) or rejected (it failed the arena's compliance check), and while its bot may
play (registered, not disabled).

Before a version plays its first arena match, its host checks it: the sandboxed bot plays
the compliance practice matches (:mod:`hosting.check`) under a *check identity* of its own,
``{bot id}-check-{hash of the version}``: a bot record and token that expire, that no
listing of the arena's bots shows and no automatic competition enters (a house bot), so
that nothing places an arena match on the version before it passed (a match is placed on
a bot id, and the version is not connected under its bot's id until then).  The record
keeps the check's report, and whether it passed (a restart does not check it again).

Bot hosts spread the wanted versions among themselves as referees spread matches: a host
claims a version with a lease (``SET NX`` with a TTL) and renews it while it runs it; a host
that dies stops renewing, its leases lapse, and another host claims the versions.  A host
never holds the author's bot token: it issues itself a token that expires unless renewed
(:meth:`HostedVersions.issue_token`), which the referee accepts like any bot token.

Keys (under the store's prefix ``{p}``, listed with the rest in :mod:`store.redis_store`;
``{ref}`` is ``{bot id}/{version}``)::

    {p}hosted:{ref}             hash: sha256, manifest (JSON), submitted_by, submitted, status,
                                detail, updated, restarts, report (the compliance check's, at
                                most 4 KiB), checked ("1" once the check passed)
    {p}hosted-versions:{bot}    sorted set: version -> submission number (the bot's versions in order)
    {p}hosted-count:{bot}       the bot's submissions so far (the N of the default ``v<N>``)
    {p}hosted-active            set of the refs of versions neither stopped, failing nor rejected
    {p}hosted-log:{ref}         the last 64 KiB of the version's output (stdout and stderr)
    {p}hosted-lease:{ref}       the id of the host running the version (SET NX PX, renewed)
    {p}bot-hosts                sorted set: host id -> time of its last heartbeat
    {p}bot-host:{id}            JSON of what the host reports (slots, running, ...); expires
    {p}token:{sha256}           bot id, with a TTL: a host's token for a bot (the same keys as
                                registered bots' tokens, which have none), or for a check identity
    {p}bot:{check id}           a check identity's bot record (name, owner, account), with a TTL;
                                also in {p}house-bots while the check runs
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from typing import Any

import redis

from store.accounts import Accounts
from store.redis_store import Store, StoreError, hash_token
from store.versions import BotVersions

#: A version string: what the bot says in its hello (bounded like every hello string), and
#: a part of URLs and keys, so letters, digits and ``._+-`` only.
VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
SHA256 = re.compile(r"[0-9a-f]{64}")
#: The most versions one bot may have (each costs a record, and its package is kept).
MAX_VERSIONS = 200
#: Longest manifest JSON kept (``pitch_sdk.packages.manifest.MAX_MANIFEST_BYTES``) and
#: longest submitter name.
MAX_MANIFEST_CHARS = 4096
MAX_SUBMITTER_CHARS = 64
#: Longest status detail kept (longer ones are cut, control characters escaped).
MAX_DETAIL_CHARS = 300
#: Longest compliance report kept (longer ones are cut, control characters escaped).
MAX_REPORT_CHARS = 4096
#: Output kept per version: the last this many bytes.
MAX_LOG_BYTES = 64 * 1024


class Status(StrEnum):
    """Where a hosted version is in its life."""

    QUEUED = "queued"
    """Submitted (or its host lost): waiting for a bot host to claim it."""
    STARTING = "starting"
    """A host claimed it and is starting its sandbox."""
    CHECKING = "checking"
    """Its host runs the arena's compliance check on it (practice matches, never rated)."""
    RUNNING = "running"
    """Connected to the arena, playing."""
    RESTARTING = "restarting"
    """It exited; its host restarts it after a backoff."""
    FAILING = "failing"
    """It kept crashing: no host runs it any more."""
    REJECTED = "rejected"
    """It failed the compliance check: no host runs it; its report says why."""
    STOPPED = "stopped"
    """Stopped by its owner or the operator: final."""


#: The statuses of versions no host should run.
RESTING = frozenset({Status.FAILING, Status.REJECTED, Status.STOPPED})


class HostedError(StoreError):
    """A request about hosted versions that cannot be honoured; the message says why."""


@dataclass(frozen=True)
class HostedVersion:
    """One submitted version of a bot, as stored."""

    bot_id: str
    version: str
    sha256: str
    """The package's artifact."""
    manifest_json: str
    submitted_by: str
    submitted: float
    status: Status
    detail: str
    """Why the status is what it is, e.g. ``killed: memory limit 256 MB``."""
    updated: float
    """When the status last changed."""
    restarts: int
    host: str | None
    """The host that holds the version's lease now, if any."""
    report: str = ""
    """The compliance check's report (empty before the check, or with the check off)."""
    checked: bool = False
    """Whether the version passed the compliance check (it is not checked again)."""

    @property
    def ref(self) -> str:
        """``{bot id}/{version}``: how keys and hosts name the version."""
        return f"{self.bot_id}/{self.version}"


@dataclass(frozen=True)
class HostEntry:
    """A live bot host, as its last heartbeat described it."""

    host_id: str
    heartbeat: float
    info: dict[str, Any]


def _shown(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:60] + "…")


def _bounded_detail(detail: str) -> str:
    detail = detail if detail.isprintable() else repr(detail)[1:-1]
    return detail if len(detail) <= MAX_DETAIL_CHARS else detail[:MAX_DETAIL_CHARS - 1] + "…"


def _bounded_report(report: str) -> str:
    """The report cut to :data:`MAX_REPORT_CHARS`, each line's control characters escaped."""
    lines = [line if line.isprintable() else repr(line)[1:-1] for line in report.splitlines()]
    text = "\n".join(lines)
    return text if len(text) <= MAX_REPORT_CHARS else text[:MAX_REPORT_CHARS - 1] + "…"


def check_id(bot_id: str, version: str) -> str:
    """The bot id of a version's check identity (see the module's docstring)."""
    return f"{bot_id}-check-{hashlib.sha256(version.encode()).hexdigest()[:8]}"


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))


# KEYS: the bot's versions, its submission count, the active set.  ARGV: the version ('' for
# the next free v<N>), the record key without the version, the ref without the version,
# the most versions, then the record's field/value pairs.  Returns {1, version} when added,
# {0, count} when the bot has the most versions, {-1, version} when the version exists.
_ADD = """
local count = redis.call('ZCARD', KEYS[1])
if count >= tonumber(ARGV[4]) then return {0, tostring(count)} end
local version = ARGV[1]
if version ~= '' and redis.call('ZSCORE', KEYS[1], version) then return {-1, version} end
local n = redis.call('INCR', KEYS[2])
if version == '' then
  version = 'v' .. n
  while redis.call('ZSCORE', KEYS[1], version) do n = redis.call('INCR', KEYS[2]); version = 'v' .. n end
end
redis.call('ZADD', KEYS[1], n, version)
redis.call('HSET', ARGV[2] .. version, 'status', 'queued', unpack(ARGV, 5))
redis.call('SADD', KEYS[3], ARGV[3] .. version)
return {1, version}
"""
# KEYS: the record, the active set.  ARGV: status, detail, time, ref, 1 if the status rests.
# A stopped version stays stopped; returns 1 when the status was written.
_SET_STATUS = """
local current = redis.call('HGET', KEYS[1], 'status')
if not current or current == 'stopped' then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'detail', ARGV[2], 'updated', ARGV[3])
if ARGV[5] == '1' then redis.call('SREM', KEYS[2], ARGV[4]) else redis.call('SADD', KEYS[2], ARGV[4]) end
return 1
"""
# KEYS: the log.  ARGV: the output, the most bytes kept, 1 to append (else replace).
_WRITE_LOG = """
local size
if ARGV[3] == '1' then size = redis.call('APPEND', KEYS[1], ARGV[1])
else redis.call('SET', KEYS[1], ARGV[1]); size = #ARGV[1] end
local keep = tonumber(ARGV[2])
if size > keep then redis.call('SET', KEYS[1], redis.call('GETRANGE', KEYS[1], size - keep, -1)) end
return 1
"""
# Extend or drop a lease only while it is the caller's (a lapsed lease another host took
# must not be taken back).
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
# Renew or revoke a host's token only: those expire, a registered bot's token (no TTL) is
# never touched.  ARGV[1]: milliseconds to renew for, or '' to revoke.
_HOST_TOKEN = """
if redis.call('PTTL', KEYS[1]) <= 0 then return 0 end
if ARGV[1] == '' then return redis.call('DEL', KEYS[1]) end
return redis.call('PEXPIRE', KEYS[1], ARGV[1])
"""


class HostedVersions:
    """The hosted versions' records, leases, logs, host heartbeats and host tokens."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.client = store.client
        self._add = self.client.register_script(_ADD)
        self._set_status = self.client.register_script(_SET_STATUS)
        self._write_log = self.client.register_script(_WRITE_LOG)
        self._renew = self.client.register_script(_RENEW)
        self._release = self.client.register_script(_RELEASE)
        self._host_token = self.client.register_script(_HOST_TOKEN)

    def _key(self, *parts: str) -> str:
        return self.store.prefix + ":".join(parts)

    @cached_property
    def _raw(self) -> redis.Redis:
        """A client on the same server that does not decode replies: output is bytes, not text."""
        pool = self.client.connection_pool
        return redis.Redis(connection_pool=redis.ConnectionPool(
            connection_class=pool.connection_class, **{**pool.connection_kwargs, "decode_responses": False}))

    # ----------------------------------------------------------------- versions
    def add(self, bot_id: str, version: str | None, sha256: str, manifest_json: str,
            submitted_by: str) -> HostedVersion:
        """Record a submitted version, queued for a host; ``version`` ``None`` (or empty) names
        it ``v<N>``, N the bot's submission count.  :class:`HostedError` for a malformed or
        taken version string, a malformed hash, a manifest or submitter past its bound, or a
        bot with :data:`MAX_VERSIONS` versions."""
        if version and not VERSION.fullmatch(version):
            raise HostedError(f"bad version {_shown(version)}: use 1-64 letters, digits and ._+- "
                              "(starting with a letter or digit)")
        if not SHA256.fullmatch(sha256):
            raise HostedError(f"bad package hash {_shown(sha256)}: 64 lower-case hexadecimal digits")
        if len(manifest_json) > MAX_MANIFEST_CHARS:
            raise HostedError(f"the manifest has more than {MAX_MANIFEST_CHARS} characters")
        if not submitted_by.isprintable() or len(submitted_by) > MAX_SUBMITTER_CHARS:
            raise HostedError(f"bad submitter {_shown(submitted_by)}: at most {MAX_SUBMITTER_CHARS} printable "
                              "characters")
        now = repr(time.time())
        fields = {"sha256": sha256, "manifest": manifest_json, "submitted_by": submitted_by, "submitted": now,
                  "detail": "waiting for a bot host", "updated": now, "restarts": "0"}
        outcome, value = self._add(
            keys=[self._key("hosted-versions", bot_id), self._key("hosted-count", bot_id),
                  self._key("hosted-active")],
            args=[version or "", self._key("hosted", f"{bot_id}/"), f"{bot_id}/", MAX_VERSIONS,
                  *(item for pair in fields.items() for item in pair)])
        if int(outcome) == 0:
            raise HostedError(f"the bot has {value} versions, the most it may have")
        if int(outcome) == -1:
            raise HostedError(f"the bot already has a version {_shown(str(value))}")
        added = self.get(bot_id, str(value))
        assert added is not None  # just written
        return added

    def versions_of(self, bot_id: str) -> list[HostedVersion]:
        """The bot's versions, in the order they were submitted."""
        versions = [str(v) for v in self.client.zrange(self._key("hosted-versions", bot_id), 0, -1)]
        return self._records([(bot_id, version) for version in versions])

    def get(self, bot_id: str, version: str) -> HostedVersion | None:
        """One version, or ``None``."""
        found = self._records([(bot_id, version)])
        return found[0] if found else None

    def wanted(self) -> list[HostedVersion]:
        """Every version some host should run: neither stopped, failing nor rejected, and its bot
        registered and playable (neither it nor its account disabled by the operator:
        :meth:`store.accounts.Accounts.playable`), by ref."""
        refs = sorted(str(ref) for ref in self.client.smembers(self._key("hosted-active")))
        records = self._records([(ref.partition("/")[0], ref.partition("/")[2]) for ref in refs])
        records = [record for record in records if record.status not in RESTING]
        bots = sorted({record.bot_id for record in records})
        if not bots:
            return []
        pipe = self.client.pipeline(transaction=False)
        for bot_id in bots:
            pipe.exists(self._key("bot", bot_id))
        registered = {bot_id for bot_id, known in zip(bots, pipe.execute(), strict=True) if known}
        playable = Accounts(self.store).playable(sorted(registered))
        return [record for record in records if playable.get(record.bot_id, False)]

    def _records(self, refs: list[tuple[str, str]]) -> list[HostedVersion]:
        """The stored records of ``refs`` (one round trip), skipping unknown ones."""
        if not refs:
            return []
        pipe = self.client.pipeline(transaction=False)
        for bot_id, version in refs:
            pipe.hgetall(self._key("hosted", f"{bot_id}/{version}"))
            pipe.get(self._key("hosted-lease", f"{bot_id}/{version}"))
        found = pipe.execute()
        return [HostedVersion(bot_id, version, data["sha256"], data["manifest"], data["submitted_by"],
                              float(data["submitted"]), Status(data["status"]), data["detail"],
                              float(data["updated"]), int(data["restarts"]), None if host is None else str(host),
                              data.get("report", ""), data.get("checked") == "1")
                for (bot_id, version), data, host in zip(refs, found[::2], found[1::2], strict=True) if data]

    def set_status(self, bot_id: str, version: str, status: Status | str, detail: str = "") -> bool:
        """Record the version's status and why (``detail``, cut to :data:`MAX_DETAIL_CHARS`);
        ``False`` when the version is unknown or stopped (stopping is final: a host that had
        not noticed yet cannot start it again)."""
        status = Status(status)
        ref = f"{bot_id}/{version}"
        return bool(self._set_status(keys=[self._key("hosted", ref), self._key("hosted-active")],
                                     args=[status.value, _bounded_detail(detail), repr(time.time()), ref,
                                           "1" if status in RESTING else "0"]))

    def stop(self, bot_id: str, version: str, detail: str = "stopped by its owner") -> bool:
        """Stop hosting the version, for good (its host stops it when it next looks);
        ``False`` when it is unknown or was stopped already."""
        return self.set_status(bot_id, version, Status.STOPPED, detail)

    def record_check(self, bot_id: str, version: str, report: str, passed: bool) -> None:
        """Keep the compliance check's ``report`` (cut to :data:`MAX_REPORT_CHARS`) and
        whether it passed (a version that passed is not checked again)."""
        self.client.hset(self._key("hosted", f"{bot_id}/{version}"),
                         mapping={"report": _bounded_report(report), "checked": "1" if passed else ""})

    def count_restart(self, bot_id: str, version: str) -> int:
        """Count one more restart of the version; the count so far."""
        return int(self.client.hincrby(self._key("hosted", f"{bot_id}/{version}"), "restarts", 1))

    # ----------------------------------------------------------------- output
    def write_log(self, bot_id: str, version: str, data: bytes, append: bool = False) -> None:
        """Keep the version's output: ``data`` replaces what was kept (a host writing its
        sandbox's latest tail), or is added after it (``append``: output across restarts);
        only the last :data:`MAX_LOG_BYTES` bytes are kept either way."""
        self._write_log(keys=[self._key("hosted-log", f"{bot_id}/{version}")],
                        args=[data[-MAX_LOG_BYTES:], MAX_LOG_BYTES, "1" if append else "0"])

    def log(self, bot_id: str, version: str) -> bytes:
        """The version's kept output (empty when there is none)."""
        return bytes(self._raw.get(self._key("hosted-log", f"{bot_id}/{version}")) or b"")  # type: ignore[arg-type]

    # ----------------------------------------------------------------- leases
    def claim(self, bot_id: str, version: str, host_id: str, ttl_s: float) -> bool:
        """Take the version's lease for ``host_id`` unless another host holds it."""
        return bool(self.client.set(self._key("hosted-lease", f"{bot_id}/{version}"), host_id, nx=True,
                                    px=_ms(ttl_s)))

    def renew(self, bot_id: str, version: str, host_id: str, ttl_s: float) -> bool:
        """Extend the lease while it is ``host_id``'s; ``False`` when it lapsed (or is another's)."""
        return bool(self._renew(keys=[self._key("hosted-lease", f"{bot_id}/{version}")], args=[host_id, _ms(ttl_s)]))

    def release(self, bot_id: str, version: str, host_id: str) -> bool:
        """Give the lease up, if it is ``host_id``'s."""
        return bool(self._release(keys=[self._key("hosted-lease", f"{bot_id}/{version}")], args=[host_id]))

    def holder(self, bot_id: str, version: str) -> str | None:
        """The host holding the version's lease, if any."""
        host = self.client.get(self._key("hosted-lease", f"{bot_id}/{version}"))
        return None if host is None else str(host)

    # ----------------------------------------------------------------- hosts
    def beat(self, host_id: str, info: Mapping[str, Any], ttl_s: float) -> None:
        """A host's heartbeat: it is alive for ``ttl_s`` more seconds, and reports ``info``
        (JSON-able: its slots, what it runs, ...).  Hosts silent for longer are pruned."""
        now = time.time()
        pipe = self.client.pipeline(transaction=True)
        pipe.set(self._key("bot-host", host_id), json.dumps(dict(info), sort_keys=True), px=_ms(ttl_s))
        pipe.zadd(self._key("bot-hosts"), {host_id: now})
        pipe.zremrangebyscore(self._key("bot-hosts"), "-inf", now - ttl_s)
        pipe.execute()

    def leave(self, host_id: str) -> None:
        """A stopping host's last word: it is no longer alive."""
        pipe = self.client.pipeline(transaction=True)
        pipe.delete(self._key("bot-host", host_id))
        pipe.zrem(self._key("bot-hosts"), host_id)
        pipe.execute()

    def live_hosts(self) -> list[HostEntry]:
        """The hosts whose last heartbeat has not expired, by id."""
        raw: list[tuple[str, float]] = self.client.zrange(self._key("bot-hosts"), 0, -1,  # type: ignore[assignment]
                                                          withscores=True)
        beats = [(str(host), float(stamp)) for host, stamp in raw]
        if not beats:
            return []
        infos = self.client.mget([self._key("bot-host", host) for host, _ in beats])
        return sorted((HostEntry(host, stamp, json.loads(str(info)))
                       for (host, stamp), info in zip(beats, infos, strict=True) if info is not None),
                      key=lambda entry: entry.host_id)

    # ----------------------------------------------------------------- host tokens
    def issue_token(self, bot_id: str, ttl_s: float) -> str:
        """A new token for the bot that expires after ``ttl_s`` unless renewed: a host plays
        with it, never with the author's token.  The referee accepts it like any bot token."""
        token = secrets.token_hex(32)
        self.client.set(self._key("token", hash_token(token)), bot_id, nx=True, px=_ms(ttl_s))
        return token

    def renew_token(self, token: str, ttl_s: float) -> bool:
        """Extend a host token for ``ttl_s``; ``False`` when it expired (or is not a host's)."""
        return bool(self._host_token(keys=[self._key("token", hash_token(token))], args=[_ms(ttl_s)]))

    def revoke_token(self, token: str) -> bool:
        """End a host token now; ``False`` when it had expired (or is not a host's)."""
        return bool(self._host_token(keys=[self._key("token", hash_token(token))], args=[""]))

    # ----------------------------------------------------------------- check identities
    def open_check(self, bot_id: str, version: str, ttl_s: float) -> str | None:
        """A token of the version's check identity (see the module's docstring), valid for
        ``ttl_s`` (the check's whole time); ``None`` when the bot is not registered.  The
        identity's record copies the bot's owner and account, so a disabled account stops
        its check as it stops its bot."""
        found: dict[str, str] = self.client.hgetall(self._key("bot", bot_id))  # type: ignore[assignment]
        if not found:
            return None
        identity = check_id(bot_id, version)
        token = secrets.token_hex(32)
        pipe = self.client.pipeline(transaction=True)
        pipe.hset(self._key("bot", identity), mapping={
            "name": f"{found['name'][:57]} check", "owner": found.get("owner", ""),
            "account": found.get("account", ""), "description": f"the compliance check of {version}",
            "created": repr(time.time())})
        pipe.pexpire(self._key("bot", identity), _ms(ttl_s))
        pipe.sadd(self._key("house-bots"), identity)
        pipe.set(self._key("token", hash_token(token)), identity, px=_ms(ttl_s))
        pipe.execute()
        return token

    def close_check(self, bot_id: str, version: str, token: str) -> None:
        """End a check identity: its token, its record, and the versions the referee noted
        for it (it is never rated: no result of it is ever recorded)."""
        identity = check_id(bot_id, version)
        pipe = self.client.pipeline(transaction=True)
        pipe.delete(self._key("token", hash_token(token)), self._key("bot", identity))
        pipe.srem(self._key("house-bots"), identity)
        pipe.execute()
        BotVersions(self.store).forget(identity)
