"""The P-Chain's delegators (active, pending, completed; by reward owner or node) and the
rewards paid to stakers (historical), beside listPending in primary_network.py."""

from __future__ import annotations

from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import PAGE_SIZE, PAGE_TOKEN, SORT_ORDER, Param
from snowfield.api.primary.primary_network import (
    ADDRESSES,
    NETWORK_PATH,
    NODE_IDS,
    _addresses,
    _bech32,
    indexed_network,
)
from snowfield.errors import InvalidParams
from snowfield.store import primary_documents, validator_queries
from snowfield.store.pagination import page_of
from snowfield.store.validator_entries import PERCENT, percent_text
from snowfield.store.validator_queries import PRIMARY_SUBNET, RewardUtxo, StakerFilter, StakerView

REWARD_ADDRESSES = Param(
    "rewardAddresses",
    "query",
    "Comma-separated reward-owner addresses (with or without P-).",
    read=_addresses,
)
DELEGATION_STATUS = Param(
    "delegationStatus",
    "query",
    "Only delegations in this status.",
    enum=("completed", "active", "pending"),
)
CURRENCY = Param(
    "currency",
    "query",
    "The currency of historical prices (none is known here: no price is shown).",
    enum=(
        "usd", "eur", "aud", "cad", "chf", "clp", "cny", "czk", "dkk", "gbp", "hkd", "huf",
        "jpy", "nzd",
    ),
)  # fmt: skip


def _delegator(v: StakerView, paid: list[RewardUtxo]) -> Json:
    fee = v.delegation_fee or 0
    out: Json = {
        "txHash": v.tx_id,
        "nodeId": v.node_id,
        "rewardAddresses": list(v.reward_addresses),
        "amountDelegated": str(v.amount),
        "delegationFee": percent_text(fee),
        "startTimestamp": v.start,
        "endTimestamp": v.end,
    }
    if v.status == "completed":
        net = sum(u.amount for u in paid if u.reward_type == "DELEGATOR")
        # The whole reward was the potential one when it was paid; none when it was not.
        gross = (v.potential_reward or net) if net else 0
        return {**out, "grossReward": str(gross), "netReward": str(net),
                "delegationStatus": "completed"}  # fmt: skip
    gross = v.potential_reward or 0
    return {
        **out,
        "estimatedGrossReward": str(gross),
        "estimatedNetReward": str(gross * (PERCENT - fee) // PERCENT),
        "delegationStatus": v.status,
    }


async def list_delegators(ctx: Context) -> Json:
    net = await indexed_network(ctx)
    owners = ctx.args.get("rewardAddresses")
    for address in owners or ():
        if not address.startswith(net.hrp + "1"):
            raise InvalidParams(
                f"rewardAddresses must be addresses of this network ({net.hrp}1...)"
            )
    status = ctx.args.get("delegationStatus")
    f = StakerFilter(
        ("DELEGATOR",), PRIMARY_SUBNET, ctx.args.get("nodeIds"),
        None if status is None else (status,), owners,
    )  # fmt: skip
    after = ctx.after()
    limit = ctx.args["pageSize"]
    _, views = await ctx.run(
        validator_queries.stakers, ctx.db, net.pchain, f,
        desc=ctx.args["sortOrder"] == "desc",
        after=None if after is None else (int(after[0]), str(after[1])),
        limit=limit + 1,
    )  # fmt: skip
    page = page_of(views, limit, lambda v: (v.start, v.tx_id))
    paid = await ctx.run(
        validator_queries.rewards_of, ctx.db, net.pchain, [v.tx_id for v in page.items]
    )
    items = [_delegator(v, paid[v.tx_id]) for v in page.items]
    return {**ctx.next_page(page), "delegators": items}


async def list_historical(ctx: Context) -> Json:
    net = await indexed_network(ctx)
    addresses = _bech32(ctx, net)
    node_ids = ctx.args.get("nodeIds")
    if addresses is None and node_ids is None:
        raise InvalidParams("one of addresses or nodeIds is required")
    after = ctx.after()
    limit = ctx.args["pageSize"]
    rows = await ctx.run(
        validator_queries.paid_rewards, ctx.db, net.pchain,
        owners=addresses, node_ids=node_ids, desc=ctx.args["sortOrder"] == "desc",
        after=None if after is None else (int(after[0]), str(after[1])),
        limit=limit + 1,
    )  # fmt: skip
    page = page_of(rows, limit, lambda r: (r[0].height, r[0].utxo_id))
    wanted = set(addresses or ())
    items = []
    for utxo, staker in page.items:
        # A staker's owners are its reward and fee owners: each UTXO goes to one of them.
        if wanted and not wanted.intersection(utxo.addresses):
            continue
        items.append(
            {
                "addresses": list(utxo.addresses),
                "txHash": staker.tx_id,
                "amountStaked": str(staker.amount),
                "nodeId": staker.node_id,
                "startTimestamp": staker.start,
                "endTimestamp": staker.end,
                "rewardType": utxo.reward_type,
                "utxoId": utxo.utxo_id,
                "outputIndex": utxo.output_index,
                "reward": primary_documents.asset(net.avax_asset, utxo.asset_id, utxo.amount),
                "rewardTxHash": staker.ended_tx or "",
            }
        )
    return {**ctx.next_page(page), "historicalRewards": items}


_PAGING = PAGE_SIZE.bounded(1, 100, 10)
OPERATIONS = (
    Operation(
        "listDelegators",
        "/v1/networks/{network}/delegators",
        "List delegations: active, pending or completed, with their estimated or paid rewards.",
        "Primary network",
        (
            NETWORK_PATH,
            PAGE_TOKEN,
            _PAGING,
            REWARD_ADDRESSES,
            SORT_ORDER,
            DELEGATION_STATUS,
            NODE_IDS,
        ),
        "ListDelegatorDetailsResponse",
        20,
        list_delegators,
    ),
    Operation(
        "listHistoricalPrimaryNetworkRewards",
        "/v1/networks/{network}/rewards",
        "List the rewards paid to stakers, by addresses or node ids.",
        "Primary network",
        (NETWORK_PATH, ADDRESSES, PAGE_TOKEN, _PAGING, NODE_IDS, SORT_ORDER, CURRENCY),
        "ListHistoricalRewardsResponse",
        20,
        list_historical,
    ),
)
