"""X-Chain txs round-trip byte-exact against avalanchego's own AVM test vectors; the fx types
and blocks round-trip through the codec; malformed bytes are refused with a clear error."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from snowfield.errors import InvalidParams
from snowfield.formats.exchange import fxs
from snowfield.formats.exchange.blocks import StandardBlock
from snowfield.formats.exchange.txs import (
    UTXO,
    CreateAssetTx,
    InitialState,
    Operation,
    OperationTx,
    Tx,
)
from snowfield.formats.ids import ID, ShortID
from snowfield.formats.platform.components import UTXOID, BaseTxFields
from snowfield.formats.platform.secp256k1fx import Credential, Input, OutputOwners, TransferOutput

VECTORS = json.loads(
    (Path(__file__).parent / "vectors" / "avalanchego" / "avm_txs.json").read_text()
)
CASES = [
    pytest.param(bytes.fromhex(hex_bytes), id=f"{name}:{label}")
    for name, entry in VECTORS.items()
    for label, hex_bytes in entry["vectors"].items()
    if (name, label) != ("create_asset_tx_test", "expected2")
]


@pytest.mark.parametrize("data", CASES)
def test_avalanchego_vectors_round_trip(data: bytes) -> None:
    tx = Tx.decode(data)
    assert Tx(tx.unsigned, tx.credentials).encode() == data
    assert tx.unsigned_bytes() == Tx(tx.unsigned).encode()[:-4]


def test_unsorted_outputs_are_refused_as_avalanchego_verifies_them() -> None:
    # avalanchego's serialization test builds outputs in key order; its verifier rejects them.
    data = bytes.fromhex(VECTORS["create_asset_tx_test"]["vectors"]["expected2"])
    with pytest.raises(InvalidParams, match="outputs not sorted"):
        Tx.decode(data)


OWNER = OutputOwners(0, 1, (ShortID(bytes(range(20))),))
CHAIN = ID(bytes([7]) * 32)


def _nft_txs() -> list[Tx]:
    base = BaseTxFields(12345, CHAIN, (), ())
    create = CreateAssetTx(
        base,
        "Snow Art",
        "ART",
        0,
        (
            InitialState(0, (fxs.MintOutput(OWNER), TransferOutput(5, OWNER))),
            InitialState(1, (fxs.NftMintOutput(0, OWNER), fxs.NftMintOutput(1, OWNER))),
            InitialState(2, (fxs.PropertyMintOutput(OWNER),)),
        ),
    )
    operations = tuple(
        sorted(
            (
                Operation(
                    CHAIN,
                    (UTXOID(CHAIN, 1),),
                    fxs.NftMintOperation(Input((0,)), 1, b"payload", (OWNER,)),
                ),
                Operation(
                    CHAIN,
                    (UTXOID(CHAIN, 2),),
                    fxs.NftTransferOperation(Input((0,)), fxs.NftTransferOutput(1, b"x", OWNER)),
                ),
                Operation(
                    CHAIN,
                    (UTXOID(CHAIN, 3),),
                    fxs.PropertyMintOperation(
                        Input((0,)), fxs.PropertyMintOutput(OWNER), fxs.PropertyOwnedOutput(OWNER)
                    ),
                ),
                Operation(CHAIN, (UTXOID(CHAIN, 4),), fxs.PropertyBurnOperation(Input((0,)))),
                Operation(
                    CHAIN,
                    (UTXOID(CHAIN, 5),),
                    fxs.MintOperation(Input((0,)), fxs.MintOutput(OWNER), TransferOutput(9, OWNER)),
                ),
            ),
            key=lambda o: o.sort_key(),
        )
    )
    sig = bytes(65)
    operation_tx = OperationTx(base, operations)
    credentials = (
        Credential((sig,)),
        fxs.NftCredential((sig,)),
        fxs.PropertyCredential((sig,)),
        Credential((sig,)),
        fxs.NftCredential((sig,)),
    )
    return [Tx(create), Tx(operation_tx, credentials)]


@pytest.mark.parametrize("tx", _nft_txs(), ids=["create", "operations"])
def test_fx_types_round_trip(tx: Tx) -> None:
    assert Tx.decode(tx.encode()) == tx


def test_block_and_utxo_round_trip() -> None:
    txs = tuple(_nft_txs())
    block = StandardBlock(CHAIN, 3, 1_700_000_000, txs)
    data = block.encode()
    assert data[2:6] == (20).to_bytes(4, "big")  # StandardBlock's type id
    assert StandardBlock.decode(data) == block
    utxo = UTXO(UTXOID(CHAIN, 0), CHAIN, fxs.NftTransferOutput(3, b"art", OWNER))
    assert UTXO.decode(utxo.encode()) == utxo


def test_nft_payload_limit() -> None:
    with pytest.raises(InvalidParams, match="payload too large"):
        fxs.NftTransferOutput(0, bytes(1025), OWNER)


@given(st.binary(max_size=400))
def test_decoding_garbage_never_crashes(data: bytes) -> None:
    with contextlib.suppress(InvalidParams):
        Tx.decode(data)
