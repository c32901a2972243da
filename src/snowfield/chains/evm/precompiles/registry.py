"""Precompile modules by config key and address; activation configs from genesis and upgrades."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from snowfield.chains.evm.precompiles.base import StatefulPrecompile
from snowfield.errors import InvalidParams


class StateWriter(Protocol):
    """What a precompile's activation writes (subnet-evm's Configure)."""

    def get_state(self, address: bytes, slot: int) -> int: ...

    def set_state(self, address: bytes, slot: int, value: int) -> None: ...

    def set_nonce(self, address: bytes, nonce: int) -> None: ...

    def set_code(self, address: bytes, code: bytes) -> None: ...

    def add_balance(self, address: bytes, amount: int) -> None: ...

    def delete_account(self, address: bytes) -> None: ...


@dataclass(frozen=True, slots=True)
class ActivationContext:
    """The block a precompile activates in, and the chain's own settings it may copy."""

    number: int
    timestamp: int
    chain_settings: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PrecompileConfig:
    """One precompile config as JSON carries it: `{"<key>": {"blockTimestamp": ..., ...}}`."""

    key: str
    timestamp: int
    disable: bool = False
    params: Mapping[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"blockTimestamp": self.timestamp, **self.params}
        if self.disable:
            body["disable"] = True
        return body


@dataclass(frozen=True, slots=True)
class PrecompileModule:
    """A precompile: its config key, address, contract and activation (Configure)."""

    key: str
    address: bytes
    contract: StatefulPrecompile
    configure: Callable[[PrecompileConfig, StateWriter, ActivationContext], None]
    verify: Callable[[Mapping[str, Any]], None] = lambda params: None
    # Fields the config always shows (Go's JSON has no omitempty for them) and their zeros.
    defaults: Mapping[str, Any] = field(default_factory=dict)


_MODULES: dict[str, PrecompileModule] = {}


def register(module: PrecompileModule) -> None:
    """Adds a precompile; a key or address can be registered once."""
    if module.key in _MODULES or any(m.address == module.address for m in _MODULES.values()):
        raise ValueError(f"precompile {module.key} at 0x{module.address.hex()} registered twice")
    _MODULES[module.key] = module


def module(key: str) -> PrecompileModule:
    _load_builtin()
    found = _MODULES.get(key)
    if found is None:
        raise InvalidParams(f"unknown precompile config: {key}")
    return found


def modules() -> tuple[PrecompileModule, ...]:
    _load_builtin()
    return tuple(_MODULES.values())


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


def _load_builtin() -> None:
    """Imports the built-in precompiles (each registers itself) on first use."""
    from snowfield.chains.evm.precompiles import builtin  # noqa: F401
