"""Requests to fetch an NFT's metadata again: recorded by the data service (at most one an hour
per token id, as the real service allows), carried out by the chain's indexer, which stores the
new metadata and marks the request done in one transaction.

The API never asks a node; the indexer does, so a request is answered at once (201) and its
effect arrives with the indexer's next poll."""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from snowfield.store.database import Database
from snowfield.store.rows import NftRow

INTERVAL = 3600  # seconds between two accepted requests of one token id


@dataclass(frozen=True, slots=True)
class ReindexRequest:
    """A pending request, with the ERC type of its token id (the indexer's tokenURI or uri)."""

    token: str
    token_id: int
    erc_type: str
    requested: int


def request(db: Database, chain_id: int, token: str, token_id: int, now: int) -> int:
    """Records a request at `now`; 0 when accepted, else the seconds until one is accepted
    again (a request in the last INTERVAL seconds stands). One conditional upsert: two callers
    at once cannot both be accepted."""
    with db.transaction() as w:
        accepted = w.execute(
            "INSERT INTO nft_reindex_requests (chain_id, token, token_id, requested, done)"
            " VALUES (?, ?, ?, ?, NULL) ON CONFLICT (chain_id, token, token_id) DO UPDATE"
            " SET requested = excluded.requested, done = NULL"
            " WHERE nft_reindex_requests.requested <= ?",
            (chain_id, token, str(token_id), now, now - INTERVAL),
        )
        if accepted:
            return 0
        row = w.query(
            "SELECT requested FROM nft_reindex_requests"
            " WHERE chain_id = ? AND token = ? AND token_id = ?",
            (chain_id, token, str(token_id)),
        )
    return max(1, int(row[0][0]) + INTERVAL - now)


def pending(db: Database, chain_id: int, limit: int) -> list[ReindexRequest]:
    """The chain's oldest pending requests of known token ids."""
    rows = db.query(
        "SELECT r.token, r.token_id, n.erc_type, r.requested FROM nft_reindex_requests r"
        " JOIN nfts n ON n.chain_id = r.chain_id AND n.token = r.token AND n.token_id = r.token_id"
        " WHERE r.chain_id = ? AND r.done IS NULL ORDER BY r.requested LIMIT ?",
        (chain_id, limit),
    )
    return [ReindexRequest(str(r[0]), int(r[1]), str(r[2]), int(r[3])) for r in rows]


def finish(db: Database, nft: NftRow, requested: int, now: int) -> None:
    """Stores `nft`'s fetched URI, status and metadata and marks the request of `requested`
    done. The documents of operation 5 that show this token id are cleared (they embed its
    metadata): those transactions render from the rows until rewritten."""
    key = (nft.chain_id, nft.token, str(nft.token_id))
    with db.transaction() as w:
        w.execute(
            "UPDATE nfts SET token_uri = ?, index_status = ?, metadata = ?, metadata_updated = ?"
            " WHERE chain_id = ? AND token = ? AND token_id = ?",
            (
                nft.token_uri,
                nft.index_status,
                orjson.dumps(nft.metadata).decode(),
                nft.metadata_updated,
                *key,
            ),
        )
        w.execute(
            "UPDATE address_txs SET document = NULL WHERE chain_id = ? AND (block_number, tx_index)"
            " IN (SELECT block_number, tx_index FROM transfers"
            " WHERE chain_id = ? AND token = ? AND token_id = ?)",
            (nft.chain_id, *key),
        )
        w.execute(
            "UPDATE nft_reindex_requests SET done = ?"
            " WHERE chain_id = ? AND token = ? AND token_id = ? AND requested = ?",
            (now, *key, requested),
        )
