"""Signed P-Chain txs: avalanchego's signed vectors of every type with their ids, bad input, and
Hypothesis round-trips of every tx type."""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from snowfield.errors import InvalidParams
from snowfield.formats.codec import Packer, Unpacker
from snowfield.formats.ids import ID, ShortID
from snowfield.formats.platform import l1_txs, staking_txs, subnet_txs, transfer_txs
from snowfield.formats.platform.components import (
    UTXO,
    UTXOID,
    BaseTxFields,
    TransferableInput,
    TransferableOutput,
    utxo_bytes,
)
from snowfield.formats.platform.secp256k1fx import (
    Credential,
    Input,
    OutputOwners,
    TransferInput,
    TransferOutput,
)
from snowfield.formats.platform.stakeable import LockOut
from snowfield.formats.platform.txs import Tx, decode_unsigned, unsigned_bytes
from snowfield.formats.platform.types import PLATFORM_TYPES, UnsignedTx
from tests.formats import platform_strategies as ps

VECTORS = Path(__file__).parent / "vectors" / "avalanchego" / "fee_calculator_txs.json"
CASES = json.loads(VECTORS.read_text())["txs"]
SIGNED = [c for c in CASES if "avalanchejs_tx_id" in c]
HELICON = [c for c in CASES if "AutoRenewed" in c["name"]]
AVAX = ID(b"\xaa" * 32)
ADDR = ShortID(b"\x01" * 20)


def _base(
    outputs: tuple[TransferableOutput, ...] = (), inputs: tuple[TransferableInput, ...] = ()
) -> BaseTxFields:
    return BaseTxFields(12345, ID(bytes(32)), outputs, inputs)


def _output(amount: int, asset: ID = AVAX) -> TransferableOutput:
    return TransferableOutput(asset, TransferOutput(amount, OutputOwners(0, 1, (ADDR,))))


def _input(tx_byte: int, index: int) -> TransferableInput:
    return TransferableInput(UTXOID(ID(bytes([tx_byte]) * 32), index), AVAX, TransferInput(5, (0,)))


@pytest.mark.parametrize("case", SIGNED, ids=[c["name"] for c in SIGNED])
def test_signed_vector_round_trips_with_its_id(case: dict[str, str]) -> None:
    raw = bytes.fromhex(case["tx"])
    tx = Tx.decode(raw)
    assert type(tx.unsigned).__name__ == case["name"].split(" ")[0]
    assert tx.encode() == raw
    assert len(raw) == case.get("bandwidth", len(raw))
    assert str(tx.id) == case["avalanchejs_tx_id"]
    assert tx.id == ID(hashlib.sha256(raw).digest())
    assert raw.startswith(tx.unsigned_bytes())
    assert decode_unsigned(tx.unsigned_bytes()) == tx.unsigned


@pytest.mark.parametrize("case", HELICON, ids=[c["name"] for c in HELICON])
def test_post_etna_types_are_unknown(case: dict[str, str]) -> None:
    with pytest.raises(InvalidParams, match=r"unknown platformvm type id 4[012]"):
        Tx.decode(bytes.fromhex(case["tx"]))


def test_every_type_id_from_the_table_is_registered() -> None:
    assert sorted(PLATFORM_TYPES.types()) == [*range(0, 5), 5, 7, *range(9, 29), *range(29, 40)]


def test_truncations_of_every_vector_are_rejected() -> None:
    for case in SIGNED:
        raw = bytes.fromhex(case["tx"])
        for end in range(len(raw)):
            with pytest.raises(InvalidParams):
                Tx.decode(raw[:end])


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda raw: raw + b"\x00", "trailing buffer space"),
        (lambda raw: b"\x00\x01" + raw[2:], "unknown codec version"),
        (lambda raw: raw[:2] + b"\x00\x00\x00\x63" + raw[6:], "unknown platformvm type id 99"),
        (
            lambda raw: raw[:2] + b"\x00\x00\x00\x07" + raw[6:],
            r"\(TransferOutput\) is not a UnsignedTx",
        ),
        (lambda raw: raw + bytes(256 * 1024), "exceeds maximum length"),
    ],
)
def test_malformed_tx_bytes_are_rejected(mutate: object, message: str) -> None:
    raw = bytes.fromhex(SIGNED[9]["tx"])  # BaseTx
    with pytest.raises(InvalidParams, match=message):
        Tx.decode(mutate(raw))  # type: ignore[operator]


def test_unsorted_inputs_outputs_addresses_and_indices_are_rejected() -> None:
    with pytest.raises(InvalidParams, match="outputs not sorted"):
        _base(outputs=(_output(2), _output(1)))
    with pytest.raises(InvalidParams, match="inputs not sorted and unique"):
        _base(inputs=(_input(2, 0), _input(1, 0)))
    with pytest.raises(InvalidParams, match="inputs not sorted and unique"):
        _base(inputs=(_input(1, 0), _input(1, 0)))
    with pytest.raises(InvalidParams, match="addresses not sorted and unique"):
        OutputOwners(0, 1, (ShortID(b"\x02" * 20), ADDR))
    with pytest.raises(InvalidParams, match="signature indices not sorted and unique"):
        TransferInput(1, (1, 0))
    with pytest.raises(InvalidParams, match="signature indices not sorted and unique"):
        Input((3, 3))
    with pytest.raises(InvalidParams, match="output is unspendable"):
        OutputOwners(0, 2, (ADDR,))
    with pytest.raises(InvalidParams, match="should be optimized"):
        OutputOwners(0, 0, (ADDR,))
    with pytest.raises(InvalidParams, match="memo length 257"):
        BaseTxFields(1, AVAX, (), (), bytes(257))


def test_unsorted_bytes_from_the_wire_are_rejected() -> None:
    """The same rules hold when decoding: swap two sorted outputs in valid bytes."""
    tx = Tx(transfer_txs.BaseTx(_base(outputs=(_output(1), _output(2)))))
    raw = tx.encode()
    first, second = (_packed(o) for o in tx.unsigned.base.outputs)  # type: ignore[attr-defined]
    swapped = raw.replace(first + second, second + first)
    assert swapped != raw
    with pytest.raises(InvalidParams, match="outputs not sorted"):
        Tx.decode(swapped)


def _packed(output: TransferableOutput) -> bytes:
    packer = Packer()
    output.pack(packer)
    return packer.to_bytes()


def test_interface_fields_take_only_their_kind() -> None:
    nested = LockOut(1, TransferOutput(1, OutputOwners(0, 0, ())))
    packer = Packer().u64(5)
    PLATFORM_TYPES.pack(packer, nested)  # a LockOut where LockOut's inner TransferOutput goes
    raw = packer.to_bytes()
    with pytest.raises(InvalidParams, match=r"\(LockOut\) is not a TransferOutput"):
        LockOut.unpack(Unpacker(raw))


def test_forged_counts_fail_fast() -> None:
    raw = bytearray(Tx(transfer_txs.BaseTx(_base())).encode())
    raw[2 + 4 + 4 + 32 : 2 + 4 + 4 + 32 + 4] = b"\xff\xff\xff\xff"  # outputs count
    with pytest.raises(InvalidParams, match="insufficient length"):
        Tx.decode(bytes(raw))


def test_credentials_follow_the_unsigned_tx() -> None:
    unsigned = transfer_txs.BaseTx(_base(inputs=(_input(1, 0),)))
    signature = bytes(range(65))
    tx = Tx(unsigned, (Credential((signature,)),))
    assert (
        tx.encode()
        == unsigned_bytes(unsigned) + bytes.fromhex("000000010000000900000001") + signature
    )
    assert Tx.decode(tx.encode()) == tx
    with pytest.raises(InvalidParams, match="65 bytes"):
        Credential((b"short",))


def test_utxo_encoding_and_id() -> None:
    utxo = UTXO(
        UTXOID(ID(bytes(range(32))), 5), AVAX, TransferOutput(7, OutputOwners(0, 1, (ADDR,)))
    )
    raw = utxo.encode()
    assert raw[: 2 + 32 + 4] == b"\x00\x00" + bytes(range(32)) + b"\x00\x00\x00\x05"
    assert UTXO.decode(raw) == utxo
    assert utxo.id == ID(hashlib.sha256((5).to_bytes(8, "big") + bytes(range(32))).digest())
    assert str(utxo.utxo_id).endswith(":5")
    with pytest.raises(InvalidParams):
        UTXO.decode(raw + b"\x00")


@given(ps.sorted_outputs(max_size=4), ps.IDS, st.integers(0, 2**32 - 1))
def test_decoded_outputs_keep_their_bytes(
    outputs: tuple[TransferableOutput, ...], tx_id: ID, index: int
) -> None:
    """A decoded output's bytes are its packing: its sort key and its UTXO's encoding come
    from them without packing it again, and equal what packing gives."""
    packer = Packer()
    packer.items(outputs, lambda p, o: o.pack(p))
    decoded = Unpacker(packer.to_bytes()).items(TransferableOutput.unpack, min_item_size=36)
    assert tuple(decoded) == outputs
    for built, read in zip(outputs, decoded, strict=True):
        assert not built.raw and read.raw == _packed(built)
        assert read.sort_key() == built.sort_key()
        utxo_id = UTXOID(tx_id, index)
        assert utxo_bytes(utxo_id, read) == utxo_bytes(utxo_id, built)
        assert utxo_bytes(utxo_id, read) == UTXO(utxo_id, built.asset_id, built.output).encode()


TX_STRATEGIES: list[st.SearchStrategy[UnsignedTx]] = [
    st.builds(transfer_txs.BaseTx, ps.BASES),
    st.builds(transfer_txs.ImportTx, ps.BASES, ps.IDS, ps.sorted_inputs()),
    st.builds(transfer_txs.ExportTx, ps.BASES, ps.IDS, ps.sorted_outputs()),
    st.builds(transfer_txs.AdvanceTimeTx, ps.U64),
    st.builds(transfer_txs.RewardValidatorTx, ps.IDS),
    st.builds(
        staking_txs.AddValidatorTx,
        ps.BASES,
        ps.VALIDATORS,
        ps.sorted_outputs(),
        ps.owners(),
        ps.U32,
    ),
    st.builds(staking_txs.AddSubnetValidatorTx, ps.BASES, ps.VALIDATORS, ps.IDS, ps.AUTHS),
    st.builds(
        staking_txs.AddDelegatorTx, ps.BASES, ps.VALIDATORS, ps.sorted_outputs(), ps.owners()
    ),
    st.builds(staking_txs.RemoveSubnetValidatorTx, ps.BASES, ps.NODE_IDS, ps.IDS, ps.AUTHS),
    st.builds(
        staking_txs.AddPermissionlessValidatorTx,
        ps.BASES,
        ps.VALIDATORS,
        ps.IDS,
        ps.SIGNERS,
        ps.sorted_outputs(),
        ps.owners(),
        ps.owners(),
        ps.U32,
    ),
    st.builds(
        staking_txs.AddPermissionlessDelegatorTx,
        ps.BASES,
        ps.VALIDATORS,
        ps.IDS,
        ps.sorted_outputs(),
        ps.owners(),
    ),
    st.builds(subnet_txs.CreateSubnetTx, ps.BASES, ps.owners()),
    st.builds(
        subnet_txs.CreateChainTx,
        ps.BASES,
        ps.IDS,
        st.text(max_size=20),
        ps.IDS,
        st.lists(ps.IDS, max_size=3, unique=True).map(lambda xs: tuple(sorted(xs))),
        st.binary(max_size=64),
        ps.AUTHS,
    ),
    st.builds(subnet_txs.TransferSubnetOwnershipTx, ps.BASES, ps.IDS, ps.AUTHS, ps.owners()),
    st.builds(
        subnet_txs.TransformSubnetTx,
        ps.BASES,
        ps.IDS,
        ps.IDS,
        st.builds(
            subnet_txs.StakingRules,
            *[ps.U64] * 6,
            *[ps.U32] * 3,
            ps.U64,
            st.integers(0, 255),
            ps.U32,
        ),
        ps.AUTHS,
    ),
    st.builds(
        l1_txs.ConvertSubnetToL1Tx,
        ps.BASES,
        ps.IDS,
        ps.IDS,
        st.binary(max_size=40),
        ps.l1_validators(),
        ps.AUTHS,
    ),
    st.builds(
        l1_txs.RegisterL1ValidatorTx,
        ps.BASES,
        ps.U64,
        st.binary(min_size=96, max_size=96),
        st.binary(max_size=64),
    ),
    st.builds(l1_txs.SetL1ValidatorWeightTx, ps.BASES, st.binary(max_size=64)),
    st.builds(l1_txs.IncreaseL1ValidatorBalanceTx, ps.BASES, ps.IDS, ps.U64),
    st.builds(l1_txs.DisableL1ValidatorTx, ps.BASES, ps.IDS, ps.AUTHS),
]


def test_every_tx_type_has_a_strategy() -> None:
    registered = {cls for cls in PLATFORM_TYPES.types().values() if issubclass(cls, UnsignedTx)}
    assert len(registered) == len(TX_STRATEGIES) == 20


CREDENTIALS = st.lists(
    st.builds(Credential, st.lists(st.binary(min_size=65, max_size=65), max_size=2).map(tuple)),
    max_size=3,
).map(tuple)


@settings(max_examples=40, deadline=None)
@given(st.one_of(*TX_STRATEGIES), CREDENTIALS)
def test_every_tx_type_round_trips(
    unsigned: UnsignedTx, credentials: tuple[Credential, ...]
) -> None:
    tx = Tx(unsigned, credentials)
    raw = tx.encode()
    assert Tx.decode(raw) == tx
    assert decode_unsigned(tx.unsigned_bytes()) == unsigned
    assert tx.id == ID(hashlib.sha256(raw).digest())


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(SIGNED), st.data())
def test_corrupted_vectors_fail_only_with_invalid_params(
    case: dict[str, str], data: st.DataObject
) -> None:
    raw = bytearray(bytes.fromhex(case["tx"]))
    for _ in range(data.draw(st.integers(1, 4))):
        raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    with contextlib.suppress(InvalidParams):
        Tx.decode(bytes(raw))
