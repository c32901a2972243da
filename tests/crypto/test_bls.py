"""BLS keys against avalanchego's local-network signer keys and genesis, with py_ecc as a check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from py_ecc.bls import G2ProofOfPossession
from py_ecc.bls.point_compression import decompress_G1
from py_ecc.optimized_bls12_381 import normalize

from snowfield.crypto import bls
from snowfield.errors import InvalidParams

LOCAL = Path(__file__).parent / "vectors" / "avalanchego_local"
STAKERS = json.loads((LOCAL / "initial_stakers.json").read_text())
# avalanchego's RegisterL1ValidatorTx test derives its proof of possession from this key.
REGISTER_TX_KEY = bytes.fromhex("6668fecd4595b81e4d568398c820bbf3f073cb222902279fa55ebb84764ed2e3")


def _signer(index: int) -> bls.SecretKey:
    return bls.SecretKey.from_bytes((LOCAL / f"signer{index + 1}.key").read_bytes())


@pytest.mark.parametrize("index", range(5))
def test_local_signer_keys_give_the_genesis_keys_and_proofs(index: int) -> None:
    signer = STAKERS[index]["signer"]
    key = _signer(index)
    assert "0x" + key.public_key().to_bytes().hex() == signer["publicKey"]
    assert "0x" + key.prove_possession().to_bytes().hex() == signer["proofOfPossession"]
    public = bls.PublicKey.from_bytes(bytes.fromhex(signer["publicKey"][2:]))
    proof = bls.Signature.from_bytes(bytes.fromhex(signer["proofOfPossession"][2:]))
    assert bls.verify_proof_of_possession(public, proof)
    assert not bls.verify(public, proof, public.to_bytes())  # the POP DST is not the signing DST


def test_register_l1_validator_tx_vector_proof() -> None:
    vectors = Path(__file__).parents[1] / "formats" / "vectors" / "avalanchego" / "json"
    doc = json.loads((vectors / "register_l1_validator_tx_test.json").read_text())
    proof = bytes(doc["proofOfPossession"])
    assert bls.SecretKey.from_bytes(REGISTER_TX_KEY).prove_possession().to_bytes() == proof


def test_signatures_match_py_ecc_and_verify() -> None:
    key = _signer(0)
    message = b"snowfield"
    signature = key.sign(message)
    assert signature.to_bytes() == G2ProofOfPossession.Sign(key.scalar, message)
    assert bls.verify(key.public_key(), signature, message)
    assert not bls.verify(key.public_key(), signature, message + b"!")
    assert not bls.verify(_signer(1).public_key(), signature, message)


def test_aggregates_match_py_ecc() -> None:
    keys = [_signer(i) for i in range(3)]
    message = b"warp"
    signatures = [k.sign(message) for k in keys]
    aggregate = bls.aggregate_signatures(signatures)
    assert aggregate.to_bytes() == G2ProofOfPossession.Aggregate([s.to_bytes() for s in signatures])
    public = bls.aggregate_public_keys([k.public_key() for k in keys])
    assert bls.verify(public, aggregate, message)
    assert not bls.verify(
        bls.aggregate_public_keys([k.public_key() for k in keys[:2]]), aggregate, message
    )


def test_uncompressed_public_key_matches_py_ecc() -> None:
    for index in range(5):
        public = _signer(index).public_key()
        x, y = normalize(decompress_G1(int.from_bytes(public.to_bytes(), "big")))
        assert public.to_uncompressed() == int(x).to_bytes(48, "big") + int(y).to_bytes(48, "big")


def test_generated_keys_round_trip() -> None:
    key = bls.SecretKey.generate()
    assert bls.SecretKey.from_bytes(key.to_bytes()) == key
    assert "hidden" in repr(key)
    assert bls.PublicKey.from_bytes(key.public_key().to_bytes()) == key.public_key()


@pytest.mark.parametrize(
    ("parse", "data", "message"),
    [
        (bls.PublicKey.from_bytes, bytes(48), "couldn't decompress public key"),
        (
            bls.PublicKey.from_bytes,
            b"\xc0" + bytes(47),
            "couldn't decompress public key",
        ),  # identity
        (bls.PublicKey.from_bytes, bytes(47), "couldn't decompress public key"),
        (bls.Signature.from_bytes, bytes(96), "couldn't decompress signature"),
        (bls.SecretKey.from_bytes, bytes(32), "couldn't deserialize secret key"),
        (bls.SecretKey.from_bytes, b"\xff" * 32, "couldn't deserialize secret key"),
    ],
)
def test_bad_bytes_are_rejected(parse: object, data: bytes, message: str) -> None:
    with pytest.raises(InvalidParams, match=message):
        parse(data)  # type: ignore[operator]


def test_empty_aggregates_are_rejected() -> None:
    with pytest.raises(InvalidParams, match="no public keys"):
        bls.aggregate_public_keys([])
    with pytest.raises(InvalidParams, match="no signatures"):
        bls.aggregate_signatures([])
