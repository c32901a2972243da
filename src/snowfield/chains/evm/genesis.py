"""Chain configuration and the genesis allocation of an EVM chain."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from snowfield.chains.evm.fees import MIN_BASE_FEE

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

    def as_json(self) -> dict[str, Any]:
        """eth_getChainConfig: geth's ChainConfig with the Avalanche upgrade timestamps."""
        config: dict[str, Any] = {"chainId": self.chain_id}
        for name in (
            "homesteadBlock",
            "daoForkBlock",
            "eip150Block",
            "eip155Block",
            "eip158Block",
            "byzantiumBlock",
            "constantinopleBlock",
            "petersburgBlock",
            "istanbulBlock",
            "muirGlacierBlock",
            "berlinBlock",
            "londonBlock",
        ):
            config[name] = 0
        config["daoForkSupport"] = True
        for name in (
            "apricotPhase1BlockTimestamp",
            "apricotPhase2BlockTimestamp",
            "apricotPhase3BlockTimestamp",
            "apricotPhase4BlockTimestamp",
            "apricotPhase5BlockTimestamp",
            "apricotPhasePre6BlockTimestamp",
            "apricotPhase6BlockTimestamp",
            "apricotPhasePost6BlockTimestamp",
            "banffBlockTimestamp",
            "cortinaBlockTimestamp",
            "durangoBlockTimestamp",
            "etnaTimestamp",
            "fortunaTimestamp",
            "shanghaiTime",
            "cancunTime",
            "pragueTime",
        ):
            config[name] = 0
        return config
