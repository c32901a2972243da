"""The metrics service's OpenAPI 3 document, from the same parameter definitions it documents."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from snowfield.api.errors import ERROR_STATUSES
from snowfield.api.metric_params import CHAIN_ID, METRIC, QUERY
from snowfield.api.openapi import parameter
from snowfield.api.params import Param

VERSION = "1.0.0"
_POINTS = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["value", "timestamp"],
        "properties": {"value": {"type": "number"}, "timestamp": {"type": "integer"}},
        "additionalProperties": False,
    },
}
SCHEMAS: dict[str, Any] = {
    "MetricsResponse": {
        "type": "object",
        "required": ["results"],
        "properties": {"results": _POINTS, "nextPageToken": {"type": "string"}},
        "additionalProperties": False,
    },
    "AvgTpsResponse": {
        "type": "object",
        "required": ["results", "status", "lastRun"],
        "properties": {
            "results": _POINTS,
            "status": {"type": "integer"},
            "lastRun": {"type": "integer"},
            "nextPageToken": {"type": "string"},
        },
        "additionalProperties": False,
    },
    "MetricsError": {
        "type": "object",
        "required": ["message", "statusCode", "error"],
        "properties": {
            "message": {"type": "array", "items": {"type": "string"}},
            "statusCode": {"type": "integer"},
            "error": {"type": "string"},
        },
        "additionalProperties": False,
    },
}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _operation(op_id: str, summary: str, params: tuple[Param, ...], body: str) -> dict[str, Any]:
    responses: dict[str, Any] = {
        "200": {
            "description": "Successful response",
            "content": {"application/json": {"schema": _ref(body)}},
        }
    }
    for status in ERROR_STATUSES:
        responses[str(status)] = {
            "description": HTTPStatus(status).phrase,
            "content": {"application/json": {"schema": _ref("MetricsError")}},
        }
    return {
        "get": {
            "operationId": op_id,
            "summary": summary,
            "tags": ["Metrics"],
            "parameters": [parameter(p) for p in params],
            "responses": responses,
        }
    }


def metrics_openapi() -> dict[str, Any]:
    token = next(p for p in QUERY if p.name == "pageToken")
    return {
        "openapi": "3.0.3",
        "info": {"title": "snowfield metrics API", "version": VERSION},
        "paths": {
            "/v2/chains/{chainId}/metrics/{metric}": _operation(
                "getMetrics",
                "A metric of an EVM chain (or of all, mainnet or testnet chains), newest first.",
                (CHAIN_ID, METRIC, *QUERY),
                "MetricsResponse",
            ),
            "/v1/avg_tps/{chainId}": _operation(
                "getAvgTps",
                "Daily average transactions per second, newest first, 100 per page.",
                (CHAIN_ID, token),
                "AvgTpsResponse",
            ),
        },
        "components": {"schemas": SCHEMAS},
    }
