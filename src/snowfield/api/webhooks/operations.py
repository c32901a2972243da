"""The Webhooks API (chainkit's ten `webhooks.*` functions) and our delivery log and replay.

A webhook belongs to the API key that made it: without a key 401; another key's webhook is not
found (404), as the real service keeps others' ids to itself. DELETE deactivates.
"""

from __future__ import annotations

import time
from typing import Any

from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import PAGE_SIZE, PAGE_TOKEN, Param
from snowfield.api.webhooks import primary, requests, validators
from snowfield.api.webhooks.schemas import DELIVERY_STATES, EVENT_TYPES, STATUSES
from snowfield.errors import InvalidParams, NotFound, Unauthorized
from snowfield.store import webhook_outbox, webhooks
from snowfield.store.webhooks import WebhookRow

_TAG = "Webhooks"
_PAGE_SIZE = PAGE_SIZE.bounded(1, 100, 10)
ID = Param("id", "path", "The webhook identifier.", required=True)
STATUS = Param(
    "status",
    "query",
    "active: only active webhooks; inactive: only inactive ones; none: every webhook.",
    enum=STATUSES,
)
_DELIVERY_STATES = frozenset(DELIVERY_STATES)


def _owner(ctx: Context) -> str:
    if ctx.key is None:
        raise Unauthorized("webhooks belong to an API key: send one in x-service-api-key")
    return ctx.key.id


async def _hook(ctx: Context) -> WebhookRow:
    owner = _owner(ctx)
    found = await ctx.run(webhooks.get_webhook, ctx.db, owner, str(ctx.args["id"]))
    if found is None:
        raise NotFound(f"webhook {ctx.args['id']} not found")
    return found


async def _render(ctx: Context, hook: WebhookRow) -> Json:
    if hook.event_type == primary.EVENT_TYPE:
        return primary.render(hook, await ctx.run(webhooks.all_addresses, ctx.db, hook.id))
    if hook.event_type == validators.EVENT_TYPE:
        return validators.render(hook)
    metadata: dict[str, Any] = {"addresses": await ctx.run(webhooks.all_addresses, ctx.db, hook.id)}
    if hook.metadata.get("eventSignatures"):
        metadata["eventSignatures"] = hook.metadata["eventSignatures"]
    return {
        **requests.rendered(hook, metadata),
        "includeInternalTxs": hook.include_internal,
        "includeLogs": hook.include_logs,
    }


async def _evm_chain(ctx: Context, ref: Any) -> int:
    if not isinstance(ref, str) or not ref:
        raise InvalidParams("chainId must be the id of an indexed EVM chain")
    ctx.args["chainId"] = ref
    try:
        chain = await ctx.chain()
    except NotFound:
        raise InvalidParams(f"chainId {ref} is not an indexed EVM chain") from None
    return chain.chain_id


async def create(ctx: Context) -> Json:
    owner = _owner(ctx)
    body = ctx.args["body"]
    kind = body.get("eventType")
    if kind not in EVENT_TYPES:
        raise InvalidParams(f"eventType must be one of {', '.join(EVENT_TYPES)}")
    if kind == primary.EVENT_TYPE:
        return await _create(ctx, *await primary.draft(ctx, owner, body))
    if kind == validators.EVENT_TYPE:
        return await _create_validator_hook(ctx, owner, body)
    if kind != "address_activity":
        # Refused rather than stored: a webhook that would never fire is worse than an answer.
        raise InvalidParams(f"eventType {kind} is not delivered by this service yet")
    url = requests.url(body.get("url"))
    metadata = requests.metadata(body)
    addresses = requests.addresses(metadata.get("addresses"))
    signatures = requests.signatures(metadata.get("eventSignatures"))
    chain = await _evm_chain(ctx, body.get("chainId"))
    draft = WebhookRow(
        "", owner, kind, url, requests.text(body, "name"), requests.text(body, "description"),
        str(body["chainId"]), chain, None, webhooks.ACTIVE, 0,
        requests.flag(body, "includeLogs"), requests.flag(body, "includeInternalTxs"),
        {"eventSignatures": signatures} if signatures else {},
    )  # fmt: skip
    return await _create(ctx, draft, addresses)


async def _create(ctx: Context, draft: WebhookRow, addresses: list[str]) -> Json:
    await ctx.run(webhooks.ensure_secret, ctx.db, draft.owner)  # never a delivery unsigned
    made = await ctx.run(webhooks.create_webhook, ctx.db, draft, addresses)
    return await _render(ctx, made)


async def _create_validator_hook(ctx: Context, owner: str, body: dict[str, Any]) -> Json:
    url = requests.url(body.get("url"))
    metadata = validators.metadata(requests.metadata(body))
    net = await validators.network(ctx, body.get("network"))
    draft = WebhookRow(
        "", owner, validators.EVENT_TYPE, url, requests.text(body, "name"),
        requests.text(body, "description"), net.pchain, None, body["network"], webhooks.ACTIVE,
        0, False, False, metadata,
    )  # fmt: skip
    await ctx.run(webhooks.ensure_secret, ctx.db, owner)  # never a delivery without a signature
    return validators.render(await ctx.run(webhooks.create_webhook, ctx.db, draft, ()))


async def list_hooks(ctx: Context) -> Json:
    owner = _owner(ctx)
    page = await ctx.run(
        webhooks.list_webhooks, ctx.db, owner, ctx.args["status"], ctx.after(), ctx.args["pageSize"]
    )
    return {"webhooks": [await _render(ctx, h) for h in page.items], **ctx.next_page(page)}


async def get(ctx: Context) -> Json:
    return await _render(ctx, await _hook(ctx))


_TEXTS = {"name": "name", "description": "description"}
_FLAGS = {"includeLogs": "include_logs", "includeInternalTxs": "include_internal"}


async def update(ctx: Context) -> Json:
    hook = await _hook(ctx)
    body = ctx.args["body"]
    changes: dict[str, Any] = {}
    for name, column in _TEXTS.items():
        if name in body:
            changes[column] = requests.text(body, name)
    for name, column in _FLAGS.items():
        if name in body:
            changes[column] = int(requests.flag(body, name))
            if changes[column] and hook.event_type != "address_activity":
                raise InvalidParams(f"{name} applies to address_activity only")
    if "url" in body:
        changes["url"] = requests.url(body["url"])
    if "status" in body:
        if body["status"] not in STATUSES:
            raise InvalidParams(f"status must be one of {', '.join(STATUSES)}")
        changes["status"] = body["status"]
        if body["status"] == webhooks.ACTIVE:
            # Reactivated: the deactivation rules count afresh.
            changes.update(failed_first=0, queued=0, deactivated_reason=None)
    await ctx.run(webhooks.update_webhook, ctx.db, hook.owner, hook.id, changes)
    return await get(ctx)


async def deactivate(ctx: Context) -> Json:
    hook = await _hook(ctx)
    await ctx.run(
        webhooks.update_webhook,
        ctx.db,
        hook.owner,
        hook.id,
        {"status": webhooks.INACTIVE, "deactivated_reason": "deactivated by its owner"},
    )
    return await get(ctx)


def _address_change(hook: WebhookRow, body: dict[str, Any]) -> list[str]:
    if hook.event_type == primary.EVENT_TYPE:
        return primary.address_change(hook, body)
    return requests.address_change(body)


async def add_addresses(ctx: Context) -> Json:
    hook = await _hook(ctx)
    validators.refuse_addresses(hook)
    new = _address_change(hook, ctx.args["body"])
    have = await ctx.run(webhooks.count_addresses, ctx.db, hook.id)
    if have + len(new) > requests.MAX_ADDRESSES:
        raise InvalidParams(f"a webhook follows at most {requests.MAX_ADDRESSES} addresses")
    await ctx.run(webhooks.add_addresses, ctx.db, hook.id, new)
    return await _render(ctx, hook)


async def remove_addresses(ctx: Context) -> Json:
    hook = await _hook(ctx)
    validators.refuse_addresses(hook)
    gone = _address_change(hook, ctx.args["body"])
    await ctx.run(webhooks.remove_addresses, ctx.db, hook.id, gone)
    return await _render(ctx, hook)


async def list_addresses(ctx: Context) -> Json:
    hook = await _hook(ctx)
    page = await ctx.run(webhooks.addresses, ctx.db, hook.id, ctx.after(), ctx.args["pageSize"])
    total = await ctx.run(webhooks.count_addresses, ctx.db, hook.id)
    return {"addresses": page.items, "totalAddresses": total, **ctx.next_page(page)}


async def rotate_secret(ctx: Context) -> Json:
    return {"secret": await ctx.run(webhooks.rotate_secret, ctx.db, _owner(ctx))}


async def get_secret(ctx: Context) -> Json:
    secret = await ctx.run(webhooks.shared_secret, ctx.db, _owner(ctx))
    if secret is None:
        raise NotFound("no shared secret yet: generate one (or create a webhook)")
    return {"secret": secret}


def _delivery(hook: WebhookRow, d: webhook_outbox.Delivery) -> Json:
    out: Json = {
        "messageId": d.message_id,
        "kind": d.kind,
        # An EVM chain's id, else (the P-Chain's messages) the chain the webhook names.
        "chainId": str(d.chain_id) if hook.evm_chain is not None else hook.chain_ref,
        "blockNumber": str(d.block_number),
        "transactionIndex": d.tx_index,
        "status": d.state,
        "attempts": d.attempts,
        "createdAt": d.created,
    }
    if d.state == "pending":
        out["nextAttemptAt"] = d.next_at
    optional = {
        "deliveredAt": d.delivered_at,
        "responseStatus": d.last_status,
        "error": d.last_error,
        "latencyMs": d.latency_ms,
    }
    out.update({k: v for k, v in optional.items() if v is not None})
    return out


async def list_deliveries(ctx: Context) -> Json:
    hook = await _hook(ctx)
    page = await ctx.run(
        webhook_outbox.deliveries, ctx.db, hook.id, ctx.after(), ctx.args["pageSize"]
    )
    return {"deliveries": [_delivery(hook, d) for d in page.items], **ctx.next_page(page)}


async def replay(ctx: Context) -> Json:
    hook = await _hook(ctx)
    start = ctx.args["body"].get("fromBlock")
    if isinstance(start, bool) or not isinstance(start, int) or not 0 <= start < 2**63:
        raise InvalidParams("fromBlock must be a block number (an integer >= 0)")
    queued = await ctx.run(webhook_outbox.replay, ctx.db, hook.id, start, int(time.time() * 1000))
    return {"queued": queued}


def _op(
    op_id: str, path: str, summary: str, handler: Any, response: str, **kw: Any
) -> Operation[Context]:
    return Operation(op_id, path, summary, _TAG, kw.pop("params", ()), response, 1, handler, **kw)


_WEBHOOK = "/v1/webhooks/{id}"
OPERATIONS: tuple[Operation[Context], ...] = (
    _op("createWebhook", "/v1/webhooks", "Create a webhook.", create,
        "WebhookResponse", method="POST", status=201,
        request_body="CreateWebhookRequest"),
    _op("listWebhooks", "/v1/webhooks", "List the API key's webhooks.", list_hooks,
        "ListWebhooksResponse", params=(PAGE_TOKEN, _PAGE_SIZE, STATUS)),
    _op("getWebhook", _WEBHOOK, "Get a webhook by id.", get, "WebhookResponse",
        params=(ID,)),
    _op("updateWebhook", _WEBHOOK, "Update a webhook.", update, "WebhookResponse",
        params=(ID,), method="PATCH", request_body="UpdateWebhookRequest"),
    _op("deactivateWebhook", _WEBHOOK, "Deactivate a webhook.", deactivate,
        "WebhookResponse", params=(ID,), method="DELETE"),
    _op("addAddressesToWebhook", _WEBHOOK + "/addresses", "Add addresses to a webhook.",
        add_addresses, "WebhookResponse", params=(ID,), method="PATCH",
        request_body="AddressesChangeRequest"),
    _op("removeAddressesFromWebhook", _WEBHOOK + "/addresses",
        "Remove addresses from a webhook.", remove_addresses, "WebhookResponse",
        params=(ID,), method="DELETE", request_body="AddressesChangeRequest"),
    _op("getAddressesFromWebhook", _WEBHOOK + "/addresses", "List a webhook's addresses.",
        list_addresses, "ListWebhookAddressesResponse", params=(PAGE_TOKEN, _PAGE_SIZE, ID)),
    _op("generateOrRotateSharedSecret", "/v1/webhooks:generateOrRotateSharedSecret",
        "Generate or rotate the API key's shared secret.", rotate_secret,
        "SharedSecretsResponse", method="POST", status=201),
    _op("getSharedSecret", "/v1/webhooks:getSharedSecret", "Get the API key's shared secret.",
        get_secret, "SharedSecretsResponse"),
    # Ours (the real service has neither): the delivery log and a replay from a block.
    _op("listWebhookDeliveries", _WEBHOOK + "/deliveries",
        "A webhook's delivery log, newest block first (snowfield extension).", list_deliveries,
        "ListWebhookDeliveriesResponse", params=(PAGE_TOKEN, _PAGE_SIZE, ID)),
    _op("replayWebhook", _WEBHOOK + "/replay",
        "Send a webhook's messages from a block on again (snowfield extension).", replay,
        "ReplayWebhookResponse", params=(ID,), method="POST",
        request_body="ReplayWebhookRequest"),
)  # fmt: skip
