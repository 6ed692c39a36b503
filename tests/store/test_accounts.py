"""Author accounts in a real Redis: sign-up rules, argon2id password hashes, personal API
tokens (hashed at rest, revocable), owned bots and their token rotation, the operator's
switches, and the rate limits that bound every self-service action."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from pitch_sdk.rules import PRESETS
from store.accounts import MAX_PRESETS, MAX_TOKENS, AccountError, Accounts, Unauthorized
from store.passwords import Passwords
from store.rate_limits import Limit, RateLimited, RateLimiter
from store.redis_store import Store, hash_token


@pytest.fixture()
def store(redis_url: str) -> Iterator[Store]:
    store = Store.from_url(redis_url, f"accounts-{uuid.uuid4().hex[:8]}:")
    yield store
    for key in store.client.scan_iter(f"{store.prefix}*"):
        store.client.delete(key)


@pytest.fixture()
def accounts(store: Store) -> Accounts:
    return Accounts(store)


def _dump(store: Store) -> str:
    """Every key and value under the store's prefix, as one text."""
    parts = []
    for key in store.client.scan_iter(f"{store.prefix}*"):
        kind = store.client.type(key)
        value = {"string": store.client.get, "hash": store.client.hgetall, "set": store.client.smembers,
                 "zset": lambda k: store.client.zrange(k, 0, -1)}[str(kind)](key)
        parts.append(f"{key}={value}")
    return "\n".join(parts)


def test_production_passwords_use_memory_hard_argon2id() -> None:
    """Passwords are hashed with argon2id at argon2-cffi's default cost (64 MiB, 3 passes)."""
    stored = Passwords(env={}).hash("correct horse battery")
    assert stored.startswith("$argon2id$") and "m=65536,t=3" in stored


def test_sign_up_and_log_in(accounts: Accounts, store: Store) -> None:
    account = accounts.create("Alice_1", "s3cret-password")
    assert accounts.log_in("alice_1", "s3cret-password").name == "Alice_1"
    with pytest.raises(Unauthorized, match="wrong account name or password"):
        accounts.log_in("Alice_1", "wrong-password")
    with pytest.raises(Unauthorized, match="wrong account name or password"):
        accounts.log_in("nobody", "s3cret-password")
    assert "s3cret-password" not in _dump(store)
    assert account.key == "alice_1"


@pytest.mark.parametrize(("name", "password", "problem"), [
    ("ab", "long-enough", "bad account name"),
    ("x" * 33, "long-enough", "bad account name"),
    ("bad name", "long-enough", "bad account name"),
    ("<script>", "long-enough", "bad account name"),
    ("-dash", "long-enough", "bad account name"),
    ("valid", "short", "8 to 1024 characters"),
    ("valid", "x" * 1025, "8 to 1024 characters"),
])
def test_bad_sign_ups_say_what_is_wrong(accounts: Accounts, name: str, password: str, problem: str) -> None:
    with pytest.raises(AccountError, match=problem) as refused:
        accounts.create(name, password)
    assert len(str(refused.value)) < 200


@pytest.mark.parametrize("name", ["a/b", "x?y", "%2F", " lead", "-dash", "é", "x" * 65, ""])
def test_bots_of_accounts_have_url_safe_names(accounts: Accounts, name: str) -> None:
    """An account's bot name is one path segment of the API's URLs (``/api/v1/bots/{name}/…``)."""
    account = accounts.create("namer", "password-1")
    with pytest.raises(AccountError, match="bad bot name"):
        accounts.create_bot(account, name)


def test_an_account_is_written_whole_or_not_at_all(accounts: Accounts, store: Store) -> None:
    """Sign-up writes name, password hash and creation time in one step: no half-made account
    can hold a name without a password."""
    accounts.create("whole", "password-1")
    stored = store.client.hgetall(f"{store.prefix}account:whole")
    assert set(stored) == {"name", "password", "created"}


def test_names_are_unique_regardless_of_case(accounts: Accounts) -> None:
    accounts.create("Bob", "password-1")
    with pytest.raises(AccountError, match="taken"):
        accounts.create("bob", "password-2")
    assert accounts.log_in("BOB", "password-1").name == "Bob"


def test_api_tokens_are_hashed_shown_once_and_revocable(accounts: Accounts, store: Store) -> None:
    account = accounts.create("carol", "password-1")
    record, token = accounts.mint_token(account, "laptop")
    assert token.startswith("pat_") and len(token) == 68
    assert token not in _dump(store) and hash_token(token) in _dump(store)
    assert accounts.for_token(token).name == "carol"
    assert [t.label for t in accounts.tokens(account)] == ["laptop"]
    assert accounts.tokens(account)[0].last_used is not None
    accounts.revoke_token(account, record.token_id)
    with pytest.raises(Unauthorized, match="unknown or revoked"):
        accounts.for_token(token)
    with pytest.raises(AccountError, match="no API token"):
        accounts.revoke_token(account, record.token_id)


def test_an_account_holds_a_bounded_number_of_tokens(accounts: Accounts) -> None:
    account = accounts.create("dave", "password-1")
    for n in range(MAX_TOKENS):
        accounts.mint_token(account, f"t{n}")
    with pytest.raises(AccountError, match=f"at most {MAX_TOKENS} API tokens"):
        accounts.mint_token(account, "one more")


def test_owned_bots_and_token_rotation(accounts: Accounts, store: Store) -> None:
    alice, mallory = accounts.create("alice", "password-1"), accounts.create("mallory", "password-2")
    record, token = accounts.create_bot(alice, "alice-bot", "mine")
    assert record.owner == "alice" and store.bot_for_token(token) == record
    assert [b.name for b in accounts.bots(alice)] == ["alice-bot"] and accounts.bots(mallory) == []
    with pytest.raises(AccountError, match="you have no bot named 'alice-bot'"):
        accounts.rotate_bot_token(mallory, "alice-bot")
    assert store.bot_for_token(token) == record  # mallory's attempt changed nothing
    new = accounts.rotate_bot_token(alice, "alice-bot")
    assert store.bot_for_token(token) is None and store.bot_for_token(new) == record


def test_an_owner_chooses_the_presets_a_bot_plays(accounts: Accounts, store: Store) -> None:
    """"Per preset the author chose": an owner chooses presets for a bot (kept in the owner's
    order, read for many bots in one round trip); no choice, and every bot the operator
    registered, plays every preset; an empty choice means every preset again, and another
    account cannot choose for the bot."""
    alice, mallory = accounts.create("alice", "password-1"), accounts.create("mallory", "password-2")
    chooser, _ = accounts.create_bot(alice, "chooser", presets=["cutthroat", "partnership"])
    plain, _ = accounts.create_bot(alice, "plain")
    operators, _ = store.register_bot("operators")
    ids = [chooser.bot_id, plain.bot_id, operators.bot_id]
    assert accounts.presets_of(ids) == {chooser.bot_id: ("cutthroat", "partnership"), plain.bot_id: (),
                                        operators.bot_id: ()}
    assert accounts.playing("partnership", ids) == ids
    assert accounts.playing("ten-point", ids) == [plain.bot_id, operators.bot_id]
    assert accounts.set_presets(alice, "plain", ["ten-point"]) == ("ten-point",)
    assert accounts.playing("cutthroat", ids) == [chooser.bot_id, operators.bot_id]
    with pytest.raises(AccountError, match="you have no bot named 'chooser'"):
        accounts.set_presets(mallory, "chooser", ["ten-point"])
    assert accounts.set_presets(alice, "chooser", []) == ()
    assert accounts.presets_of([chooser.bot_id]) == {chooser.bot_id: ()}
    assert "presets" not in store.client.hgetall(f"{store.prefix}bot:{chooser.bot_id}")


@pytest.mark.parametrize(("presets", "problem"), [
    (["partnership", "no-such-preset"], "unknown preset 'no-such-preset'"),
    (["x" * 1000], "unknown preset 'xxxxxxxx"),
    (["cutthroat", "cutthroat"], "preset 'cutthroat' is chosen twice"),
    (["Partnership"], "unknown preset 'Partnership'"),
])
def test_a_bad_preset_choice_is_refused_naming_it(accounts: Accounts, store: Store, presets: list[str],
                                                  problem: str) -> None:
    """A bad choice names the first bad preset (cut short), changes nothing, and creates no bot."""
    alice = accounts.create("alice", "password-1")
    accounts.create_bot(alice, "mine", presets=["partnership"])
    with pytest.raises(AccountError, match=problem) as refused:
        accounts.set_presets(alice, "mine", presets)
    assert len(str(refused.value)) < 120
    with pytest.raises(AccountError, match=problem):
        accounts.create_bot(alice, "never", presets=presets)
    assert [b.name for b in accounts.bots(alice)] == ["mine"]
    assert accounts.presets_of([accounts.owned_bot(alice, "mine").bot_id]).popitem()[1] == ("partnership",)


def test_a_choice_holds_a_bounded_number_of_presets(accounts: Accounts) -> None:
    alice = accounts.create("alice", "password-1")
    accounts.create_bot(alice, "mine")
    allowed = sorted(PRESETS)[:MAX_PRESETS]
    assert accounts.set_presets(alice, "mine", allowed) == tuple(allowed)
    with pytest.raises(AccountError, match=f"at most {MAX_PRESETS} chosen presets"):
        accounts.set_presets(alice, "mine", sorted(PRESETS)[:MAX_PRESETS + 1])


def test_operator_switches_take_bots_out_of_play(accounts: Accounts, store: Store) -> None:
    alice = accounts.create("alice", "password-1")
    first, _ = accounts.create_bot(alice, "first")
    second, _ = accounts.create_bot(alice, "second")
    other, _ = store.register_bot("admin-registered")
    _, api_token = accounts.mint_token(alice, "cli")
    ids = [first.bot_id, second.bot_id, other.bot_id]
    assert accounts.playable(ids) == dict.fromkeys(ids, True)
    accounts.set_bot_disabled("first", True)
    assert accounts.playable(ids) == {first.bot_id: False, second.bot_id: True, other.bot_id: True}
    accounts.set_disabled("alice", True)
    assert accounts.playable(ids) == {first.bot_id: False, second.bot_id: False, other.bot_id: True}
    with pytest.raises(Unauthorized, match="disabled"):
        accounts.for_token(api_token)
    with pytest.raises(Unauthorized, match="disabled"):
        accounts.log_in("alice", "password-1")
    accounts.set_disabled("alice", False)
    assert accounts.playable(ids) == {first.bot_id: False, second.bot_id: True, other.bot_id: True}
    accounts.set_bot_disabled("first", False)
    assert all(accounts.playable(ids).values())
    with pytest.raises(AccountError, match="no bot named"):
        accounts.set_bot_disabled("missing", True)


def test_rate_limits_name_the_limit(store: Store) -> None:
    limiter, limit = RateLimiter(store), Limit("test", 3, 3600, "sign-ups", "client")
    for _ in range(3):
        limiter.hit(limit, "10.0.0.1")
    with pytest.raises(RateLimited) as refused:
        limiter.hit(limit, "10.0.0.1")
    assert "at most 3 sign-ups per hour per client" in str(refused.value)
    assert 0 < refused.value.retry_after_s <= 3600
    limiter.hit(limit, "10.0.0.2")  # another client has its own count
    limiter.hit(limit, "x" * 100_000)  # an unbounded subject makes a bounded key
    assert all(len(key) < 100 for key in store.client.scan_iter(f"{store.prefix}rate:*"))


def test_a_bot_belongs_to_the_account_that_created_it_not_to_an_owner_text(accounts: Accounts, store: Store) -> None:
    """An operator may register a bot with any free-text owner, even an account's name: the
    bot still belongs to no account (ownership is the account's own record of its bots)."""
    alice = accounts.create("alice", "correct horse battery")
    created, _ = accounts.create_bot(alice, "alice-bot")
    registered, _ = store.register_bot("not-alices", owner="alice")
    assert accounts.account_of(created.bot_id) == alice.key
    assert accounts.account_of(registered.bot_id) is None
