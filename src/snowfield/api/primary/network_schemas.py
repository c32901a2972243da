"""JSON schemas of the P-Chain's blocks, validators, delegators, L1 validators, paid rewards,
blockchains and network totals: OpenAPI components beside api/schemas.py's, closed."""

from __future__ import annotations

from snowfield.api.schemas import N, S, Schema, array, enum, obj, ref

F: Schema = {"type": "number"}  # a fraction (percentages)


def _page(name: str, item: Schema, extra: dict[str, Schema] | None = None) -> Schema:
    return obj({**(extra or {}), name: array(item)}, {"nextPageToken": S})


def _one_of(*names: str) -> Schema:
    return {"oneOf": [ref(n) for n in names]}


_BLOCK = obj(
    {
        "blockNumber": S,
        "blockHash": S,
        "parentHash": S,
        "blockTimestamp": N,
        "blockType": S,
        "txCount": N,
        "transactions": array(S),
        "blockSizeBytes": N,
    },
    {
        "l1ValidatorsAccruedFees": N,
        "activeL1Validators": N,
        "currentSupply": S,
        "proposerDetails": ref("ProposerDetails"),
    },
)
_STAKER = {
    "txHash": S,
    "nodeId": S,
    "subnetId": S,
    "amountStaked": S,
    "startTimestamp": N,
    "endTimestamp": N,
}
_STAKER_OPTIONAL = {"delegationFee": S, "blsCredentials": ref("BlsCredentials")}
_DELEGATOR = {
    "txHash": S,
    "nodeId": S,
    "rewardAddresses": array(S),
    "amountDelegated": S,
    "delegationFee": S,
    "startTimestamp": N,
    "endTimestamp": N,
}
_OWNER = obj({"addresses": array(S), "threshold": N})
_CHAIN_INFO = obj({"chainName": enum("p-chain", "x-chain", "c-chain"), "network": S})

NETWORK_COMPONENTS: dict[str, Schema] = {
    "ProposerDetails": obj(
        {},
        {
            "proposerId": S,
            "proposerParentId": S,
            "proposerNodeId": S,
            "proposerPChainHeight": N,
            "proposerTimestamp": N,
        },
    ),
    "PrimaryNetworkBlock": _BLOCK,
    "GetPrimaryNetworkBlockResponse": _BLOCK,
    "ListPrimaryNetworkBlocksResponse": _page(
        "blocks", ref("PrimaryNetworkBlock"), {"chainInfo": _CHAIN_INFO}
    ),
    "BlsCredentials": obj({"publicKey": S, "proofOfPossession": S}),
    "Rewards": obj(
        {"validationRewardAmount": S, "delegationRewardAmount": S},
        {"rewardAddresses": array(S), "rewardTxHash": S},
    ),
    "ValidatorHealthDetails": obj(
        {
            "reachabilityPercent": F,
            "benchedPChainRequestsPercent": F,
            "benchedXChainRequestsPercent": F,
            "benchedCChainRequestsPercent": F,
        }
    ),
    "ActiveValidatorDetails": obj(
        {
            **_STAKER,
            "stakePercentage": F,
            "delegatorCount": N,
            "uptimePerformance": F,
            "potentialRewards": ref("Rewards"),
            "validationStatus": enum("active"),
            "validatorHealth": ref("ValidatorHealthDetails"),
            # Required and nullable in the client: no geolocation source, always null.
            "geolocation": {"type": "null"},
        },
        {
            **_STAKER_OPTIONAL,
            "amountDelegated": S,
            "avalancheGoVersion": S,
            "delegationCapacity": S,
        },
    ),
    "CompletedValidatorDetails": obj(
        {
            **_STAKER,
            "delegatorCount": N,
            "rewards": ref("Rewards"),
            "validationStatus": enum("completed"),
        },
        {**_STAKER_OPTIONAL, "amountDelegated": S},
    ),
    "PendingValidatorDetails": obj(
        {**_STAKER, "validationStatus": enum("pending")}, _STAKER_OPTIONAL
    ),
    "RemovedValidatorDetails": obj(
        {**_STAKER, "removeTxHash": S, "removeTimestamp": N, "validationStatus": enum("removed")},
        _STAKER_OPTIONAL,
    ),
    "ListValidatorDetailsResponse": _page(
        "validators",
        _one_of(
            "CompletedValidatorDetails",
            "ActiveValidatorDetails",
            "PendingValidatorDetails",
            "RemovedValidatorDetails",
        ),
    ),
    "CompletedDelegatorDetails": obj(
        {**_DELEGATOR, "grossReward": S, "netReward": S, "delegationStatus": enum("completed")}
    ),
    "ActiveDelegatorDetails": obj(
        {
            **_DELEGATOR,
            "estimatedGrossReward": S,
            "estimatedNetReward": S,
            "delegationStatus": enum("active"),
        }
    ),
    "PendingDelegatorDetails": obj(
        {
            **_DELEGATOR,
            "estimatedGrossReward": S,
            "estimatedNetReward": S,
            "delegationStatus": enum("pending"),
        }
    ),
    "ListDelegatorDetailsResponse": _page(
        "delegators",
        _one_of("CompletedDelegatorDetails", "ActiveDelegatorDetails", "PendingDelegatorDetails"),
    ),
    "L1ValidatorDetailsFull": obj(
        {
            "validationId": S,
            "validationIdHex": S,
            "nodeId": S,
            "subnetId": S,
            "weight": N,
            "remainingBalance": N,
            "creationTimestamp": N,
            "blsCredentials": obj({}, {"publicKey": S}),
            "remainingBalanceOwner": _OWNER,
            "deactivationOwner": _OWNER,
        }
    ),
    "ListL1ValidatorsResponse": _page(
        "validators", ref("L1ValidatorDetailsFull"), {"blockHeight": S}
    ),
    "HistoricalReward": obj(
        {
            "addresses": array(S),
            "txHash": S,
            "amountStaked": S,
            "nodeId": S,
            "startTimestamp": N,
            "endTimestamp": N,
            "rewardType": enum("VALIDATOR", "DELEGATOR", "VALIDATOR_FEE"),
            "utxoId": S,
            "outputIndex": N,
            "reward": ref("AssetAmount"),
            "rewardTxHash": S,
        }
    ),
    "ListHistoricalRewardsResponse": _page("historicalRewards", ref("HistoricalReward")),
    "ListBlockchainsResponse": _page("blockchains", ref("Blockchain")),
    "GetNetworkDetailsResponse": obj(
        {
            "validatorDetails": obj(
                {
                    "validatorCount": N,
                    "totalAmountStaked": S,
                    "estimatedAnnualStakingReward": S,
                    "stakingDistributionByVersion": array(
                        obj({"version": S, "amountStaked": S, "validatorCount": N})
                    ),
                    "stakingRatio": S,
                }
            ),
            "delegatorDetails": obj({"delegatorCount": N, "totalAmountStaked": S}),
        }
    ),
}
