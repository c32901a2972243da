"""NFT reindex requests in the store (both dialects): a store of this schema without the table
gains it at its next start; a token id is accepted at most once an hour; finishing a request
stores the new metadata, marks it done and clears exactly the operation-5 documents that
embedded the old."""

from __future__ import annotations

from snowfield.store import nft_reindex, token_queries
from snowfield.store.database import Database
from snowfield.store.rows import NftRow
from tests.api.conftest import CHAIN, MULTI, NFT, ChainBuilder, add_chains

T0 = 1_800_000_000


def test_a_store_without_the_table_gains_it_at_start(db: Database) -> None:
    with db.transaction() as w:
        w.execute("DROP TABLE nft_reindex_requests")
    db.migrate()
    assert nft_reindex.request(db, CHAIN, NFT, 2, T0) == 0
    assert db.query("SELECT requested, done FROM nft_reindex_requests") == [(T0, None)]


def test_a_token_id_is_accepted_once_an_hour(db: Database) -> None:
    assert nft_reindex.request(db, CHAIN, NFT, 2, T0) == 0
    assert nft_reindex.request(db, CHAIN, NFT, 2, T0 + 10) == nft_reindex.INTERVAL - 10
    assert nft_reindex.request(db, CHAIN, NFT, 4, T0 + 10) == 0  # another id
    assert nft_reindex.request(db, CHAIN + 1, NFT, 2, T0 + 10) == 0  # another chain
    assert nft_reindex.request(db, CHAIN, NFT, 2, T0 + nft_reindex.INTERVAL - 1) == 1
    assert nft_reindex.request(db, CHAIN, NFT, 2, T0 + nft_reindex.INTERVAL) == 0
    assert db.query_one(
        "SELECT requested FROM nft_reindex_requests WHERE chain_id = ? AND token_id = '2'",
        (CHAIN,),
    ) == (T0 + nft_reindex.INTERVAL,)


def _documents(db: Database) -> dict[tuple[str, int, int], bool]:
    rows = db.query("SELECT address, block_number, tx_index, document FROM address_txs")
    return {(str(a), int(b), int(i)): d is not None for a, b, i, d in rows}


def test_finishing_stores_the_metadata_and_clears_the_documents_that_showed_it(
    db: Database,
) -> None:
    add_chains(db)
    ChainBuilder(db).add(6)  # NFT #2 minted in block 2, moved in block 3
    assert all(_documents(db).values())
    assert nft_reindex.request(db, CHAIN, NFT, 2, T0) == 0
    assert nft_reindex.request(db, CHAIN, MULTI, 7, T0) == 0  # no nfts row: never pending
    [pending] = nft_reindex.pending(db, CHAIN, 10)
    assert (pending.token, pending.token_id, pending.erc_type) == (NFT, 2, "ERC-721")
    fresh = NftRow(CHAIN, NFT, 2, "ERC-721", "https://x/2", "indexed", {"name": "New"}, T0 + 5)
    nft_reindex.finish(db, fresh, pending.requested, T0 + 5)
    stored = token_queries.find_nft(db, CHAIN, NFT, 2)
    assert stored is not None
    assert (stored.nft.token_uri, stored.nft.metadata, stored.nft.metadata_updated) == (
        "https://x/2", {"name": "New"}, T0 + 5,
    )  # fmt: skip
    assert stored.nft.first_block == 2  # kept: the block that first showed it
    assert nft_reindex.pending(db, CHAIN, 10) == []
    cleared = {k for k, kept in _documents(db).items() if not kept}
    # The mint (block 2, tx 2) and the move (block 3, tx 2), for every address they involve.
    assert {(b, i) for _, b, i in cleared} == {(2, 2), (3, 2)}
    assert {a for a, _, _ in cleared} >= {NFT}
