"""Store read side: keyset queries, signed page tokens, API keys and curated metadata."""

from __future__ import annotations

import base64
import hmac
import re
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from snowfield.errors import InvalidParams
from snowfield.store import chain_queries, curation, evm_queries, token_queries
from snowfield.store.database import Database
from snowfield.store.keys import create_key, list_keys, lookup_key, revoke_key
from snowfield.store.pagination import PageTokens, page_of
from snowfield.testing import PG_ENV, database_urls, open_database
from tests.api.conftest import (
    ALICE,
    BLOCKCHAIN_ID,
    BOB,
    CHAIN,
    CHILD,
    FACTORY,
    NFT,
    OTHER_CHAIN,
    TOKEN,
    ChainBuilder,
    add_chains,
)


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    if request.param == "postgresql" and not __import__("os").environ.get(PG_ENV):
        pytest.skip(f"PostgreSQL runs only when {PG_ENV} is set")
    urls = database_urls(tmp_path)
    with open_database(urls[0] if request.param == "sqlite" else urls[1]) as opened:
        add_chains(opened)
        ChainBuilder(opened).add(10)
        yield opened


def test_chains_by_id_blockchain_id_and_network(db: Database) -> None:
    assert [c.chain_id for c in chain_queries.list_chains(db)] == [CHAIN, OTHER_CHAIN]
    assert [c.chain_id for c in chain_queries.list_chains(db, testnet=True)] == [CHAIN]
    assert [c.chain_id for c in chain_queries.list_chains(db, testnet=False)] == [OTHER_CHAIN]
    found = chain_queries.find_chain(db, BLOCKCHAIN_ID)
    assert found is not None and found.chain_id == CHAIN
    assert found.features == ("nftIndexing",) and found.private is False
    assert chain_queries.find_chain(db, str(CHAIN)) == found
    assert chain_queries.find_chain(db, str(2**64)) is None  # beyond BIGINT: no row, no error
    assert chain_queries.find_chain(db, "nope") is None
    assert (
        chain_queries.find_chain(db, "a\x00b") is None
        and chain_queries.find_chain(db, "9" * 500) is None
    )


def test_address_transactions_keyset_both_ways(db: Database) -> None:
    def walk(descending: bool, size: int) -> list[tuple[int, int]]:
        keys: list[tuple[int, int]] = []
        after = None
        while True:
            page = evm_queries.address_transactions(
                db,
                CHAIN,
                BOB,
                start_block=2,
                end_block=9,
                descending=descending,
                after=after,
                limit=size,
            )
            keys += [(t.block_number, t.tx_index) for t in page.items]
            if page.next_key is None:
                return keys
            after = page.next_key

    newest = walk(True, 4)
    assert newest == sorted(newest, reverse=True) and len(newest) == len(set(newest))
    assert {b for b, _ in newest} == set(range(2, 9))
    assert walk(False, 3) == sorted(newest) == walk(False, 100)


def test_transfers_sub_queries_keep_the_address_side(db: Database) -> None:
    keys = [(4, 1), (4, 2)]
    bob = evm_queries.transfers_in_txs(db, CHAIN, BOB, keys)
    assert [(t.erc_type, t.to_addr) for t in bob] == [("ERC-20", BOB)]
    alice = evm_queries.transfers_in_txs(db, CHAIN, ALICE, keys)
    assert [(t.erc_type, t.token_id) for t in alice] == [("ERC-20", None), ("ERC-721", 4)]
    assert evm_queries.internal_txs_in_txs(db, CHAIN, BOB, keys) == []
    assert evm_queries.transfers_in_txs(db, CHAIN, BOB, []) == []


def test_nfts_balances_blocks_contracts(db: Database) -> None:
    owned = token_queries.owned_nfts(db, CHAIN, BOB, contract=None, after=None, limit=2)
    assert [n.token_id for n in owned.items] == [2, 4] and owned.next_key == (NFT, "4")
    rest = token_queries.owned_nfts(db, CHAIN, BOB, contract=NFT, after=owned.next_key, limit=10)
    assert [n.token_id for n in rest.items] == [6, 8] and rest.next_key is None
    assert token_queries.nfts(db, CHAIN, [(NFT, 4), (NFT, 5)]).keys() == {(NFT, 4)}
    assert token_queries.native_balance(db, CHAIN, ALICE) == 10_000 * 10**18 - 10 * 10**18
    assert token_queries.native_balance(db, CHAIN, BOB) is None
    block = evm_queries.find_block(db, CHAIN, 3)
    assert block is not None and evm_queries.find_block(db, CHAIN, block.hash) == block
    assert evm_queries.find_block(db, CHAIN, 2**63) is None
    whole = evm_queries.block_transactions(db, CHAIN, 3, after=None, limit=None)
    assert [t.tx_index for t in whole.items] == [0, 1, 2, 3] and whole.next_key is None
    assert evm_queries.block_hashes(db, CHAIN, [3, 3, 99]) == {3: block.hash}
    child = token_queries.find_contract(db, CHAIN, CHILD)
    assert child is not None and child.factory == FACTORY
    page = token_queries.deployments(db, CHAIN, ALICE, after=None, limit=1)
    assert len(page.items) == 1 and page.next_key is not None
    assert set(token_queries.tokens(db, CHAIN, [TOKEN, NFT, BOB])) == {TOKEN, NFT}


def test_erc_transfers_union_of_both_roles(db: Database) -> None:
    page = evm_queries.address_transfers(
        db,
        CHAIN,
        BOB,
        "ERC-721",
        start_block=None,
        end_block=None,
        descending=False,
        after=None,
        limit=100,
    )
    assert [(t.block_number, t.token_id) for t in page.items] == [(3, 2), (5, 4), (7, 6), (9, 8)]


@settings(max_examples=200)
@given(
    key=st.lists(st.one_of(st.integers(0, 2**63), st.text(max_size=50)), min_size=1, max_size=4),
    address=st.text(max_size=42),
    order=st.sampled_from(["asc", "desc"]),
)
def test_tokens_round_trip_and_bind_their_scope(
    key: list[int | str], address: str, order: str
) -> None:
    tokens = PageTokens("secret")
    scope = {"op": "listTransactions", "address": address, "sortOrder": order}
    token = tokens.encode(scope, tuple(key))
    assert tokens.decode(token, scope) == tuple(key)
    with pytest.raises(InvalidParams, match="pageToken"):
        tokens.decode(token, {**scope, "address": address + "x"})
    with pytest.raises(InvalidParams, match="pageToken"):
        PageTokens("other secret").decode(token, scope)


def test_tokens_remembered_answer_as_the_first_time() -> None:
    """Made and read tokens are remembered by scope: a second encoding is the same token, a
    token read under one scope is still refused under another and a refused one stays
    refused; past the cache's bound it starts over and still answers the same."""
    tokens = PageTokens(b"k" * 32)
    scope = {"op": "listTransactions", "address": "0xa", "sortOrder": "desc"}
    token = tokens.encode(scope, (9, "x"))
    assert tokens.encode(dict(reversed(scope.items())), (9, "x")) == token
    for _ in range(2):
        assert tokens.decode(token, scope) == (9, "x")
        with pytest.raises(InvalidParams, match="pageToken"):
            tokens.decode(token, {**scope, "address": "0xb"})
        with pytest.raises(InvalidParams, match="pageToken"):
            tokens.decode(token[:-1] + ("A" if token[-1] != "A" else "B"), scope)
    made = [tokens.encode(scope, (n,)) for n in range(5_000)]
    assert [tokens.decode(t, scope) for t in made[:10]] == [(n,) for n in range(10)]
    assert PageTokens(b"k" * 32).encode(scope, (4_999,)) == made[-1]


_TOKEN_CHARS = st.characters(codec="ascii") | st.sampled_from("+/=.-_AQgwBCDE")


@settings(max_examples=500)
@given(
    key=st.lists(st.one_of(st.integers(0, 2**63), st.text(max_size=20)), min_size=1, max_size=3),
    position=st.integers(0, 400),
    char=_TOKEN_CHARS,
)
def test_changing_one_character_always_refuses_the_token(
    key: list[int | str], position: int, char: str
) -> None:
    """Only the canonical URL-safe base64 decodes: the standard alphabet's `+`/`/` for `-`/`_`,
    a last character with the same top bits, padding or a stray character all get the 400."""
    tokens = PageTokens(b"k" * 32)
    scope = {"op": "x"}
    token = tokens.encode(scope, tuple(key))
    i = position % len(token)
    for altered in (token[:i] + char + token[i + 1 :], token[:i] + char + token[i:]):
        if altered == token:
            continue
        with pytest.raises(InvalidParams, match="pageToken"):
            tokens.decode(altered, scope)


def test_non_canonical_spellings_of_a_token_are_refused() -> None:
    tokens = PageTokens(b"k" * 32)
    scope = {"op": "x"}
    token = next(
        t
        for n in range(1000)
        if ("-" in (t := tokens.encode(scope, (n,))) or "_" in t) and len(t.split(".")[0]) % 4
    )
    body, mac = token.split(".")
    last = body[-1]
    sibling = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    unused = 4 if len(body) % 4 == 2 else 2  # bits of the last character past the bytes
    top = sibling.index(last) >> unused
    same_top = [c for c in sibling if c != last and sibling.index(c) >> unused == top]
    for variant in (
        token.replace("-", "+").replace("_", "/"),  # the standard alphabet
        f"{body}{'=' * (-len(body) % 4)}.{mac}",  # padding
        f"{body[:-1]}{same_top[0]}.{mac}",  # the same bytes, other unused bits
    ):
        assert variant != token
        with pytest.raises(InvalidParams, match="pageToken"):
            tokens.decode(variant, scope)
    assert tokens.decode(token, scope)


def test_listings_read_indexes_not_the_whole_chain(db: Database) -> None:
    if db.dialect != "sqlite":
        return  # plans are checked on SQLite; PostgreSQL plans by statistics
    plans: list[str] = []
    query = db.query

    def explain(sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        plans.extend(str(r[-1]) for r in query("EXPLAIN QUERY PLAN " + sql, params))
        return query(sql, params)

    db.query = explain  # type: ignore[method-assign]
    try:
        for kind in ("ERC-20", "ERC-721"):
            evm_queries.address_transfers(
                db, CHAIN, BOB, kind, start_block=None, end_block=None, descending=True,
                after=(5, 1, 0), limit=10,
            )  # fmt: skip
        evm_queries.transfers_in_txs(db, CHAIN, BOB, [(4, 1), (5, 2)])
        evm_queries.internal_txs_in_txs(db, CHAIN, BOB, [(4, 1), (5, 2)])
        evm_queries.address_transactions(
            db, CHAIN, BOB, start_block=None, end_block=None, descending=True, after=None, limit=5
        )
        token_queries.owned_nfts(db, CHAIN, BOB, contract=None, after=None, limit=5)
    finally:
        del db.query
    searches = [p for p in plans if p.startswith("SEARCH")]
    # Two equality terms: the chain and the address (or block), never a walk of the chain.
    assert searches and all(len(re.findall(r"(?<![<>])=\?", p)) >= 2 for p in searches), plans


def test_page_of_cuts_the_extra_row() -> None:
    assert page_of([1, 2, 3], 2, lambda n: (n,)).next_key == (2,)
    assert page_of([1, 2], 2, lambda n: (n,)).next_key is None
    assert page_of([], 2, lambda n: (n,)).items == []


def test_api_keys_lifecycle(db: Database) -> None:
    key, secret = create_key(db, "ops", chains=[CHAIN, CHAIN], rate_per_minute=100, clock=lambda: 5)
    assert key.chains == (CHAIN,) and key.created == 5 and secret.startswith("sfk_")
    assert lookup_key(db, secret) == key and lookup_key(db, secret + "x") is None
    stored = db.query("SELECT key_hash FROM api_keys")
    assert secret not in str(stored)  # only the digest is stored
    assert key.allows(CHAIN) and not key.allows(OTHER_CHAIN)
    assert revoke_key(db, key.id, clock=lambda: 9)
    revoked = lookup_key(db, secret)
    assert revoked is not None and not revoked.active and revoked.revoked == 9
    open_key, _ = create_key(db, "all chains")
    assert open_key.allows(OTHER_CHAIN)
    assert [k.name for k in list_keys(db)] == ["ops", "all chains"]


def test_curated_metadata_validation_and_storage(db: Database) -> None:
    entry = {
        "chainId": CHAIN,
        "address": TOKEN.upper().replace("0X", "0x"),
        "name": "Curated Token",
        "resourceLinks": [{"type": "Github", "url": "https://example.invalid"}],
        "tags": ["defi"],
        "logoAsset": {"imageUri": "https://example.invalid/logo.png"},
    }
    parsed = curation.parse_curated(entry)
    assert parsed.address == TOKEN and parsed.chain_id == CHAIN
    curation.save_curated(db, [parsed])
    curation.save_curated(db, [curation.parse_curated({**entry, "name": "Renamed"})])
    assert curation.curated(db, CHAIN, [TOKEN, BOB]) == {TOKEN: {**parsed.data, "name": "Renamed"}}
    bad = [
        ({**entry, "resourceLinks": [{"type": "Blogpost", "url": "x"}]}, "resourceLinks[0].type"),
        ({**entry, "resourceLinks": [{"type": "Blog"}]}, "resourceLinks[0]"),
        ({**entry, "address": "0x12"}, "address"),
        ({**entry, "chainId": "c"}, "chainId"),
        ({**entry, "chainId": "²"}, "chainId"),
        ({**entry, "chainId": "9" * 5000}, "chainId"),
        ({**entry, "tags": "defi"}, "tags"),
        ({**entry, "name": 3}, "name"),
        ({**entry, "logoAsset": {"url": "x"}}, "logoAsset"),
        ("not an object", "entry"),
    ]
    for value, where in bad:
        with pytest.raises(InvalidParams, match=where.replace("[", r"\[").replace("]", r"\]")):
            curation.parse_curated(value)


def test_a_read_past_its_time_limit_is_aborted(tmp_path: Path) -> None:
    from snowfield.errors import Unavailable

    db = Database(str(tmp_path / "slow.db"), query_timeout=0.05)
    db.migrate()
    endless = (
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000000)"
        " SELECT COUNT(*) FROM n"
    )
    try:
        with pytest.raises(Unavailable, match="too long"):
            db.query(endless)
        assert db.query("SELECT 1") == [(1,)]  # the connection stays usable, limit lifted
        # Writes run unlimited on the same connection (only reads carry the deadline).
        started = time.monotonic()
        with db.transaction() as w:
            w.execute(
                "CREATE TABLE counted AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL"
                " SELECT i + 1 FROM n WHERE i < 1500000) SELECT i FROM n"
            )
        assert time.monotonic() - started > 0.05  # longer than a read may take
        assert db.query("SELECT COUNT(*) FROM counted") == [(1500000,)]
    finally:
        db.close()


def test_token_and_nft_lookups_of_a_whole_batch_span_several_in_lists(db: Database) -> None:
    # 1,200 unknown addresses sort before TOKEN, so it is found only past the first 500.
    unknown = [f"0x{n:040x}" for n in range(1, 1201)]
    found = token_queries.tokens(db, CHAIN, [*unknown, TOKEN, NFT])
    assert set(found) == {TOKEN, NFT} and found[TOKEN].symbol == "TOK"
    ids = [(NFT, n) for n in range(1000, 2200)] + [(NFT, 2), (NFT, 4)]
    assert set(token_queries.nfts(db, CHAIN, ids)) == {(NFT, 2), (NFT, 4)}


@pytest.mark.parametrize("size", [0, 1, 32, 63, 64, 65, 200])
def test_tokens_are_signed_with_hmac_sha256_whatever_the_secret_length(size: int) -> None:
    """The MAC from the key's precomputed pads is RFC 2104's: a token issued before (signed
    with hmac.digest) still decodes, and the same position signs the same."""
    secret = bytes(range(256))[:size]
    tokens = PageTokens(secret)
    scope = {"op": "listTransactions", "chainId": "43112", "n": 7}
    body = orjson.dumps([2, 19991, "a"])
    canonical = orjson.dumps(scope, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    mac = hmac.digest(secret, canonical + b"\n" + body, "sha256")[:16]
    plain = base64.urlsafe_b64encode
    expected = f"{plain(body).rstrip(b'=').decode()}.{plain(mac).rstrip(b'=').decode()}"
    assert tokens.encode(scope, (19991, "a")) == expected
    assert tokens.decode(expected, scope) == (19991, "a")
