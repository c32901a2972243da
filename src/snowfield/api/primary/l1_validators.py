"""The L1 validators as the node last showed them to the indexer (platform.getL1Validator):
validation id, node, weight, remaining balance at a height, owners (store/validator_state.py)."""

from __future__ import annotations

from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import PAGE_SIZE, PAGE_TOKEN, Param
from snowfield.api.primary.primary_network import NETWORK_PATH, indexed_network
from snowfield.api.primary.validators import _node
from snowfield.errors import InvalidParams
from snowfield.formats.cb58 import decode_cb58
from snowfield.store import validator_state
from snowfield.store.pagination import Page
from snowfield.store.validator_state import L1Validator


def _id(param: Param, raw: str) -> str:
    try:
        raw_id = decode_cb58(raw)
    except InvalidParams:
        raise InvalidParams(f"{param.name}: {raw} is not a valid id") from None
    if len(raw_id) != 32:
        raise InvalidParams(f"{param.name}: {raw} is not a valid id")
    return raw


def _flag(param: Param, raw: str) -> bool:
    if raw not in ("true", "false"):
        raise InvalidParams(f"{param.name} must be true or false")
    return raw == "true"


VALIDATION_ID = Param("l1ValidationId", "query", "One validation by its id.", read=_id)
INCLUDE_INACTIVE = Param(
    "includeInactiveL1Validators",
    "query",
    "Also list validators with no balance left (true / false).",
    enum=("true", "false"),
    read=_flag,
)
NODE_ID = Param("nodeId", "query", "Only this node's validations (NodeID-...).", read=_node)
SUBNET_ID = Param("subnetId", "query", "Only this L1's validators.", read=_id)


def render(v: L1Validator) -> Json:
    raw = decode_cb58(v.validation_id)
    credentials: Json = {"publicKey": v.public_key} if v.public_key else {}
    return {
        "validationId": v.validation_id,
        "validationIdHex": "0x" + raw.hex(),
        "nodeId": v.node_id,
        "subnetId": v.subnet_id,
        "weight": v.weight,
        "remainingBalance": v.balance,
        "creationTimestamp": v.start_time,
        "blsCredentials": credentials,
        "remainingBalanceOwner": v.remaining_owner,
        "deactivationOwner": v.deactivation_owner,
    }


async def list_l1_validators(ctx: Context) -> Json:
    net = await indexed_network(ctx)
    after = ctx.after()
    items, key = await ctx.run(
        validator_state.l1_validators,
        ctx.db,
        net.pchain,
        subnet_id=ctx.args.get("subnetId"),
        node_id=ctx.args.get("nodeId"),
        validation_id=ctx.args.get("l1ValidationId"),
        include_inactive=bool(ctx.args.get("includeInactiveL1Validators")),
        after=None if after is None else (str(after[0]), int(after[1]), str(after[2])),
        limit=ctx.args["pageSize"],
    )
    height = await ctx.run(validator_state.l1_height, ctx.db, net.pchain)
    page = ctx.next_page(Page(items, key))
    return {**page, "validators": [render(v) for v in items], "blockHeight": str(height or 0)}


OPERATIONS = (
    Operation(
        "listL1Validators",
        "/v1/networks/{network}/l1Validators",
        "List L1 validators: validation id, weight, remaining balance and owners.",
        "Primary network",
        (
            NETWORK_PATH,
            PAGE_TOKEN,
            PAGE_SIZE.bounded(1, 100, 10),
            VALIDATION_ID,
            INCLUDE_INACTIVE,
            NODE_ID,
            SUBNET_ID,
        ),
        "ListL1ValidatorsResponse",
        20,
        list_l1_validators,
    ),
)
