"""`validator_activity` webhooks in the Webhooks API: the request's metadata (chainkit's
ValidatorActivityRequest) checked field by field, and the webhook as ValidatorActivityResponse.

A webhook follows one key (a node id or a subnet id, as the real service accepts one), narrowed
by the optional nodeIds and subnetIds; the events are written by store/webhook_validators.py.
"""

from __future__ import annotations

import re
from typing import Any

from snowfield.api.operation import Context, Json
from snowfield.api.webhooks import requests
from snowfield.api.webhooks.schemas import VALIDATOR_SUB_EVENTS
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID, NodeID
from snowfield.store import webhook_validators
from snowfield.store.primary import PrimaryNetwork
from snowfield.store.webhook_validators import THRESHOLD, network_name
from snowfield.store.webhooks import WebhookRow

EVENT_TYPE = webhook_validators.EVENT_TYPE
NETWORKS = ("mainnet", "fuji")  # chainkit's PrimaryNetworkType
KEY_TYPES = ("nodeId", "subnetId")
MAX_IDS = 100  # nodeIds, subnetIds
_AMOUNT = re.compile(r"[0-9]{1,20}")


def _ids(value: Any, name: str, kind: str) -> list[str]:
    """Node ids (kind nodeId) or subnet ids, each checked, in the order given, each once."""
    if not isinstance(value, list) or len(value) > MAX_IDS:
        raise InvalidParams(f"{name} must be an array of at most {MAX_IDS} ids")
    out = []
    for item in value:
        if not isinstance(item, str):
            raise InvalidParams(f"{name} must hold {kind}s")
        try:
            out.append(str(NodeID.from_string(item) if kind == "nodeId" else ID.from_string(item)))
        except InvalidParams:
            raise InvalidParams(f"{name}: {item[:80]} is not a valid {kind}") from None
    return list(dict.fromkeys(out))


def _sub_events(value: Any) -> list[str]:
    listed = value.get("validatorActivitySubEvents") if isinstance(value, dict) else None
    if not isinstance(listed, list) or not listed:
        raise InvalidParams(
            "metadata.subEvents must be {validatorActivitySubEvents: [...]} with at least one"
        )
    for item in listed:
        if item not in VALIDATOR_SUB_EVENTS:
            raise InvalidParams(
                f"metadata.subEvents holds one of {', '.join(VALIDATOR_SUB_EVENTS)}"
            )
    return list(dict.fromkeys(listed))


def _threshold(value: Any, wanted: bool) -> str | None:
    if value is None:
        if wanted:
            raise InvalidParams(
                f"metadata.l1ValidatorFeeBalanceThreshold is required for {THRESHOLD}"
            )
        return None
    if not isinstance(value, str) or not _AMOUNT.fullmatch(value) or int(value) >= 2**64:
        raise InvalidParams("metadata.l1ValidatorFeeBalanceThreshold must be nAVAX as a string")
    return str(int(value))


def metadata(meta: dict[str, Any]) -> dict[str, Any]:
    """The stored (and rendered) metadata of a validator_activity webhook."""
    key_type = meta.get("keyType")
    if key_type not in KEY_TYPES:
        raise InvalidParams(f"metadata.keyType must be one of {', '.join(KEY_TYPES)}")
    keys = _ids(meta.get("keys"), "metadata.keys", key_type)
    if len(keys) != 1:
        raise InvalidParams("metadata.keys must hold exactly one key")
    if meta.get("eventSignatures"):
        # A filter that could never match is refused rather than stored silently.
        raise InvalidParams("metadata.eventSignatures do not apply to validator_activity")
    subs = _sub_events(meta.get("subEvents"))
    out: dict[str, Any] = {
        "keyType": key_type,
        "keys": keys,
        "subEvents": {"validatorActivitySubEvents": subs},
    }
    for name, kind in (("nodeIds", "nodeId"), ("subnetIds", "subnetId")):
        if meta.get(name) is not None:
            out[name] = _ids(meta[name], f"metadata.{name}", kind)
    threshold = _threshold(meta.get("l1ValidatorFeeBalanceThreshold"), THRESHOLD in subs)
    if threshold is not None:
        out["l1ValidatorFeeBalanceThreshold"] = threshold
    return out


async def network(ctx: Context, value: Any) -> PrimaryNetwork:
    """The indexed primary network `network` names (400 when it names none indexed here)."""
    if value not in NETWORKS:
        raise InvalidParams(f"network must be one of {', '.join(NETWORKS)}")
    for net in await ctx.primary_networks():
        if network_name(net.network_id) == value:
            return net
    raise InvalidParams(f"network {value} is not indexed by this service")


def render(hook: WebhookRow) -> Json:
    return requests.rendered(hook, hook.metadata)


def refuse_addresses(hook: WebhookRow) -> None:
    if hook.event_type == EVENT_TYPE:
        raise InvalidParams(
            "a validator_activity webhook follows its metadata's key, not addresses"
        )
