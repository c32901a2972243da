"""The X-Chain's resources as the real service renders them, from the index's rows: Utxo,
AssetAmount, XChainAssetDetails, and XChainLinearTransaction / XChainNonLinearTransaction."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from snowfield.store.primary_documents import AVAX, Json
from snowfield.store.x_address_queries import XAsset, XPlaceRow, XTx, XUtxo

# Utxo.utxoType (a free string in the real model, "mint" its example): what the output is for.
_UTXO_TYPES = {
    "SECP256K1_MINT": "mint",
    "NFT_MINT": "mint",
    "PROPERTY_MINT": "mint",
}
_NFT_OUTPUTS = ("NFT", "NFT_MINT")


class Assets:
    """Asset facts by id: AVAX (created in the genesis), the indexed assets, and for an asset
    the index did not see created (another genesis asset) its id as its name."""

    def __init__(self, avax_asset: str, known: Mapping[str, XAsset]) -> None:
        self.avax_asset = avax_asset
        self.known = known

    def meta(self, asset_id: str) -> Json:
        if asset_id == self.avax_asset:
            return dict(AVAX)
        a = self.known.get(asset_id)
        if a is None:
            return {**AVAX, "name": asset_id, "symbol": ""}
        kind = "secp256k1" if a.fungible else "nft"
        return {"name": a.name, "symbol": a.symbol, "denomination": a.denomination, "type": kind}

    def amount(self, asset_id: str, amount: int | str) -> Json:
        return {"assetId": asset_id, **self.meta(asset_id), "amount": str(amount)}

    def details(self, a: XAsset) -> Json:
        return {
            "assetId": a.asset_id,
            **self.meta(a.asset_id),
            "createdAtTimestamp": a.timestamp,
            "cap": a.cap,
        }


def utxo(assets: Assets, xchain: str, u: XUtxo) -> Json:
    out: Json = {
        "addresses": list(u.addresses),
        "asset": assets.amount(u.asset_id, u.amount),
        "consumedOnChainId": u.consumed_on,
        "createdOnChainId": xchain,
        "utxoId": u.utxo_id,
        "utxoBytes": u.utxo_bytes,
        "creationTxHash": u.tx_id,
        "locktime": u.locktime,
        "outputIndex": str(u.output_index),
        "threshold": u.threshold,
        "timestamp": u.timestamp,
        "utxoType": _UTXO_TYPES.get(u.output_type, "transfer"),
    }
    if u.output_type in _NFT_OUTPUTS:
        out["asset"]["type"] = "nft"
    if u.consuming_tx is not None:
        out["consumingTxHash"] = u.consuming_tx
        out["consumingTxTimestamp"] = u.consuming_timestamp
    return out


def sums(assets: Assets, utxos: Iterable[XUtxo]) -> list[Json]:
    """AssetAmount per asset of these UTXOs, in asset order."""
    totals: dict[str, int] = {}
    for u in utxos:
        totals[u.asset_id] = totals.get(u.asset_id, 0) + int(u.amount)
    return [assets.amount(a, v) for a, v in sorted(totals.items())]


def transaction(
    assets: Assets,
    xchain: str,
    tx: XTx,
    emitted: list[XUtxo],
    consumed: list[XUtxo],
    places: list[XPlaceRow],
) -> Json:
    out: Json = {
        "txHash": tx.tx_id,
        "timestamp": tx.timestamp,
        "txType": tx.tx_type,
        "memo": tx.memo,
        "consumedUtxos": [utxo(assets, xchain, u) for u in consumed],
        "emittedUtxos": [utxo(assets, xchain, u) for u in emitted],
        "amountUnlocked": sums(assets, consumed),
        "amountCreated": sums(assets, emitted),
    }
    if tx.source_chain is not None:
        out["sourceChain"] = tx.source_chain
    if tx.destination_chain is not None:
        out["destinationChain"] = tx.destination_chain
    created = assets.known.get(tx.tx_id) if tx.tx_type == "CreateAssetTx" else None
    if created is not None:
        out["assetCreated"] = assets.details(created)
    block = next((p for p in places if p.kind == "block"), None)
    if block is not None:
        out.update(chainFormat="linear", blockHeight=block.height, blockHash=block.container_id)
    else:
        out["chainFormat"] = "non-linear"
        out["vertices"] = [
            {"hash": p.container_id, "height": p.height, "timestamp": p.timestamp} for p in places
        ]
    return out
