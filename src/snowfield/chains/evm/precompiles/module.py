"""A precompile module: its config key, address, contract and activation, and the configs that
switch it on and off (subnet-evm's precompile/modules and precompileconfig)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from snowfield.chains.evm.precompiles.base import StatefulPrecompile


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
