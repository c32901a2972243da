"""Staking identities: avalanchego's local stakers' NodeIDs, generated certificates, signatures."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding

from snowfield.crypto.staking import StakingIdentity, certificate_node_id, verify_signature
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID
from snowfield.formats.proposervm import signing_header

LOCAL = Path(__file__).parent / "vectors" / "avalanchego_local"
STAKERS = json.loads((LOCAL / "initial_stakers.json").read_text())
HEADER = signing_header(ID(b"\x01" * 32), ID(b"\x02" * 32), ID(b"\x03" * 32))


@pytest.fixture(scope="module")
def staker1() -> StakingIdentity:
    return StakingIdentity.load(LOCAL / "staker1.crt", LOCAL / "staker1.key")


def test_staker1_is_local_node_1(staker1: StakingIdentity) -> None:
    assert str(staker1.node_id) == "NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg"


@pytest.mark.parametrize("index", range(5))
def test_local_staker_certificates_give_the_genesis_node_ids(index: int) -> None:
    pem = (LOCAL / f"staker{index + 1}.crt").read_bytes()
    der = x509.load_pem_x509_certificate(pem).public_bytes(Encoding.DER)
    assert str(certificate_node_id(der)) == STAKERS[index]["nodeID"]


def test_rsa_staker_signs_block_headers(staker1: StakingIdentity) -> None:
    signature = staker1.sign(HEADER)
    assert len(signature) == 512  # RSA-4096, PKCS#1 v1.5 is deterministic
    assert signature == staker1.sign(HEADER)
    assert verify_signature(staker1.certificate_der, HEADER, signature)
    assert not verify_signature(staker1.certificate_der, HEADER + b"x", signature)


def test_generated_identity_is_like_avalanchego() -> None:
    identity = StakingIdentity.generate()
    certificate = x509.load_der_x509_certificate(identity.certificate_der)
    assert certificate.signature_algorithm_oid == x509.SignatureAlgorithmOID.ECDSA_WITH_SHA256
    assert certificate.subject == certificate.issuer == x509.Name([])
    assert certificate.extensions.get_extension_for_class(x509.KeyUsage).value.digital_signature
    assert not certificate.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    assert certificate.not_valid_before_utc.year == 1999
    assert len(identity.certificate_der) < 2048
    signature = identity.sign(HEADER)
    assert verify_signature(identity.certificate_der, HEADER, signature)
    assert not verify_signature(StakingIdentity.generate().certificate_der, HEADER, signature)


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    identity = StakingIdentity.generate()
    identity.save(tmp_path / "staker.crt", tmp_path / "staker.key")
    assert stat.S_IMODE((tmp_path / "staker.key").stat().st_mode) == 0o600
    loaded = StakingIdentity.load(tmp_path / "staker.crt", tmp_path / "staker.key")
    assert loaded.certificate_der == identity.certificate_der
    assert loaded.node_id == identity.node_id
    assert verify_signature(loaded.certificate_der, b"m", loaded.sign(b"m"))


def test_mismatched_or_malformed_pem_is_rejected(staker1: StakingIdentity) -> None:
    other = StakingIdentity.generate()
    with pytest.raises(InvalidParams, match="does not match"):
        StakingIdentity.from_pem(staker1.certificate_pem(), other.key_pem())
    with pytest.raises(InvalidParams, match="invalid staking certificate"):
        StakingIdentity.from_pem(b"not pem", other.key_pem())


def test_malformed_certificates_do_not_verify() -> None:
    assert not verify_signature(b"junk", b"m", b"sig")
    assert not verify_signature(bytes(4096), b"m", b"sig")
