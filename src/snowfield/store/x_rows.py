"""The X-Chain's rows as the indexer extracts them from its accepted txs (store/x_chain.py
writes them): the tx, the UTXOs it creates, the UTXOs it consumes, the asset it creates."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class XUtxoRow:
    """One output a tx created: kept on the X-Chain (`consumed_on` = X) or exported."""

    utxo_id: str
    tx_id: str
    output_index: int
    asset_id: str
    amount: int  # 0 for an NFT or property output
    addresses: tuple[str, ...]
    threshold: int
    locktime: int
    output_type: str  # SECP256K1 | NFT | NFT_MINT | SECP256K1_MINT | PROPERTY …
    consumed_on: str
    utxo_bytes: str


@dataclass(frozen=True, slots=True)
class XAssetRow:
    asset_id: str
    name: str
    symbol: str
    denomination: int
    cap: str  # fixed | variable (whether the asset has a mint output)


@dataclass(slots=True)
class XTxRows:
    """Everything one accepted X-Chain tx adds, at its position `index` of the tx index."""

    index: int
    tx_id: str
    timestamp: int
    tx_type: str
    memo: str
    source_chain: str | None
    destination_chain: str | None
    tx_bytes: str
    utxos: list[XUtxoRow] = field(default_factory=list)
    consumed: list[str] = field(default_factory=list)  # UTXO ids spent on the X-Chain
    imported: list[str] = field(default_factory=list)  # UTXO ids taken from shared memory
    addresses: set[str] = field(default_factory=set)
    asset: XAssetRow | None = None


@dataclass(frozen=True, slots=True)
class XPlace:
    """A tx in the vertex or block at position `index` of the node's vtx / block index."""

    tx_id: str
    container_id: str
    height: int
    timestamp: int
    index: int
