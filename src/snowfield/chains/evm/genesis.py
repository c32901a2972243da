"""Chain configuration and the genesis allocation of an EVM chain."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from snowfield.chains.evm.fees import MIN_BASE_FEE
from snowfield.chains.evm.rules.base import EvmRules


@dataclass(frozen=True, slots=True)
class Allocation:
    address: bytes
    balance: int
    code: bytes = b""
    storage: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class ChainConfig:
    """What defines an EVM chain of the devnet."""

    chain_id: int = 43112
    gas_limit: int = 15_000_000
    min_base_fee: int = MIN_BASE_FEE
    alias: str = "C"
    client_version: str = "snowfield/v0.1.0"
    alloc: tuple[Allocation, ...] = field(default=())
    # The rule set, as py-evm's chain picks its VM class: chosen by whoever builds the chain.
    rules: EvmRules = field(kw_only=True)

    def as_json(self) -> dict[str, Any]:
        """eth_getChainConfig, as the chain's rule set shapes it."""
        return self.rules.chain_config_json(self.chain_id)
