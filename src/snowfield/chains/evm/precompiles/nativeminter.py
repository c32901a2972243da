"""Native minter (0x0200…0001): enabled callers mint the chain's native coin."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from snowfield.chains.evm.precompiles import allowlist
from snowfield.chains.evm.precompiles.abi import address_arg, checksummed, selector, topic, word
from snowfield.chains.evm.precompiles.abi import words as unpack
from snowfield.chains.evm.precompiles.base import (
    FunctionTable,
    PrecompileEnv,
    PrecompileError,
    charge_log,
)
from snowfield.chains.evm.precompiles.module import (
    ActivationContext,
    PrecompileConfig,
    PrecompileModule,
    StateWriter,
)
from snowfield.errors import InvalidParams

NATIVE_MINTER = bytes.fromhex("0200000000000000000000000000000000000001")
MINT_GAS = 30_000
MINTED = topic("NativeCoinMinted(address,address,uint256)")


def _mint(env: PrecompileEnv) -> bytes:
    env.use_gas(MINT_GAS)
    if env.read_only:
        raise PrecompileError("write protection")
    to_word, amount = unpack(env.input[4:], 2)
    to = address_arg(to_word)
    if not allowlist.env_role(env, NATIVE_MINTER, env.caller).enabled:
        raise PrecompileError(f"non-enabled cannot mint: {checksummed(env.caller)}")
    charge_log(env, 3, 32)
    env.add_log(NATIVE_MINTER, (MINTED, word(env.caller), word(to)), word(amount))
    env.add_balance(to, amount)
    return b""


def _configure(config: PrecompileConfig, state: StateWriter, ctx: ActivationContext) -> None:
    """Configure: the initial mints, then the allow list."""
    for address, amount in (config.params.get("initialMint") or {}).items():
        state.add_balance(
            bytes.fromhex(address[2:]), int(amount, 0) if isinstance(amount, str) else amount
        )
    allowlist.configure(NATIVE_MINTER, config, state, ctx)


def _verify(params: Mapping[str, Any]) -> None:
    allowlist.verify(params)
    mints = params.get("initialMint") or {}
    if not isinstance(mints, dict):
        raise InvalidParams("invalid contractNativeMinterConfig: initialMint must be an object")
    for address, amount in mints.items():
        ok = isinstance(amount, int) or (isinstance(amount, str) and amount[:2] == "0x")
        if not allowlist.is_address(address) or not ok:
            raise InvalidParams(f"invalid contractNativeMinterConfig: initialMint {address}")


MODULE = PrecompileModule(
    key="contractNativeMinterConfig",
    address=NATIVE_MINTER,
    contract=FunctionTable(
        NATIVE_MINTER,
        {
            selector("mintNativeCoin(address,uint256)"): _mint,
            **allowlist.functions(NATIVE_MINTER),
        },
    ),
    configure=_configure,
    verify=_verify,
)
