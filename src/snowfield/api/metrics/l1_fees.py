"""The L1 validator fee metrics (ACP-77's continuous fee, as the P-Chain charged it): per day,
all validators' fees, cumulative fees and paying validators; one validation's, one node's and
one subnet's. store/l1_fees.py keeps and defines them; each answer reads its days, oldest to
the last indexed block's day, newest first."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from starlette.concurrency import run_in_threadpool

from snowfield.api.metrics.context import MetricsContext
from snowfield.api.metrics.params import MAX_TIMESTAMP, integer, one_of, single
from snowfield.api.operation import Json, Operation
from snowfield.api.params import Param
from snowfield.errors import InvalidParams, NotFound
from snowfield.formats.ids import ID, NodeID
from snowfield.store import l1_fees, primary
from snowfield.store.buckets import bucket_start
from snowfield.store.database import Database

P_CHAIN = "11111111111111111111111111111111LpoYY"
# metric -> the series kind store/l1_fees.series reads
TOTAL = {"totalCumulativeFeesDaily": "cumulative", "totalValidatorFeesDaily": "fees",
         "totalPayingValidatorsDaily": "payers"}  # fmt: skip
VALIDATION = {"validationCumulativeFeesDaily": "cumulative", "validationFeesDaily": "fees"}
NODE = {"perNodeCumulativeFeesPaid": "cumulative", "perNodeDailyFeesPaid": "fees"}
SUBNET = {"perSubnetDailyFeesPaid": "fees", "perSubnetCumulativeFeesPaid": "cumulative",
          "perSubnetPayingValidators": "payers"}  # fmt: skip
Reader = Callable[[str], str]  # the path's member text -> its canonical form, or ValueError


def _cb58(text: str) -> str:
    return str(ID.from_string(text))


def _node(text: str) -> str:
    return str(NodeID.from_string(text))


def _arguments(
    metrics: Mapping[str, str], scope: str, member: tuple[str, str, Reader] | None
) -> Callable[[Mapping[str, str], list[tuple[str, str]]], dict[str, Any]]:
    """The operation's argument reader: every problem at once, as the service words them."""

    def read(path: Mapping[str, str], query: list[tuple[str, str]]) -> dict[str, Any]:
        values = single(query)
        problems: list[str] = []
        if path["metric"] not in metrics:
            problems.append(one_of("metric", tuple(metrics)))
        name = ""
        if member is not None:
            param, what, canonical = member
            try:
                name = canonical(path[param])
            except Exception:
                problems.append(f"{param} must be {what}")
        start = integer("startTimestamp", values.get("startTimestamp"), 0, MAX_TIMESTAMP, problems)
        end = integer("endTimestamp", values.get("endTimestamp"), 0, MAX_TIMESTAMP, problems)
        if start is not None and end is not None and start > end:
            problems.append("startTimestamp must be less than or equal to endTimestamp")
        if problems:
            raise InvalidParams(problems[0], data=problems)
        return {"kind": metrics[path["metric"]], "scope": scope, "member": name,
                "start": start, "end": end}  # fmt: skip

    return read


def _series(db: Database, args: dict[str, Any]) -> list[tuple[int, int]]:
    done = primary.checkpoint(db, P_CHAIN)
    if done is None:
        raise NotFound("the P-Chain is not indexed")
    scope, member = args["scope"], args["member"]
    if scope != "all" and not l1_fees.known(db, P_CHAIN, scope, member):
        raise NotFound(f"no L1 validator of {scope} {member} is indexed")
    return l1_fees.series(
        db, P_CHAIN, scope, member, args["kind"], bucket_start("day", int(done.timestamp)),
        start=args["start"], end=args["end"],
    )  # fmt: skip


async def get_l1_fees(req: MetricsContext) -> Json:
    points = await run_in_threadpool(_series, req.service.db, req.args)
    return {"results": [{"value": v, "timestamp": d} for d, v in points]}


def _params(metrics: Mapping[str, str], about: str, *member: Param) -> tuple[Param, ...]:
    return (
        *member,
        Param("metric", "path", f"Which metric of {about} to fetch.", required=True,
              enum=tuple(metrics)),
        Param("startTimestamp", "query", "Days ending after this Unix time.", type="integer",
              minimum=0),
        Param("endTimestamp", "query", "Days starting at or before this Unix time.",
              type="integer", minimum=0),
    )  # fmt: skip


def _operation(
    op_id: str, path: str, summary: str, metrics: Mapping[str, str], scope: str,
    member: tuple[str, str, Reader] | None, params: tuple[Param, ...],
) -> Operation[MetricsContext]:  # fmt: skip
    return Operation(op_id, path, summary, "Metrics", params, "MetricsResponse", 1,
                     get_l1_fees, arguments=_arguments(metrics, scope, member))  # fmt: skip


OPERATIONS: tuple[Operation[MetricsContext], ...] = (
    _operation(
        "getTotalL1ValidatorMetrics", "/v2/validators/metrics/{metric}",
        "All L1 validators' fees per day, their running total, or how many paid.",
        TOTAL, "all", None, _params(TOTAL, "all L1 validators"),
    ),
    _operation(
        "getMetricsByValidationId", "/v2/validation/{l1ValidationId}/metrics/{metric}",
        "One L1 validation's fees per day, or their running total.",
        VALIDATION, "validation", ("l1ValidationId", "a validation id (cb58)", _cb58),
        _params(VALIDATION, "an L1 validation", Param(
            "l1ValidationId", "path", "The L1 validator's validation id.", required=True)),
    ),
    _operation(
        "getMetricsByNodeId", "/v2/validator/{nodeId}/metrics/{metric}",
        "The fees per day (or their running total) of a node's L1 validations.",
        NODE, "node", ("nodeId", "a node id (NodeID-…)", _node),
        _params(NODE, "an L1 validator node", Param(
            "nodeId", "path", "The L1 validator's node id.", required=True)),
    ),
    _operation(
        "getMetricsBySubnetId", "/v2/subnet/{subnetId}/metrics/{metric}",
        "An L1's validator fees per day, their running total, or how many validators paid.",
        SUBNET, "subnet", ("subnetId", "a subnet id (cb58)", _cb58),
        _params(SUBNET, "an L1", Param("subnetId", "path", "The L1's subnet id.",
                                        required=True)),
    ),
)  # fmt: skip
