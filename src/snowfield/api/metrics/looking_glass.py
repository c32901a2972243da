"""The metrics service's address lists: a subnet's validators' reward addresses over a time
range (getValidatorsByDateRange) and BTC.b's net bridgers (getAddressesByBtcbBridged).

BTC.b is one contract on the C-Chain of mainnet: the answer holds the addresses that minted or
burned it in this index (none when the store does not index chain 43114), with their net
amount in its smallest unit (8 decimals) as `sortKey`, largest first."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import orjson
from starlette.concurrency import run_in_threadpool

from snowfield.api.metrics.context import MetricsContext
from snowfield.api.metrics.params import (
    MAX_TIMESTAMP,
    PAGE_TOKEN,
    integer,
    one_of,
    page_token,
    single,
)
from snowfield.api.metrics.staking import NETWORKS
from snowfield.api.operation import Json, Operation
from snowfield.api.params import Param, decimal
from snowfield.errors import InvalidParams, NotFound
from snowfield.formats.ids import ID
from snowfield.store import looking_glass, metric_tokens, primary
from snowfield.store.database import Database

MAX_SIZE = 5000
DEFAULT_SIZE = 1000


def _size(raw: str | None, problems: list[str]) -> int:
    size = integer("pageSize", raw, 1, MAX_SIZE, problems)
    return DEFAULT_SIZE if size is None else size


def _validators_args(path: Mapping[str, str], query: list[tuple[str, str]]) -> dict[str, Any]:
    values = single(query)
    problems: list[str] = []
    subnet = path["subnetId"]
    try:
        subnet = str(ID.from_string(subnet))
    except Exception:
        problems.append("subnetId must be a subnet id (cb58)")
    network = values.get("network")
    if network is not None and network not in NETWORKS:
        problems.append(one_of("network", NETWORKS))
    start = integer("startTimestamp", values.get("startTimestamp"), 0, MAX_TIMESTAMP, problems)
    end = integer("endTimestamp", values.get("endTimestamp"), 0, MAX_TIMESTAMP, problems)
    if start is not None and end is not None and start > end:
        problems.append("startTimestamp must be less than or equal to endTimestamp")
    args = {"subnetId": subnet, "network": network, "start": start, "end": end,
            "pageSize": _size(values.get("pageSize"), problems),
            "pageToken": page_token(values.get("pageToken"), problems)}  # fmt: skip
    if problems:
        raise InvalidParams(problems[0], data=problems)
    return args


def _pchain(db: Database, network: str | None) -> str:
    for net in primary.networks(db):
        if network is None or (net.network_id == 1) == (network == "mainnet"):
            return net.pchain
    raise NotFound(f"network {network or 'of this index'} is not indexed")


def _scope(*parts: object) -> str:
    return hashlib.sha256(orjson.dumps(parts, option=orjson.OPT_SORT_KEYS)).hexdigest()


async def get_validators(req: MetricsContext) -> Json:
    service, args = req.service, req.args
    shaping = {k: v for k, v in args.items() if k not in ("pageSize", "pageToken")}
    scope = _scope("validators", shaping)
    after = await service.cursor(args["pageToken"], scope)

    def read() -> tuple[list[looking_glass.ValidatorAddresses], bool]:
        pchain = _pchain(service.db, args["network"])
        return looking_glass.validator_addresses(
            service.db, pchain, args["subnetId"], args["start"], args["end"], after,
            args["pageSize"],
        )  # fmt: skip

    found, more = await run_in_threadpool(read)
    body: Json = {"addresses": [{"addresses": list(v.addresses), "sortKey": str(v.start)}
                                for v in found]}  # fmt: skip
    if more:
        body["nextPageToken"] = await run_in_threadpool(
            metric_tokens.save_token, service.db, scope, found[-1].start, int(service.clock())
        )
    return body


def _btcb_args(path: Mapping[str, str], query: list[tuple[str, str]]) -> dict[str, Any]:
    values = single(query)
    problems: list[str] = []
    raw = values.get("threshold")
    threshold = None if raw is None else decimal(raw)
    if threshold is None:
        problems.append("threshold must be a non-negative integer string")
    args = {"threshold": threshold, "pageSize": _size(values.get("pageSize"), problems),
            "pageToken": page_token(values.get("pageToken"), problems)}  # fmt: skip
    if problems:
        raise InvalidParams(problems[0], data=problems)
    return args


async def get_btcb(req: MetricsContext) -> Json:
    service, args = req.service, req.args
    scope = _scope("btcb", args["threshold"])
    # The list is computed whole for each request: a page continues at a rank in it.
    skip = await service.cursor(args["pageToken"], scope) or 0
    every = await run_in_threadpool(looking_glass.btcb_bridged, service.db)
    above = [(a, n) for a, n in every if n >= args["threshold"] and n > 0]
    page = above[skip : skip + args["pageSize"]]
    body: Json = {"addresses": [{"address": a, "sortKey": str(n)} for a, n in page]}
    if skip + len(page) < len(above):
        body["nextPageToken"] = await run_in_threadpool(
            metric_tokens.save_token, service.db, scope, skip + len(page), int(service.clock())
        )
    return body


_S = {"type": "string"}
SCHEMAS: dict[str, Any] = {
    "PChainLookingGlassResponse": {
        "type": "object", "required": ["addresses"], "additionalProperties": False,
        "properties": {"nextPageToken": _S, "addresses": {"type": "array", "items": {
            "type": "object", "required": ["addresses", "sortKey"], "additionalProperties": False,
            "properties": {"addresses": {"type": "array", "items": _S}, "sortKey": _S}}}},
    },
    "LookingGlassResponse": {
        "type": "object", "required": ["addresses"], "additionalProperties": False,
        "properties": {"nextPageToken": _S, "addresses": {"type": "array", "items": {
            "type": "object", "required": ["address", "sortKey"], "additionalProperties": False,
            "properties": {"address": _S, "sortKey": _S}}}},
    },
}  # fmt: skip
_PAGE_SIZE = Param("pageSize", "query", "Most items on one page.", type="integer", minimum=1,
                   maximum=MAX_SIZE, default=DEFAULT_SIZE)  # fmt: skip
OPERATIONS: tuple[Operation[MetricsContext], ...] = (
    Operation(
        "getValidatorsByDateRange", "/v2/subnets/{subnetId}/validators:getAddresses",
        "Reward addresses of the subnet's validations over a time range, by start time.",
        "Looking Glass",
        (Param("subnetId", "path", "The subnet (cb58).", required=True),
         Param("startTimestamp", "query", "Validations ending after this time.",
               type="integer", minimum=0),
         Param("endTimestamp", "query", "Validations starting at or before this time.",
               type="integer", minimum=0),
         PAGE_TOKEN, _PAGE_SIZE,
         Param("network", "query", "mainnet, or fuji/testnet.", enum=NETWORKS)),
        "PChainLookingGlassResponse", 1, get_validators, arguments=_validators_args,
    ),
    Operation(
        "getAddressesByBtcbBridged", "/v2/chains/43114/btcb/bridged:getAddresses",
        "Addresses whose net BTC.b bridged in (mints less burns) reaches the threshold.",
        "Looking Glass",
        (Param("threshold", "query", "The least net amount (smallest unit).", required=True),
         PAGE_TOKEN, _PAGE_SIZE),
        "LookingGlassResponse", 1, get_btcb, arguments=_btcb_args,
    ),
)  # fmt: skip
