"""Transactions of one chain: the complete view of one (getTransaction) and the latest ones
(listLatest, with the `status` filter).

The complete view is the real service's GetTransactionResponse: the transaction with its
input, its block's base fee and its fee caps; every ERC-20, ERC-721 and ERC-1155 transfer in
it; the internal transactions the service lists (value-moving CALL and CALLCODE, CREATE and
CREATE2, reverted ones too: `block_writes.listed`); the chain's network token; and the ICM
message it sent or received, when the index holds one. Beyond it, fields of ours that the
real service's clients drop: `logs` (every log of the receipt) and `receipt` (status, gas used,
cumulative gas used, effective gas price, created contract)."""

from __future__ import annotations

import re
from typing import Any

from snowfield.api import render
from snowfield.api.operation import Context, Json, Operation
from snowfield.api.params import CHAIN_ID, PAGE_SIZE, PAGE_TOKEN, Param
from snowfield.errors import InvalidParams, NotFound
from snowfield.store import block_writes, documents, feed_queries, icm, token_queries, tx_queries
from snowfield.store.database import Database
from snowfield.store.pagination import Key, Page
from snowfield.store.rows import ChainRow, IcmEventRow, TransferRow
from snowfield.store.tx_queries import TransactionView

_HASH = re.compile(r"0[xX][0-9a-fA-F]{64}")


def _tx_hash(param: Param, raw: str) -> str:
    if not _HASH.fullmatch(raw):
        raise InvalidParams(f"{param.name} must be 0x followed by 64 hex digits")
    return raw.lower()


TX_HASH = Param(
    "txHash",
    "path",
    "A transaction hash: 0x followed by 64 hex digits (any case).",
    required=True,
    pattern="^0[xX][0-9a-fA-F]{64}$",
    read=_tx_hash,
)
STATUS = Param(
    "status",
    "query",
    "Only transactions that succeeded (success) or failed (failed).",
    enum=tuple(feed_queries.STATUSES),
)


def _message(events: list[IcmEventRow]) -> Json | None:
    """teleporterMessageInfo: the first message the transaction sent, else received; the other
    side's chain is named by its blockchain id (cb58), as the messenger names it."""
    for kind, direction, side in (
        ("send", "SOURCE_TRANSACTION", "destinationChainId"),
        ("receive", "DESTINATION_TRANSACTION", "sourceChainId"),
    ):
        found = next((e for e in events if e.kind == kind), None)
        if found is not None:
            out: Json = {"teleporterMessageId": found.message_id, "direction": direction}
            documents.put(out, **{side: found.peer_chain})
            return out
    return None


def _native(view: TransactionView, names: documents.Tokens) -> Json:
    """FullNativeTransactionDetails: NativeTransaction with the input, base fee, fee caps and
    the block's Granite fields."""
    tx, block = view.tx, view.block
    out = documents.native_transaction(tx, names)
    out.update(input=tx.input or "0x", baseFeePerGas=str(block.base_fee or 0))
    documents.put(
        out,
        blockTimestampMilliseconds=block.timestamp_ms,
        blockMinDelayExcess=block.min_delay_excess,
        maxFeePerGas=None if tx.max_fee_per_gas is None else str(tx.max_fee_per_gas),
        maxPriorityFeePerGas=(
            None if tx.max_priority_fee_per_gas is None else str(tx.max_priority_fee_per_gas)
        ),
    )
    return out


def _nft_ids(transfers: list[TransferRow]) -> list[tuple[str, int]]:
    return [(t.token, t.token_id) for t in transfers if t.token_id is not None]


def complete_view(db: Database, chain: ChainRow, view: TransactionView) -> Json:
    """GetTransactionResponse of `view`, with our `logs` and `receipt`."""
    tx = view.tx
    listed = [i for i in view.internal_txs if block_writes.listed(i)]
    names = token_queries.tokens(
        db,
        chain.chain_id,
        [a for a in (tx.from_addr, tx.to_addr, tx.created) if a]
        + [a for t in view.transfers for a in (t.from_addr, t.to_addr, t.token)]
        + [a for i in listed for a in (i.from_addr, i.to_addr)],
    )
    nfts = token_queries.nfts(db, chain.chain_id, _nft_ids(view.transfers))
    token = render.chain(chain)["networkToken"]
    receipt: Json = {
        "status": "1" if tx.status else "0",
        "gasUsed": str(tx.gas_used),
        "cumulativeGasUsed": str(tx_queries.cumulative_gas_used(db, tx)),
        "effectiveGasPrice": str(tx.gas_price),
    }
    documents.put(receipt, contractAddress=tx.created if tx.to_addr is None else None)
    out: Json = {
        "nativeTransaction": _native(view, names),
        "networkTokenDetails": {"networkToken": token},
        **documents.sublists(view.transfers, listed, names, nfts),
        "logs": [
            {
                "logIndex": g.log_index,
                "address": g.address,
                "topics": list(g.topics),
                "data": g.data,
            }
            for g in view.logs
        ],
        "receipt": receipt,
    }
    message = _message(icm.tx_events(db, chain.chain_id, tx.block_number, tx.tx_index))
    documents.put(out, teleporterMessageInfo=message)
    return out


def _transaction(db: Database, chain: ChainRow, tx_hash: str) -> Json:
    view = tx_queries.find_transaction(db, chain.chain_id, tx_hash)
    if view is None:
        raise NotFound(f"transaction {tx_hash} not found on chain {chain.chain_id}")
    return complete_view(db, chain, view)


async def get_transaction(ctx: Context) -> Json:
    chain = await ctx.chain()
    return await ctx.run(_transaction, ctx.db, chain, ctx.args["txHash"])


def latest(
    db: Database, chain_ids: list[int], status: str | None, after: Key | None, size: int
) -> tuple[list[Json], Page[Any]]:
    """The newest transactions of these chains merged by time, as NativeTransaction objects."""
    page = feed_queries.latest_transactions(db, chain_ids, status=status, after=after, limit=size)
    by_chain: dict[int, set[str]] = {}
    for t in page.items:
        by_chain.setdefault(t.chain_id, set()).update(
            a for a in (t.from_addr, t.to_addr, t.created) if a
        )
    names = {c: token_queries.tokens(db, c, addresses) for c, addresses in by_chain.items()}
    return [documents.native_transaction(t, names[t.chain_id]) for t in page.items], page


async def list_latest_transactions(ctx: Context) -> Json:
    chain = await ctx.chain()
    after = ctx.after()
    a = ctx.args
    items, page = await ctx.run(latest, ctx.db, [chain.chain_id], a["status"], after, a["pageSize"])
    return {"transactions": items, **ctx.next_page(page)}


LATEST_SIZE = PAGE_SIZE.bounded(1, 100, 10)
OPERATIONS = (
    Operation(
        "getTransaction",
        "/v1/chains/{chainId}/transactions/{txHash}",
        "Get the complete view of a transaction: its details, input and fees, every token"
        " transfer and listed internal transaction, its ICM message, and (ours) its logs and"
        " receipt fields.",
        "EVM transactions",
        (CHAIN_ID, TX_HASH),
        "GetTransactionResponse",
        20,
        get_transaction,
    ),
    Operation(
        "listLatestTransactions",
        "/v1/chains/{chainId}/transactions",
        "List the latest transactions of a chain, newest first; `status` keeps those that"
        " succeeded or failed.",
        "EVM transactions",
        (CHAIN_ID, PAGE_TOKEN, LATEST_SIZE, STATUS),
        "ListNativeTransactionsResponse",
        20,
        list_latest_transactions,
    ),
)
