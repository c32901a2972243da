"""Every ICM message: GET /v1/icm/messages (filtered), one message by id, and the legacy
/v1/teleporter/… paths of the three ICM operations that older tools still call.

The teleporter paths answer the same messages with `teleporterContractAddress` in place of
`icmContractAddress`, except where the real service's own document says otherwise: its lists
give a `delivered_source_not_indexed` message in the ICM shape."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from snowfield.api import icm as icm_api
from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import ADDRESS, PAGE_SIZE, PAGE_TOKEN, Param
from snowfield.api.schemas import Schema, array, obj, ref
from snowfield.errors import InvalidParams, NotFound
from snowfield.formats.ids import ID
from snowfield.store import chain_queries, icm_listing
from snowfield.store.database import Database
from snowfield.store.icm_listing import MessageFilter
from snowfield.store.keys import ApiKey
from snowfield.store.pagination import Key, Page

_MESSAGE_ID = re.compile(r"(0[xX])?[0-9a-fA-F]{64}")
_TAG = "Interchain messaging"
_LEGACY_TAG = "Teleporter"


def _chain_ref(param: Param, raw: str) -> str:
    """A blockchain id (cb58) or an EVM chain id (decimal), as given; checked here."""
    if raw.isascii() and raw.isdigit():
        return raw
    try:
        ID.from_string(raw)
    except Exception:
        raise InvalidParams(f"{param.name} must be a blockchain id or an EVM chain id") from None
    return raw


def _blockchain_id(param: Param, raw: str) -> str:
    if raw.isascii() and raw.isdigit():
        raise InvalidParams(f"{param.name} must be a blockchain id (cb58)")
    return _chain_ref(param, raw)


def _message_id(param: Param, raw: str) -> str:
    if not _MESSAGE_ID.fullmatch(raw):
        raise InvalidParams(f"{param.name} must be 32 bytes of hex")
    return raw[-64:].lower()


MESSAGE_ID = Param(
    "messageId",
    "path",
    "The message id (hex of 32 bytes, as the messenger's events carry it).",
    required=True,
    read=_message_id,
)

FILTERS = (
    Param("sourceBlockchainId", "query", "Only messages sent from this chain: its blockchain id"
          " (cb58) or EVM chain id.", read=_chain_ref),
    Param("destinationBlockchainId", "query", "Only messages sent to this chain: its blockchain"
          " id (cb58) or EVM chain id.", read=_chain_ref),
    Param("blockchainId", "query", "Only messages sent from or to this chain (cb58).",
          read=_blockchain_id),
    dataclasses.replace(ADDRESS, name="to", where="query", required=False,
                        description="Only messages to this address."),
    dataclasses.replace(ADDRESS, name="from", where="query", required=False,
                        description="Only messages from this address."),
    icm_api.MESSAGE_NETWORK,
)  # fmt: skip
_LIST_PARAMS = (PAGE_TOKEN, PAGE_SIZE.bounded(1, 100, 10), *FILTERS)


def _resolve(db: Database, ref_: str | None) -> tuple[str | None, int | None]:
    """(blockchain id, EVM chain id when indexed here) of a chain reference; NotFound for an
    EVM chain id no indexed chain has (no blockchain id is known for it)."""
    if ref_ is None:
        return None, None
    found = chain_queries.find_chain(db, ref_)
    if found is None or not found.blockchain_id:
        if ref_.isdigit():
            raise NotFound(f"chain {ref_} is not supported")
        return ref_, None
    return found.blockchain_id, found.chain_id


def _filter(db: Database, args: dict[str, Any]) -> MessageFilter:
    source, source_chain = _resolve(db, args["sourceBlockchainId"])
    destination, _ = _resolve(db, args["destinationBlockchainId"])
    either, either_chain = _resolve(db, args["blockchainId"])
    return MessageFilter(
        source=source,
        source_chain=source_chain,
        destination=destination,
        either=either,
        either_chain=either_chain,
        origin=args["from"],
        recipient=args["to"],
    )


def _list(
    db: Database, args: dict[str, Any], key: ApiKey | None, after: Key | None
) -> tuple[list[Json], Page[Any]]:
    where = _filter(db, args)
    visible = [c.chain_id for c in icm_api.visible_chains(db, args["network"], key)]
    page = icm_listing.list_messages(db, visible, where, after=after, limit=args["pageSize"])
    return icm_api.render(db, [m for m, _ in page.items], visible), page


def _one(db: Database, message_id: str, key: ApiKey | None) -> Json:
    visible = [c.chain_id for c in icm_api.visible_chains(db, None, key)]
    found = icm_api.render(db, [message_id], visible)
    if not found:
        raise NotFound(f"ICM message {message_id} not found")
    return found[0]


def legacy(message: Json, *, in_list: bool) -> Json:
    """A message in the teleporter paths' shape (see the module docstring)."""
    if in_list and message["status"] == "delivered_source_not_indexed":
        return message
    return {
        ("teleporterContractAddress" if k == "icmContractAddress" else k): v
        for k, v in message.items()
    }


async def list_messages(ctx: Context) -> Json:
    items, page = await ctx.run(_list, ctx.db, ctx.args, ctx.key, ctx.after())
    return {"messages": items, **ctx.next_page(page)}


async def get_message(ctx: Context) -> Json:
    return await ctx.run(_one, ctx.db, ctx.args["messageId"], ctx.key)


async def list_legacy(ctx: Context) -> Json:
    body = await list_messages(ctx)
    body["messages"] = [legacy(m, in_list=True) for m in body["messages"]]
    return body


async def get_legacy(ctx: Context) -> Json:
    return legacy(await get_message(ctx), in_list=False)


async def list_legacy_by_address(ctx: Context) -> Json:
    body = await icm_api.list_messages_by_address(ctx)
    body["messages"] = [legacy(m, in_list=True) for m in body["messages"]]
    return body


def _legacy_schema(icm: Schema) -> Schema:
    props = {
        ("teleporterContractAddress" if k == "icmContractAddress" else k): v
        for k, v in icm["properties"].items()
    }
    required = [
        "teleporterContractAddress" if k == "icmContractAddress" else k for k in icm["required"]
    ]
    return {**icm, "properties": props, "required": required}


def legacy_schemas(icm: dict[str, Schema]) -> dict[str, Schema]:
    """The teleporter paths' components, from the ICM ones (api/schemas.ICM)."""
    out = {
        "PendingTeleporterMessage": _legacy_schema(icm["PendingIcmMessage"]),
        "DeliveredTeleporterMessage": _legacy_schema(icm["DeliveredIcmMessage"]),
        "DeliveredSourceNotIndexedTeleporterMessage": _legacy_schema(
            icm["DeliveredSourceNotIndexedIcmMessage"]
        ),
    }
    names = ("PendingTeleporterMessage", "DeliveredTeleporterMessage")
    listed = [ref(n) for n in (*names, "DeliveredSourceNotIndexedIcmMessage")]
    one = [ref(n) for n in (*names, "DeliveredSourceNotIndexedTeleporterMessage")]
    disc = {"propertyName": "status"}
    out["TeleporterMessage"] = {"oneOf": one, "discriminator": disc}
    out["ListTeleporterMessagesResponse"] = obj(
        {"messages": array({"oneOf": listed, "discriminator": disc})},
        {"nextPageToken": {"type": "string"}},
    )
    return out


OPERATIONS = (
    Operation(
        "listIcmMessages",
        "/v1/icm/messages",
        "List the ICM messages seen on the indexed chains, newest first, filtered by source or"
        " destination chain, sender, recipient or network.",
        _TAG,
        _LIST_PARAMS,
        "ListIcmMessagesResponse",
        20,
        list_messages,
    ),
    Operation(
        "getIcmMessage",
        "/v1/icm/messages/{messageId}",
        "Get one ICM message by its id.",
        _TAG,
        (MESSAGE_ID,),
        "IcmMessage",
        2,
        get_message,
    ),
    Operation(
        "listTeleporterMessages",
        "/v1/teleporter/messages",
        "Legacy path of listIcmMessages (teleporterContractAddress in place of"
        " icmContractAddress).",
        _LEGACY_TAG,
        _LIST_PARAMS,
        "ListTeleporterMessagesResponse",
        20,
        list_legacy,
    ),
    Operation(
        "getTeleporterMessage",
        "/v1/teleporter/messages/{messageId}",
        "Legacy path of getIcmMessage.",
        _LEGACY_TAG,
        (MESSAGE_ID,),
        "TeleporterMessage",
        2,
        get_legacy,
    ),
    Operation(
        "listTeleporterMessagesByAddress",
        "/v1/teleporter/addresses/{address}/messages",
        "Legacy path of listIcmMessagesByAddress.",
        _LEGACY_TAG,
        icm_api.OPERATIONS[0].params,
        "ListTeleporterMessagesResponse",
        20,
        list_legacy_by_address,
    ),
)
