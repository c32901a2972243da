"""Response and request schemas of the primary network's address operations (balances, UTXOs,
activity, transactions), closed as the real service's models are."""

from __future__ import annotations

from snowfield.api.primary.balances import P_KINDS
from snowfield.api.primary.c_schemas import C_COMPONENTS
from snowfield.api.primary.x_schemas import X_COMPONENTS
from snowfield.api.schemas import N, S, Schema, array, enum, obj, ref

B: Schema = {"type": "boolean"}
_CHAIN_INFO = obj(
    {
        "chainName": enum("p-chain", "x-chain", "c-chain"),
        "network": enum("mainnet", "fuji", "testnet"),
    }
)
_AGGREGATED = ref("AggregatedAssetAmount")

PRIMARY_ADDRESS_COMPONENTS: dict[str, Schema] = {
    "AggregatedAssetAmount": obj(
        {
            "assetId": S,
            "name": S,
            "symbol": S,
            "denomination": N,
            "type": enum("secp256k1", "nft"),
            "amount": S,
            "utxoCount": N,
        }
    ),
    "PChainBalance": obj(
        {
            kind: array(ref("PChainSharedAsset") if kind.startswith("atomic") else _AGGREGATED)
            for kind in P_KINDS
        }
    ),
    "PChainSharedAsset": obj(
        {
            "assetId": S,
            "name": S,
            "symbol": S,
            "denomination": N,
            "type": enum("secp256k1", "nft"),
            "amount": S,
            "utxoCount": N,
            "sharedWithChainId": S,
            "status": S,
        }
    ),
    "ListPChainBalancesResponse": obj({"balances": ref("PChainBalance"), "chainInfo": _CHAIN_INFO}),
    "ListPChainUtxosResponse": obj(
        {"utxos": array(ref("PChainUtxo")), "chainInfo": _CHAIN_INFO}, {"nextPageToken": S}
    ),
    "ListPChainTransactionsResponse": obj(
        {"transactions": array(ref("PChainTransaction")), "chainInfo": _CHAIN_INFO},
        {"nextPageToken": S},
    ),
    "LastActivityTimestamp": obj(
        {
            "timestamp": N,
            "blockNumber": S,
            "txHash": S,
            "utxoId": S,
            "isConsumed": B,
            "chainName": enum("p-chain", "x-chain", "c-chain"),
            "network": enum("mainnet", "fuji"),
        }
    ),
    "ChainAddressChainIdMapListResponse": obj(
        {"addresses": array(obj({"address": S, "blockchainIds": array(S)}))}
    ),
    "PrimaryNetworkAddressesBodyDto": obj({"addresses": S}),
    **X_COMPONENTS,
    **C_COMPONENTS,
}
