"""The X-Chain's state: assets, UTXOs, accepted txs, and the static fees of its network.

Public API: `ExchangeConfig`, `Asset`, `ExchangeState`, fx indices `SECP_FX`, `NFT_FX`,
`PROPERTY_FX`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from snowfield.chains.utxoset import UTXOSet
from snowfield.formats.exchange.txs import UTXO, Tx
from snowfield.formats.exchange.types import owners_of
from snowfield.formats.ids import ID, ShortID

SECP_FX, NFT_FX, PROPERTY_FX = 0, 1, 2
# avalanchego's local genesis: 1 milliAVAX per tx and per asset creation; Fuji and mainnet
# charge 10 milliAVAX for an asset.
MILLI_AVAX = 1_000_000
LOCAL_NETWORK_ID = 12345


@dataclass(frozen=True, slots=True)
class ExchangeConfig:
    network_id: int
    chain_id: ID
    avax_asset_id: ID
    tx_fee: int = MILLI_AVAX
    create_asset_tx_fee: int = MILLI_AVAX

    @classmethod
    def for_network(cls, network_id: int, chain_id: ID, avax_asset_id: ID) -> ExchangeConfig:
        create = MILLI_AVAX if network_id == LOCAL_NETWORK_ID else 10 * MILLI_AVAX
        return cls(network_id, chain_id, avax_asset_id, MILLI_AVAX, create)


@dataclass(frozen=True, slots=True)
class Asset:
    asset_id: ID
    name: str
    symbol: str
    denomination: int
    fx_indices: frozenset[int]


def _addresses(utxo: UTXO) -> tuple[ShortID, ...]:
    return owners_of(utxo.output).addresses


@dataclass(slots=True)
class ExchangeState:
    config: ExchangeConfig
    utxos: UTXOSet[UTXO] = field(default_factory=lambda: UTXOSet(_addresses))
    assets: dict[ID, Asset] = field(default_factory=dict)
    txs: dict[ID, Tx] = field(default_factory=dict)
    # The chains it trades atomically with (P and C of the primary network).
    peers: frozenset[ID] = frozenset()
