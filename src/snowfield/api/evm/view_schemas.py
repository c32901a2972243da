"""JSON schemas of the blocks, transactions (the complete view), feeds, token transfers and NFT
collections the EVM operations return: OpenAPI components beside api/schemas.py's, closed."""

from __future__ import annotations

from snowfield.api.schemas import N, S, Schema, array, enum, obj, ref

_GRANITE = {"blockTimestampMilliseconds": N, "blockMinDelayExcess": N}
_BLOCK_FIELDS = {"blockNumber": S, "blockTimestamp": N, "blockHash": S, "txHash": S}
_PARTIES = {"from": ref("RichAddress"), "to": ref("RichAddress"), "logIndex": N}
# NativeTransaction's fields, which the complete view's nativeTransaction extends.
_NATIVE = {
    "blockNumber": S,
    "blockTimestamp": N,
    "blockHash": S,
    "chainId": S,
    "blockIndex": N,
    "txHash": S,
    "txStatus": enum("0", "1"),
    "txType": N,
    "gasLimit": S,
    "gasUsed": S,
    "gasPrice": S,
    "nonce": S,
    "from": ref("RichAddress"),
    "to": ref("RichAddress"),
    "value": S,
}


def _page(name: str, item: Schema) -> Schema:
    return obj({name: array(item)}, {"nextPageToken": S})


def _one_of(*names: str) -> Schema:
    return {"oneOf": [ref(n) for n in names]}


VIEW_COMPONENTS: dict[str, Schema] = {
    "EvmBlock": obj(
        {
            "chainId": S,
            "blockNumber": S,
            "blockTimestamp": N,
            "blockHash": S,
            "txCount": N,
            "baseFee": S,
            "gasUsed": S,
            "gasLimit": S,
            "gasCost": S,
            "parentHash": S,
            "feesSpent": S,
            "cumulativeTransactions": S,
        },
        _GRANITE,
    ),
    "ListEvmBlocksResponse": _page("blocks", ref("EvmBlock")),
    "ListNativeTransactionsResponse": _page("transactions", ref("NativeTransaction")),
    "FullNativeTransactionDetails": obj(
        {**_NATIVE, "input": S, "baseFeePerGas": S},
        {**_GRANITE, "method": ref("Method"), "maxFeePerGas": S, "maxPriorityFeePerGas": S},
    ),
    "NetworkTokenDetails": obj({"networkToken": ref("NetworkToken")}),
    "TeleporterMessageInfo": obj(
        {
            "teleporterMessageId": S,
            "direction": enum("SOURCE_TRANSACTION", "DESTINATION_TRANSACTION"),
        },
        {"sourceChainId": S, "destinationChainId": S},
    ),
    # Ours, beyond the real service's view (its clients drop them): the receipt's logs and
    # the receipt fields the transaction's own fields do not carry.
    "TransactionLog": obj({"logIndex": N, "address": S, "topics": array(S), "data": S}),
    "TransactionReceipt": obj(
        {"status": enum("0", "1"), "gasUsed": S, "cumulativeGasUsed": S, "effectiveGasPrice": S},
        {"contractAddress": S},
    ),
    "GetTransactionResponse": obj(
        {
            "nativeTransaction": ref("FullNativeTransactionDetails"),
            "networkTokenDetails": ref("NetworkTokenDetails"),
            "erc20Transfers": array(ref("Erc20TransferDetails")),
            "erc721Transfers": array(ref("Erc721TransferDetails")),
            "erc1155Transfers": array(ref("Erc1155TransferDetails")),
            "internalTransactions": array(ref("InternalTransactionDetails")),
            "logs": array(ref("TransactionLog")),
            "receipt": ref("TransactionReceipt"),
        },
        {"teleporterMessageInfo": ref("TeleporterMessageInfo")},
    ),
    "Erc1155Transfer": obj(
        {**_BLOCK_FIELDS, **_PARTIES, "value": S, "erc1155Token": ref("Erc1155Token")}
    ),
    "ListTransfersResponse": _page(
        "transfers", _one_of("Erc20Transfer", "Erc721Transfer", "Erc1155Transfer")
    ),
    "NftToken": _one_of("Erc721Token", "Erc1155Token"),
    "ListNftTokens": _page("tokens", ref("NftToken")),
}
