"""The metrics service's OpenAPI 3 document, from the operations it serves."""

from __future__ import annotations

from collections.abc import Sequence
from http import HTTPStatus
from typing import Any

from snowfield.api.errors import ERROR_STATUSES
from snowfield.api.metrics.chains import SCHEMAS as CHAIN_SCHEMAS
from snowfield.api.metrics.icm import SCHEMAS as ICM_SCHEMAS
from snowfield.api.metrics.looking_glass import SCHEMAS as GLASS_SCHEMAS
from snowfield.api.metrics.rolling import SCHEMAS as ROLLING_SCHEMAS
from snowfield.api.openapi import parameter
from snowfield.api.operation import Operation

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


def _operation(op: Operation[Any]) -> dict[str, Any]:
    success: dict[str, Any] = {"description": "Successful response"}
    if op.response is not None:
        success["content"] = {"application/json": {"schema": _ref(op.response)}}
    responses: dict[str, Any] = {str(op.status): success}
    for status in ERROR_STATUSES:
        responses[str(status)] = {
            "description": HTTPStatus(status).phrase,
            "content": {"application/json": {"schema": _ref("MetricsError")}},
        }
    return {
        op.method.lower(): {
            "operationId": op.id,
            "summary": op.summary,
            "tags": [op.tag],
            "parameters": [parameter(p) for p in op.params],
            "responses": responses,
        }
    }


def metrics_openapi(operations: Sequence[Operation[Any]]) -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "snowfield metrics API", "version": VERSION},
        "paths": {op.path: _operation(op) for op in operations},
        "components": {
            "schemas": {
                **SCHEMAS,
                **CHAIN_SCHEMAS,
                **ICM_SCHEMAS,
                **ROLLING_SCHEMAS,
                **GLASS_SCHEMAS,
            }
        },
    }
