"""The P-Chain's blocks: one block (by height, platformvm id or container id), the latest,
and the blocks one node proposed (from their ProposerVM headers), from store/primary_blocks.py."""

from __future__ import annotations

from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import MAX_BLOCK, MAX_DIGITS, PAGE_SIZE, PAGE_TOKEN, Param, decimal
from snowfield.api.primary.primary_network import NETWORK_PATH, indexed_network
from snowfield.errors import InvalidParams, NotFound
from snowfield.formats.cb58 import decode_cb58
from snowfield.formats.ids import NodeID
from snowfield.store import primary_blocks
from snowfield.store.primary_blocks import PBlock

P_CHAIN_ID = "11111111111111111111111111111111LpoYY"
# The client's closed BlockchainId set: the primary network's chains by alias and by the ids
# mainnet's and the test network's chains have.
BLOCKCHAIN_IDS = (
    P_CHAIN_ID,
    "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM",
    "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm",
    "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5",
    "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp",
    "p-chain",
    "x-chain",
    "c-chain",
)
CHAIN = Param(
    "blockchainId",
    "path",
    "A primary-network chain: p-chain, x-chain, c-chain or its blockchain id (the P-Chain's"
    " blocks are indexed).",
    required=True,
    enum=BLOCKCHAIN_IDS,
)


def _block_ref(param: Param, raw: str) -> str:
    """A height (within the store's BIGINT) or a cb58 block id, as given."""
    if raw.isdigit():
        if decimal(raw) is None or len(raw.lstrip("0")) > MAX_DIGITS or int(raw) > MAX_BLOCK:
            raise InvalidParams(f"{param.name} is beyond any block height")
        return str(int(raw))
    try:
        if len(decode_cb58(raw)) == 32:
            return raw
    except InvalidParams:
        pass
    raise InvalidParams(f"{param.name} must be a block height or a block id")


BLOCK_ID = Param(
    "blockId", "path", "A block's height or id (the P-Chain block's, or its container's).",
    required=True, read=_block_ref,
)  # fmt: skip


def _node(param: Param, raw: str) -> str:
    try:
        return str(NodeID.from_string(raw))
    except InvalidParams:
        raise InvalidParams(f"{param.name}: {raw} is not a valid node id") from None


NODE_ID = Param("nodeId", "path", "The proposer's node id (NodeID-...).", required=True, read=_node)
START = Param(
    "startTimestamp", "query", "Only blocks at or after this unix time.", type="integer", minimum=0
)
END = Param(
    "endTimestamp", "query", "Only blocks at or before this unix time.", type="integer", minimum=0
)


async def _pchain(ctx: Context) -> str:
    net = await indexed_network(ctx)
    if ctx.args["blockchainId"] not in ("p-chain", P_CHAIN_ID):
        raise NotFound(f"the blocks of {ctx.args['blockchainId']} are not indexed")
    return net.pchain


def render(b: PBlock) -> Json:
    d = b.detail
    out: Json = {
        "blockNumber": str(b.height),
        "blockHash": d.block_id,
        "parentHash": d.parent_id,
        "blockTimestamp": b.timestamp,
        "blockType": d.block_type,
        "txCount": len(b.txs),
        "transactions": list(b.txs),
        "blockSizeBytes": d.size,
    }
    p = d.proposer
    if p is not None:
        header = {
            "proposerId": p.block_id,
            "proposerParentId": p.parent_id,
            "proposerNodeId": p.node_id,
            "proposerPChainHeight": p.p_chain_height,
            "proposerTimestamp": p.timestamp,
        }
        out["proposerDetails"] = {k: v for k, v in header.items() if v is not None}
    return out


async def get_block(ctx: Context) -> Json:
    pchain = await _pchain(ctx)
    ref = ctx.args["blockId"]
    found = await ctx.run(primary_blocks.block, ctx.db, pchain, ref)
    if found is None:
        raise NotFound(f"block {ref} was not found")
    return render(found)


async def _list(ctx: Context, node_id: str | None) -> Json:
    pchain = await _pchain(ctx)
    start, end = ctx.args.get("startTimestamp"), ctx.args.get("endTimestamp")
    if start is not None and end is not None and start > end:
        raise InvalidParams("startTimestamp must not be after endTimestamp")
    page = await ctx.run(
        primary_blocks.latest,
        ctx.db,
        pchain,
        node_id=node_id,
        start=start,
        end=end,
        after=ctx.after(),
        limit=ctx.args["pageSize"],
    )
    chain_info = {"chainName": "p-chain", "network": ctx.args["network"]}
    return {
        **ctx.next_page(page),
        "blocks": [render(b) for b in page.items],
        "chainInfo": chain_info,
    }


async def list_latest(ctx: Context) -> Json:
    return await _list(ctx, None)


async def list_by_node(ctx: Context) -> Json:
    return await _list(ctx, ctx.args["nodeId"])


_PAGING = PAGE_SIZE.bounded(1, 100, 10)
_PATH = "/v1/networks/{network}/blockchains/{blockchainId}"
OPERATIONS = (
    Operation(
        "getBlockById",
        _PATH + "/blocks/{blockId}",
        "Get a P-Chain block by height or id, with its ProposerVM header.",
        "Primary network",
        (NETWORK_PATH, CHAIN, BLOCK_ID),
        "GetPrimaryNetworkBlockResponse",
        20,
        get_block,
    ),
    Operation(
        "listLatestPrimaryNetworkBlocks",
        _PATH + "/blocks",
        "List the P-Chain's latest blocks, within a time range when given.",
        "Primary network",
        (NETWORK_PATH, CHAIN, START, END, PAGE_TOKEN, _PAGING),
        "ListPrimaryNetworkBlocksResponse",
        20,
        list_latest,
    ),
    Operation(
        "listPrimaryNetworkBlocksByNodeId",
        _PATH + "/nodes/{nodeId}/blocks",
        "List the P-Chain blocks a node proposed, latest first.",
        "Primary network",
        (NETWORK_PATH, CHAIN, NODE_ID, START, END, PAGE_TOKEN, _PAGING),
        "ListPrimaryNetworkBlocksResponse",
        20,
        list_by_node,
    ),
)
