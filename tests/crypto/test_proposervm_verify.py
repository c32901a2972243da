"""ProposerVM blocks verified as avalanchego's `block.Parse(bytes, chainID)` does (the cases of
its vms/proposervm/block/parse_test.go TestParse): the proposer's certificate and signature for
the chain, no signature without a certificate, and Granite's non-zero epoch, a rule of
`verify()` that plain parsing does not apply."""

from __future__ import annotations

from pathlib import Path

import pytest

from snowfield.crypto.proposervm import parse_verified, verify
from snowfield.crypto.staking import StakingIdentity
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID
from snowfield.formats.proposervm import (
    Epoch,
    OptionBlock,
    StatelessBlock,
    parse,
    signing_header,
)

PARENT, CHAIN, OTHER_CHAIN = (
    ID(b"\x01" + bytes(31)),
    ID(b"\x04" + bytes(31)),
    ID(b"\x05" + bytes(31)),
)
LOCAL = Path(__file__).parent / "vectors" / "avalanchego_local"


def _signed(identity: StakingIdentity, epoch: Epoch | None, chain: ID = CHAIN) -> bytes:
    unsigned = StatelessBlock(
        PARENT,
        b"\x03",
        timestamp=123,
        p_chain_height=2,
        certificate=identity.certificate_der,
        epoch=epoch,
    )
    signature = identity.sign(signing_header(chain, PARENT, unsigned.id))
    return StatelessBlock(
        PARENT,
        b"\x03",
        timestamp=123,
        p_chain_height=2,
        certificate=identity.certificate_der,
        signature=signature,
        epoch=epoch,
    ).encode()


@pytest.fixture(scope="module")
def identity() -> StakingIdentity:
    return StakingIdentity.generate()  # ECDSA P-256, as avalanchego's NewTLSCert


def test_signed_blocks_verify_for_their_chain_only(identity: StakingIdentity) -> None:
    for epoch in (Epoch(2, 1, 123), None):
        data = _signed(identity, epoch)
        block = parse_verified(data, CHAIN)
        assert isinstance(block, StatelessBlock) and block.proposer == identity.node_id
        with pytest.raises(InvalidParams, match=r"^staking: ECDSA verification failure$"):
            parse_verified(data, OTHER_CHAIN)


def test_an_rsa_staker_verifies(tmp_path: Path) -> None:
    """The local network's genesis stakers hold RSA-4096 certificates (PKCS#1 v1.5)."""
    rsa = StakingIdentity.load(LOCAL / "staker1.crt", LOCAL / "staker1.key")
    data = _signed(rsa, None)
    assert parse_verified(data, CHAIN).proposer == rsa.node_id  # type: ignore[attr-defined]
    with pytest.raises(InvalidParams, match=r"^crypto/rsa: verification error$"):
        parse_verified(data, OTHER_CHAIN)


def test_unsigned_and_option_blocks(identity: StakingIdentity) -> None:
    unsigned = StatelessBlock(PARENT, b"\x03", timestamp=123, p_chain_height=2)
    assert parse_verified(unsigned.encode(), CHAIN) == unsigned
    with_signature = StatelessBlock(
        PARENT, b"\x03", timestamp=123, p_chain_height=2, signature=b"\x05"
    )
    with pytest.raises(InvalidParams, match=r"^signature provided when none was expected$"):
        parse_verified(with_signature.encode(), CHAIN)
    option = OptionBlock(PARENT, b"\x03")
    assert parse_verified(option.encode(), OTHER_CHAIN) == option


def test_granite_zero_epoch_is_refused_by_verify_not_by_parse(identity: StakingIdentity) -> None:
    for data in (
        _signed(identity, Epoch(0, 0, 0)),
        StatelessBlock(
            PARENT, b"\x03", timestamp=123, p_chain_height=2, epoch=Epoch(0, 0, 0)
        ).encode(),
    ):
        block = parse(data)  # the bytes are a well-formed statelessGraniteBlock
        assert isinstance(block, StatelessBlock) and block.epoch == Epoch(0, 0, 0)
        with pytest.raises(InvalidParams, match=r"^epoch must be provided after granite$"):
            verify(block, CHAIN)
    # a zero field or two is an epoch: only the all-zero one is missing
    assert parse_verified(_signed(identity, Epoch(0, 0, 5)), CHAIN)


def test_invalid_certificates(identity: StakingIdentity) -> None:
    block = StatelessBlock(
        PARENT, b"\x03", timestamp=123, p_chain_height=2, certificate=b"\x30\x03\x02\x01\x00"
    )
    with pytest.raises(InvalidParams, match=r"^invalid certificate: staking: malformed"):
        parse_verified(block.encode(), CHAIN)
    huge = StatelessBlock(
        PARENT, b"\x03", timestamp=123, p_chain_height=2, certificate=b"\x30" * 3000
    )
    with pytest.raises(InvalidParams, match="certificate length is greater than 2048"):
        parse_verified(huge.encode(), CHAIN)
