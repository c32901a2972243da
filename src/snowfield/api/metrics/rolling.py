"""rollingWindowMetrics: a chain metric over the last hour, day, week, month, 90 days and year,
and all time, up to now (store/rolling_windows.py defines the windows)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.concurrency import run_in_threadpool

from snowfield.api.metrics.context import MetricsContext
from snowfield.api.metrics.params import CHAIN_ID, one_of, single
from snowfield.api.operation import Json, Operation
from snowfield.api.params import Param
from snowfield.errors import InvalidParams
from snowfield.store import rolling_windows

_NAMES = [name for name, _ in rolling_windows.WINDOWS]
SCHEMAS: dict[str, Any] = {
    "RollingWindowMetricsApiResponse": {
        "type": "object",
        "required": ["result"],
        "properties": {
            "result": {
                "type": "object",
                "required": _NAMES,
                "properties": {name: {"type": "number"} for name in _NAMES},
                "additionalProperties": False,
            }
        },
        "additionalProperties": False,
    }
}


def _args(path: Mapping[str, str], query: list[tuple[str, str]]) -> dict[str, Any]:
    single(query)
    metric = path["metric"]
    if metric not in rolling_windows.METRICS:
        problem = one_of("metric", rolling_windows.METRICS)
        raise InvalidParams(problem, data=[problem])
    return {"chainId": path["chainId"], "metric": metric}


async def get_rolling(req: MetricsContext) -> Json:
    service = req.service
    chains = await service.chains(req.args["chainId"])
    now = int(service.clock())
    found = await run_in_threadpool(
        rolling_windows.windows, service.db, chains, req.args["metric"], now
    )
    return {"result": found}


_METRIC = Param(
    "metric", "path", "The chain metric (docs/metrics.md).", required=True,
    enum=rolling_windows.METRICS,
)  # fmt: skip
OPERATIONS: tuple[Operation[MetricsContext], ...] = (
    Operation(
        "getEvmChainRollingWindowMetrics",
        "/v2/chains/{chainId}/rollingWindowMetrics/{metric}",
        "A chain metric over rolling windows up to now (or of all, mainnet or testnet chains).",
        "Metrics",
        (CHAIN_ID, _METRIC),
        "RollingWindowMetricsApiResponse",
        1,
        get_rolling,
        arguments=_args,
    ),
)
