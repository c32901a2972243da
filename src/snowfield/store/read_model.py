"""Operation 5's read model: the documents `write_batch` stores beside the rows it writes.

`transactions.document` holds a transaction's `nativeTransaction`; `address_txs.document` the
sub-lists of that transaction limited to that address ("" when all are empty). They are
rendered from the same rows and token facts the service would read, so a page is one query.
NULL means "render from the rows": rows written before schema 2, and rows that name a token
whose facts arrived after them (`forget_naming`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import orjson

from snowfield.store import documents, token_queries
from snowfield.store.database import Database, Writer
from snowfield.store.rows import BlockBundle, InternalTxRow, NftRow, TokenRow, TransferRow


@dataclass(frozen=True, slots=True)
class BatchDocuments:
    native: dict[tuple[int, int], str]  # (block, tx index) -> nativeTransaction
    sub: dict[tuple[int, str, int], str]  # (block, address, tx index) -> sub-lists or ""


def batch_documents(
    db: Database,
    chain_id: int,
    bundles: Sequence[BlockBundle],
    tokens: Sequence[TokenRow],
    nfts: Sequence[NftRow],
) -> BatchDocuments:
    """Documents of every transaction and (address, transaction) pair of the batch, with the
    token and NFT facts known once the batch is written (its own, then the stored ones)."""
    known = token_queries.tokens(db, chain_id, _named(bundles))
    known.update((t.address, t) for t in tokens)
    items = token_queries.nfts(db, chain_id, _nft_ids(bundles))
    items.update(((n.token, n.token_id), n) for n in nfts)
    out = BatchDocuments({}, {})
    for bundle in bundles:
        number = bundle.block.number
        for tx in bundle.txs:
            out.native[(number, tx.tx_index)] = documents.native_document(tx, known)
        memo: dict[int, orjson.Fragment] = {}  # rows of this block, by identity
        transfers: dict[int, list[TransferRow]] = {}
        internals: dict[int, list[InternalTxRow]] = {}
        for t in bundle.transfers:
            transfers.setdefault(t.tx_index, []).append(t)
        for i in bundle.internal_txs:
            internals.setdefault(i.tx_index, []).append(i)
        for address, index in bundle.activity:
            moved, called = transfers.get(index), internals.get(index)
            if moved is None and called is None:  # most transactions: nothing to list
                out.sub[(number, address, index)] = ""
                continue
            mine = documents.involving(address, moved or ())
            calls = documents.involving(address, called or ())
            out.sub[(number, address, index)] = documents.sublists_document(
                mine, calls, known, items, memo
            )
    return out


def forget_naming(w: Writer, chain_id: int, addresses: Iterable[str], before: int) -> None:
    """Clears the documents of transactions below block `before` that involve these addresses,
    whose token facts just changed: written now (a contract funded before it was deployed) or
    removed by an unwind. Those transactions fall back to rendering from the rows."""
    _forget(w, chain_id, addresses, "<", before)


def forget_naming_after(w: Writer, chain_id: int, addresses: Iterable[str], last: int) -> None:
    """As forget_naming, for the documents of blocks after `last` (a parallel backfill's later
    ranges may have rendered them before these facts were stored)."""
    _forget(w, chain_id, addresses, ">", last)


def forget_nfts_after_first(w: Writer, chain_id: int, nft_ids: Iterable[tuple[str, int]]) -> None:
    """Clears the address documents that show these token ids in blocks after the one their
    stored row was first seen in. A parallel backfill's ranges each see an NFT first in their
    own blocks and render with that row (its URI and metadata time from that block); the row
    of the earliest block wins in `nfts`, so the documents of later blocks may show a loser's.
    Run after this batch's rows are stored: the upsert of one key waits for a concurrent one,
    so whichever commits second clears what the first rendered, or its own."""
    for token, token_id in nft_ids:
        w.execute(
            "UPDATE address_txs SET document = NULL WHERE chain_id = ? AND (block_number, tx_index)"
            " IN (SELECT t.block_number, t.tx_index FROM transfers t JOIN nfts n"
            " ON n.chain_id = t.chain_id AND n.token = t.token AND n.token_id = t.token_id"
            " WHERE t.chain_id = ? AND t.token = ? AND t.token_id = ?"
            " AND t.block_number > n.first_block)",
            (chain_id, chain_id, token, str(token_id)),
        )


def _forget(w: Writer, chain_id: int, addresses: Iterable[str], op: str, bound: int) -> None:
    for address in addresses:
        involved = (
            "(block_number, tx_index) IN (SELECT block_number, tx_index FROM address_txs"
            f" WHERE chain_id = ? AND address = ? AND block_number {op} ?)"
        )
        params = (chain_id, chain_id, address, bound)
        w.execute(
            f"UPDATE transactions SET document = NULL WHERE chain_id = ? AND {involved}", params
        )
        # address_txs keeps its own copy of the nativeTransaction (store/history_pages.py).
        w.execute(
            f"UPDATE address_txs SET document = NULL, native_document = NULL"
            f" WHERE chain_id = ? AND {involved}",
            params,
        )


def _named(bundles: Sequence[BlockBundle]) -> set[str]:
    """Every address a document of the batch may name."""
    named: set[str] = set()
    for bundle in bundles:
        for tx in bundle.txs:
            named.update(a for a in (tx.from_addr, tx.to_addr, tx.created) if a)
        for t in bundle.transfers:
            named.update((t.from_addr, t.to_addr, t.token))
        for i in bundle.internal_txs:
            named.update((i.from_addr, i.to_addr))
    return named


def _nft_ids(bundles: Sequence[BlockBundle]) -> set[tuple[str, int]]:
    return {(t.token, t.token_id) for b in bundles for t in b.transfers if t.token_id is not None}
