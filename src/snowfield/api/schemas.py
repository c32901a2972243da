"""JSON schemas of every response body (OpenAPI components), closed so that drift fails tests."""

from __future__ import annotations

from typing import Any

from snowfield.api.render import FEATURES
from snowfield.store.curation import RESOURCE_LINK_TYPES
from snowfield.store.documents import ERC_TYPES, INTERNAL_TX_TYPES

Schema = dict[str, Any]

S: Schema = {"type": "string"}
N: Schema = {"type": "integer"}
B: Schema = {"type": "boolean"}
# The spec's lower-case spelling of the clients' closed indexStatus set.
INDEX_STATUSES = (
    "unknown",
    "missing_token",
    "invalid_token_uri",
    "invalid_token_uri_scheme",
    "unreachable_token_uri",
    "throttled_token_uri",
    "metadata_content_too_large",
    "invalid_metadata",
    "invalid_metadata_json",
    "indexed",
    "unindexed",
)


def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def array(item: Schema) -> Schema:
    return {"type": "array", "items": item}


def enum(*values: str) -> Schema:
    return {"type": "string", "enum": list(values)}


def obj(required: dict[str, Schema], optional: dict[str, Schema] | None = None) -> Schema:
    return {
        "type": "object",
        "required": list(required),
        "properties": {**required, **(optional or {})},
        "additionalProperties": False,
    }


def _page(name: str, item: Schema, extra: dict[str, Schema] | None = None) -> Schema:
    return obj({**(extra or {}), name: array(item)}, {"nextPageToken": S})


_ANY_OBJECT: Schema = {"type": "object"}
_ICM_COMMON: dict[str, Schema] = {
    "messageId": S,
    "icmContractAddress": S,
    "sourceBlockchainId": S,
    "destinationBlockchainId": S,
    "messageNonce": S,
    "from": S,
    "to": S,
    "messageExecuted": B,
    "receipts": array(obj({"receivedMessageNonce": S, "relayerRewardAddress": S})),
    "receiptDelivered": B,
    "rewardDetails": obj(
        {
            "address": S,
            "name": S,
            "symbol": S,
            "decimals": N,
            "ercType": enum("ERC-20"),
            "value": S,
        },
        {"logoUri": S},  # no price source here: `price` is never sent
    ),
}
# The EVM chain id of a side this index does not hold is left out (see api/icm.py).
_ICM_OPTIONAL: dict[str, Schema] = {"sourceEvmChainId": S, "destinationEvmChainId": S, "data": S}
_SOURCE_TX = obj({"txHash": S, "timestamp": N, "gasSpent": S})
_DESTINATION_TX = obj(
    {"txHash": S, "timestamp": N, "gasSpent": S, "rewardRedeemer": S, "delivererAddress": S}
)
ICM: dict[str, Schema] = {
    "PendingIcmMessage": obj(
        {**_ICM_COMMON, "sourceTransaction": _SOURCE_TX, "status": enum("pending")},
        _ICM_OPTIONAL,
    ),
    "DeliveredIcmMessage": obj(
        {
            **_ICM_COMMON,
            "sourceTransaction": _SOURCE_TX,
            "destinationTransaction": _DESTINATION_TX,
            "status": enum("delivered"),
        },
        _ICM_OPTIONAL,
    ),
    "DeliveredSourceNotIndexedIcmMessage": obj(
        {
            **_ICM_COMMON,
            "destinationTransaction": _DESTINATION_TX,
            "status": enum("delivered_source_not_indexed"),
        },
        _ICM_OPTIONAL,
    ),
    "IcmMessage": {
        "oneOf": [
            {"$ref": "#/components/schemas/PendingIcmMessage"},
            {"$ref": "#/components/schemas/DeliveredIcmMessage"},
            {"$ref": "#/components/schemas/DeliveredSourceNotIndexedIcmMessage"},
        ],
        "discriminator": {"propertyName": "status"},
    },
    "ListIcmMessagesResponse": obj(
        {"messages": array({"$ref": "#/components/schemas/IcmMessage"})}, {"nextPageToken": S}
    ),
}
_OWNERSHIP = obj({"locktime": N, "threshold": N, "addresses": array(S)})
_MANAGER = obj({"blockchainId": S, "contractAddress": S})
_BLS = obj({"publicKey": S, "proofOfPossession": S})
_CHAIN_INFO = obj(
    {
        "chainName": enum("p-chain", "x-chain", "c-chain"),
        "network": enum("mainnet", "fuji", "testnet"),
    }
)
_REWARD_TYPES = ("VALIDATOR", "DELEGATOR", "VALIDATOR_FEE")
PRIMARY_NETWORK: dict[str, Schema] = {
    "AssetAmount": obj(
        {
            "assetId": S,
            "name": S,
            "symbol": S,
            "denomination": N,
            "type": enum("secp256k1", "nft"),
            "amount": S,
        }
    ),
    "PChainUtxo": obj(
        {
            "addresses": array(S),
            "asset": ref("AssetAmount"),
            "consumedOnChainId": S,
            "createdOnChainId": S,
            "utxoId": S,
            "amount": S,
            "assetId": S,
            "blockNumber": S,
            "blockTimestamp": N,
            "outputIndex": N,
            "txHash": S,
            "utxoType": enum("STAKE", "TRANSFER"),
        },
        {
            "consumingTxHash": S,
            "consumingBlockNumber": S,
            "consumingBlockTimestamp": N,
            "utxoBytes": S,
            "platformLocktime": N,
            "stakeableLocktime": N,
            "threshold": N,
            "utxoStartTimestamp": N,
            "utxoEndTimestamp": N,
            "rewardType": enum(*_REWARD_TYPES),
            "staked": B,
        },
    ),
    "PChainTransaction": obj(
        {
            "txHash": S,
            "txType": S,
            "blockTimestamp": N,
            "blockNumber": S,
            "blockHash": S,
            "consumedUtxos": array(ref("PChainUtxo")),
            "emittedUtxos": array(ref("PChainUtxo")),
            "value": array(ref("AssetAmount")),
            "amountBurned": array(ref("AssetAmount")),
            "amountStaked": array(ref("AssetAmount")),
            "amountL1ValidatorBalanceBurned": array(ref("AssetAmount")),
        },
        {
            "sourceChain": S,
            "destinationChain": S,
            "startTimestamp": N,
            "endTimestamp": N,
            "delegationFeePercent": S,
            "nodeId": S,
            "subnetId": S,
            "l1ValidatorManagerDetails": _MANAGER,
            "l1ValidatorDetails": array(
                obj(
                    {"weight": N, "remainingBalance": N},
                    {
                        "validationId": S,
                        "validationIdHex": S,
                        "nodeId": S,
                        "subnetId": S,
                        "balanceChange": N,
                        "blsCredentials": _ANY_OBJECT,
                    },
                )
            ),
            "estimatedReward": S,
            "rewardTxHash": S,
            "rewardAddresses": array(S),
            "memo": S,
            "stakingTxHash": S,
            "subnetOwnershipInfo": _OWNERSHIP,
            "blsCredentials": _BLS,
            "blockchainInfo": obj({"chainName": S, "vmId": S}, {"genesisData": _ANY_OBJECT}),
        },
    ),
    "PendingReward": obj(
        {
            "addresses": array(S),
            "txHash": S,
            "amountStaked": S,
            "nodeId": S,
            "startTimestamp": N,
            "endTimestamp": N,
            "rewardType": enum(*_REWARD_TYPES),
            "progress": {"type": "number"},
            "estimatedReward": ref("AssetAmount"),
        }
    ),
    "Blockchain": obj(
        {
            "createBlockTimestamp": N,
            "createBlockNumber": S,
            "blockchainId": S,
            "vmId": S,
            "subnetId": S,
            "blockchainName": S,
        },
        {"evmChainId": N, "genesisData": _ANY_OBJECT},
    ),
    "Subnet": obj(
        {
            "createBlockTimestamp": N,
            "createBlockIndex": S,
            "subnetId": S,
            "ownerAddresses": array(S),
            "threshold": N,
            "locktime": N,
            "subnetOwnershipInfo": _OWNERSHIP,
            "isL1": B,
            "blockchains": array(ref("Blockchain")),
        },
        {"l1ConversionTransactionHash": S, "l1ValidatorManagerDetails": _MANAGER},
    ),
    "ListStakingTransactionsResponse": _page(
        "transactions", ref("PChainTransaction"), {"chainInfo": _CHAIN_INFO}
    ),
    "ListPendingRewardsResponse": _page("pendingRewards", ref("PendingReward")),
    "ListSubnetsResponse": _page("subnets", ref("Subnet")),
    "XChainVertex": obj(
        {
            "vertexHash": S,
            "parentHashes": array(S),
            "vertexHeight": N,
            "vertexIndex": N,
            "vertexTimestamp": N,
            "txCount": N,
            "transactions": array(S),
            "vertexSizeBytes": N,
        }
    ),
    "ListXChainVerticesResponse": _page(
        "vertices", ref("XChainVertex"), {"chainInfo": _CHAIN_INFO}
    ),
}

_BLOCK_FIELDS = {"blockNumber": S, "blockTimestamp": N, "blockHash": S, "txHash": S}
_PARTIES = {"from": ref("RichAddress"), "to": ref("RichAddress"), "logIndex": N}
_NFT_STRING_NAMES = ("name", "symbol", "imageUri", "description", "animationUri", "externalUrl")
_NFT_STRINGS = {k: S for k in (*_NFT_STRING_NAMES, "background")}
_ERC721_TOKEN = {
    "address": S,
    "name": S,
    "symbol": S,
    "ercType": enum("ERC-721"),
    "tokenId": S,
    "tokenUri": S,
    "metadata": ref("Erc721TokenMetadata"),
}

COMPONENTS: dict[str, Schema] = {
    "SignedMessage": obj({"signedMessage": S}),
    "AggregateSignaturesRequest": obj(
        {},
        {
            "message": S,
            "justification": S,
            "signingSubnetId": S,
            "quorumPercentage": N,
            "quorumPercentageBuffer": N,
            "pChainHeight": N,
        },
    ),
    "Error": obj(
        {"message": {"oneOf": [S, array(S)]}, "statusCode": N, "error": S},
    ),
    "RichAddress": obj({"address": S}, {"name": S, "symbol": S, "decimals": N, "logoUri": S}),
    "Method": obj(
        {
            "callType": enum("NATIVE_TRANSFER", "CONTRACT_CALL", "CONTRACT_CREATION"),
            "methodHash": S,
        },
        {"methodName": S},
    ),
    "NativeTransaction": obj(
        {
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
        },
        {"method": ref("Method")},
    ),
    "Erc20Token": obj(
        {"address": S, "name": S, "symbol": S, "decimals": N, "ercType": enum("ERC-20")},
        {"logoUri": S},
    ),
    "Erc721TokenMetadata": obj(
        {"indexStatus": enum(*INDEX_STATUSES)},
        {"metadataLastUpdatedTimestamp": N, **_NFT_STRINGS, "attributes": S},
    ),
    "Erc1155TokenMetadata": obj(
        {"indexStatus": enum(*INDEX_STATUSES)},
        {"metadataLastUpdatedTimestamp": N, **_NFT_STRINGS, "decimals": N, "properties": S},
    ),
    "Erc721Token": obj(_ERC721_TOKEN, {"ownerAddress": S}),
    "Erc1155Token": obj(
        {
            "address": S,
            "ercType": enum("ERC-1155"),
            "tokenId": S,
            "tokenUri": S,
            "metadata": ref("Erc1155TokenMetadata"),
        }
    ),
    "Erc20TransferDetails": obj({**_PARTIES, "value": S, "erc20Token": ref("Erc20Token")}),
    "Erc721TransferDetails": obj({**_PARTIES, "erc721Token": ref("Erc721Token")}),
    "Erc1155TransferDetails": obj({**_PARTIES, "value": S, "erc1155Token": ref("Erc1155Token")}),
    "InternalTransactionDetails": obj(
        {
            "from": ref("RichAddress"),
            "to": ref("RichAddress"),
            "internalTxType": enum(*sorted(INTERNAL_TX_TYPES)),
            "value": S,
            "isReverted": B,
            "gasUsed": S,
            "gasLimit": S,
        }
    ),
    "TransactionDetails": obj(
        {"nativeTransaction": ref("NativeTransaction")},
        {
            "erc20Transfers": array(ref("Erc20TransferDetails")),
            "erc721Transfers": array(ref("Erc721TransferDetails")),
            "erc1155Transfers": array(ref("Erc1155TransferDetails")),
            "internalTransactions": array(ref("InternalTransactionDetails")),
        },
    ),
    "Erc20Transfer": obj(
        {**_BLOCK_FIELDS, **_PARTIES, "value": S, "erc20Token": ref("Erc20Token")}
    ),
    "Erc721Transfer": obj({**_BLOCK_FIELDS, **_PARTIES, "erc721Token": ref("Erc721Token")}),
    "NativeTokenBalance": obj(
        {"name": S, "symbol": S, "decimals": N, "chainId": S, "balance": S}, {"logoUri": S}
    ),
    "Erc721TokenBalance": obj({**_ERC721_TOKEN, "chainId": S}, {"ownerAddress": S}),
    "NetworkToken": obj({"name": S, "symbol": S, "decimals": N}, {"logoUri": S, "description": S}),
    "ChainInfo": obj(
        {
            "chainId": S,
            "status": enum("OK", "UNAVAILABLE"),
            "chainName": S,
            "description": S,
            "vmName": enum("EVM", "BITCOIN", "ETHEREUM"),
            "rpcUrl": S,
            "isTestnet": B,
            "networkToken": ref("NetworkToken"),
        },
        {
            "platformChainId": S,
            "subnetId": S,
            "vmId": S,
            "explorerUrl": S,
            "wsUrl": S,
            "chainLogoUri": S,
            "utilityAddresses": obj({}, {"multicall": S}),
            "private": B,
            "enabledFeatures": array(enum(*FEATURES)),
        },
    ),
    "ImageAsset": obj({}, {"assetId": S, "imageUri": S}),
    "ResourceLink": obj({"type": enum(*sorted(RESOURCE_LINK_TYPES)), "url": S}),
    "DeploymentDetails": obj({"txHash": S, "deployerAddress": S}, {"deployerContractAddress": S}),
    # ERC-20 contracts always carry `decimals` as well (the clients' union requires it).
    "ContractMetadata": obj(
        {"address": S, "ercType": enum(*ERC_TYPES, "UNKNOWN")},
        {
            "name": S,
            "description": S,
            "officialSite": S,
            "email": S,
            "logoAsset": ref("ImageAsset"),
            "bannerAsset": ref("ImageAsset"),
            "color": S,
            "resourceLinks": array(ref("ResourceLink")),
            "tags": array(S),
            "deploymentDetails": ref("DeploymentDetails"),
            "symbol": S,
            "decimals": N,
        },
    ),
    "ListChainsResponse": obj({"chains": array(ref("ChainInfo"))}),
    "ListTransactionsResponse": _page("transactions", ref("TransactionDetails")),
    "ListErc20TransactionsResponse": _page("transactions", ref("Erc20Transfer")),
    "ListErc721TransactionsResponse": _page("transactions", ref("Erc721Transfer")),
    "ListErc721BalancesResponse": _page(
        "erc721TokenBalances",
        ref("Erc721TokenBalance"),
        {"nativeTokenBalance": ref("NativeTokenBalance")},
    ),
    "ListBlockTransactionsResponse": _page("transactions", ref("NativeTransaction")),
    "ListContractsResponse": _page("contracts", ref("ContractMetadata")),
    **PRIMARY_NETWORK,
    **ICM,
}
