"""getStakingMetrics: a subnet's validator and delegator count and weight per day, from the
primary-network index (store/staking_rollups.py keeps and defines them), newest day first."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import orjson
from starlette.concurrency import run_in_threadpool

from snowfield.api.metrics.context import MetricsContext
from snowfield.api.metrics.params import (
    MAX_PAGE_SIZE,
    MAX_TIMESTAMP,
    PAGE_TOKEN,
    integer,
    one_of,
    page_size,
    page_token,
    single,
)
from snowfield.api.operation import Json, Operation
from snowfield.api.params import Param
from snowfield.errors import InvalidParams, NotFound
from snowfield.formats.ids import ID
from snowfield.store import metric_tokens, primary, staking_rollups
from snowfield.store.buckets import bucket_start
from snowfield.store.database import Database

PRIMARY_SUBNET = "11111111111111111111111111111111LpoYY"
NETWORKS = ("mainnet", "fuji", "testnet")


def _args(path: Mapping[str, str], query: list[tuple[str, str]]) -> dict[str, Any]:
    values = single(query)
    problems: list[str] = []
    if path["metric"] not in staking_rollups.METRICS:
        problems.append(one_of("metric", staking_rollups.METRICS))
    if path["network"] not in NETWORKS:
        problems.append(one_of("network", NETWORKS))
    subnet = values.get("subnetId", PRIMARY_SUBNET)
    try:
        subnet = str(ID.from_string(subnet))
    except Exception:
        problems.append("subnetId must be a subnet id (cb58)")
    start = integer("startTimestamp", values.get("startTimestamp"), 0, MAX_TIMESTAMP, problems)
    end = integer("endTimestamp", values.get("endTimestamp"), 0, MAX_TIMESTAMP, problems)
    if start is not None and end is not None and start > end:
        problems.append("startTimestamp must be less than or equal to endTimestamp")
    size = page_size(values.get("pageSize"), problems)
    token = page_token(values.get("pageToken"), problems)
    if problems:
        raise InvalidParams(problems[0], data=problems)
    return {
        "network": path["network"], "metric": path["metric"], "subnetId": subnet,
        "start": start, "end": end, "pageSize": size, "pageToken": token,
    }  # fmt: skip


def _chain(db: Database, network: str) -> tuple[str, int]:
    """The indexed P-Chain of `network` and the day of its last indexed block."""
    for net in primary.networks(db):
        if (net.network_id == 1) == (network == "mainnet"):
            done = primary.checkpoint(db, net.pchain)
            if done is not None:
                return net.pchain, bucket_start("day", int(done.timestamp))
    raise NotFound(f"network {network} is not indexed")


def _page(db: Database, args: dict[str, Any], below: int | None) -> tuple[list[Any], bool]:
    pchain, last_day = _chain(db, args["network"])
    return staking_rollups.series(
        db, pchain, args["subnetId"], args["metric"], last_day,
        start=args["start"], end=args["end"], below=below, limit=args["pageSize"],
    )  # fmt: skip


async def get_staking(req: MetricsContext) -> Json:
    service, args = req.service, req.args
    shaping = {k: v for k, v in args.items() if k not in ("pageSize", "pageToken")}
    scope = hashlib.sha256(
        orjson.dumps(["staking", shaping], option=orjson.OPT_SORT_KEYS)
    ).hexdigest()
    below = await service.cursor(args["pageToken"], scope)
    points, more = await run_in_threadpool(_page, service.db, args, below)
    body: Json = {"results": [{"value": v, "timestamp": d} for d, v in points]}
    if more:
        body["nextPageToken"] = await run_in_threadpool(
            metric_tokens.save_token, service.db, scope, points[-1][0], int(service.clock())
        )
    return body


PARAMS = (
    Param("network", "path", "mainnet, or fuji/testnet (the test and local networks).",
          required=True, enum=NETWORKS),
    Param("metric", "path", "The staking metric.", required=True, enum=staking_rollups.METRICS),
    Param("startTimestamp", "query", "Days ending after this Unix time.", type="integer",
          minimum=0),
    Param("endTimestamp", "query", "Days starting at or before this Unix time.",
          type="integer", minimum=0),
    PAGE_TOKEN,
    Param("pageSize", "query", "Most days on one page.", type="integer", minimum=1,
          maximum=MAX_PAGE_SIZE, default=100),
    Param("subnetId", "query", "The subnet (default: the primary network).",
          default=PRIMARY_SUBNET),
)  # fmt: skip
OPERATIONS: tuple[Operation[MetricsContext], ...] = (
    Operation("getStakingMetrics", "/v2/networks/{network}/metrics/{metric}",
              "A subnet's validator or delegator count or weight per day, newest first.",
              "Metrics", PARAMS, "MetricsResponse", 1, get_staking, arguments=_args),
)  # fmt: skip
