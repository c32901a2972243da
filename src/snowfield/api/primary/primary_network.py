"""Operations 11-13: the primary network's active staking txs, pending rewards and subnets,
from the P-Chain index (store/primary*.py)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import PAGE_SIZE, PAGE_TOKEN, SORT_ORDER, Param
from snowfield.errors import InvalidParams, NotFound
from snowfield.formats.bech32 import parse_bech32
from snowfield.formats.ids import NodeID
from snowfield.store import primary_documents, primary_queries
from snowfield.store.pagination import page_of
from snowfield.store.primary import PrimaryNetwork
from snowfield.store.primary_queries import Staker

MAX_ADDRESSES = 64  # per request; each one is a lookup
P_CHAIN_ALIASES = ("p-chain", "11111111111111111111111111111111LpoYY")
TX_TYPES = (
    "AddValidatorTx",
    "AddSubnetValidatorTx",
    "AddDelegatorTx",
    "CreateChainTx",
    "CreateSubnetTx",
    "ImportTx",
    "ExportTx",
    "AdvanceTimeTx",
    "RewardValidatorTx",
    "RemoveSubnetValidatorTx",
    "TransformSubnetTx",
    "AddPermissionlessValidatorTx",
    "AddPermissionlessDelegatorTx",
    "BaseTx",
    "TransferSubnetOwnershipTx",
    "ConvertSubnetToL1Tx",
    "RegisterL1ValidatorTx",
    "SetL1ValidatorWeightTx",
    "DisableL1ValidatorTx",
    "IncreaseL1ValidatorBalanceTx",
    "UNKNOWN",
    "CreateAssetTx",
    "OperationTx",
)
PERCENT = 1_000_000  # delegation fees are in millionths


def _list(param: Param, raw: str) -> tuple[str, ...]:
    items = tuple(item.strip() for item in raw.split(",") if item.strip())
    if not items:
        raise InvalidParams(f"{param.name} must not be empty")
    if len(items) > MAX_ADDRESSES:
        raise InvalidParams(f"{param.name} takes at most {MAX_ADDRESSES} items")
    return items


def _addresses(param: Param, raw: str) -> tuple[str, ...]:
    """Bech32 addresses, normalized: no chain prefix, lower case (checked against the
    network's HRP once the network is known)."""
    out = []
    for item in _list(param, raw):
        bare = item[2:] if item[:2] in ("P-", "X-") else item
        try:
            _, payload = parse_bech32(bare)
        except InvalidParams:
            raise InvalidParams(f"{param.name}: {item} is not a valid address") from None
        if len(payload) != 20:
            raise InvalidParams(f"{param.name}: {item} is not a valid address")
        out.append(bare.lower())  # a checked bech32 string is its own encoding, cased
    return tuple(out)


def _node_ids(param: Param, raw: str) -> tuple[str, ...]:
    out = []
    for item in _list(param, raw):
        try:
            out.append(str(NodeID.from_string(item)))
        except InvalidParams:
            raise InvalidParams(f"{param.name}: {item} is not a valid node id") from None
    return tuple(out)


def _tx_types(param: Param, raw: str) -> tuple[str, ...]:
    items = tuple(item for item in raw.split(",") if item)
    for item in items:
        if item not in TX_TYPES:
            raise InvalidParams(f"{param.name} must be among {', '.join(TX_TYPES)}")
    return items


NETWORK_PATH = Param(
    "network",
    "path",
    "mainnet, or fuji / testnet (the test network; a local devnet answers to both).",
    required=True,
    enum=("mainnet", "fuji", "testnet"),
)
P_CHAIN = Param(
    "blockchainId",
    "path",
    "The P-Chain: p-chain or its blockchain id.",
    required=True,
    enum=P_CHAIN_ALIASES,
)
ADDRESSES = Param(
    "addresses",
    "query",
    f"Comma-separated P-Chain addresses (with or without P-), at most {MAX_ADDRESSES}.",
    read=_addresses,
)
NODE_IDS = Param("nodeIds", "query", "Comma-separated node ids (NodeID-...).", read=_node_ids)
TX_TYPES_PARAM = Param(
    "txTypes",
    "query",
    "Only these transaction types (repeat the parameter for several).",
    enum=TX_TYPES,
    read=_tx_types,
    repeated=True,
)
START_TIME = Param(
    "startTimestamp", "query", "Only items at or after this unix time.", type="integer"
)
END_TIME = Param("endTimestamp", "query", "Only items at or before this unix time.", type="integer")


async def indexed_network(ctx: Context) -> PrimaryNetwork:
    """The indexed primary network the `network` path parameter names (404 when none is)."""
    name = ctx.args["network"]
    for net in await ctx.primary_networks():
        if (net.network_id == 1) == (name == "mainnet"):
            return net
    raise NotFound(f"network {name} is not indexed")


def _bech32(ctx: Context, net: PrimaryNetwork) -> list[str] | None:
    given = ctx.args.get("addresses")
    if given is None:
        return None
    for address in given:
        if not address.startswith(net.hrp + "1"):
            raise InvalidParams(f"addresses must be addresses of this network ({net.hrp}1...)")
    return list(given)


async def list_staking(ctx: Context) -> Json:
    net = await indexed_network(ctx)
    addresses = _bech32(ctx, net)
    after = ctx.after()
    page = await ctx.run(
        primary_queries.active_staking,
        ctx.db,
        net.pchain,
        addresses=addresses,
        tx_types=ctx.args.get("txTypes"),
        start=ctx.args.get("startTimestamp"),
        end=ctx.args.get("endTimestamp"),
        desc=ctx.args["sortOrder"] == "desc",
        after=after,
        limit=ctx.args["pageSize"],
    )
    stored = {e.tx_id: e.document for e in page.items if e.document is not None}
    missing = [e.tx_id for e in page.items if e.document is None]
    if missing:
        stored.update(
            await ctx.run(
                primary_documents.render_stored, ctx.db, net.pchain, net.avax_asset, missing
            )
        )
    txs = [
        primary_documents.with_state(
            stored[e.tx_id],
            primary_documents.staker_state(e.potential_reward, e.ended_tx),
        )
        for e in page.items
    ]
    chain_info = {"chainName": "p-chain", "network": ctx.args["network"]}
    return {**ctx.next_page(page), "transactions": txs, "chainInfo": chain_info}


def _entries(net: PrimaryNetwork, s: Staker, now: int) -> list[tuple[int, Json]]:
    """The pending rewards of one staker: (rank, entry); a delegation pays its delegator and,
    as a fee, its validator."""
    total = int(s.potential_reward or 0)
    span = max(s.end - s.start, 1)
    progress = round(min(max(now - s.start, 0), span) * 100 / span, 2)
    base = {
        "txHash": s.tx_id,
        "amountStaked": s.amount,
        "nodeId": s.node_id,
        "startTimestamp": s.start,
        "endTimestamp": s.end,
        "progress": progress,
    }
    if s.kind == "VALIDATOR":
        return [(0, _reward(net, base, s.reward_addresses, "VALIDATOR", total))]
    shares = s.delegation_fee or 0
    delegator = (PERCENT - shares) * total // PERCENT
    return [
        (0, _reward(net, base, s.reward_addresses, "DELEGATOR", delegator)),
        (1, _reward(net, base, s.fee_addresses, "VALIDATOR_FEE", total - delegator)),
    ]


def _reward(
    net: PrimaryNetwork, base: Json, addresses: Sequence[str], kind: str, amount: int
) -> Json:
    return {
        "addresses": list(addresses),
        **base,
        "rewardType": kind,
        "estimatedReward": primary_documents.asset(net.avax_asset, net.avax_asset, amount),
    }


async def list_pending(ctx: Context) -> Json:
    net = await indexed_network(ctx)
    addresses = _bech32(ctx, net)
    node_ids = ctx.args.get("nodeIds")
    if addresses is None and node_ids is None:
        raise InvalidParams("one of addresses or nodeIds is required")
    desc = ctx.args["sortOrder"] == "desc"
    limit = ctx.args["pageSize"]
    after = ctx.after()
    mark = None if after is None else (int(after[0]), str(after[1]), int(after[2]))
    # Every fetched staker has an entry for these addresses (the store filters on both owner
    # lists), and only the staker at the mark can have entries at or before it: limit + 2
    # stakers always hold a page and the proof of a next one.
    now, stakers = await ctx.run(
        primary_queries.current_stakers,
        ctx.db,
        net.pchain,
        addresses=addresses,
        node_ids=node_ids,
        desc=desc,
        after=None if mark is None else mark[:2],
        limit=limit + 2,
    )
    wanted = set(addresses or ())
    rows: list[tuple[tuple[int, str, int], Json]] = []
    for s in stakers:
        for rank, entry in _entries(net, s, now):
            key = (s.start, s.tx_id, rank)
            if mark is not None and not _beyond(key, mark, desc):
                continue
            if wanted and not wanted.intersection(entry["addresses"]):
                continue
            rows.append((key, entry))
    page = page_of(rows, limit, lambda row: row[0])
    return {**ctx.next_page(page), "pendingRewards": [entry for _, entry in page.items]}


def _beyond(key: tuple[int, str, int], mark: tuple[int, str, int], desc: bool) -> bool:
    """Whether `key` comes after `mark` in the listing's order (a staker's own entries keep
    their rank order either way)."""
    if key[:2] == mark[:2]:
        return key[2] > mark[2]
    return key[:2] < mark[:2] if desc else key[:2] > mark[:2]


def _subnet(net: PrimaryNetwork, s: Any, chains: list[Any]) -> Json:
    owner = {"locktime": s.locktime, "threshold": s.threshold, "addresses": list(s.owner_addresses)}
    out: Json = {
        "createBlockTimestamp": s.timestamp,
        "createBlockIndex": str(s.height),
        "subnetId": s.subnet_id,
        "ownerAddresses": list(s.owner_addresses),
        "threshold": s.threshold,
        "locktime": s.locktime,
        "subnetOwnershipInfo": owner,
        "isL1": s.conversion_tx is not None,
        "blockchains": [_blockchain(c) for c in chains],
    }
    if s.conversion_tx is not None:
        out["l1ConversionTransactionHash"] = s.conversion_tx
        out["l1ValidatorManagerDetails"] = {
            "blockchainId": s.manager_chain,
            "contractAddress": s.manager_address,
        }
    return out


def _blockchain(c: Any) -> Json:
    out: Json = {
        "createBlockTimestamp": c.timestamp,
        "createBlockNumber": str(c.height),
        "blockchainId": c.blockchain_id,
        "vmId": c.vm_id,
        "subnetId": c.subnet_id,
        "blockchainName": c.name,
    }
    if c.evm_chain_id is not None:
        out["evmChainId"] = c.evm_chain_id
    if c.genesis:
        out["genesisData"] = json.loads(c.genesis)
    return out


async def list_subnets(ctx: Context) -> Json:
    net = await indexed_network(ctx)
    page = await ctx.run(
        primary_queries.subnets,
        ctx.db,
        net.pchain,
        desc=ctx.args["sortOrder"] == "desc",
        after=ctx.after(),
        limit=ctx.args["pageSize"],
    )
    ids = [s.subnet_id for s in page.items]
    chains = await ctx.run(primary_queries.blockchains_of, ctx.db, net.pchain, ids)
    subnets = [_subnet(net, s, chains[s.subnet_id]) for s in page.items]
    return {**ctx.next_page(page), "subnets": subnets}


_PAGING = PAGE_SIZE.bounded(1, 100, 10)
OPERATIONS = (
    Operation(
        "listActiveStakingTransactions",
        "/v1/networks/{network}/blockchains/{blockchainId}/transactions:listStaking",
        "List the P-Chain's active staking transactions, optionally of some addresses.",
        "Primary network",
        (
            NETWORK_PATH,
            P_CHAIN,
            ADDRESSES,
            TX_TYPES_PARAM,
            START_TIME,
            END_TIME,
            PAGE_TOKEN,
            _PAGING,
            SORT_ORDER,
        ),
        "ListStakingTransactionsResponse",
        20,
        list_staking,
    ),
    Operation(
        "listPendingRewards",
        "/v1/networks/{network}/rewards:listPending",
        "List the rewards current stakers will be paid, by addresses or node ids.",
        "Primary network",
        (NETWORK_PATH, ADDRESSES, NODE_IDS, PAGE_TOKEN, _PAGING, SORT_ORDER),
        "ListPendingRewardsResponse",
        20,
        list_pending,
    ),
    Operation(
        "listSubnets",
        "/v1/networks/{network}/subnets",
        "List the subnets with their owners, L1 conversion and blockchains.",
        "Primary network",
        (NETWORK_PATH, PAGE_TOKEN, PAGE_SIZE.bounded(1, 10000, 100), SORT_ORDER),
        "ListSubnetsResponse",
        20,
        list_subnets,
    ),
)
