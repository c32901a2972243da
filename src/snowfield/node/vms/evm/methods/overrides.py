"""Decoders of geth's StateOverride and BlockOverrides objects, with geth's error texts."""

from __future__ import annotations

from typing import Any

from snowfield.chains.evm.execution.overrides import (
    AccountOverride,
    BlockOverrides,
    StateOverrides,
)
from snowfield.errors import InvalidParams
from snowfield.node.vms.evm import params as p
from snowfield.node.vms.evm.methods.txargs import (
    ADDRESS,
    BIG,
    BYTES,
    HASH,
    UINT64,
    Field,
    decode_struct,
)


def _storage(value: Any) -> dict[int, int]:
    if not isinstance(value, dict):
        raise InvalidParams("non-object")
    return {p.storage_key(k): int.from_bytes(HASH(v), "big") for k, v in value.items()}


ACCOUNT_FIELDS = (
    Field("nonce", "hexutil.Uint64", UINT64),
    Field("code", "hexutil.Bytes", BYTES),
    Field("balance", "hexutil.Big", BIG),
    Field("state", "map[common.Hash]common.Hash", _storage),
    Field("stateDiff", "map[common.Hash]common.Hash", _storage),
    Field("movePrecompileToAddress", "common.Address", ADDRESS),
)


def state_overrides(value: Any) -> StateOverrides:
    """geth's override.StateOverride: address → account override."""
    if not isinstance(value, dict):
        raise InvalidParams("json: cannot unmarshal non-object into Go value of type StateOverride")
    out: dict[bytes, AccountOverride] = {}
    for key, raw in value.items():
        address = ADDRESS(key)
        got = decode_struct(raw, "override.OverrideAccount", ACCOUNT_FIELDS)
        if "movePrecompileToAddress" in got:
            raise InvalidParams("movePrecompileToAddress is not supported")
        out[address] = AccountOverride(
            balance=got.get("balance"),
            nonce=got.get("nonce"),
            code=got.get("code"),
            state=got.get("state"),
            state_diff=got.get("stateDiff"),
        )
    return out


BLOCK_FIELDS = (
    Field("number", "hexutil.Big", BIG),
    Field("time", "hexutil.Uint64", UINT64),
    Field("gasLimit", "hexutil.Uint64", UINT64),
    Field("feeRecipient", "common.Address", ADDRESS),
    Field("prevRandao", "common.Hash", HASH),
    Field("baseFeePerGas", "hexutil.Big", BIG),
    Field("blobBaseFee", "hexutil.Big", BIG),
)


def block_overrides(value: Any) -> BlockOverrides:
    """geth's override.BlockOverrides (blob base fee is read and has no effect: no blobs)."""
    got = decode_struct(value, "override.BlockOverrides", BLOCK_FIELDS)
    return BlockOverrides(
        number=got.get("number"),
        time=got.get("time"),
        gas_limit=got.get("gasLimit"),
        fee_recipient=got.get("feeRecipient"),
        prev_randao=got.get("prevRandao"),
        base_fee=got.get("baseFeePerGas"),
    )
