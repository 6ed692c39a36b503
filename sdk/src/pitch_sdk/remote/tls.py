"""How a bot's channel to a referee is secured: plaintext, or TLS (on by configuration,
as the arena's listeners are).

With TLS the bot checks the referee's certificate against the arena's CA (``ca``, a PEM
file the operator publishes) or, without one, the system's trusted roots (a referee with a
publicly issued certificate); ``server_name`` is the name expected on the certificate when
the bot dials the referee by another (an IP address)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import grpc


@dataclass(frozen=True)
class ChannelSecurity:
    """TLS settings of a bot's channels (one for each referee of the fleet)."""

    tls: bool = False
    """Speak TLS (implied by ``ca``)."""
    ca: str = ""
    """PEM file of the CA to trust; empty: the system's roots."""
    server_name: str = ""
    """The name expected on the referee's certificate; empty: the host dialled."""

    def __post_init__(self) -> None:
        if self.ca:
            try:
                pem = Path(self.ca).read_bytes()
            except OSError as error:
                raise ValueError(f"the TLS CA file {self.ca!r} cannot be read ({error.strerror or error})") from None
            if b"-----BEGIN CERTIFICATE" not in pem:
                raise ValueError(f"the TLS CA file {self.ca!r} is not a PEM certificate")

    @property
    def enabled(self) -> bool:
        """Whether the channels speak TLS."""
        return self.tls or bool(self.ca)

    def channel(self, address: str) -> grpc.aio.Channel:
        """A channel to the referee at ``address``."""
        if not self.enabled:
            return grpc.aio.insecure_channel(address)
        roots = Path(self.ca).read_bytes() if self.ca else None
        options = [("grpc.ssl_target_name_override", self.server_name)] if self.server_name else []
        return grpc.aio.secure_channel(address, grpc.ssl_channel_credentials(root_certificates=roots), options=options)


PLAINTEXT = ChannelSecurity()
"""No TLS (the default)."""
