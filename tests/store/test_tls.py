"""The TLS settings every service reads (store/tls.py): a bad setting is refused with a
message naming the variable and the file, never a traceback from deep inside gRPC; no CA
means plaintext, as before TLS existed."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from store.tls import Tls, TlsError, aio_channel, channel


def test_without_a_ca_a_client_speaks_plaintext_and_the_environment_is_read() -> None:
    """The rule: TLS is on by configuration; a client with no ``PITCH_TLS_CA`` dials in
    plaintext, one with it speaks TLS and trusts that CA."""
    assert not Tls.from_env({}).client and not Tls.from_env({}).server
    settings = Tls.from_env({"PITCH_TLS_CA": "ca.pem", "PITCH_TLS_SERVER_NAME": "referee"})
    assert settings.client and settings.channel_options() == [("grpc.ssl_target_name_override", "referee")]
    assert isinstance(channel("127.0.0.1:1", Tls()), grpc.Channel)


def test_bad_settings_name_the_variable_and_the_file(tmp_path: Path) -> None:
    """A missing CA, a file that is not PEM, a certificate without its key, and mutual TLS
    without a CA are each refused with the variable's name."""
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate")
    with pytest.raises(TlsError, match=r"PITCH_TLS_CA='/nowhere/ca.pem': cannot read it"):
        aio_channel("127.0.0.1:1", Tls(ca="/nowhere/ca.pem"))
    with pytest.raises(TlsError, match="is not a PEM file"):
        channel("127.0.0.1:1", Tls(ca=str(junk)))
    with pytest.raises(TlsError, match="PITCH_TLS_CERT and PITCH_TLS_KEY go together"):
        Tls(cert=str(junk))
    with pytest.raises(TlsError, match="mutual TLS needs PITCH_TLS_CA"):
        Tls(cert=str(junk), key=str(junk)).server_credentials(require_client_certificate=True)
