"""The C-Chain's rules as the devnet runs them: coreth's header, an EIP-1559 base fee."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from snowfield.chains.evm.fees import MIN_BASE_FEE, next_base_fee
from snowfield.chains.evm.model import Header, c_chain_header
from snowfield.chains.evm.rules.base import EvmRules, HeaderFields, StorageView

if TYPE_CHECKING:
    from snowfield.chains.evm.genesis import ChainConfig

_ETH_BLOCKS = (
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
)
_AVALANCHE_TIMES = (
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
)


def _header(fields: HeaderFields) -> Header:
    header = c_chain_header(
        parent_hash=fields.parent_hash,
        coinbase=fields.coinbase,
        state_root=fields.state_root,
        tx_root=fields.tx_root,
        receipt_root=fields.receipt_root,
        bloom=fields.bloom,
        difficulty=fields.difficulty,
        number=fields.number,
        gas_limit=fields.gas_limit,
        gas_used=fields.gas_used,
        timestamp=fields.timestamp,
        base_fee=fields.base_fee,
    )
    return dataclasses.replace(header, mix_hash=fields.mix_hash)


@dataclasses.dataclass(frozen=True, slots=True)
class CChainRules(EvmRules):
    """No atomic transactions, blobs or block fee; the base fee has a floor."""

    min_base_fee: int = MIN_BASE_FEE
    name = "c-chain"

    def genesis_header(self, fields: HeaderFields) -> Header:
        return _header(fields)

    def build_header(self, parent: Header, fields: HeaderFields) -> Header:
        return _header(fields)

    def next_base_fee(self, parent: Header, timestamp: int, state: StorageView) -> int:
        return next_base_fee(parent.gas_used, parent.gas_limit, parent.base_fee, self.min_base_fee)

    def chain_config_json(self, config: ChainConfig) -> dict[str, Any]:
        """geth's ChainConfig with the Avalanche upgrade timestamps."""
        out: dict[str, Any] = {"chainId": config.chain_id}
        out.update(dict.fromkeys(_ETH_BLOCKS, 0))
        out["daoForkSupport"] = True
        out.update(dict.fromkeys(_AVALANCHE_TIMES, 0))
        return out
