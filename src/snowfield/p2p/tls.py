"""TLS 1.3 contexts from a staking identity, and a peer's NodeID from its certificate.

Python's ssl cannot accept an unknown self-signed client certificate (it has no verification
callback), so a server here does not ask for one and a client does not verify the server's:
both learn the other's identity from the certificate it presents and the handshake's signed
IP. A client presents its certificate whenever the server asks, as avalanchego's nodes do.
"""

from __future__ import annotations

import os
import ssl
import tempfile

from snowfield.crypto.staking import StakingIdentity
from snowfield.formats.ids import NodeID


def _context(protocol: int, identity: StakingIdentity) -> ssl.SSLContext:
    context = ssl.SSLContext(protocol)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    # ssl loads keys from files only: write them to a private temporary folder, then remove it
    with tempfile.TemporaryDirectory() as folder:
        cert, key = os.path.join(folder, "staker.crt"), os.path.join(folder, "staker.key")
        with open(cert, "wb") as f:
            f.write(identity.certificate_pem())
        with open(os.open(key, os.O_WRONLY | os.O_CREAT, 0o600), "wb") as f:
            f.write(identity.key_pem())
        context.load_cert_chain(cert, key)
    return context


def server_context(identity: StakingIdentity) -> ssl.SSLContext:
    return _context(ssl.PROTOCOL_TLS_SERVER, identity)


def client_context(identity: StakingIdentity) -> ssl.SSLContext:
    return _context(ssl.PROTOCOL_TLS_CLIENT, identity)


def peer_certificate(ssl_object: ssl.SSLObject | ssl.SSLSocket | None) -> bytes | None:
    """The DER certificate the other side presented (None when it presented none)."""
    if ssl_object is None:
        return None
    certificate: bytes | None = ssl_object.getpeercert(binary_form=True)
    return certificate


def node_id_of(certificate_der: bytes) -> NodeID:
    return NodeID.from_certificate(certificate_der)
