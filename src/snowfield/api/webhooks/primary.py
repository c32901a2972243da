"""`primary_network_address_activity` webhooks: their request (chainkit's
PrimaryNetworkAddressActivityRequest), checked field by field, and their rendering
(PrimaryNetworkAddressActivityResponse). Deliveries: store/webhook_primary.py (P-Chain) and
store/webhook_xchain.py (X-Chain).

A webhook follows addresses of the indexed primary network its `network` names (mainnet, or
fuji / testnet: a local devnet answers to both, as the primary-network operations do) on one
chain, its `chainId`: the P-Chain or the X-Chain (the blockchain id, or p-chain / x-chain)."""

from __future__ import annotations

from typing import Any

from snowfield.api.operation import Context, Json
from snowfield.api.webhooks import requests
from snowfield.api.webhooks.schemas import PRIMARY_SUB_EVENTS
from snowfield.errors import InvalidParams
from snowfield.formats.bech32 import parse_bech32
from snowfield.store import webhooks
from snowfield.store.primary import PrimaryNetwork
from snowfield.store.webhook_primary import EVENT_TYPE, P_CHAIN_ALIAS, THRESHOLD
from snowfield.store.webhook_primary_balances import P_BALANCE_TYPES
from snowfield.store.webhook_xchain import X_BALANCE_TYPES, X_CHAIN_ALIAS
from snowfield.store.webhooks import WebhookRow

NETWORKS = ("mainnet", "fuji", "testnet")
__all__ = ["EVENT_TYPE", "address_change", "draft", "render"]
_MAX_NANO = 2**64 - 1  # a P-Chain amount is a uint64


async def network(ctx: Context, body: dict[str, Any]) -> PrimaryNetwork:
    name = body.get("network")
    if name not in NETWORKS:
        raise InvalidParams(f"network must be one of {', '.join(NETWORKS)}")
    for net in await ctx.primary_networks():
        if (net.network_id == 1) == (name == "mainnet"):
            return net
    raise InvalidParams(f"network {name} is not indexed here")


def chain_ref(net: PrimaryNetwork, value: Any) -> str:
    """The chain as given (its blockchain id or alias), when it is this network's P or X."""
    if isinstance(value, str) and value.lower() in (P_CHAIN_ALIAS, X_CHAIN_ALIAS):
        return value.lower()
    if isinstance(value, str) and value in (net.pchain, net.xchain):
        return value
    raise InvalidParams(
        f"chainId must be the P-Chain ({net.pchain} or {P_CHAIN_ALIAS}) or the X-Chain"
        f" ({net.xchain or 'not indexed'} or {X_CHAIN_ALIAS})"
    )


def _is_x(net: PrimaryNetwork, ref: str) -> bool:
    return ref in (X_CHAIN_ALIAS, net.xchain)


def addresses(hrp: str, value: Any, name: str = "keys") -> list[str]:
    """Bech32 addresses of the network (with or without P- / X-), bare and lower-case, each
    once."""
    if not isinstance(value, list) or not value or len(value) > requests.MAX_ADDRESSES:
        raise InvalidParams(f"{name} must be an array of 1 to {requests.MAX_ADDRESSES} addresses")
    out = []
    for item in value:
        bare = item[2:] if isinstance(item, str) and item[:2].upper() in ("P-", "X-") else item
        try:
            if not isinstance(bare, str):
                raise InvalidParams("not a string")
            got_hrp, payload = parse_bech32(bare)
        except InvalidParams:
            raise InvalidParams(f"{name}: {item!r} is not a P- or X-Chain address") from None
        if got_hrp != hrp or len(payload) != 20:
            raise InvalidParams(f"{name}: {item} is not an address of this network ({hrp}1...)")
        out.append(bare.lower())
    return list(dict.fromkeys(out))


def sub_events(value: Any) -> list[str]:
    items = value.get("addressActivitySubEvents") if isinstance(value, dict) else None
    if not isinstance(items, list) or not items or any(i not in PRIMARY_SUB_EVENTS for i in items):
        raise InvalidParams(
            "subEvents.addressActivitySubEvents must list some of " + ", ".join(PRIMARY_SUB_EVENTS)
        )
    return list(dict.fromkeys(items))


def threshold(value: Any, kinds: tuple[str, ...]) -> dict[str, str]:
    if not isinstance(value, dict):
        raise InvalidParams("balanceThresholdFilter must be an object (balance_threshold needs it)")
    kind, amount = value.get("balanceType"), value.get("balanceThreshold")
    if kind not in kinds:
        raise InvalidParams(
            f"balanceThresholdFilter.balanceType must be one of {', '.join(kinds)} on this chain"
        )
    if not isinstance(amount, str) or not amount.isdigit() or int(amount) > _MAX_NANO:
        raise InvalidParams("balanceThresholdFilter.balanceThreshold must be nAVAX (a uint64)")
    return {"balanceType": kind, "balanceThreshold": str(int(amount))}


def _refuse_evm_fields(body: dict[str, Any], metadata: dict[str, Any]) -> None:
    if metadata.get("eventSignatures"):
        raise InvalidParams("eventSignatures filter EVM logs: not for primary-network addresses")
    for name in ("includeLogs", "includeInternalTxs"):
        if requests.flag(body, name):
            raise InvalidParams(f"{name} applies to address_activity only")


async def draft(ctx: Context, owner: str, body: dict[str, Any]) -> tuple[WebhookRow, list[str]]:
    """The webhook the body asks for, and its addresses."""
    url = requests.url(body.get("url"))
    net = await network(ctx, body)
    ref = chain_ref(net, body.get("chainId"))
    metadata = requests.metadata(body)
    _refuse_evm_fields(body, metadata)
    if metadata.get("keyType") != "addresses":
        raise InvalidParams("metadata.keyType must be addresses")
    keys = addresses(net.hrp, metadata.get("keys"))
    subs = sub_events(metadata.get("subEvents"))
    stored: dict[str, Any] = {"keyType": "addresses", "subEvents": subs, "hrp": net.hrp}
    given = metadata.get("balanceThresholdFilter")
    if given is not None or THRESHOLD in subs:
        kinds = X_BALANCE_TYPES if _is_x(net, ref) else P_BALANCE_TYPES
        stored["balanceThresholdFilter"] = threshold(given, kinds)
    row = WebhookRow(
        "", owner, EVENT_TYPE, url, requests.text(body, "name"), requests.text(body, "description"),
        ref, None, str(body["network"]), webhooks.ACTIVE, 0, False, False, stored,
    )  # fmt: skip
    return row, keys


def address_change(hook: WebhookRow, body: dict[str, Any]) -> list[str]:
    if "addresses" not in body:
        raise InvalidParams("addresses is required")
    return addresses(str(hook.metadata.get("hrp", "")), body["addresses"], "addresses")


def render(hook: WebhookRow, keys: list[str]) -> Json:
    metadata: Json = {
        "keyType": "addresses",
        "keys": keys,
        "subEvents": {"addressActivitySubEvents": hook.metadata.get("subEvents", [])},
    }
    if "balanceThresholdFilter" in hook.metadata:
        metadata["balanceThresholdFilter"] = hook.metadata["balanceThresholdFilter"]
    return requests.rendered(hook, metadata)
