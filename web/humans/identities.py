"""The web service's own registered identities: the people's seat and its house bots.

The referee only seats registered bots that are connected, so the web service registers
one identity per role through ``ArenaService.RegisterBot`` (admin token) the first time it
needs it, and keeps the token under ``{p}web:identity:{role}`` (see :mod:`web.humans`) so a
restarted service connects as the same bot instead of registering a new one each time."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

import grpc

from competitions.referee_client import RefereeClient
from store.redis_store import Store

#: Role -> (registered name, description). The names say where a seat's player came from
#: in every match record and page.
ROLES = {
    "people": ("person (web)", "a person playing in the browser through the web arena"),
    "house-heuristic": ("house heuristic (web)", "the SDK's heuristic bot, run by the web arena for people's games"),
    "house-random": ("house random (web)", "the SDK's random bot, run by the web arena for people's games"),
}
#: Seconds a web process may hold the registration lock.
LOCK_TIMEOUT_S = 30


@dataclass(frozen=True)
class Identity:
    """A registered bot the web service connects as."""

    role: str
    bot_id: str
    name: str
    token: str


def identity_key(store: Store, role: str) -> str:
    """The Redis key of a role's identity."""
    return f"{store.prefix}web:identity:{role}"


def known_identities(store: Store) -> dict[str, Identity]:
    """The identities registered so far, by role (none before the first person's game)."""
    found = {}
    for role in ROLES:
        data: dict[str, str] = store.client.hgetall(identity_key(store, role))  # type: ignore[assignment]
        if data:
            found[role] = Identity(role, data["bot_id"], data["name"], data["token"])
    return found


def ensure_identities(store: Store, referee: RefereeClient) -> dict[str, Identity]:
    """Every role's identity, registering those that are missing (blocking: call it in a
    thread). A name already taken without a kept token (its key was deleted) gets a
    random suffix, since the referee never shows a token twice."""
    with store.client.lock(f"{store.prefix}web:identity-lock", timeout=LOCK_TIMEOUT_S,
                           blocking_timeout=LOCK_TIMEOUT_S):
        found = known_identities(store)
        for role, (name, description) in ROLES.items():
            if role in found:
                continue
            try:
                registered = referee.register(name, owner="web arena", description=description)
            except grpc.RpcError as exc:
                if exc.code() != grpc.StatusCode.ALREADY_EXISTS:
                    raise
                name = f"{name} {secrets.token_hex(2)}"
                registered = referee.register(name, owner="web arena", description=description)
            found[role] = Identity(role, registered.bot_id, name, registered.token)
            store.client.hset(identity_key(store, role),
                              mapping={"bot_id": registered.bot_id, "name": name, "token": registered.token})
        for identity in found.values():  # kept out of "every connected bot" round robins
            store.mark_house(identity.bot_id)
        return found
