"""Author accounts: sign-up without the operator, personal API tokens, the bots an account
owns, and the operator's switches that take an account or a bot out of play.

An account name is also the ``owner`` of the bots it creates, so every page that shows an
owner shows the account.  Secrets are stored only as hashes: passwords as argon2id
(:mod:`store.passwords`), API tokens and bot tokens as SHA-256 (they are 256-bit random).

Keys (under the store's prefix; names are kept as typed, looked up in lower case)::

    {p}accounts                   sorted set: account key -> creation time
    {p}account:{key}              hash: name, password (argon2id), created, disabled
    {p}account-bots:{key}         set of the ids of the bots the account owns
    {p}account-tokens:{key}       hash: token id -> JSON {label, created, sha256}
    {p}account-token-used:{key}   hash: token id -> last time it authenticated
    {p}api-token:{sha256}         "{key} {token id}" (lookup; the token itself is never stored)

A bot's own hash (``{p}bot:{id}``, :mod:`store.redis_store`) gains ``account`` (the owner's
key), ``disabled`` (set by the operator) and ``presets`` (the presets its owner chose it to
play, comma-separated in the owner's order; absent: every preset).  A bot plays only when
neither it nor its account is disabled (:meth:`Accounts.playable`), and the arena enters it
only at the presets it plays (:meth:`Accounts.playing`).
"""

from __future__ import annotations

import json
import re
import secrets
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pitch_sdk.rules import PRESETS
from store.passwords import Passwords, password_problem
from store.redis_store import BotRecord, Store, StoreError, hash_token

#: Account names: what a URL, a log line and a terminal show without escaping.
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{2,31}")
#: Names of the bots accounts create: one path segment of the API's URLs, as the account's.
BOT_NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
#: Personal API tokens start with this, so a leaked one is recognisable (secret scanners).
API_TOKEN_PREFIX = "pat_"
#: Most API tokens and bots one account holds at once.
MAX_TOKENS = 20
MAX_BOTS = 20
#: Longest token label.
MAX_LABEL = 64
#: Most presets an owner may choose for one bot: a choice among the rules' presets, not
#: their whole list (no choice already means every preset).
MAX_PRESETS = 16


# Replaces a bot's token in one step: the old token's lookup key goes as the new one's is set.
# KEYS: the bot's hash, the new token's lookup key; ARGV: bot id, new token's sha256, lookup key prefix.
_ROTATE = """
local old = redis.call('HGET', KEYS[1], 'token_sha256')
if old then redis.call('DEL', ARGV[3] .. old) end
redis.call('SET', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[1], 'token_sha256', ARGV[2])
return 1
"""


# Writes a whole account or nothing (a crash between two writes must not leave a name taken
# with no password).  KEYS: the account's hash, the accounts index; ARGV: name, password hash,
# creation time, account key.  Returns 0 when the name is taken.
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'name', ARGV[1], 'password', ARGV[2], 'created', ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
return 1
"""


class AccountError(StoreError):
    """An account request that cannot be honoured; the message says why."""


class Unauthorized(AccountError):
    """Wrong name or password, an unknown or revoked token, or a disabled account."""


@dataclass(frozen=True)
class Account:
    """An account as stored (never with its password hash)."""

    name: str
    created: float
    disabled: bool

    @property
    def key(self) -> str:
        """The account's lookup key (names are unique regardless of case)."""
        return self.name.lower()


@dataclass(frozen=True)
class ApiToken:
    """A personal API token's record (the token itself is shown once, at minting)."""

    token_id: str
    label: str
    created: float
    last_used: float | None


def shown(text: str, limit: int = 40) -> str:
    """``text`` cut to ``limit`` characters for an error message (never unbounded input)."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


def preset_choice(presets: Sequence[str]) -> tuple[str, ...]:
    """``presets`` as the presets a bot's owner chose, in the owner's order (the first that
    an SPRT can play is the one its new versions are tested at); :class:`AccountError`
    naming the first one the rules do not know or that is repeated, or when there are more
    than :data:`MAX_PRESETS`.  Empty: every preset."""
    if len(presets) > MAX_PRESETS:
        raise AccountError(f"a bot plays at most {MAX_PRESETS} chosen presets (choose none for every preset)")
    seen: set[str] = set()
    for name in presets:
        if name not in PRESETS:
            raise AccountError(f"unknown preset {shown(name)} (see `pitch-bot variants`)")
        if name in seen:
            raise AccountError(f"preset {shown(name)} is chosen twice")
        seen.add(name)
    return tuple(presets)


class Accounts:
    """Typed access to accounts, their tokens and their bots."""

    def __init__(self, store: Store, passwords: Passwords | None = None) -> None:
        self.store = store
        self.client = store.client
        self._passwords = passwords

    @property
    def passwords(self) -> Passwords:
        """The hasher, built on first use (its decoy hash costs one argon2 run)."""
        if self._passwords is None:
            self._passwords = Passwords()
        return self._passwords

    def _key(self, *parts: str) -> str:
        return self.store.prefix + ":".join(parts)

    # ----------------------------------------------------------------- accounts
    def create(self, name: str, password: str) -> Account:
        """A new account; :class:`AccountError` for a bad or taken name or a bad password."""
        if not NAME_PATTERN.fullmatch(name):
            raise AccountError(f"bad account name {shown(name)}: use 3-32 letters, digits, '_', '.' or '-', "
                               "starting with a letter or digit")
        problem = password_problem(password)
        if problem:
            raise AccountError(problem)
        account = Account(name, time.time(), False)
        written = self.client.eval(_CREATE, 2, self._key("account", account.key), self._key("accounts"),
                                   name, self.passwords.hash(password), repr(account.created), account.key)
        if not written:
            raise AccountError(f"the account name {name!r} is taken")
        return account

    def get(self, name: str) -> Account | None:
        """The account called ``name`` (any case), or ``None``."""
        if len(name) > 32:
            return None
        raw = self.client.hmget(self._key("account", name.lower()), ["name", "created", "disabled", "password"])
        found, created, disabled, password = raw
        if found is None or password is None:
            return None
        return Account(str(found), float(created or 0), bool(disabled))

    def log_in(self, name: str, password: str) -> Account:
        """The account whose password this is; :class:`Unauthorized` otherwise (the same
        answer, after the same work, for an unknown name and a wrong password)."""
        key = name.lower() if len(name) <= 32 else ""
        stored = self.client.hget(self._key("account", key), "password") if key else None
        if not self.passwords.verify(None if stored is None else str(stored), password[:1024]):
            raise Unauthorized("wrong account name or password")
        account = self.get(name)
        if account is None:
            raise Unauthorized("wrong account name or password")
        if account.disabled:
            raise Unauthorized("this account is disabled by the arena's operator")
        if self.passwords.needs_rehash(str(stored)):
            self.client.hset(self._key("account", key), "password", self.passwords.hash(password))
        return account

    def set_disabled(self, name: str, disabled: bool) -> Account:
        """The operator's switch: a disabled account's tokens stop authenticating and its bots
        stop playing (the referee ends their streams, the bot hosts stop their versions)."""
        account = self.get(name)
        if account is None:
            raise AccountError(f"no account named {shown(name)}")
        if disabled:
            self.client.hset(self._key("account", account.key), "disabled", "1")
        else:
            self.client.hdel(self._key("account", account.key), "disabled")
        return Account(account.name, account.created, disabled)

    # ----------------------------------------------------------------- API tokens
    def mint_token(self, account: Account, label: str) -> tuple[ApiToken, str]:
        """A new personal API token: its record, and the token (shown only now)."""
        if len(label) > MAX_LABEL or not label.isprintable():
            raise AccountError(f"a token label has at most {MAX_LABEL} printable characters")
        tokens = self._key("account-tokens", account.key)
        if self.client.hlen(tokens) >= MAX_TOKENS:
            raise AccountError(f"an account holds at most {MAX_TOKENS} API tokens: revoke one first")
        token = API_TOKEN_PREFIX + secrets.token_hex(32)
        record = ApiToken(secrets.token_hex(6), label, time.time(), None)
        digest = hash_token(token)
        pipe = self.client.pipeline()
        pipe.hset(tokens, record.token_id, json.dumps({"label": label, "created": record.created, "sha256": digest}))
        pipe.set(self._key("api-token", digest), f"{account.key} {record.token_id}")
        pipe.execute()
        return record, token

    def tokens(self, account: Account) -> list[ApiToken]:
        """The account's API tokens, oldest first."""
        raw = self.client.hgetall(self._key("account-tokens", account.key))
        used = self.client.hgetall(self._key("account-token-used", account.key))
        found = []
        for token_id, data in raw.items():
            record = json.loads(str(data))
            stamp = used.get(token_id)
            found.append(ApiToken(str(token_id), record["label"], float(record["created"]),
                                  None if stamp is None else float(stamp)))
        return sorted(found, key=lambda t: t.created)

    def revoke_token(self, account: Account, token_id: str) -> None:
        """Revoke one of the account's tokens; :class:`AccountError` if it has none by that id."""
        tokens = self._key("account-tokens", account.key)
        data = self.client.hget(tokens, token_id[:64])
        if data is None:
            raise AccountError(f"no API token {shown(token_id, 20)} on this account")
        pipe = self.client.pipeline()
        pipe.delete(self._key("api-token", json.loads(str(data))["sha256"]))
        pipe.hdel(tokens, token_id)
        pipe.hdel(self._key("account-token-used", account.key), token_id)
        pipe.execute()

    def for_token(self, token: str) -> Account:
        """The account an API token authenticates; :class:`Unauthorized` for an unknown or
        revoked token or a disabled account."""
        if not token.startswith(API_TOKEN_PREFIX) or len(token) > 100:
            raise Unauthorized("not a personal API token (they start with 'pat_')")
        found = self.client.get(self._key("api-token", hash_token(token)))
        if found is None:
            raise Unauthorized("unknown or revoked API token")
        key, _, token_id = str(found).partition(" ")
        account = self.get(key)
        if account is None:
            raise Unauthorized("unknown or revoked API token")
        if account.disabled:
            raise Unauthorized("this account is disabled by the arena's operator")
        self.client.hset(self._key("account-token-used", key), token_id, repr(time.time()))
        return account

    # ----------------------------------------------------------------- bots
    def create_bot(self, account: Account, name: str, description: str = "",
                   presets: Sequence[str] = ()) -> tuple[BotRecord, str]:
        """A bot the account owns, playing ``presets`` (none: every preset, see
        :meth:`set_presets`): its record and its token (shown only now)."""
        chosen = preset_choice(presets)  # before anything is written: a bad choice creates no bot
        owned = self._key("account-bots", account.key)
        if self.client.scard(owned) >= MAX_BOTS:
            raise AccountError(f"an account owns at most {MAX_BOTS} bots")
        if not BOT_NAME_PATTERN.fullmatch(name):
            raise AccountError(f"bad bot name {shown(name)}: use 1-64 letters, digits, '_', '.' or '-', "
                               "starting with a letter or digit")
        if len(description) > 500 or not description.replace("\n", " ").isprintable():
            raise AccountError("a description has at most 500 printable characters")
        record, token = self.store.register_bot(name, owner=account.name, description=description)
        pipe = self.client.pipeline()
        pipe.hset(self._key("bot", record.bot_id), "account", account.key)
        if chosen:
            pipe.hset(self._key("bot", record.bot_id), "presets", ",".join(chosen))
        pipe.sadd(owned, record.bot_id)
        pipe.execute()
        return record, token

    def bots(self, account: Account) -> list[BotRecord]:
        """The bots the account owns, by name."""
        ids = {str(i) for i in self.client.smembers(self._key("account-bots", account.key))}
        return [record for record in self.store.bots() if record.bot_id in ids] if ids else []

    def owned_bot(self, account: Account, name: str) -> BotRecord:
        """The account's bot called ``name``; :class:`AccountError` ("no bot") when there is
        none, including when another account owns a bot of that name: an account cannot
        tell another's bots from missing ones."""
        bot_id = self.client.get(self._key("bot-name", name[:64]))
        if bot_id is None or not self.client.sismember(self._key("account-bots", account.key), str(bot_id)):
            raise AccountError(f"you have no bot named {shown(name)}")
        record = self.store.bot(str(bot_id))
        if record is None:
            raise AccountError(f"you have no bot named {shown(name)}")
        return record

    def account_of(self, bot_id: str) -> str | None:
        """The key of the account that owns the bot (``None``: a bot the operator registered
        with the admin token, whose free-text ``owner`` names no account)."""
        found = self.client.hget(self._key("bot", bot_id), "account")
        return None if found is None else str(found)

    def set_presets(self, account: Account, name: str, presets: Sequence[str]) -> tuple[str, ...]:
        """Choose the presets the account's bot plays (empty: every preset again): the
        automatic SPRT of its new versions plays the first of them with two sides, and the
        ladders and automatic round robins of other presets leave it out.  Returns the choice."""
        record = self.owned_bot(account, name)
        chosen = preset_choice(presets)
        key = self._key("bot", record.bot_id)
        if chosen:
            self.client.hset(key, "presets", ",".join(chosen))
        else:
            self.client.hdel(key, "presets")
        return chosen

    def presets_of(self, bot_ids: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """The presets each bot's owner chose, in their order (empty: every preset; always
        so for a bot the operator registered): one round trip for any number of bots."""
        ids = list(dict.fromkeys(bot_ids))
        pipe = self.client.pipeline(transaction=False)
        for bot_id in ids:
            pipe.hget(self._key("bot", bot_id), "presets")
        return {bot_id: tuple(str(raw).split(",")) if raw else ()
                for bot_id, raw in zip(ids, pipe.execute(), strict=True)}

    def playing(self, preset: str, bot_ids: Sequence[str]) -> list[str]:
        """Those of ``bot_ids`` that play ``preset`` (their owner chose it, or chose
        nothing), in their order: one round trip."""
        chosen = self.presets_of(bot_ids)
        return [bot_id for bot_id in bot_ids if not chosen[bot_id] or preset in chosen[bot_id]]

    def rotate_bot_token(self, account: Account, name: str) -> str:
        """A new token for the account's bot (shown only now); the old one stops working."""
        record = self.owned_bot(account, name)
        token = secrets.token_hex(32)
        self.client.eval(_ROTATE, 2, self._key("bot", record.bot_id), self._key("token", hash_token(token)),
                         record.bot_id, hash_token(token), self._key("token", ""))
        return token

    def set_bot_disabled(self, name: str, disabled: bool) -> BotRecord:
        """The operator's switch for one bot (any bot, owned by an account or not)."""
        bot_id = self.client.get(self._key("bot-name", name[:64]))
        record = None if bot_id is None else self.store.bot(str(bot_id))
        if record is None:
            raise AccountError(f"no bot named {shown(name)}")
        if disabled:
            self.client.hset(self._key("bot", record.bot_id), "disabled", "1")
        else:
            self.client.hdel(self._key("bot", record.bot_id), "disabled")
        return record

    def playable(self, bot_ids: Iterable[str]) -> dict[str, bool]:
        """For each bot: whether it may play (neither it nor its owning account disabled).
        Two round trips for any number of bots, so a referee can re-check all of its
        connected bots on every heartbeat."""
        ids = list(dict.fromkeys(bot_ids))
        pipe = self.client.pipeline(transaction=False)
        for bot_id in ids:
            pipe.hmget(self._key("bot", bot_id), ["disabled", "account"])
        states = pipe.execute()
        accounts = sorted({str(account) for _, account in states if account})
        for key in accounts:
            pipe.hget(self._key("account", key), "disabled")
        disabled_accounts = {key for key, flag in zip(accounts, pipe.execute(), strict=True) if flag}
        return {bot_id: not disabled and (account or "") not in disabled_accounts
                for bot_id, (disabled, account) in zip(ids, states, strict=True)}
