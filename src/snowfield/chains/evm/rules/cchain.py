"""The C-Chain's rules as the devnet runs them: coreth's header, an EIP-1559 base fee."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from snowfield.chains.evm.fees import MIN_BASE_FEE, next_base_fee
from snowfield.chains.evm.model import Header, c_chain_header
from snowfield.chains.evm.precompiles.base import StatefulPrecompile
from snowfield.chains.evm.precompiles.warp import WARP_CONTRACT
from snowfield.chains.evm.rules.base import EvmRules, HeaderFields, StorageView
from snowfield.chains.evm.warp import WARP_ADDRESS, WarpConfig

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
    # coreth puts the predicate results after its fee window in Extra; the devnet's C-Chain
    # header has no window, so Extra holds the results alone, and only when there are some.
    extra = fields.predicate_results or b""
    return dataclasses.replace(header, mix_hash=fields.mix_hash, extra_data=extra)


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

    def precompiles(self, timestamp: int) -> Mapping[bytes, StatefulPrecompile]:
        """Warp, always on (coreth activates it with Durango)."""
        return {WARP_ADDRESS: WARP_CONTRACT}

    def warp_config(self, timestamp: int) -> WarpConfig | None:
        return WarpConfig()

    def predicate_results(self, header: Header) -> bytes:
        return header.extra_data

    def chain_config_json(self, chain_id: int) -> dict[str, Any]:
        """geth's ChainConfig with the Avalanche upgrade timestamps."""
        out: dict[str, Any] = {"chainId": chain_id}
        out.update(dict.fromkeys(_ETH_BLOCKS, 0))
        out["daoForkSupport"] = True
        out.update(dict.fromkeys(_AVALANCHE_TIMES, 0))
        return out
