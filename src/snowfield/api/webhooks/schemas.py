"""JSON schemas of the webhook operations' bodies (chainkit's models), and of our delivery log."""

from __future__ import annotations

from snowfield.api.schemas import B, N, S, Schema, array, enum, obj, ref

STATUSES = ("active", "inactive")
EVENT_TYPES = ("address_activity", "primary_network_address_activity", "validator_activity")
PRIMARY_SUB_EVENTS = ("balance_change", "balance_threshold", "reward_distribution")
VALIDATOR_SUB_EVENTS = (
    "validator_stake",
    "delegator_stake",
    "reward_distribution",
    "l1_validator_balance_increased",
    "l1_validator_disabled",
    "l1_validator_removed",
    "l1_validator_balance_threshold",
)
DELIVERY_STATES = ("pending", "delivered", "failed", "unwound")
_ADDRESS_METADATA = obj({"addresses": array(S)}, {"eventSignatures": array(S)})
_PRIMARY_METADATA = obj(
    {
        "keyType": enum("addresses"),
        "keys": array(S),
        "subEvents": obj({"addressActivitySubEvents": array(enum(*PRIMARY_SUB_EVENTS))}),
    },
    {"balanceThresholdFilter": obj({"balanceType": S, "balanceThreshold": S})},
)
_VALIDATOR_METADATA = obj(
    {
        "keyType": enum("nodeId", "subnetId"),
        "keys": array(S),
        "subEvents": obj({"validatorActivitySubEvents": array(enum(*VALIDATOR_SUB_EVENTS))}),
    },
    {"nodeIds": array(S), "subnetIds": array(S), "l1ValidatorFeeBalanceThreshold": S},
)
_COMMON = {
    "id": S,
    "url": S,
    "chainId": S,
    "status": enum(*STATUSES),
    "createdAt": N,
    "name": S,
    "description": S,
}

WEBHOOK_COMPONENTS: dict[str, Schema] = {
    "EVMAddressActivityResponse": obj(
        {**_COMMON, "eventType": enum("address_activity"), "metadata": _ADDRESS_METADATA},
        {"includeInternalTxs": B, "includeLogs": B},
    ),
    "PrimaryNetworkAddressActivityResponse": obj(
        {
            **_COMMON,
            "eventType": enum("primary_network_address_activity"),
            "metadata": _PRIMARY_METADATA,
        }
    ),
    "ValidatorActivityResponse": obj(
        {**_COMMON, "eventType": enum("validator_activity"), "metadata": _VALIDATOR_METADATA}
    ),
    # The webhook of any event type, told apart by eventType (the real spec's oneOf).
    "WebhookResponse": {
        "oneOf": [
            ref("EVMAddressActivityResponse"),
            ref("PrimaryNetworkAddressActivityResponse"),
            ref("ValidatorActivityResponse"),
        ],
        "discriminator": {"propertyName": "eventType"},
    },
    "ListWebhooksResponse": obj({"webhooks": array(ref("WebhookResponse"))}, {"nextPageToken": S}),
    "ListWebhookAddressesResponse": obj(
        {"addresses": array(S), "totalAddresses": N}, {"nextPageToken": S}
    ),
    "SharedSecretsResponse": obj({"secret": S}),
    "CreateWebhookRequest": obj(
        {"eventType": enum(*EVENT_TYPES), "url": S},
        {
            "name": S,
            "description": S,
            "chainId": S,
            "network": S,
            "metadata": {"type": "object"},
            "includeInternalTxs": B,
            "includeLogs": B,
        },
    ),
    "UpdateWebhookRequest": obj(
        {},
        {
            "name": S,
            "description": S,
            "url": S,
            "status": enum(*STATUSES),
            "includeInternalTxs": B,
            "includeLogs": B,
        },
    ),
    "AddressesChangeRequest": obj({"addresses": array(S)}),
    # Ours: the delivery log and replay (the real service has neither).
    "WebhookDelivery": obj(
        {
            "messageId": S,
            "kind": enum("event", "removed"),
            "chainId": S,
            "blockNumber": S,
            "transactionIndex": N,
            "status": enum(*DELIVERY_STATES),
            "attempts": N,
            "createdAt": N,
        },
        {
            "nextAttemptAt": N,
            "deliveredAt": N,
            "responseStatus": N,
            "error": S,
            "latencyMs": N,
        },
    ),
    "ListWebhookDeliveriesResponse": obj(
        {"deliveries": array(ref("WebhookDelivery"))}, {"nextPageToken": S}
    ),
    "ReplayWebhookRequest": obj({"fromBlock": N}),
    "ReplayWebhookResponse": obj({"queued": N}),
}
