"""The house bots: the SDK's built-in ``heuristic`` and ``random``, run by the web service
itself as ordinary connected bot clients (the SDK's :class:`~pitch_sdk.remote.client.BotClient`),
so a person can always fill the other seats even when no third-party bot is connected.
Each is one registered identity that may hold several seats of several games at once."""

from __future__ import annotations

from pitch_sdk.bots.loader import load_bot
from pitch_sdk.remote.client import BotClient
from web.humans.identities import Identity

#: House bot name (what the form offers) -> identity role.
HOUSE_BOTS = {"heuristic": "house-heuristic", "random": "house-random"}


def house_client(spec: str, identity: Identity, address: str, capacity: int) -> BotClient:
    """A client of the referee that plays built-in bot ``spec`` in up to ``capacity`` seats."""
    return BotClient(lambda: load_bot(spec), address, identity.token, capacity=capacity)
