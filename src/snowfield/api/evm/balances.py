"""An address's balances (getNative, listErc20, listErc1155, listCollectibles), now or at a past
block, answered from the index's balance history (store/balance_queries.py), never the node.

No price source: `price` and `balanceValue` are left out, whatever `currency` asks for.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from snowfield.api import render
from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import (
    ADDRESS,
    CHAIN_ID,
    CONTRACT_ADDRESS,
    PAGE_SIZE,
    PAGE_TOKEN,
    Param,
    decimal,
)
from snowfield.errors import InvalidParams
from snowfield.store import balance_queries, token_queries, writes
from snowfield.store.balance_queries import TokenBalance
from snowfield.store.database import Database
from snowfield.store.documents import erc20_token, erc721_token, erc1155_token
from snowfield.store.pagination import Key, Page
from snowfield.store.rows import ERC721, ChainRow

# The real service's CurrencyCode (ISO 4217), a closed enum in its clients.
CURRENCIES = (
    "usd", "eur", "aud", "cad", "chf", "clp", "cny", "czk", "dkk", "gbp", "hkd", "huf", "jpy",
    "nzd",
)  # fmt: skip
MAX_CONTRACTS = 100  # ours: one query's IN list stays well under the databases' bounds


def _block_number(param: Param, raw: str) -> int:
    value = decimal(raw)
    if value is None:
        raise InvalidParams(f"{param.name} must be a block number (decimal digits)")
    return value


def _boolean(param: Param, raw: str) -> bool:
    if raw not in ("true", "false"):
        raise InvalidParams(f"{param.name} must be true or false")
    return raw == "true"


def _addresses(param: Param, raw: str) -> tuple[str, ...]:
    found: list[str] = []
    for part in raw.split(","):
        address = part.strip().lower()
        if len(address) != 42 or not address.startswith("0x"):
            raise InvalidParams(f"{param.name} must be 0x addresses separated by commas")
        try:
            bytes.fromhex(address[2:])
        except ValueError:
            raise InvalidParams(f"{param.name} must be 0x addresses separated by commas") from None
        if address not in found:
            found.append(address)
    if len(found) > MAX_CONTRACTS:
        raise InvalidParams(f"{param.name} names at most {MAX_CONTRACTS} contracts")
    return tuple(found)


BLOCK_NUMBER = Param(
    "blockNumber",
    "query",
    "The balance after this block (decimal); without it, after the latest indexed block."
    " A block beyond the latest indexed one is refused (400).",
    pattern="^[0-9]+$",
    read=_block_number,
)
CURRENCY = Param(
    "currency",
    "query",
    "The currency of monetary values. Accepted; no price source here, so no value is priced.",
    enum=CURRENCIES,
)
FILTER_SPAM = Param(
    "filterSpamTokens",
    "query",
    "Leave out spam tokens: ERC-20 contracts that answered no name() or no symbol()"
    " (empty or failing).",
    type="boolean",
    default=True,
    read=_boolean,
)
CONTRACT_ADDRESSES = Param(
    "contractAddresses",
    "query",
    f"Only these ERC-20 contracts: addresses separated by commas (at most {MAX_CONTRACTS}).",
    read=_addresses,
)
ANY_CONTRACT = replace(CONTRACT_ADDRESS, description="Only tokens of this contract.")
_PAGE = PAGE_SIZE.bounded(1, 500, 10)
_ERC20_PARAMS = (
    ADDRESS,
    BLOCK_NUMBER,
    PAGE_TOKEN,
    _PAGE,
    FILTER_SPAM,
    CONTRACT_ADDRESSES,
    CURRENCY,
)


@dataclass(frozen=True, slots=True)
class Holder:
    """One balance request, as the store call needs it."""

    chain: ChainRow
    address: str
    block: int | None
    after: Key | None
    size: int


async def _holder(ctx: Context) -> Holder:
    chain = await ctx.chain()
    block = ctx.args.get("blockNumber")
    if block is not None:
        head = await ctx.run(writes.checkpoint, ctx.db, chain.chain_id)
        if head is None or block > head[0]:
            latest = "none" if head is None else str(head[0])
            raise InvalidParams(
                f"blockNumber {block} is beyond the latest indexed block ({latest})"
            )
    return Holder(chain, ctx.args["address"], block, ctx.after(), ctx.args.get("pageSize", 0))


def _native(db: Database, h: Holder) -> Json:
    balance = balance_queries.native_balance_at(db, h.chain.chain_id, h.address, h.block)
    return render.native_balance(h.chain, balance)


def _erc20(
    db: Database, h: Holder, contracts: tuple[str, ...] | None, named_only: bool
) -> tuple[Json, Page[Any]]:
    page = balance_queries.erc20_balances(
        db, h.chain.chain_id, h.address, block=h.block, contracts=contracts, after=h.after,
        limit=h.size, named_only=named_only,
    )  # fmt: skip
    names = token_queries.tokens(db, h.chain.chain_id, [b.token for b in page.items])
    chain_id = str(h.chain.chain_id)
    items = [
        {
            **erc20_token(b.token, names),
            "chainId": chain_id,
            "balance": str(b.balance),
            # Required and nullable in the real service: no reputation source here.
            "tokenReputation": None,
        }
        for b in page.items
    ]
    return {"nativeTokenBalance": _native(db, h), "erc20TokenBalances": items}, page


def _collectibles(db: Database, h: Holder, items: list[TokenBalance]) -> list[Json]:
    """ERC-721 and ERC-1155 balances as the real service lists them."""
    chain_id = h.chain.chain_id
    ids = [(b.token, b.token_id) for b in items if b.token_id is not None]
    nfts = token_queries.nfts(db, chain_id, ids)
    names = token_queries.tokens(db, chain_id, [b.token for b in items if b.kind == ERC721])
    out: list[Json] = []
    for b in items:
        token_id = b.token_id if b.token_id is not None else 0
        nft = nfts.get((b.token, token_id))
        if b.kind == ERC721:
            token = {**erc721_token(b.token, token_id, names, nft), "ownerAddress": h.address}
            out.append({**token, "chainId": str(chain_id)})
        else:
            token = erc1155_token(b.token, token_id, nft)
            out.append({**token, "chainId": str(chain_id), "balance": str(b.balance)})
    return out


def _erc1155(db: Database, h: Holder, contract: str | None) -> tuple[Json, Page[Any]]:
    page = balance_queries.erc1155_balances(
        db, h.chain.chain_id, h.address, block=h.block, contract=contract, after=h.after,
        limit=h.size,
    )  # fmt: skip
    body = {
        "nativeTokenBalance": _native(db, h),
        "erc1155TokenBalances": _collectibles(db, h, page.items),
    }
    return body, page


def _collectible_page(db: Database, h: Holder, contract: str | None) -> tuple[Json, Page[Any]]:
    page = balance_queries.collectible_balances(
        db, h.chain.chain_id, h.address, block=h.block, contract=contract, after=h.after,
        limit=h.size,
    )  # fmt: skip
    return {"collectibleBalances": _collectibles(db, h, page.items)}, page


async def get_native(ctx: Context) -> Json:
    holder = await _holder(ctx)
    return {"nativeTokenBalance": await ctx.run(_native, ctx.db, holder)}


async def list_erc20(ctx: Context) -> Json:
    holder = await _holder(ctx)
    a = ctx.args
    body, page = await ctx.run(
        _erc20, ctx.db, holder, a["contractAddresses"], a["filterSpamTokens"]
    )
    return {**body, **ctx.next_page(page)}


async def list_erc1155(ctx: Context) -> Json:
    holder = await _holder(ctx)
    body, page = await ctx.run(_erc1155, ctx.db, holder, ctx.args["contractAddress"])
    return {**body, **ctx.next_page(page)}


async def list_collectibles(ctx: Context) -> Json:
    holder = await _holder(ctx)
    body, page = await ctx.run(_collectible_page, ctx.db, holder, ctx.args["contractAddress"])
    return {**body, **ctx.next_page(page)}


_BASE = "/v1/chains/{chainId}/addresses/{address}/balances"
_TAG = "EVM balances"
OPERATIONS = (
    Operation(
        "getNativeBalance",
        f"{_BASE}:getNative",
        "Get the native token balance of an address, now or after a past block.",
        _TAG,
        (CHAIN_ID, ADDRESS, BLOCK_NUMBER, CURRENCY),
        "GetNativeBalanceResponse",
        10,
        get_native,
    ),
    Operation(
        "listErc20Balances",
        f"{_BASE}:listErc20",
        "List the ERC-20 balances of an address, now or after a past block, by token address.",
        _TAG,
        (CHAIN_ID, *_ERC20_PARAMS),
        "ListErc20BalancesResponse",
        20,
        list_erc20,
    ),
    Operation(
        "listErc1155Balances",
        f"{_BASE}:listErc1155",
        "List the ERC-1155 balances of an address, now or after a past block.",
        _TAG,
        (CHAIN_ID, ADDRESS, BLOCK_NUMBER, PAGE_TOKEN, _PAGE, ANY_CONTRACT),
        "ListErc1155BalancesResponse",
        20,
        list_erc1155,
    ),
    Operation(
        "listCollectibleBalances",
        f"{_BASE}:listCollectibles",
        "List the ERC-721 and ERC-1155 tokens an address holds (ERC-721 first); blockNumber"
        " is ours, as on the other balance operations.",
        _TAG,
        (CHAIN_ID, ADDRESS, BLOCK_NUMBER, PAGE_TOKEN, _PAGE, ANY_CONTRACT),
        "ListCollectibleBalancesResponse",
        20,
        list_collectibles,
    ),
)
