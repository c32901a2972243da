"""The metrics service's chains (listChains, getChain) and its health and liveness checks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.concurrency import run_in_threadpool

from snowfield.api.metrics.context import MetricsContext
from snowfield.api.metrics.params import PAGE_TOKEN, page_token, single
from snowfield.api.operation import Json, Operation
from snowfield.api.params import NETWORK, Param, decimal
from snowfield.errors import InvalidParams, NotFound
from snowfield.store import chain_queries, rollup_reads
from snowfield.store.database import Database
from snowfield.store.rows import ChainRow

_NUMBER = {"type": "number"}
_STRING = {"type": "string"}
_INDICATOR = {
    "type": "object",
    "required": ["status"],
    "properties": {"status": {"type": "string", "enum": ["up", "down"]}},
    "additionalProperties": False,
}
_INDICATORS = {"type": "object", "additionalProperties": _INDICATOR}
CHAIN_SCHEMA = {
    "type": "object",
    "required": ["evmChainId", "chainName", "blockchainId", "subnetId", "network"],
    "properties": {
        "evmChainId": _NUMBER,
        "chainName": _STRING,
        "blockchainId": _STRING,
        "subnetId": _STRING,
        "network": {"type": "string", "enum": ["mainnet", "testnet"]},
    },
    "additionalProperties": False,
}
SCHEMAS: dict[str, Any] = {
    "Chain": CHAIN_SCHEMA,
    "ListChainsResponse": {
        "type": "object",
        "required": ["chains"],
        "properties": {
            "chains": {"type": "array", "items": {"$ref": "#/components/schemas/Chain"}},
            "nextPageToken": _STRING,
        },
        "additionalProperties": False,
    },
    "HealthCheckResultDto": {
        "type": "object",
        "required": ["status", "info", "error", "details"],
        "properties": {
            "status": {"type": "string", "enum": ["error", "ok", "shutting_down"]},
            "info": _INDICATORS,
            "error": _INDICATORS,
            "details": _INDICATORS,
        },
        "additionalProperties": False,
    },
}


def _chain(c: ChainRow) -> Json:
    """One chain in the real service's shape. An id this index does not know (a chain
    configured by its EVM chain id alone) is the empty string: the field is required and no
    value is invented for it."""
    return {
        "evmChainId": c.chain_id,
        "chainName": c.name,
        "blockchainId": c.blockchain_id or "",
        "subnetId": c.subnet_id or "",
        "network": "mainnet" if c.network == "mainnet" else "testnet",
    }


def _metric_chains(db: Database) -> list[ChainRow]:
    """The configured chains the metrics cover (every indexed chain has rollups)."""
    known = rollup_reads.chain_networks(db)
    configured = {c.chain_id: c for c in chain_queries.list_chains(db)}
    return [
        configured.get(chain_id) or ChainRow(chain_id, f"chain {chain_id}", network, "")
        for chain_id, network in sorted(known.items())
    ]


def _list_args(path: Mapping[str, str], query: list[tuple[str, str]]) -> dict[str, Any]:
    values = single(query)
    problems: list[str] = []
    page_token(values.get("pageToken"), problems)
    network = values.get("network")
    if network is not None and network not in (NETWORK.enum or ()):
        problems.append("network must be one of the following values: mainnet, fuji, testnet")
    if problems:
        raise InvalidParams(problems[0], data=problems)
    return {"network": network}


async def list_chains(req: MetricsContext) -> Json:
    network = req.args["network"]
    found = await run_in_threadpool(_metric_chains, req.service.db)
    if network is not None:
        testnet = network != "mainnet"
        found = [c for c in found if (c.network != "mainnet") == testnet]
    # Every chain fits on one page: no nextPageToken.
    return {"chains": [_chain(c) for c in found]}


def _chain_args(path: Mapping[str, str], query: list[tuple[str, str]]) -> dict[str, Any]:
    single(query)
    return {"chainId": path["chainId"]}


async def get_chain(req: MetricsContext) -> Json:
    ref = req.args["chainId"]
    number = decimal(ref)
    found = await run_in_threadpool(_metric_chains, req.service.db)
    for c in found:
        if c.chain_id == number:
            return _chain(c)
    raise NotFound(f"chain {ref} is not supported")


def _no_args(path: Mapping[str, str], query: list[tuple[str, str]]) -> dict[str, Any]:
    return {}


async def health(req: MetricsContext) -> Json:
    """`database` is up when the store answers a query (a failure is a 503 by the router)."""
    await run_in_threadpool(req.service.db.query, "SELECT 1")
    up = {"database": {"status": "up"}}
    return {"status": "ok", "info": up, "error": {}, "details": up}


async def live(req: MetricsContext) -> Json:
    """The process answers: nothing else is asked."""
    return {"status": "ok", "info": {}, "error": {}, "details": {}}


_CHAIN_ID = Param("chainId", "path", "An EVM chain id the metrics cover.", required=True)
_WEIGHT = 1
OPERATIONS: tuple[Operation[MetricsContext], ...] = (
    Operation("listChains", "/v2/chains", "The chains the metrics cover.", "Chains",
              (PAGE_TOKEN, NETWORK), "ListChainsResponse", _WEIGHT, list_chains,
              arguments=_list_args),
    Operation("getChain", "/v2/chains/{chainId}", "One chain the metrics cover.", "Chains",
              (_CHAIN_ID,), "Chain", _WEIGHT, get_chain, arguments=_chain_args),
    Operation("metrics-health-check", "/v2/health-check", "Whether the service and its store"
              " answer.", "Health Check", (), "HealthCheckResultDto", _WEIGHT, health,
              arguments=_no_args),
    Operation("live-check", "/v2/live-check", "Whether the service process answers.",
              "Health Check", (), "HealthCheckResultDto", _WEIGHT, live, arguments=_no_args),
)  # fmt: skip
