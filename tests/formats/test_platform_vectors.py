"""P-Chain txs and blocks round-trip byte-exact against avalanchego's own test vectors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from snowfield.formats.platform.blocks import block_id, decode_block, encode_block
from snowfield.formats.platform.txs import Tx, decode_unsigned, unsigned_bytes

AVALANCHEGO = Path(__file__).parent / "vectors" / "avalanchego"

# vector file -> the unsigned tx type its vectors hold
TX_FILES = {
    "add_permissionless_delegator_tx": "AddPermissionlessDelegatorTx",
    "add_permissionless_validator_tx": "AddPermissionlessValidatorTx",
    "base_tx": "BaseTx",
    "convert_subnet_to_l1_tx": "ConvertSubnetToL1Tx",
    "disable_l1_validator_tx": "DisableL1ValidatorTx",
    "increase_l1_validator_balance_tx": "IncreaseL1ValidatorBalanceTx",
    "register_l1_validator_tx": "RegisterL1ValidatorTx",
    "remove_subnet_validator_tx": "RemoveSubnetValidatorTx",
    "set_l1_validator_weight_tx": "SetL1ValidatorWeightTx",
    "transfer_subnet_ownership_tx": "TransferSubnetOwnershipTx",
    "transform_subnet_tx": "TransformSubnetTx",
}


def _vectors(name: str) -> dict[str, str]:
    vectors: dict[str, str] = json.loads((AVALANCHEGO / f"{name}.json").read_text())["vectors"]
    return vectors


TX_CASES = [
    pytest.param(kind, hex_bytes, id=f"{file}:{label}")
    for file, kind in TX_FILES.items()
    for label, hex_bytes in _vectors(file).items()
]


@pytest.mark.parametrize(("kind", "hex_bytes"), TX_CASES)
def test_unsigned_tx_vector_round_trips(kind: str, hex_bytes: str) -> None:
    raw = bytes.fromhex(hex_bytes)
    unsigned = decode_unsigned(raw)
    assert type(unsigned).__name__ == kind
    assert unsigned_bytes(unsigned) == raw


@pytest.mark.parametrize(("kind", "hex_bytes"), TX_CASES)
def test_unsigned_vector_signed_without_credentials(kind: str, hex_bytes: str) -> None:
    """A tx with no credentials is its unsigned bytes plus a zero credential count."""
    tx = Tx(decode_unsigned(bytes.fromhex(hex_bytes)))
    assert tx.encode() == bytes.fromhex(hex_bytes) + bytes(4)
    assert Tx.decode(tx.encode()) == tx


@pytest.mark.parametrize(("kind", "hex_bytes"), list(_vectors("banff_blocks").items()))
def test_banff_block_vector_round_trips(kind: str, hex_bytes: str) -> None:
    raw = bytes.fromhex(hex_bytes)
    block = decode_block(raw)
    assert type(block).__name__ == kind
    assert encode_block(block) == raw
    assert block_id(block).raw.hex() != ""
