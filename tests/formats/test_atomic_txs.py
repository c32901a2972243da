"""The C-Chain's atomic txs and block extra data: round trips, ids, and malformed input refused."""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from snowfield.errors import InvalidParams
from snowfield.formats.atomic.extdata import decode_batch, encode_batch
from snowfield.formats.atomic.txs import (
    AtomicTx,
    EVMInput,
    EVMOutput,
    ExportTx,
    ImportTx,
    require_sorted_evm_outputs,
)
from snowfield.formats.hexcheck import decode_hex
from snowfield.formats.ids import ID, ShortID
from snowfield.formats.platform.components import UTXOID, TransferableInput, TransferableOutput
from snowfield.formats.platform.secp256k1fx import (
    Credential,
    OutputOwners,
    TransferInput,
    TransferOutput,
)
from snowfield.formats.platform.stakeable import LockOut

AVAX = ID(bytes(range(32)))
C, P = ID(b"\x0c" * 32), ID(bytes(32))
OWNER = ShortID(b"\x01" * 20)
SIG = bytes(65)


def import_tx() -> AtomicTx:
    inputs = (TransferableInput(UTXOID(ID(b"\x07" * 32), 2), AVAX, TransferInput(5_000, (0,))),)
    outs = (EVMOutput(b"\xaa" * 20, 4_000, AVAX),)
    return AtomicTx(ImportTx(12345, C, P, inputs, outs), (Credential((SIG,)),))


def export_tx() -> AtomicTx:
    owners = OutputOwners(0, 1, (OWNER,))
    ins = (EVMInput(b"\xaa" * 20, 6_000, AVAX, 3),)
    outs = (TransferableOutput(AVAX, TransferOutput(5_000, owners)),)
    return AtomicTx(ExportTx(12345, C, P, ins, outs), (Credential((SIG,)),))


def test_import_tx_layout_and_id() -> None:
    tx = import_tx()
    data = tx.encode()
    # version, type id 0, network id, chain ids, then the inputs' count
    assert data[:2] == b"\x00\x00" and data[2:6] == bytes(4)
    assert data[6:10] == (12345).to_bytes(4, "big") and data[10:42] == C.raw
    assert AtomicTx.decode(data) == tx
    assert tx.id == ID(hashlib.sha256(data).digest())
    unsigned = tx.unsigned_bytes()
    assert data.startswith(unsigned) and len(data) == len(unsigned) + 4 + 4 + 4 + 65


def test_export_tx_round_trips() -> None:
    tx = export_tx()
    data = tx.encode()
    assert data[2:6] == (1).to_bytes(4, "big")
    assert AtomicTx.decode(data) == tx
    assert AtomicTx.decode(data).encode() == data


def test_batch_round_trips_and_empty_is_no_bytes() -> None:
    txs = (import_tx(), export_tx())
    data = encode_batch(txs)
    assert data[:6] == b"\x00\x00\x00\x00\x00\x02"
    assert decode_batch(data) == txs
    assert [t.id for t in decode_batch(data)] == [t.id for t in txs]
    assert encode_batch(()) == b"" and decode_batch(b"") == ()
    with pytest.raises(InvalidParams, match="empty"):
        decode_batch(b"\x00\x00\x00\x00\x00\x00")


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d[:-1],  # truncated
        lambda d: d + b"\x00",  # trailing
        lambda d: b"\x00\x01" + d[2:],  # unknown codec version
        lambda d: d[:2] + b"\x00\x00\x00\x07" + d[6:],  # not a tx type
        lambda d: d[:2] + b"\x00\x00\x00\x63" + d[6:],  # unknown type id
    ],
)
def test_malformed_bytes_are_refused(mutate: object) -> None:
    data = import_tx().encode()
    with pytest.raises(InvalidParams):
        AtomicTx.decode(mutate(data))  # type: ignore[operator]


def test_an_import_with_repeated_evm_outputs_decodes() -> None:
    """Mainnet C-Chain block 132481 (before ApricotPhase2) imports with three EVM outputs to
    one address and asset: coreth's parser takes them, only its AP2 verifier would not."""
    inputs = import_tx().unsigned.imported_inputs  # type: ignore[attr-defined]
    credit = EVMOutput(b"\xaa" * 20, 1_000, AVAX)
    tx = AtomicTx(ImportTx(1, C, P, inputs, (credit, credit, credit)), (Credential((SIG,)),))
    decoded = AtomicTx.decode(tx.encode())
    assert decoded.unsigned.outs == (credit, credit, credit)  # type: ignore[attr-defined]
    assert decoded.encode() == tx.encode()
    unsorted = (EVMOutput(b"\xbb" * 20, 1, AVAX), EVMOutput(b"\xaa" * 20, 2, AVAX))
    again = AtomicTx(ImportTx(1, C, P, inputs, unsorted), (Credential((SIG,)),))
    assert AtomicTx.decode(again.encode()).unsigned.outs == unsorted  # type: ignore[attr-defined]


def test_structural_rules() -> None:
    out = EVMOutput(b"\xaa" * 20, 1, AVAX)
    with pytest.raises(InvalidParams, match="outputs not sorted and unique"):
        require_sorted_evm_outputs(ImportTx(1, C, P, (), (out, out)))
    with pytest.raises(InvalidParams, match="inputs not sorted and unique"):
        ExportTx(
            1, C, P, (EVMInput(b"\xbb" * 20, 1, AVAX, 0), EVMInput(b"\xaa" * 20, 1, AVAX, 0)), ()
        )
    locked = TransferableOutput(AVAX, LockOut(5, TransferOutput(1, OutputOwners(0, 1, (OWNER,)))))
    with pytest.raises(InvalidParams, match="unknown atomic type id 22"):
        ExportTx(1, C, P, (), (locked,))


VECTORS = json.loads(
    (Path(__file__).parent / "vectors" / "avalanchejs" / "c_atomic_txs.json").read_text()
)["txs"]
SEEDS = [decode_hex(v["hex"]) for v in VECTORS]


@pytest.mark.parametrize("vector", VECTORS, ids=[v["kind"] for v in VECTORS])
def test_client_built_txs_round_trip_byte_exact(vector: dict[str, str]) -> None:
    data = decode_hex(vector["hex"])
    tx = AtomicTx.decode(data)
    assert AtomicTx(tx.unsigned, tx.credentials).encode() == data  # re-encoded from fields
    assert str(tx.id) == vector["id"]
    kind = ImportTx if vector["kind"] == "import" else ExportTx
    assert isinstance(tx.unsigned, kind) and tx.unsigned.network_id == 5
    batch = encode_batch((tx,))
    assert decode_batch(batch)[0].id == tx.id


def _fuzz_decoders(data: bytes) -> None:
    for decode in (AtomicTx.decode, decode_batch):
        with contextlib.suppress(InvalidParams):
            decode(data)


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=300).map(lambda body: b"\x00\x00" + body))
def test_arbitrary_bytes_fail_with_invalid_params_only(data: bytes) -> None:
    _fuzz_decoders(data)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(SEEDS), st.data())
def test_corrupted_client_txs_fail_with_invalid_params_only(
    seed: bytes, data: st.DataObject
) -> None:
    raw = bytearray(seed)
    for _ in range(data.draw(st.integers(1, 4))):
        raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(raw)))
    _fuzz_decoders(bytes(raw))
    _fuzz_decoders(bytes(raw[:cut]))
