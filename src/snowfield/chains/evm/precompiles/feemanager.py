"""Fee manager (0x0200…0003): enabled callers change the fee config from the next block."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Protocol

from snowfield.chains.evm.feeconfig import FeeConfig
from snowfield.chains.evm.precompiles import allowlist
from snowfield.chains.evm.precompiles.abi import checksummed, selector, topic, word
from snowfield.chains.evm.precompiles.abi import words as unpack
from snowfield.chains.evm.precompiles.base import (
    LOG_DATA_GAS,
    LOG_GAS,
    LOG_TOPIC_GAS,
    READ_GAS_PER_SLOT,
    WRITE_GAS_PER_SLOT,
    FunctionTable,
    PrecompileEnv,
    PrecompileError,
)
from snowfield.chains.evm.precompiles.module import (
    ActivationContext,
    PrecompileConfig,
    PrecompileModule,
    StateWriter,
)
from snowfield.errors import InvalidParams

FEE_MANAGER = bytes.fromhex("0200000000000000000000000000000000000003")
_FIELDS = [f.name for f in dataclasses.fields(FeeConfig)]  # in the contract's slot order
# Slot i (1..8) is common.Hash{byte(i)}: the number in the key's first byte.
_SLOTS = [(i + 1) << 248 for i in range(len(_FIELDS))]
LAST_CHANGED_AT = int.from_bytes(b"lca".ljust(32, b"\x00"), "big")
SET_GAS = WRITE_GAS_PER_SLOT * (len(_FIELDS) + 1)
GET_GAS = READ_GAS_PER_SLOT * len(_FIELDS)
_TUPLE = "(" + ",".join(["uint256"] * len(_FIELDS)) + ")"
CHANGED = topic(f"FeeConfigChanged(address,{_TUPLE},{_TUPLE})")
CHANGED_EVENT_GAS = GET_GAS + LOG_GAS + LOG_TOPIC_GAS * 2 + 2 * 32 * len(_FIELDS) * LOG_DATA_GAS


class StorageReader(Protocol):
    def storage(self, address: bytes, slot: int) -> int: ...


def stored_fee_config(state: StorageReader) -> tuple[FeeConfig, int]:
    """GetStoredFeeConfig and GetFeeConfigLastChangedAt."""
    values = [state.storage(FEE_MANAGER, slot) for slot in _SLOTS]
    return FeeConfig(*values), state.storage(FEE_MANAGER, LAST_CHANGED_AT)


def _stored(env: PrecompileEnv) -> list[int]:
    return [env.get_state(FEE_MANAGER, slot) for slot in _SLOTS]


def _store(state: StateWriter | PrecompileEnv, fee: FeeConfig, number: int) -> None:
    try:
        fee.verify()
    except InvalidParams as exc:
        raise PrecompileError(
            "cannot verify fee config: " + str(exc).removeprefix("invalid fee config: ")
        ) from None
    for slot, value in zip(_SLOTS, dataclasses.astuple(fee), strict=True):
        state.set_state(FEE_MANAGER, slot, value)
    state.set_state(FEE_MANAGER, LAST_CHANGED_AT, number)


def _set(env: PrecompileEnv) -> bytes:
    env.use_gas(SET_GAS)
    if env.read_only:
        raise PrecompileError("write protection")
    values = unpack(env.input[4:], len(_FIELDS))
    if not allowlist.env_role(env, FEE_MANAGER, env.caller).enabled:
        raise PrecompileError(f"non-enabled cannot change fee config: {checksummed(env.caller)}")
    env.use_gas(CHANGED_EVENT_GAS)
    old = _stored(env)
    data = b"".join(word(v) for v in [*old, *values])
    env.add_log(FEE_MANAGER, (CHANGED, word(env.caller)), data)
    _store(env, FeeConfig(*values), env.number)
    return b""


def _get(env: PrecompileEnv) -> bytes:
    env.use_gas(GET_GAS)
    return b"".join(word(v) for v in _stored(env))


def _last_changed(env: PrecompileEnv) -> bytes:
    env.use_gas(READ_GAS_PER_SLOT)
    return word(env.get_state(FEE_MANAGER, LAST_CHANGED_AT))


def _configure(config: PrecompileConfig, state: StateWriter, ctx: ActivationContext) -> None:
    """Configure: stores the initial fee config (else the chain's), then the allow list."""
    initial = config.params.get("initialFeeConfig")
    fee = FeeConfig.from_json(initial) if initial is not None else ctx.chain_settings["feeConfig"]
    _store(state, fee, ctx.number)
    allowlist.configure(FEE_MANAGER, config, state, ctx)


def _verify(params: Mapping[str, Any]) -> None:
    allowlist.verify(params)
    if params.get("initialFeeConfig") is not None:
        FeeConfig.from_json(params["initialFeeConfig"])


MODULE = PrecompileModule(
    key="feeManagerConfig",
    address=FEE_MANAGER,
    contract=FunctionTable(
        FEE_MANAGER,
        {
            selector(f"setFeeConfig({','.join(['uint256'] * len(_FIELDS))})"): _set,
            selector("getFeeConfig()"): _get,
            selector("getFeeConfigLastChangedAt()"): _last_changed,
            **allowlist.functions(FEE_MANAGER),
        },
    ),
    configure=_configure,
    verify=_verify,
)
