"""Chain configuration and the genesis allocation of an EVM chain."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from snowfield.chains.evm.fees import MIN_BASE_FEE
from snowfield.chains.evm.rules.base import EvmRules
from snowfield.chains.evm.rules.cchain import CChainRules

# The C-Chain sends fees to this "blackhole" address: they are burned, not paid to a miner.
BLACKHOLE = bytes.fromhex("0100000000000000000000000000000000000000")


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

    # The rule set (None: the C-Chain's, with `min_base_fee` as its floor).
    rules: EvmRules | None = None

    @property
    def rule_set(self) -> EvmRules:
        return self.rules if self.rules is not None else CChainRules(self.min_base_fee)

    def as_json(self) -> dict[str, Any]:
        """eth_getChainConfig, as the chain's rule set shapes it."""
        return self.rule_set.chain_config_json(self)
