"""Response schemas of the X-Chain's resources (Utxo, XChainBalances, the linear and
non-linear XChainTransaction, XChainAssetDetails) and the unions the address operations
answer with on the P- or the X-Chain, closed as the real service's models are.

The real document writes the unions as oneOf; here they are anyOf: an empty list matches each
member (an empty `utxos` is both a P-Chain and an X-Chain page), and oneOf would then refuse it."""

from __future__ import annotations

from snowfield.api.schemas import N, S, Schema, array, enum, obj, ref

_CHAIN_INFO = obj(
    {
        "chainName": enum("p-chain", "x-chain", "c-chain"),
        "network": enum("mainnet", "fuji", "testnet"),
    }
)
_ASSET_FIELDS: dict[str, Schema] = {
    "assetId": S,
    "name": S,
    "symbol": S,
    "denomination": N,
    "type": enum("secp256k1", "nft"),
}
_TX_COMMON: dict[str, Schema] = {
    "txHash": S,
    "chainFormat": enum("non-linear", "linear"),
    "timestamp": N,
    "txType": enum("BaseTx", "CreateAssetTx", "OperationTx", "ImportTx", "ExportTx", "UNKNOWN"),
    "memo": S,
    "consumedUtxos": array(ref("Utxo")),
    "emittedUtxos": array(ref("Utxo")),
    "amountUnlocked": array(ref("AssetAmount")),
    "amountCreated": array(ref("AssetAmount")),
}
_TX_OPTIONAL: dict[str, Schema] = {
    "sourceChain": S,
    "destinationChain": S,
    "assetCreated": ref("XChainAssetDetails"),
}


def _any(*names: str) -> Schema:
    return {"anyOf": [ref(n) for n in names]}


X_COMPONENTS: dict[str, Schema] = {
    "Utxo": obj(
        {
            "addresses": array(S),
            "asset": ref("AssetAmount"),
            "consumedOnChainId": S,
            "createdOnChainId": S,
            "utxoId": S,
            "creationTxHash": S,
            "locktime": N,
            "outputIndex": S,
            "threshold": N,
            "timestamp": N,
            "utxoType": S,
        },
        {
            "consumingTxHash": S,
            "utxoBytes": S,
            "consumingTxTimestamp": N,
            "groupId": N,
            "payload": S,
        },
    ),
    "XChainSharedAssetBalance": obj(
        {**_ASSET_FIELDS, "amount": S, "utxoCount": N, "sharedWithChainId": S}
    ),
    "XChainBalances": obj(
        {
            "locked": array(ref("AggregatedAssetAmount")),
            "unlocked": array(ref("AggregatedAssetAmount")),
            "atomicMemoryUnlocked": array(ref("XChainSharedAssetBalance")),
            "atomicMemoryLocked": array(ref("XChainSharedAssetBalance")),
        }
    ),
    "ListXChainBalancesResponse": obj(
        {"balances": ref("XChainBalances"), "chainInfo": _CHAIN_INFO}
    ),
    "ListUtxosResponse": obj(
        {"utxos": array(ref("Utxo")), "chainInfo": _CHAIN_INFO}, {"nextPageToken": S}
    ),
    "XChainAssetDetails": obj(
        {**_ASSET_FIELDS, "createdAtTimestamp": N, "cap": enum("fixed", "variable")}
    ),
    "XChainLinearTransaction": obj({**_TX_COMMON, "blockHeight": N, "blockHash": S}, _TX_OPTIONAL),
    "XChainNonLinearTransaction": obj(
        {
            **_TX_COMMON,
            "vertices": array(obj({"hash": S, "height": N, "timestamp": N})),
        },
        _TX_OPTIONAL,
    ),
    "ListXChainTransactionsResponse": obj(
        {
            "transactions": array(_any("XChainNonLinearTransaction", "XChainLinearTransaction")),
            "chainInfo": _CHAIN_INFO,
        },
        {"nextPageToken": S},
    ),
    "CChainAtomicBalances": obj(
        {
            "atomicMemoryUnlocked": array(ref("XChainSharedAssetBalance")),
            "atomicMemoryLocked": array(ref("XChainSharedAssetBalance")),
        }
    ),
    "ListCChainAtomicBalancesResponse": obj(
        {"balances": ref("CChainAtomicBalances"), "chainInfo": _CHAIN_INFO}
    ),
    "PrimaryNetworkBalancesResponse": _any(
        "ListPChainBalancesResponse",
        "ListXChainBalancesResponse",
        "ListCChainAtomicBalancesResponse",
    ),
    "PrimaryNetworkUtxosResponse": _any("ListPChainUtxosResponse", "ListUtxosResponse"),
    "PrimaryNetworkTransaction": _any(
        "PChainTransaction",
        "XChainNonLinearTransaction",
        "XChainLinearTransaction",
        "CChainExportTransaction",
        "CChainImportTransaction",
    ),
    "PrimaryNetworkTransactionsResponse": _any(
        "ListPChainTransactionsResponse",
        "ListXChainTransactionsResponse",
        "ListCChainAtomicTransactionsResponse",
    ),
}
