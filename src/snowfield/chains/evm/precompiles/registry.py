"""The built-in precompile modules, by config key and address: a table fixed at import; configs
parsed from genesis and upgrade JSON against it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from snowfield.chains.evm.precompiles import (
    deployerallowlist,
    feemanager,
    nativeminter,
    rewardmanager,
    txallowlist,
    warp,
)
from snowfield.chains.evm.precompiles.module import PrecompileConfig, PrecompileModule
from snowfield.errors import InvalidParams

# The order is the one configs are listed in (a genesis' precompiles, eth_getChainConfig).
MODULES: tuple[PrecompileModule, ...] = (
    warp.MODULE,
    deployerallowlist.MODULE,
    feemanager.MODULE,
    nativeminter.MODULE,
    rewardmanager.MODULE,
    txallowlist.MODULE,
)


def _by_key(modules: Iterable[PrecompileModule]) -> Mapping[str, PrecompileModule]:
    """The modules by key; a key or an address may appear once."""
    table: dict[str, PrecompileModule] = {}
    for found in modules:
        if found.key in table or any(m.address == found.address for m in table.values()):
            raise ValueError(f"precompile {found.key} at 0x{found.address.hex()} listed twice")
        table[found.key] = found
    return MappingProxyType(table)


_BY_KEY = _by_key(MODULES)


def module(key: str) -> PrecompileModule:
    found = _BY_KEY.get(key)
    if found is None:
        raise InvalidParams(f"unknown precompile config: {key}")
    return found


def modules() -> tuple[PrecompileModule, ...]:
    return MODULES


def parse_config(key: str, body: Any) -> PrecompileConfig:
    """A precompile config from JSON; InvalidParams when it is malformed."""
    found = module(key)
    if not isinstance(body, dict):
        raise InvalidParams(f"invalid {key}: not an object")
    timestamp = body.get("blockTimestamp", 0)
    if isinstance(timestamp, bool) or not isinstance(timestamp, int) or timestamp < 0:
        raise InvalidParams(f"invalid {key}: blockTimestamp must be a uint64")
    disable = body.get("disable", False)
    if not isinstance(disable, bool):
        raise InvalidParams(f"invalid {key}: disable must be a boolean")
    params = {k: v for k, v in body.items() if k not in ("blockTimestamp", "disable")}
    if not disable:
        found.verify(params)
        params = {**found.defaults, **params}
    return PrecompileConfig(key, timestamp, disable, params)
