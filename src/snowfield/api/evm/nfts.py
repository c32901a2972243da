"""NFT collections: the token ids of one ERC-721 or ERC-1155 contract with their metadata as
indexed (listTokens), one of them (getTokenDetails), and a request to fetch its metadata again
(reindexNft: 201, no body; the chain's indexer carries it out, store/nft_reindex.py)."""

from __future__ import annotations

import re
import time
from typing import Any

from snowfield.api import render
from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import ADDRESS, CHAIN_ID, PAGE_SIZE, PAGE_TOKEN, Param
from snowfield.errors import InvalidParams, NotFound, RateLimited
from snowfield.store import documents, nft_reindex, token_queries
from snowfield.store.database import Database
from snowfield.store.pagination import Key, Page
from snowfield.store.token_queries import NftToken

_DIGITS = re.compile(r"[0-9]{1,78}")
MAX_TOKEN_ID = 2**256 - 1
COLLECTIONS = ("ERC-721", "ERC-1155")


def _token_id(param: Param, raw: str) -> int:
    if not _DIGITS.fullmatch(raw) or int(raw) > MAX_TOKEN_ID:
        raise InvalidParams(f"{param.name} must be a decimal token id below 2^256")
    return int(raw)


TOKEN_ID = Param(
    "tokenId",
    "path",
    "A token id of the contract, in decimal.",
    required=True,
    pattern="^[0-9]{1,78}$",
    read=_token_id,
)
CONTRACT = Param(
    "address",
    "path",
    "The NFT contract (ERC-721 or ERC-1155): 0x followed by 40 hex digits (any case).",
    required=True,
    pattern=ADDRESS.pattern,
    read=ADDRESS.read,
)


def token(item: NftToken, names: documents.Tokens) -> Json:
    """An Erc721Token (with its current owner) or an Erc1155Token."""
    nft = item.nft
    if nft.erc_type == "ERC-1155":
        return documents.erc1155_token(nft.token, nft.token_id, nft)
    out = render.erc721_token(nft.token, nft.token_id, names, nft)
    documents.put(out, ownerAddress=item.owner)
    return out


def _collection(db: Database, chain_id: int, address: str) -> documents.Tokens:
    names = token_queries.tokens(db, chain_id, [address])
    found = names.get(address)
    if found is None or found.erc_type not in COLLECTIONS:
        raise NotFound(f"{address} is not a known NFT contract on chain {chain_id}")
    return names


def _tokens(
    db: Database, chain_id: int, address: str, after: Key | None, size: int
) -> tuple[list[Json], Page[Any]]:
    names = _collection(db, chain_id, address)
    page = token_queries.collection_tokens(db, chain_id, address, after=after, limit=size)
    return [token(t, names) for t in page.items], page


def _nft(db: Database, chain_id: int, address: str, token_id: int) -> NftToken:
    found = token_queries.find_nft(db, chain_id, address, token_id)
    if found is None:
        raise NotFound(f"token {token_id} of {address} is not indexed on chain {chain_id}")
    return found


def _details(db: Database, chain_id: int, address: str, token_id: int) -> Json:
    found = _nft(db, chain_id, address, token_id)
    return token(found, token_queries.tokens(db, chain_id, [address]))


def _reindex(db: Database, chain_id: int, address: str, token_id: int, now: int) -> None:
    _nft(db, chain_id, address, token_id)
    wait = nft_reindex.request(db, chain_id, address, token_id, now)
    if wait:
        raise RateLimited(
            f"token {token_id} of {address} was reindexed in the last hour; try again in {wait} s",
            retry_after=wait,
        )


async def list_tokens(ctx: Context) -> Json:
    chain = await ctx.chain()
    a = ctx.args
    after = ctx.after()
    items, page = await ctx.run(_tokens, ctx.db, chain.chain_id, a["address"], after, a["pageSize"])
    return {"tokens": items, **ctx.next_page(page)}


async def get_token(ctx: Context) -> Json:
    chain = await ctx.chain()
    a = ctx.args
    return await ctx.run(_details, ctx.db, chain.chain_id, a["address"], a["tokenId"])


async def reindex(ctx: Context) -> Json:
    chain = await ctx.chain()
    a = ctx.args
    now = int(time.time())
    await ctx.run(_reindex, ctx.db, chain.chain_id, a["address"], a["tokenId"], now)
    return {}


_TAG = "NFTs"
_TOKEN = "/v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}"
OPERATIONS = (
    Operation(
        "listTokens",
        "/v1/chains/{chainId}/nfts/collections/{address}/tokens",
        "List the token ids of an ERC-721 or ERC-1155 contract seen by the index, with their"
        " metadata as indexed and (ERC-721) their current owner.",
        _TAG,
        (CHAIN_ID, CONTRACT, PAGE_TOKEN, PAGE_SIZE.bounded(1, 100, 10)),
        "ListNftTokens",
        20,
        list_tokens,
    ),
    Operation(
        "getTokenDetails",
        _TOKEN,
        "Get one token id of an NFT contract: URI, metadata as indexed, owner (ERC-721).",
        _TAG,
        (CHAIN_ID, CONTRACT, TOKEN_ID),
        "NftToken",
        20,
        get_token,
    ),
    Operation(
        "reindexNft",
        _TOKEN + ":reindex",
        "Ask for a token id's metadata to be fetched again (at most once an hour per token"
        " id); the indexer fetches its URI and metadata at its next poll.",
        _TAG,
        (CHAIN_ID, CONTRACT, TOKEN_ID),
        None,
        20,
        reindex,
        "POST",
        status=201,
    ),
)
