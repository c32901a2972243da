"""The webhook operations' request bodies, checked field by field (400 names the field)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from snowfield.errors import InvalidParams
from snowfield.store.webhooks import WebhookRow

MAX_URL = 2048
MAX_TEXT = 1024
MAX_ADDRESSES = 50_000  # per webhook, as the real service's address_activity limit
_ADDRESS = re.compile(r"0[xX][0-9a-fA-F]{40}")
_TOPIC = re.compile(r"0[xX][0-9a-fA-F]{64}")


def url(value: Any) -> str:
    """An absolute http(s) URL with a host. Where it may point is the delivery worker's policy
    (webhooks/policy.py), checked against the addresses the host resolves to at each send."""
    if not isinstance(value, str) or not value or len(value) > MAX_URL:
        raise InvalidParams(f"url must be an http or https URL of at most {MAX_URL} characters")
    try:
        parts = urlsplit(value)
        host = parts.hostname
        parts.port  # noqa: B018 - raises on a port out of range
    except ValueError:
        raise InvalidParams("url must be an http or https URL") from None
    if parts.scheme not in ("http", "https") or not host:
        raise InvalidParams("url must be an http or https URL")
    return value


def text(body: dict[str, Any], name: str, default: str = "") -> str:
    value = body.get(name, default)
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise InvalidParams(f"{name} must be a string of at most {MAX_TEXT} characters")
    return value


def flag(body: dict[str, Any], name: str, default: bool = False) -> bool:
    value = body.get(name, default)
    if not isinstance(value, bool):
        raise InvalidParams(f"{name} must be a boolean")
    return value


def addresses(value: Any, name: str = "addresses") -> list[str]:
    """EVM addresses, lower-case, in the order given, each once."""
    if not isinstance(value, list) or len(value) > MAX_ADDRESSES:
        raise InvalidParams(f"{name} must be an array of at most {MAX_ADDRESSES} addresses")
    out = []
    for item in value:
        if not isinstance(item, str) or not _ADDRESS.fullmatch(item):
            raise InvalidParams(f"{name} must hold 0x-prefixed 20-byte hex addresses")
        out.append(item.lower())
    return list(dict.fromkeys(out))


def signatures(value: Any) -> list[str]:
    """eventSignatures: log topic0 values (32-byte hex), lower-case."""
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > 100:
        raise InvalidParams("eventSignatures must be an array of at most 100 topics")
    out = []
    for item in value:
        if not isinstance(item, str) or not _TOPIC.fullmatch(item):
            raise InvalidParams("eventSignatures must hold 0x-prefixed 32-byte hex topics")
        out.append(item.lower())
    return list(dict.fromkeys(out))


def metadata(body: dict[str, Any]) -> dict[str, Any]:
    value = body.get("metadata")
    if not isinstance(value, dict):
        raise InvalidParams("metadata must be an object")
    return value


def address_change(body: dict[str, Any]) -> list[str]:
    if "addresses" not in body:
        raise InvalidParams("addresses is required")
    return addresses(body["addresses"])


def rendered(hook: WebhookRow, metadata: dict[str, Any]) -> dict[str, Any]:
    """The fields every event type's webhook model has, with its own `metadata`."""
    return {
        "id": hook.id,
        "url": hook.url,
        "chainId": hook.chain_ref,
        "status": hook.status,
        "createdAt": hook.created,
        "name": hook.name,
        "description": hook.description,
        "eventType": hook.event_type,
        "metadata": metadata,
    }
