"""TLS for the arena's gRPC connections, on by configuration: which certificates a
listener serves and a client trusts, and the channels every Python service opens.

One place for it, so the referee's listeners, the workers', the web's and the CLI's
channels to referees read the same four variables and fail the same way on a bad file:

* ``PITCH_TLS_CA`` - PEM certificate of the CA that issued the arena's certificates; a
  client that has it speaks TLS and trusts that CA only;
* ``PITCH_TLS_CERT`` and ``PITCH_TLS_KEY`` - a PEM certificate (chain) and its key: a
  referee's server certificate; for a client, the certificate it presents (mutual TLS);
* ``PITCH_TLS_SERVER_NAME`` - the name a client expects on the server's certificate,
  when it dials a host by another name (an IP address, a compose alias).

``scripts/make-tls.sh`` makes a CA and the certificates (see ``docs/fleet.md``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc

ENVIRONMENT = {"ca": "PITCH_TLS_CA", "cert": "PITCH_TLS_CERT", "key": "PITCH_TLS_KEY",
               "server_name": "PITCH_TLS_SERVER_NAME"}
"""Environment variable of each setting."""

ChannelOptions = Sequence[tuple[str, object]]


class TlsError(ValueError):
    """A TLS setting that cannot be used (a missing or unreadable file, a lone key)."""


def read_pem(path: str, what: str) -> bytes:
    """The PEM file at ``path``; raises :class:`TlsError` naming ``what`` (the setting) and
    the path when it cannot be read or is not PEM."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise TlsError(f"{what}={path!r}: cannot read it ({error.strerror or error})") from None
    if b"-----BEGIN " not in data:
        raise TlsError(f"{what}={path!r} is not a PEM file")
    return data


@dataclass(frozen=True)
class Tls:
    """Certificate files for one side of a connection (paths; empty: not set)."""

    ca: str = ""
    cert: str = ""
    key: str = ""
    server_name: str = ""

    def __post_init__(self) -> None:
        if bool(self.cert) != bool(self.key):
            raise TlsError(f"{ENVIRONMENT['cert']} and {ENVIRONMENT['key']} go together: set both or neither")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Tls:
        """The settings in ``env`` (default ``os.environ``)."""
        source = os.environ if env is None else env
        return cls(**{name: source.get(variable, "") for name, variable in ENVIRONMENT.items()})

    @property
    def client(self) -> bool:
        """Whether a client speaks TLS: it has a CA to trust."""
        return bool(self.ca)

    @property
    def server(self) -> bool:
        """Whether a listener speaks TLS: it has a certificate to serve."""
        return bool(self.cert)

    def channel_credentials(self) -> grpc.ChannelCredentials:
        """Trust the CA only; present the certificate when one is set (mutual TLS)."""
        return grpc.ssl_channel_credentials(
            root_certificates=read_pem(self.ca, ENVIRONMENT["ca"]),
            private_key=read_pem(self.key, ENVIRONMENT["key"]) if self.key else None,
            certificate_chain=read_pem(self.cert, ENVIRONMENT["cert"]) if self.cert else None)

    def channel_options(self) -> list[tuple[str, object]]:
        """The name checked on the server's certificate, when it is not the host dialled."""
        return [("grpc.ssl_target_name_override", self.server_name)] if self.server_name else []

    def server_credentials(self, require_client_certificate: bool = False) -> grpc.ServerCredentials:
        """Serve the certificate; with ``require_client_certificate``, admit only clients
        whose certificate the CA issued (mutual TLS)."""
        if require_client_certificate and not self.ca:
            raise TlsError(f"mutual TLS needs {ENVIRONMENT['ca']}: the CA client certificates must chain to")
        return grpc.ssl_server_credentials(
            [(read_pem(self.key, ENVIRONMENT["key"]), read_pem(self.cert, ENVIRONMENT["cert"]))],
            root_certificates=read_pem(self.ca, ENVIRONMENT["ca"]) if require_client_certificate else None,
            require_client_auth=require_client_certificate)


def channel(address: str, tls: Tls | None = None, options: ChannelOptions = ()) -> grpc.Channel:
    """A blocking channel to ``address``: TLS when ``tls`` (default: the environment's) has
    a CA, plaintext otherwise."""
    tls = Tls.from_env() if tls is None else tls
    if not tls.client:
        return grpc.insecure_channel(address, options=list(options))
    return grpc.secure_channel(address, tls.channel_credentials(), options=[*options, *tls.channel_options()])


def aio_channel(address: str, tls: Tls | None = None, options: ChannelOptions = ()) -> grpc.aio.Channel:
    """:func:`channel` for asyncio."""
    tls = Tls.from_env() if tls is None else tls
    if not tls.client:
        return grpc.aio.insecure_channel(address, options=list(options))
    return grpc.aio.secure_channel(address, tls.channel_credentials(), options=[*options, *tls.channel_options()])
