"""The P-Chain's validators (active, pending, completed or removed; one node's validations):
stake, delegations, uptime as the node reports it, delegation capacity, fee and rewards, from
the staking txs (store/validator_queries.py) and the indexer's last observation of the node
(store/validator_state.py)."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal, InvalidOperation
from typing import Any

from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import PAGE_SIZE, PAGE_TOKEN, SORT_ORDER, Param
from snowfield.api.primary import validator_pages
from snowfield.api.primary.primary_network import NETWORK_PATH, NODE_IDS
from snowfield.errors import InvalidParams
from snowfield.formats.ids import NodeID
from snowfield.store import primary_queries, validator_documents, validator_queries
from snowfield.store.pagination import page_of
from snowfield.store.primary import PrimaryNetwork
from snowfield.store.validator_entries import Figures, entries
from snowfield.store.validator_queries import PRIMARY_SUBNET, StakerFilter, StakerView

SORT_BY = (
    "blockIndex",
    "delegationCapacity",
    "timeRemaining",
    "delegationFee",
    "uptimePerformance",
)
STATUSES = ("completed", "active", "pending", "removed")


def _number(low: int, high: int) -> Any:
    def read(param: Param, raw: str) -> Decimal:
        try:
            value = Decimal(raw)
        except InvalidOperation:
            raise InvalidParams(f"{param.name} must be a number") from None
        if not value.is_finite() or not low <= value <= high:
            raise InvalidParams(f"{param.name} must be between {low} and {high}")
        return value

    return read


def _amount(param: Param, raw: str) -> int:
    if not raw.isdigit() or len(raw) > 30:
        raise InvalidParams(f"{param.name} must be an amount in nAVAX")
    return int(raw)


def _node(param: Param, raw: str) -> str:
    try:
        return str(NodeID.from_string(raw))
    except InvalidParams:
        raise InvalidParams(f"{param.name}: {raw} is not a valid node id") from None


def _num_param(name: str, text: str, low: int, high: int) -> Param:
    return Param(name, "query", text, read=_number(low, high), pattern=r"^[0-9]+(\.[0-9]+)?$")


SORT_BY_PARAM = Param(
    "sortBy", "query", "The order: blockIndex (default) or a validator figure.", enum=SORT_BY,
    default="blockIndex",
)  # fmt: skip
STATUS = Param("validationStatus", "query", "Only validations in this status.", enum=STATUSES)
SUBNET = Param("subnetId", "query", "The subnet whose validators to list (default: the primary"
               " network).")  # fmt: skip
CAPACITY = tuple(
    Param(f"{bound}DelegationCapacity", "query", f"{bound.title()}imum delegation capacity"
          " (nAVAX).", read=_amount, pattern="^[0-9]+$")
    for bound in ("min", "max")
)  # fmt: skip
TIME = tuple(
    _num_param(f"{b}TimeRemaining", "Seconds left until the validation ends.", 0, 2147483647)
    for b in ("min", "max")
)
FEE = tuple(
    _num_param(f"{b}FeePercentage", "Delegation fee, percent.", 2, 100) for b in ("min", "max")
)
UPTIME = tuple(
    _num_param(f"{b}UptimePerformance", "Uptime, percent.", 0, 100) for b in ("min", "max")
)
NODE_PATH = Param("nodeId", "path", "The validator's node id (NodeID-...).", required=True,
                  read=_node)  # fmt: skip


def stake_ratio(staked: int, supply: int | None) -> str:
    """Active stake over the current supply, as a decimal fraction (0 when no supply is known)."""
    if not supply:
        return "0"
    return str((Decimal(staked) / Decimal(supply)).quantize(Decimal("0.0001")).normalize())


async def _page(ctx: Context, pchain: str, f: StakerFilter, desc: bool, limit: int) -> Json:
    """One page in start order: the stored entries joined as bytes (one store call), else
    (an entry the writer has not rendered for the chain time) one store call for the stakers
    and all they derive from, rendered here."""
    after = ctx.after()
    key = None if after is None else (int(after[0]), str(after[1]))
    stored = await ctx.run(
        validator_documents.page, ctx.db, pchain, f, desc=desc, after=key, limit=limit + 1
    )
    if stored is not None:
        cut = page_of(stored, limit, lambda r: (r[0], r[1]))
        listed = validator_documents.joined([r[2] for r in cut.items])
        return {**ctx.next_page(cut), "validators": listed}
    m = await ctx.run(
        validator_queries.measured, ctx.db, pchain, f, desc=desc, after=key, limit=limit + 1
    )
    page = page_of(m.stakers, limit, lambda v: (v.start, v.tx_id))
    m = replace(m, stakers=page.items)
    return {**ctx.next_page(page), "validators": [e.document for e in entries(m)]}


def _sort_value(sort_by: str, v: StakerView, f: Figures, now: int) -> int:
    if sort_by == "delegationCapacity":
        return f.capacity or 0
    if sort_by == "timeRemaining":
        return max(0, v.end - now)
    if sort_by == "delegationFee":
        return v.delegation_fee or 0
    return round(f.uptime * 10_000)


def _within(value: float, low: Any, high: Any) -> bool:
    return (low is None or value >= low) and (high is None or value <= high)


def _filter(ctx: Context, now: int) -> StakerFilter:
    a = ctx.args
    subnet = a.get("subnetId") or PRIMARY_SUBNET
    fee = [None if a.get(n) is None else int(a[n] * 10_000) for n in FEE_NAMES]
    ends = [None if a.get(n) is None else now + int(a[n]) for n in TIME_NAMES]
    status = a.get("validationStatus")
    return StakerFilter(
        ("VALIDATOR",) if subnet == PRIMARY_SUBNET else ("SUBNET_VALIDATOR",),
        subnet,
        a.get("nodeIds"),
        None if status is None else (status,),
        None,
        fee[0],
        fee[1],
        ends[0],
        ends[1],
    )


FEE_NAMES = ("minFeePercentage", "maxFeePercentage")
TIME_NAMES = ("minTimeRemaining", "maxTimeRemaining")
_DERIVED = ("minDelegationCapacity", "maxDelegationCapacity", "minUptimePerformance",
            "maxUptimePerformance")  # fmt: skip


async def list_validators(ctx: Context) -> Json:
    return await validator_pages.kept(ctx, "listValidators", _list)


async def _list(ctx: Context, net: PrimaryNetwork) -> Json:
    now = 0  # the chain time, read first only when a filter is relative to it
    if any(ctx.args.get(n) is not None for n in TIME_NAMES) or ctx.args["sortBy"] != "blockIndex":
        time_now = await ctx.run(primary_queries.chain_time, ctx.db, net.pchain)
        now = time_now or 0
    desc = ctx.args["sortOrder"] == "desc"
    limit = ctx.args["pageSize"]
    sort_by = ctx.args["sortBy"]
    f = _filter(ctx, now)
    if sort_by == "blockIndex" and not any(ctx.args.get(n) is not None for n in _DERIVED):
        return await _page(ctx, net.pchain, f, desc, limit)
    # By a figure derived from delegations and the node's observation: every validation that
    # passes the stored filters is measured, then sorted and cut (the set is the validator
    # set's size, not the chain's).
    after = ctx.after()
    m = await ctx.run(
        validator_queries.measured, ctx.db, net.pchain, f, desc=False, after=None, limit=None
    )
    a = ctx.args
    rows = []
    for e in entries(m):
        v, fig, entry = e.view, e.figures, e.document
        capacity = fig.capacity or 0
        if not _within(capacity, a.get("minDelegationCapacity"), a.get("maxDelegationCapacity")):
            continue
        if not _within(fig.uptime, a.get("minUptimePerformance"), a.get("maxUptimePerformance")):
            continue
        rows.append(((_sort_value(sort_by, v, fig, now), v.start, v.tx_id), entry))
    rows.sort(key=lambda r: r[0], reverse=desc)
    if after is not None:
        mark = (int(after[0]), int(after[1]), str(after[2]))
        rows = [r for r in rows if (r[0] < mark if desc else r[0] > mark)]
    cut = page_of(rows, limit, lambda r: r[0])
    return {**ctx.next_page(cut), "validators": [e for _, e in cut.items]}


async def get_validator(ctx: Context) -> Json:
    return await validator_pages.kept(ctx, "getSingleValidatorDetails", _one)


async def _one(ctx: Context, net: PrimaryNetwork) -> Json:
    status = ctx.args.get("validationStatus")
    f = StakerFilter(
        ("VALIDATOR", "SUBNET_VALIDATOR"),
        None,
        (ctx.args["nodeId"],),
        None if status is None else (status,),
    )
    desc = ctx.args["sortOrder"] == "desc"
    return await _page(ctx, net.pchain, f, desc, ctx.args["pageSize"])


_PAGING = PAGE_SIZE.bounded(1, 100, 10)
OPERATIONS = (
    Operation(
        "listValidators",
        "/v1/networks/{network}/validators",
        "List validators: active, pending, completed or removed, with stake, delegations,"
        " uptime, delegation capacity, fee and rewards.",
        "Primary network",
        (
            NETWORK_PATH,
            PAGE_TOKEN,
            _PAGING,
            NODE_IDS,
            SORT_BY_PARAM,
            SORT_ORDER,
            STATUS,
            *CAPACITY,
            *TIME,
            *FEE,
            *UPTIME,
            SUBNET,
        ),
        "ListValidatorDetailsResponse",
        20,
        list_validators,
    ),
    Operation(
        "getSingleValidatorDetails",
        "/v1/networks/{network}/validators/{nodeId}",
        "List one node's validations.",
        "Primary network",
        (NETWORK_PATH, NODE_PATH, PAGE_TOKEN, _PAGING, STATUS, SORT_ORDER),
        "ListValidatorDetailsResponse",
        20,
        get_validator,
    ),
)
