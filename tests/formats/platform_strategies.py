"""Hypothesis strategies for valid P-Chain structures (sorted, unique, within limits)."""

from __future__ import annotations

from hypothesis import strategies as st

from snowfield.formats.ids import ID, NodeID, ShortID
from snowfield.formats.platform.components import (
    UTXOID,
    BaseTxFields,
    TransferableInput,
    TransferableOutput,
)
from snowfield.formats.platform.l1_txs import L1Validator, PChainOwner
from snowfield.formats.platform.secp256k1fx import (
    Input,
    OutputOwners,
    TransferInput,
    TransferOutput,
)
from snowfield.formats.platform.signer import EmptySigner, ProofOfPossession
from snowfield.formats.platform.stakeable import LockIn, LockOut
from snowfield.formats.platform.staking_txs import Validator

U32 = st.integers(0, 2**32 - 1)
U64 = st.integers(0, 2**64 - 1)
IDS = st.binary(min_size=32, max_size=32).map(ID)
SHORT_IDS = st.binary(min_size=20, max_size=20).map(ShortID)
NODE_IDS = st.binary(min_size=20, max_size=20).map(NodeID)
SIG_INDICES = st.lists(U32, max_size=4, unique=True).map(lambda xs: tuple(sorted(xs)))


@st.composite
def owners(draw: st.DrawFn) -> OutputOwners:
    addresses = tuple(sorted(set(draw(st.lists(SHORT_IDS, max_size=3)))))
    threshold = draw(st.integers(1, len(addresses))) if addresses else 0
    return OutputOwners(draw(U64), threshold, addresses)


@st.composite
def p_chain_owners(draw: st.DrawFn) -> PChainOwner:
    owner = draw(owners())
    return PChainOwner(owner.threshold, owner.addresses)


TRANSFER_OUTPUTS = st.builds(TransferOutput, U64, owners())
OUTPUTS = TRANSFER_OUTPUTS | st.builds(LockOut, U64, TRANSFER_OUTPUTS)
TRANSFER_INPUTS = st.builds(TransferInput, U64, SIG_INDICES)
INPUTS = TRANSFER_INPUTS | st.builds(LockIn, U64, TRANSFER_INPUTS)


def sorted_outputs(max_size: int = 3) -> st.SearchStrategy[tuple[TransferableOutput, ...]]:
    items = st.lists(st.builds(TransferableOutput, IDS, OUTPUTS), max_size=max_size)
    return items.map(lambda outs: tuple(sorted(outs, key=TransferableOutput.sort_key)))


def sorted_inputs(max_size: int = 3) -> st.SearchStrategy[tuple[TransferableInput, ...]]:
    one = st.builds(TransferableInput, st.builds(UTXOID, IDS, U32), IDS, INPUTS)
    items = st.lists(one, max_size=max_size, unique_by=lambda i: i.sort_key())
    return items.map(lambda ins: tuple(sorted(ins, key=TransferableInput.sort_key)))


BASES = st.builds(
    BaseTxFields, U32, IDS, sorted_outputs(), sorted_inputs(), st.binary(max_size=256)
)
AUTHS = st.builds(Input, SIG_INDICES)
VALIDATORS = st.builds(Validator, NODE_IDS, U64, U64, U64)
POPS = st.builds(
    ProofOfPossession, st.binary(min_size=48, max_size=48), st.binary(min_size=96, max_size=96)
)
SIGNERS = st.just(EmptySigner()) | POPS


@st.composite
def l1_validators(draw: st.DrawFn) -> tuple[L1Validator, ...]:
    node_ids = sorted(set(draw(st.lists(st.binary(min_size=20, max_size=20), max_size=3))))
    return tuple(
        L1Validator(
            node_id,
            draw(U64),
            draw(U64),
            draw(POPS),
            draw(p_chain_owners()),
            draw(p_chain_owners()),
        )
        for node_id in node_ids
    )
