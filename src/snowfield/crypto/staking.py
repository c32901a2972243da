"""A validator's staking identity: its self-signed TLS certificate, key, NodeID and signatures.

Like avalanchego (staking/tls.go): new identities use an ECDSA P-256 key and a self-signed
certificate (empty names, digital-signature key usage, not a CA, valid from 1999-12-31 for 100
years). One deviation: a random positive serial instead of avalanchego's 0, which RFC 5280
forbids and the `cryptography` library is deprecating; certificates with serial 0 (every
avalanchego node's) still load and verify, with that library's warning silenced. RSA keys (the
local network's stakers have RSA-4096) load and sign too. A signature is over sha256(message):
PKCS#1 v1.5 for RSA, ASN.1 DER for ECDSA, as the proposervm signs block headers and nodes sign
their IPs (staking/verify.go checks them the same way).

Public API: `StakingIdentity.generate()`, `.from_pem(cert_pem, key_pem)`, `.load(cert, key)`,
`.save(cert, key)`, `.certificate_pem()`, `.key_pem()`, `.certificate_der`, `.node_id`,
`.sign(message)`; `verify_signature(certificate_der, message, signature)`;
`certificate_node_id(certificate_der)`.
"""

from __future__ import annotations

import datetime
import functools
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.utils import CryptographyDeprecationWarning

from snowfield.errors import InvalidParams
from snowfield.formats.ids import NodeID

MAX_CERTIFICATE_LEN = 2 * 1024  # staking/parse.go's limit on a peer's certificate
_NOT_BEFORE = datetime.datetime(1999, 12, 31, tzinfo=datetime.UTC)  # Go's Date(2000, 1, 0)
_VALIDITY = datetime.timedelta(days=365 * 100 + 25)

StakingKey = rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey


@contextmanager
def _serial_zero_allowed() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Parsed a serial number", CryptographyDeprecationWarning)
        yield


def _load_der(certificate_der: bytes) -> x509.Certificate:
    with _serial_zero_allowed():
        return x509.load_der_x509_certificate(certificate_der)


@functools.lru_cache(maxsize=4096)
def certificate_node_id(certificate_der: bytes) -> NodeID:
    """NodeID = ripemd160(sha256(certificate DER)). Cached: the node asks for its validators'
    ids on every P block it builds (a quarter of issueTx's time before, bench/pchain.py)."""
    return NodeID.from_certificate(certificate_der)


def _self_signed(key: ec.EllipticCurvePrivateKey, now: datetime.datetime) -> bytes:
    empty = x509.Name([])
    builder = x509.CertificateBuilder(
        issuer_name=empty,
        subject_name=empty,
        public_key=key.public_key(),
        serial_number=x509.random_serial_number(),
        not_valid_before=_NOT_BEFORE,
        not_valid_after=now + _VALIDITY,
    )
    usage = x509.KeyUsage(True, False, False, False, False, False, False, False, False)
    builder = builder.add_extension(usage, critical=True)
    builder = builder.add_extension(
        x509.BasicConstraints(ca=False, path_length=None), critical=True
    )
    return builder.sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.DER)


@dataclass(frozen=True, slots=True, repr=False)
class StakingIdentity:
    """A staking certificate (DER) and the private key it certifies."""

    certificate_der: bytes
    key: StakingKey

    def __repr__(self) -> str:
        return f"StakingIdentity({self.node_id})"

    @classmethod
    def generate(cls) -> StakingIdentity:
        key = ec.generate_private_key(ec.SECP256R1())
        return cls(_self_signed(key, datetime.datetime.now(datetime.UTC)), key)

    @classmethod
    def from_pem(cls, certificate_pem: bytes, key_pem: bytes) -> StakingIdentity:
        try:
            with _serial_zero_allowed():
                certificate = x509.load_pem_x509_certificate(certificate_pem)
            key = serialization.load_pem_private_key(key_pem, password=None)
        except ValueError as exc:
            raise InvalidParams(f"invalid staking certificate or key: {exc}") from None
        if not isinstance(key, rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey):
            raise InvalidParams("staking key must be RSA or ECDSA")
        if certificate.public_key() != key.public_key():
            raise InvalidParams("staking certificate does not match the key")
        return cls(certificate.public_bytes(serialization.Encoding.DER), key)

    @classmethod
    def load(cls, certificate_path: Path, key_path: Path) -> StakingIdentity:
        return cls.from_pem(certificate_path.read_bytes(), key_path.read_bytes())

    def save(self, certificate_path: Path, key_path: Path) -> None:
        """Write both PEM files; the key is created readable by its owner only."""
        certificate_path.write_bytes(self.certificate_pem())
        fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(self.key_pem())

    def certificate_pem(self) -> bytes:
        return _load_der(self.certificate_der).public_bytes(serialization.Encoding.PEM)

    def key_pem(self) -> bytes:
        return self.key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )

    @property
    def node_id(self) -> NodeID:
        return certificate_node_id(self.certificate_der)

    def sign(self, message: bytes) -> bytes:
        """Sign sha256(message) with the staking key (what proposervm block signatures are)."""
        if isinstance(self.key, rsa.RSAPrivateKey):
            return self.key.sign(message, padding.PKCS1v15(), hashes.SHA256())
        return self.key.sign(message, ec.ECDSA(hashes.SHA256()))


def verify_signature(certificate_der: bytes, message: bytes, signature: bytes) -> bool:
    """Check a staking signature over `message` against the certificate's public key."""
    if len(certificate_der) > MAX_CERTIFICATE_LEN:
        return False
    try:
        public_key = _load_der(certificate_der).public_key()
        if isinstance(public_key, rsa.RSAPublicKey):
            public_key.verify(signature, message, padding.PKCS1v15(), hashes.SHA256())
        elif isinstance(public_key, ec.EllipticCurvePublicKey):
            public_key.verify(signature, message, ec.ECDSA(hashes.SHA256()))
        else:
            return False
    except (InvalidSignature, ValueError):
        return False
    return True


_RSA_BITS = (2048, 4096)  # staking/parse.go's allowed moduli
_RSA_EXPONENT = 65537


def certificate_error(certificate_der: bytes) -> str | None:
    """Why staking.ParseCertificate would refuse the certificate (its texts); None if it parses:
    at most 2 KiB, X.509 DER with an RSA (2048/4096 bits, exponent 65537) or ECDSA P-256 key."""
    if len(certificate_der) > MAX_CERTIFICATE_LEN:
        return f"staking: certificate length is greater than {MAX_CERTIFICATE_LEN}"
    try:
        public_key = _load_der(certificate_der).public_key()
    except ValueError:
        return "staking: malformed certificate"
    if isinstance(public_key, rsa.RSAPublicKey):
        numbers = public_key.public_numbers()
        if public_key.key_size not in _RSA_BITS:
            return "staking: unsupported RSA modulus bitlen"
        if numbers.e != _RSA_EXPONENT:
            return "staking: unsupported RSA public exponent"
        return None
    if isinstance(public_key, ec.EllipticCurvePublicKey):
        if not isinstance(public_key.curve, ec.SECP256R1):
            return "staking: failed to unmarshal elliptic curve point"
        return None
    return "staking: unknown public key algorithm"


def signature_failure(certificate_der: bytes) -> str:
    """staking.CheckSignature's error for a bad signature under this (valid) certificate."""
    public_key = _load_der(certificate_der).public_key()
    if isinstance(public_key, rsa.RSAPublicKey):
        return "crypto/rsa: verification error"
    return "staking: ECDSA verification failure"
