"""Who may open a relay: another referee of the arena, and nobody else.

A relay writes a match's messages (decision requests, strikes, a match's end) straight to
a connected bot and reads its answers, so whoever may open one may play any bot's seats.
The operator's admin token is not that credential: the web, the CLI's users and the
workers hold it.  A relay needs the referees' own token (``PITCH_RELAY_TOKEN``, given to
referees only), and on a relay port with mutual TLS also a client certificate, issued by
the arena's CA, that names the referees' identity (``PITCH_RELAY_PEER_NAME``).  Both sides
of the check live here: what a runner presents and what a host admits.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass

import grpc

from referee.admission import Context, bearer_token
from referee.config import RefereeConfig
from store.tls import Tls, aio_channel

NO_RELAY_TOKEN = "this referee has no relay token (PITCH_RELAY_TOKEN): it neither opens nor accepts relays"


@dataclass(frozen=True)
class RelayIdentity:
    """A referee's relay credentials and the checks it makes of a relay's caller."""

    token: str
    """The referees' shared relay token; empty: no relays."""
    peer_name: str = ""
    """The name a caller's client certificate must carry; empty: no certificate is checked
    (the relay is not on a mutual-TLS port)."""
    client_tls: Tls | None = None
    """How this referee dials a relay port (its CA, its identity certificate, the name on
    the host's certificate); ``None``: relays go to referees' main listeners."""
    listener_tls: Tls | None = None
    """How it dials a referee's main listener when there is no relay port: TLS trusting the
    CA when its own listener speaks TLS (a fleet's referees are configured alike)."""

    @classmethod
    def of(cls, config: RefereeConfig) -> RelayIdentity:
        """The identity a referee's settings give it."""
        mutual = bool(config.relay_cert)
        return cls(
            token=config.relay_token,
            peer_name=config.relay_peer_name if mutual else "",
            client_tls=Tls(config.tls_ca, config.relay_cert, config.relay_key, config.relay_peer_name)
            if mutual else None,
            listener_tls=Tls(config.tls_ca, server_name=config.tls_server_name) if config.tls_cert else Tls())

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        """What a runner's relay call carries."""
        return (("authorization", f"Bearer {self.token}"),)

    def refusal(self, context: Context) -> str | None:
        """Why the caller is not a referee of this arena (an UNAUTHENTICATED reply), or
        ``None`` when it is: it carries the relay token (compared in constant time) and,
        on a mutual-TLS port, a certificate naming :attr:`peer_name`."""
        if not self.token:
            return NO_RELAY_TOKEN
        given = bearer_token(context)
        if given is None or not hmac.compare_digest(given.encode(), self.token.encode()):
            return ("missing or wrong relay token: relays are for the arena's referees (the admin token does not "
                    "open one)")
        if self.peer_name and self.peer_name not in peer_names(context):
            return f"the caller's certificate does not name the referees' identity {self.peer_name!r}"
        return None

    def channel(self, address: str) -> grpc.aio.Channel:
        """A channel to a host's relay listener at ``address``."""
        return aio_channel(address, self.client_tls or self.listener_tls or Tls())


def peer_names(context: Context) -> set[str]:
    """The names on the caller's verified certificate (common name and subject alternative
    names); empty without one."""
    auth = context.auth_context()
    return {value.decode(errors="replace") for key in ("x509_common_name", "x509_subject_alternative_name")
            for value in auth.get(key, ())}
