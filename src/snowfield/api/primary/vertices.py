"""Operations 14-15: the X-Chain's vertices, latest first or at one height."""

from __future__ import annotations

from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import PAGE_SIZE, PAGE_TOKEN, SORT_ORDER, Param
from snowfield.api.primary.primary_network import NETWORK_PATH, indexed_network
from snowfield.errors import InvalidParams, NotFound
from snowfield.store import vertices
from snowfield.store.pagination import Page
from snowfield.store.primary_rows import VertexRow

MAINNET_X = "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM"
FUJI_X = "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm"

X_CHAIN = Param(
    "blockchainId",
    "path",
    "The X-Chain: x-chain or one of its fixed blockchain ids (mainnet's, the test network's).",
    required=True,
    enum=("x-chain", MAINNET_X, FUJI_X),
)
VERTEX_HEIGHT = Param(
    "vertexHeight", "query", "The height of the vertices.", type="integer", required=True
)


async def _xchain(ctx: Context) -> str:
    net = await indexed_network(ctx)
    named = ctx.args["blockchainId"]
    mainnet = ctx.args["network"] == "mainnet"
    if named != "x-chain" and (named == MAINNET_X) != mainnet:
        raise InvalidParams(f"blockchainId {named} is not the X-Chain of {ctx.args['network']}")
    if net.xchain is None:
        raise NotFound(f"the X-Chain of {ctx.args['network']} is not indexed")
    return net.xchain


def _vertex(v: VertexRow) -> Json:
    return {
        "vertexHash": v.vertex_id,
        "parentHashes": list(v.parents),
        "vertexHeight": v.height,
        "vertexIndex": v.index,
        "vertexTimestamp": v.timestamp,
        "txCount": len(v.txs),
        "transactions": list(v.txs),
        "vertexSizeBytes": v.size,
    }


def _body(ctx: Context, page: Page[VertexRow]) -> Json:
    chain_info = {"chainName": "x-chain", "network": ctx.args["network"]}
    items = [_vertex(v) for v in page.items]
    return {**ctx.next_page(page), "vertices": items, "chainInfo": chain_info}


async def list_latest(ctx: Context) -> Json:
    xchain = await _xchain(ctx)
    page = await ctx.run(
        vertices.latest, ctx.db, xchain, after=ctx.after(), limit=ctx.args["pageSize"]
    )
    return _body(ctx, page)


async def list_by_height(ctx: Context) -> Json:
    xchain = await _xchain(ctx)
    page = await ctx.run(
        vertices.at_height,
        ctx.db,
        xchain,
        ctx.args["vertexHeight"],
        desc=ctx.args["sortOrder"] == "desc",
        after=ctx.after(),
        limit=ctx.args["pageSize"],
    )
    return _body(ctx, page)


_PAGING = PAGE_SIZE.bounded(1, 100, 10)
OPERATIONS = (
    Operation(
        "listLatestXChainVertices",
        "/v1/networks/{network}/blockchains/{blockchainId}/vertices",
        "List the X-Chain's vertices, latest first.",
        "Primary network",
        (NETWORK_PATH, X_CHAIN, PAGE_TOKEN, _PAGING),
        "ListXChainVerticesResponse",
        20,
        list_latest,
    ),
    Operation(
        "getVertexByHeight",
        "/v1/networks/{network}/blockchains/{blockchainId}/vertices:listByHeight",
        "List the X-Chain's vertices at one height.",
        "Primary network",
        (NETWORK_PATH, X_CHAIN, VERTEX_HEIGHT, PAGE_TOKEN, _PAGING, SORT_ORDER),
        "ListXChainVerticesResponse",
        20,
        list_by_height,
    ),
)
