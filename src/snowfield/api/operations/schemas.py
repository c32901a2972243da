"""JSON schemas of the operations group (exports, usage, health): OpenAPI components, closed
as the others are, with the real service's names, fields and enums."""

from __future__ import annotations

from snowfield.api.schemas import S, Schema, array, enum, obj, ref

_NUMBER: Schema = {"type": "number"}
_DATE: Schema = {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}
_INDICATORS: Schema = {
    "type": "object",
    "additionalProperties": obj({"status": enum("up", "down")}),
}
_DATES = {"firstDate": _DATE, "lastDate": _DATE, "startDate": _DATE, "endDate": _DATE}
_PRIMARY_CHAINS = (
    "11111111111111111111111111111111LpoYY",
    "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM",
    "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm",
    "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5",
    "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp",
    "p-chain",
    "x-chain",
    "c-chain",
)
_USAGE_VALUE = {
    "totalRequests": _NUMBER,
    "requestsPerSecond": _NUMBER,
    "successRatePercent": _NUMBER,
    "medianResponseTimeMsecs": _NUMBER,
    "invalidRequests": _NUMBER,
    "apiCreditsUsed": _NUMBER,
    "apiCreditsWasted": _NUMBER,
}
_GROUP_VALUE: Schema = {"oneOf": [S, _NUMBER]}

OPERATIONS_COMPONENTS: dict[str, Schema] = {
    "HealthCheckResult": obj(
        {},
        {
            "status": enum("error", "ok", "shutting_down"),
            "info": _INDICATORS,
            "error": _INDICATORS,
            "details": _INDICATORS,
        },
    ),
    "CreateEvmTransactionExportRequest": obj(
        {
            "type": enum("TRANSACTION_EXPORT_EVM"),
            "options": obj(
                {
                    "addresses": {
                        **array({"type": "string", "pattern": "^0[xX][0-9a-fA-F]{40}$"}),
                        "minItems": 1,
                        "maxItems": 100,
                    },
                    "includeChains": {**array(S), "minItems": 1, "maxItems": 10},
                }
            ),
        },
        _DATES,
    ),
    "CreatePrimaryNetworkTransactionExportRequest": obj(
        {
            "type": enum(
                "TRANSACTION_EXPORT_PRIMARY_NETWORK",
                "TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING",
                "TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE",
            ),
            "options": obj(
                {"includeChains": array(enum(*_PRIMARY_CHAINS))},
                {"addresses": array(S), "cChainEvmAddresses": array(S)},
            ),
        },
        _DATES,
    ),
    "CreateTransactionExportRequest": {
        "oneOf": [
            ref("CreateEvmTransactionExportRequest"),
            ref("CreatePrimaryNetworkTransactionExportRequest"),
        ]
    },
    "TransactionExportMetadata": obj(
        {},
        {
            "code": enum("ErrInvalidRequest", "ErrInternal", "WarnTruncatedExport"),
            "downloadUrl": S,
            "nextDate": _DATE,
        },
    ),
    "OperationStatusResponse": obj(
        {
            "operationId": S,
            "operationType": enum(
                "TRANSACTION_EXPORT_PRIMARY_NETWORK",
                "TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING",
                "TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE",
                "TRANSACTION_EXPORT_EVM",
            ),
            "operationStatus": enum("RUNNING", "COMPLETED", "COMPLETED_WITH_WARNING", "FAILED"),
            "createdAtTimestamp": _NUMBER,
            "updatedAtTimestamp": _NUMBER,
        },
        {"message": S, "metadata": ref("TransactionExportMetadata")},
    ),
    "UsageMetricsValue": obj(
        {
            "groupedBy": enum(
                "requestPath", "responseCode", "chainId", "apiKeyId", "requestType", "None"
            ),
            **_USAGE_VALUE,
        },
        {"groupValue": _GROUP_VALUE},
    ),
    "UsageMetric": obj({"timestamp": _NUMBER, "values": array(ref("UsageMetricsValue"))}),
    "UsageMetricsResponse": obj(
        {"aggregateDuration": S, "orgId": S, "metrics": array(ref("UsageMetric"))}
    ),
    "LogsFormat": obj(
        {
            "orgId": S,
            "logId": S,
            "eventTimestamp": _NUMBER,
            "apiKeyId": S,
            "apiKeyAlias": S,
            "hostRegion": S,
            "requestType": enum("data", "rpc"),
            "requestPath": S,
            "apiCreditsConsumed": _NUMBER,
            "requestDurationMsecs": _NUMBER,
            "responseCode": _NUMBER,
            "metadata": obj({"ipAddress": S, "host": S, "userAgent": S}),
        },
        {"chainId": S, "rpcMethod": S},
    ),
    "LogsResponse": obj({"orgId": S, "logs": array(ref("LogsFormat"))}, {"nextPageToken": S}),
    "RpcUsageMetricsValue": obj(
        {
            "groupedBy": enum(
                "rpcMethod",
                "responseCode",
                "rlBypassToken",
                "requestPath",
                "country",
                "continent",
                "userAgent",
                "None",
            ),
            **_USAGE_VALUE,
        },
        {"groupValue": _GROUP_VALUE},
    ),
    "RpcUsageMetric": obj({"timestamp": _NUMBER, "values": array(ref("RpcUsageMetricsValue"))}),
    "RpcUsageMetricsResponse": obj(
        {"aggregateDuration": S, "metrics": array(ref("RpcUsageMetric")), "chainId": S}
    ),
}
