"""The OpenAPI 3 document, generated from the same operations and parameters the router serves."""

from __future__ import annotations

from collections.abc import Sequence
from http import HTTPStatus
from typing import Any

from snowfield.api.errors import ERROR_STATUSES
from snowfield.api.evm.balance_schemas import BALANCE_COMPONENTS
from snowfield.api.evm.view_schemas import VIEW_COMPONENTS
from snowfield.api.icm_messages import legacy_schemas
from snowfield.api.operation import Operation
from snowfield.api.operations.schemas import OPERATIONS_COMPONENTS
from snowfield.api.params import Param
from snowfield.api.primary.network_schemas import NETWORK_COMPONENTS
from snowfield.api.primary.schemas import PRIMARY_ADDRESS_COMPONENTS
from snowfield.api.primary.supply import SUPPLY_COMPONENTS
from snowfield.api.schemas import COMPONENTS, ICM, ref
from snowfield.api.webhooks.schemas import WEBHOOK_COMPONENTS

API_KEY_HEADER = "x-service-api-key"
_RATE_HEADERS = {
    name: {"description": text, "schema": {"type": "integer" if integer else "string"}}
    for name, text, integer in (
        ("ratelimit-limit", "Compute units allowed per window.", True),
        ("ratelimit-remaining", "Compute units left in the current window.", True),
        ("ratelimit-policy", "The limit and window, as `limit;w=seconds`.", False),
    )
}


def parameter(p: Param) -> dict[str, Any]:
    """The OpenAPI parameter object of one of our parameters (shared by both services)."""
    return {
        "name": p.name,
        "in": p.where,
        "required": p.required or p.where == "path",
        "description": p.description,
        "schema": p.schema(),
    }


def _responses(op: Operation[Any]) -> dict[str, Any]:
    success: dict[str, Any] = {"description": "Successful response", "headers": _RATE_HEADERS}
    if op.response is not None:
        success["content"] = {"application/json": {"schema": ref(op.response)}}
    out: dict[str, Any] = {str(op.status): success}
    for status in ERROR_STATUSES:
        headers = dict(_RATE_HEADERS)
        if status == 429:
            headers["ratelimit-reset"] = {
                "description": "Seconds until the window resets.",
                "schema": {"type": "integer"},
            }
            headers["retry-after"] = {
                "description": "Seconds until the window resets.",
                "schema": {"type": "integer"},
            }
        out[str(status)] = {
            "description": HTTPStatus(status).phrase,
            "headers": headers,
            "content": {"application/json": {"schema": ref("Error")}},
        }
    return out


def openapi_document(
    operations: Sequence[Operation[Any]], *, title: str, version: str
) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for op in operations:
        entry: dict[str, Any] = {
            "operationId": op.id,
            "summary": op.summary,
            "tags": [op.tag],
            "parameters": [parameter(p) for p in op.params],
            "responses": _responses(op),
            "x-compute-units": op.weight,
        }
        if op.request_body is not None:
            entry["requestBody"] = {
                "required": True,
                "content": {"application/json": {"schema": ref(op.request_body)}},
            }
        paths.setdefault(op.path, {})[op.method.lower()] = entry
    return {
        "openapi": "3.0.3",
        "info": {"title": title, "version": version},
        "paths": paths,
        "components": {
            "schemas": {
                **COMPONENTS,
                **VIEW_COMPONENTS,
                **BALANCE_COMPONENTS,
                **NETWORK_COMPONENTS,
                **legacy_schemas(ICM),
                **WEBHOOK_COMPONENTS,
                **PRIMARY_ADDRESS_COMPONENTS,
                **SUPPLY_COMPONENTS,
                **OPERATIONS_COMPONENTS,
            },
            "securitySchemes": {
                "apiKey": {"type": "apiKey", "in": "header", "name": API_KEY_HEADER}
            },
        },
        # The key is optional: it raises the rate limit; `{}` allows anonymous calls.
        "security": [{}, {"apiKey": []}],
    }
