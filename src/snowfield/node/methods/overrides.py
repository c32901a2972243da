"""Decoders of eth_call's state overrides (third parameter) and block overrides (fourth),
with geth's field names and error texts."""

from __future__ import annotations

from typing import Any

from snowfield.chains.evm.execution.overrides import (
    AccountOverride,
    BlockOverrides,
    CallOverrides,
    Slots,
)
from snowfield.errors import InvalidParams
from snowfield.node.methods import params as p
from snowfield.node.methods.txargs import ADDRESS, BIG, BYTES, HASH, UINT64, Field, decode_struct


def _slots(value: Any) -> Slots:
    if not isinstance(value, dict):
        raise InvalidParams("non-object")
    return tuple(
        (int.from_bytes(HASH(k), "big"), int.from_bytes(HASH(v), "big")) for k, v in value.items()
    )


ACCOUNT_FIELDS = (
    Field("nonce", "hexutil.Uint64", UINT64),
    Field("code", "hexutil.Bytes", BYTES),
    Field("balance", "hexutil.Big", BIG),
    Field("state", "map[common.Hash]common.Hash", _slots),
    Field("stateDiff", "map[common.Hash]common.Hash", _slots),
    Field("movePrecompileToAddress", "common.Address", ADDRESS),
)

BLOCK_FIELDS = (
    Field("number", "hexutil.Big", BIG),
    Field("time", "hexutil.Uint64", UINT64),
    Field("gasLimit", "hexutil.Uint64", UINT64),
    Field("feeRecipient", "common.Address", ADDRESS),
    Field("coinbase", "common.Address", ADDRESS),
    Field("prevRandao", "common.Hash", HASH),
    Field("baseFeePerGas", "hexutil.Big", BIG),
    Field("blobBaseFee", "hexutil.Big", BIG),
)


def account_override(value: Any) -> AccountOverride:
    got = decode_struct(value, "override.OverrideAccount", ACCOUNT_FIELDS)
    if "movePrecompileToAddress" in got:
        # Invariant: the devnet's precompiles are the execution library's; it cannot move one.
        raise InvalidParams("movePrecompileToAddress is not supported")
    return AccountOverride(
        balance=got.get("balance"),
        nonce=got.get("nonce"),
        code=got.get("code"),
        state=got.get("state"),
        state_diff=got.get("stateDiff"),
    )


def state_overrides(value: Any) -> tuple[tuple[bytes, AccountOverride], ...]:
    """The third parameter: address → account override (null = none)."""
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise InvalidParams(
            "json: cannot unmarshal non-object into Go value of type override.StateOverride"
        )
    return tuple((p.address(k), account_override(v)) for k, v in value.items())


def block_overrides(value: Any) -> BlockOverrides:
    """The fourth parameter (null = none)."""
    if value is None:
        return BlockOverrides()
    got = decode_struct(value, "override.BlockOverrides", BLOCK_FIELDS)
    if "blobBaseFee" in got:
        raise InvalidParams("blobBaseFee cannot be overridden: C-Chain blocks carry no blobs")
    return BlockOverrides(
        number=got.get("number"),
        time=got.get("time"),
        gas_limit=got.get("gasLimit"),
        coinbase=got.get("feeRecipient", got.get("coinbase")),
        prev_randao=got.get("prevRandao"),
        base_fee=got.get("baseFeePerGas"),
    )


def call_overrides(state: Any, block: Any) -> CallOverrides:
    return CallOverrides(state_overrides(state), block_overrides(block))
