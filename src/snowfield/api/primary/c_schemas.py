"""Response schemas of the C-Chain's atomic resources (CChainExportTransaction,
CChainImportTransaction and their EVM inputs and outputs), closed as the real service's models
are. Their UTXOs are the X-Chain's Utxo model (x_schemas.py)."""

from __future__ import annotations

from snowfield.api.schemas import N, S, Schema, array, enum, obj, ref

_CHAIN_INFO = obj(
    {
        "chainName": enum("p-chain", "x-chain", "c-chain"),
        "network": enum("mainnet", "fuji", "testnet"),
    }
)
_COMMON: dict[str, Schema] = {
    "txHash": S,
    "blockHeight": N,
    "blockHash": S,
    "timestamp": N,
    "memo": S,
    "amountUnlocked": array(ref("AssetAmount")),
    "amountCreated": array(ref("AssetAmount")),
    "sourceChain": S,
    "destinationChain": S,
}

C_COMPONENTS: dict[str, Schema] = {
    "UtxoCredential": obj({}, {"signature": S, "publicKey": S}),
    "EVMInput": obj(
        {"fromAddress": S, "asset": ref("AssetAmount"), "credentials": array(ref("UtxoCredential"))}
    ),
    "EVMOutput": obj({"toAddress": S, "asset": ref("AssetAmount")}),
    "CChainExportTransaction": obj(
        {
            **_COMMON,
            "txType": enum("ExportTx"),
            "evmInputs": array(ref("EVMInput")),
            "emittedUtxos": array(ref("Utxo")),
        }
    ),
    "CChainImportTransaction": obj(
        {
            **_COMMON,
            "txType": enum("ImportTx"),
            "evmOutputs": array(ref("EVMOutput")),
            "consumedUtxos": array(ref("Utxo")),
        }
    ),
    "ListCChainAtomicTransactionsResponse": obj(
        {
            "transactions": array(
                {"anyOf": [ref("CChainExportTransaction"), ref("CChainImportTransaction")]}
            ),
            "chainInfo": _CHAIN_INFO,
        },
        {"nextPageToken": S},
    ),
}
