"""The EVM operations beyond the spec's (issue 28): a block and the latest blocks, the complete
view of a transaction and the latest transactions, the cross-chain feeds, one chain, a
contract's deployment, a token's transfers, NFT collections and their reindex. Over a
synthetic store of two chains: each operation driven by the official client (its page iterator
where it pages) and checked against what the store holds; every body valid under our closed
schema; bad inputs refused in the spec's error body."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from snowfield.store import nft_reindex
from snowfield.store.database import Database
from snowfield.store.keys import create_key
from snowfield.store.rows import BlockBundle, BlockRow, IcmEventRow, NftRow, TxRow
from snowfield.store.writes import write_batch
from snowfield.testing import open_database
from tests.api.conftest import (
    ALICE,
    BLOCKCHAIN_ID,
    BOB,
    CAROL,
    CHAIN,
    CHILD,
    FACTORY,
    MULTI,
    NFT,
    OTHER_CHAIN,
    TOKEN,
    ChainBuilder,
    _hash,
    add_chains,
    api_client,
    assert_error,
    assert_matches,
)
from tests.clients.chainkit import Call, Result, drive
from tests.conftest import _db_kinds, _url

BASE = f"/v1/chains/{CHAIN}"
HEIGHT = 14  # the builder's 13 blocks, then one with a failed transaction
OTHER_HEIGHT = 5
MESSENGER = "0x" + "25" * 20
PEER = "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5"  # the other side's blockchain id
MULTI_METADATA = {"name": "Item 7", "image": "ipfs://item/7", "properties": {"k": 1}}


@dataclass
class Store:
    db: Database
    client: httpx.Client
    base: str
    key: str  # an API key limited to CHAIN
    txs: int  # transactions of CHAIN


def _last_block(db: Database) -> None:
    """Block HEIGHT: a transaction of ALICE that failed (0), one that sent an ICM message (1)
    and one that received another (2)."""
    txs = tuple(
        TxRow(
            CHAIN, HEIGHT, i, _hash(1, HEIGHT * 16 + i), _hash(0, HEIGHT),
            1_700_000_000 + HEIGHT * 2, ALICE, MESSENGER, 0, HEIGHT * 16 + i, 100_000, 30_000,
            25 * 10**9, 0, int(i > 0), "0xdeadbeef", None,
        )
        for i in range(3)
    )  # fmt: skip
    block = BlockRow(
        CHAIN, HEIGHT, _hash(0, HEIGHT), _hash(0, HEIGHT - 1), txs[0].block_timestamp, 90_000,
        15_000_000, 25 * 10**9, 3, "0x" + "00" * 20,
    )  # fmt: skip
    icm = tuple(
        IcmEventRow(
            CHAIN, HEIGHT, i, i, txs[i].hash, txs[i].block_timestamp, 30_000, MESSENGER, kind,
            f"{i:064x}", PEER, origin=ALICE, destination=BOB,
        )
        for i, kind in ((1, "send"), (2, "receive"))
    )  # fmt: skip
    activity = tuple((a, i) for i in range(3) for a in (ALICE, MESSENGER))
    write_batch(db, CHAIN, [BlockBundle(block, txs, activity=activity, icm=icm)])


@pytest.fixture(scope="module", params=_db_kinds())
def store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Store]:
    with open_database(_url(request.param, tmp_path_factory.mktemp("db"))) as db:
        add_chains(db)
        builder = ChainBuilder(db)
        builder.add(12)
        multi = NftRow(
            CHAIN, MULTI, 7, "ERC-1155", "ipfs://item/7", "indexed", MULTI_METADATA, 1_700_000_100
        )
        builder.add(1, extra_nfts=(multi,))
        _last_block(db)
        other = ChainBuilder(db, chain_id=OTHER_CHAIN)
        other.add(OTHER_HEIGHT)
        _, secret = create_key(db, "one chain", chains=[CHAIN])
        with api_client(db) as client:
            yield Store(db, client, str(client.base_url), secret, builder.txs + 3)


def get(client: httpx.Client, path: str, schema: str, **params: Any) -> Any:
    response = client.get(path, params=params)
    assert response.status_code == 200, response.text
    body = response.json()
    assert_matches(body, schema)
    return body


def every(client: httpx.Client, path: str, field: str, schema: str, **params: Any) -> list[Any]:
    """Every item of a listing through our pages (to compare the client's with)."""
    items: list[Any] = []
    query = dict(params)
    while True:
        body = get(client, path, schema, **query)
        items += body[field]
        if "nextPageToken" not in body:
            return items
        query["pageToken"] = body["nextPageToken"]


def items(result: Result, field: str) -> list[Any]:
    pages = result.all_pages()
    assert all(len(p[field]) <= 100 for p in pages)
    return [item for page in pages for item in page[field]]


def test_blocks_one_and_the_latest(store: Store) -> None:
    block5 = get(store.client, f"{BASE}/blocks/5", "EvmBlock")
    results = drive(
        [
            Call("data.evm.blocks.get", {"blockId": "5"}),
            Call("data.evm.blocks.get", {"blockId": block5["blockHash"].upper().replace("X", "x")}),
            Call("data.evm.blocks.listLatest", {"pageSize": 4}, "all"),
            Call("data.evm.blocks.listLatest", {"pageSize": 3, "chainId": BLOCKCHAIN_ID}, "all"),
        ],
        data=store.base,
    )
    by_number, by_hash, latest, by_blockchain_id = results
    assert by_number.unwrap() == by_hash.unwrap() == block5
    assert block5["blockNumber"] == "5" and block5["txCount"] == 3
    assert block5["baseFee"] == str(25 * 10**9) and block5["gasUsed"] == str(3 * 50_000)
    assert block5["parentHash"] == get(store.client, f"{BASE}/blocks/4", "EvmBlock")["blockHash"]
    assert "blockTimestampMilliseconds" not in block5  # no Granite fields in these headers
    blocks = items(latest, "blocks")
    assert [b["blockNumber"] for b in blocks] == [str(n) for n in range(HEIGHT, 0, -1)]
    assert len(latest.all_pages()) == -(-HEIGHT // 4)
    assert blocks == items(by_blockchain_id, "blocks")
    assert blocks[0]["cumulativeTransactions"] == str(store.txs)
    counts = [int(b["txCount"]) for b in reversed(blocks)]
    assert [int(b["cumulativeTransactions"]) for b in reversed(blocks)] == [
        sum(counts[: i + 1]) for i in range(len(counts))
    ]


def test_the_complete_view_of_a_transaction(store: Store) -> None:
    erc20_hash, nft_hash = _hash(1, 6 * 16 + 1), _hash(1, 6 * 16 + 2)
    multi_hash = _hash(1, 9 * 16 + 3)  # block 9: tx 3 moves MULTI id 7
    results = drive(
        [
            Call("data.evm.transactions.get", {"txHash": h})
            for h in (erc20_hash, nft_hash, multi_hash, _hash(1, HEIGHT * 16 + 1))
        ],
        data=store.base,
    )
    erc20, nft, multi, icm_sent = (r.unwrap() for r in results)
    ours = get(store.client, f"{BASE}/transactions/{erc20_hash}", "GetTransactionResponse")
    native = ours["nativeTransaction"]
    assert native["txHash"] == erc20_hash and native["blockNumber"] == "6"
    assert native["input"] == "0x" and native["baseFeePerGas"] == str(25 * 10**9)
    assert native["method"]["methodHash"] == "0xa9059cbb"
    assert ours["networkTokenDetails"] == {
        "networkToken": {"name": "Avalanche", "symbol": "AVAX", "decimals": 18}
    }
    [transfer] = ours["erc20Transfers"]
    assert transfer["value"] == str(10**24 + 6) and transfer["erc20Token"]["symbol"] == "TOK"
    [internal] = ours["internalTransactions"]  # TOKEN→CAROL moved 6 wei: a listed CALL
    assert (internal["from"]["address"], internal["to"]["address"]) == (TOKEN, CAROL)
    assert internal["internalTxType"] == "CALL" and internal["value"] == "6"
    assert ours["logs"] == [] and ours["receipt"] == {
        "status": "1",
        "gasUsed": "50000",
        "cumulativeGasUsed": "100000",  # the block's tx 0 and tx 1
        "effectiveGasPrice": str(25 * 10**9),
    }
    assert "teleporterMessageInfo" not in ours
    # The client drops our `logs` and `receipt`, and reads the rest as we sent it.
    assert erc20 == {k: v for k, v in ours.items() if k not in ("logs", "receipt")}
    [minted] = nft["erc721Transfers"]
    assert minted["erc721Token"]["tokenId"] == "6"
    assert minted["erc721Token"]["metadata"]["name"] == "Art #6"
    assert results[1].translated > 0  # the spec's lower-case indexStatus was on the wire
    sent, received = (
        get(
            store.client,
            f"{BASE}/transactions/{_hash(1, HEIGHT * 16 + i)}",
            "GetTransactionResponse",
        )
        for i in (1, 2)
    )
    assert icm_sent["teleporterMessageInfo"] == sent["teleporterMessageInfo"]
    assert sent["teleporterMessageInfo"] == {
        "teleporterMessageId": f"{1:064x}",
        "direction": "SOURCE_TRANSACTION",
        "destinationChainId": PEER,
    }
    assert received["teleporterMessageInfo"] == {
        "teleporterMessageId": f"{2:064x}",
        "direction": "DESTINATION_TRANSACTION",
        "sourceChainId": PEER,
    }
    [moved] = multi["erc1155Transfers"]
    assert moved["value"] == "9" and moved["erc1155Token"]["metadata"]["name"] == "Item 7"


def test_a_contracts_deployment_is_its_creating_transaction(store: Store) -> None:
    results = drive(
        [
            Call("data.evm.contracts.getDeploymentTransaction", {"address": FACTORY}),
            Call("data.evm.contracts.getDeploymentTransaction", {"address": CHILD.upper()[2:]}),
            Call(
                "data.evm.contracts.getDeploymentTransaction", {"address": CHILD, "currency": "eur"}
            ),
            Call("data.evm.contracts.getDeploymentTransaction", {"address": BOB}),
        ],
        data=store.base,
    )
    factory, malformed, child, nothing = results
    created = factory.unwrap()
    assert created["nativeTransaction"]["to"]["address"] == FACTORY  # a creation's `to`
    assert created["nativeTransaction"]["method"]["callType"] == "CONTRACT_CREATION"
    [create2] = created["internalTransactions"]  # value 0, but a CREATE2: listed
    assert create2["internalTxType"] == "CREATE2" and create2["to"]["address"] == CHILD
    assert child.unwrap() == created  # the factory's child: the same transaction
    assert malformed.error["statusCode"] == 400
    assert nothing.error["name"] == "NotFoundError"
    ours = get(
        store.client,
        f"{BASE}/contracts/{FACTORY}/transactions:getDeployment",
        "GetTransactionResponse",
    )
    assert ours["receipt"]["contractAddress"] == FACTORY
    tx_hash = created["nativeTransaction"]["txHash"]
    assert ours == get(store.client, f"{BASE}/transactions/{tx_hash}", "GetTransactionResponse")


def test_the_latest_transactions_and_their_status(store: Store) -> None:
    results = drive(
        [
            Call("data.evm.transactions.listLatest", {"pageSize": 9}, "all"),
            Call("data.evm.transactions.listLatest", {"pageSize": 2, "status": "failed"}, "all"),
            Call("data.evm.transactions.listLatest", {"pageSize": 100, "status": "success"}, "all"),
        ],
        data=store.base,
    )
    everything, failed, succeeded = (items(r, "transactions") for r in results)
    assert len(everything) == store.txs and len(results[0].all_pages()) == -(-store.txs // 9)
    keys = [(int(t["blockNumber"]), t["blockIndex"]) for t in everything]
    assert keys == sorted(keys, reverse=True) and len(set(keys)) == len(keys)
    assert [t["txHash"] for t in failed] == [_hash(1, HEIGHT * 16)]
    assert failed[0]["txStatus"] == "0"
    assert len(succeeded) == store.txs - 1 and all(t["txStatus"] == "1" for t in succeeded)
    assert everything == every(
        store.client, f"{BASE}/transactions", "transactions", "ListNativeTransactionsResponse",
        pageSize=9,
    )  # fmt: skip


def _merged(store: Store, path: str, field: str, schema: str) -> list[Any]:
    """Both chains' own latest items, merged newest first as the feeds order them."""
    merged = []
    for chain in (CHAIN, OTHER_CHAIN):
        merged += every(store.client, f"/v1/chains/{chain}/{path}", field, schema, pageSize=100)
    key = "blockTimestamp"
    return sorted(
        merged,
        key=lambda x: (x[key], int(x["chainId"]), int(x["blockNumber"]), x.get("blockIndex", 0)),
        reverse=True,
    )


def test_the_feeds_of_every_chain(store: Store) -> None:
    blocks = _merged(store, "blocks", "blocks", "ListEvmBlocksResponse")
    txs = _merged(store, "transactions", "transactions", "ListNativeTransactionsResponse")
    assert {b["chainId"] for b in blocks} == {str(CHAIN), str(OTHER_CHAIN)}
    results = drive(
        [
            Call("data.evm.blocks.listLatestAllChains", {"pageSize": 5}, "all"),
            Call("data.evm.chains.listAllLatestBlocks", {"pageSize": 7}, "all"),
            Call("data.evm.transactions.listLatestAllChains", {"pageSize": 6}, "all"),
            Call("data.evm.chains.listAllLatestTransactions", {"pageSize": 11}, "all"),
            Call("data.evm.blocks.listLatestAllChains", {"network": "mainnet"}, "all"),
            Call(
                "data.evm.transactions.listLatestAllChains",
                {"network": "fuji", "pageSize": 50},
                "all",
            ),
            Call("data.evm.chains.listAllLatestTransactions", {"status": "failed"}, "all"),
        ],
        data=store.base,
    )
    assert items(results[0], "blocks") == items(results[1], "blocks") == blocks
    assert items(results[2], "transactions") == items(results[3], "transactions") == txs
    assert items(results[4], "blocks") == [b for b in blocks if b["chainId"] == str(OTHER_CHAIN)]
    assert items(results[5], "transactions") == [t for t in txs if t["chainId"] == str(CHAIN)]
    assert [t["txStatus"] for t in items(results[6], "transactions")] == ["0"]
    for path in ("/v1/blocks", "/v1/chains/allBlocks"):
        assert get(store.client, path, "ListEvmBlocksResponse", pageSize=3)["blocks"] == blocks[:3]
    for path in ("/v1/transactions", "/v1/chains/allTransactions"):
        assert_matches(store.client.get(path).json(), "ListNativeTransactionsResponse")


def test_a_key_limited_to_one_chain_sees_that_chain_only(store: Store) -> None:
    results = drive(
        [
            Call("data.evm.blocks.listLatestAllChains", {"pageSize": 100}, "all"),
            Call("data.evm.transactions.listLatestAllChains", {"pageSize": 100}, "all"),
            Call("data.evm.chains.listAllLatestBlocks", {"network": "mainnet"}, "all"),
            Call("data.evm.blocks.listLatest", {"chainId": str(OTHER_CHAIN)}, "all"),
            Call("data.evm.chains.get", {"chainId": str(OTHER_CHAIN)}),
        ],
        data=store.base,
        api_key=store.key,
    )
    blocks, txs, mainnet, other, chain = results
    assert {b["chainId"] for b in items(blocks, "blocks")} == {str(CHAIN)}
    assert len(items(blocks, "blocks")) == HEIGHT
    assert {t["chainId"] for t in items(txs, "transactions")} == {str(CHAIN)}
    assert items(mainnet, "blocks") == []
    assert other.error["statusCode"] == 403 and chain.error["statusCode"] == 403


def test_one_chain(store: Store) -> None:
    results = drive(
        [
            Call("data.evm.chains.get", {}),
            Call("data.evm.chains.get", {"chainId": BLOCKCHAIN_ID}),
            Call("data.evm.chains.get", {"chainId": "99"}),
            Call("data.evm.chains.list", {}),
        ],
        data=store.base,
    )
    by_id, by_blockchain_id, unknown, listed = results
    assert by_id.unwrap() == by_blockchain_id.unwrap() == listed.unwrap()["chains"][0]
    assert by_id.unwrap()["chainId"] == str(CHAIN)
    assert unknown.error["name"] == "NotFoundError"
    assert (
        get(store.client, BASE, "ChainInfo")
        == get(store.client, "/v1/chains", "ListChainsResponse")["chains"][0]
    )


def test_the_transfers_of_one_token(store: Store) -> None:
    results = drive(
        [
            Call("data.evm.contracts.listTransfers", {"address": TOKEN, "pageSize": 5}, "all"),
            Call(
                "data.evm.contracts.listTransfers",
                {"address": TOKEN, "startBlock": 3, "endBlock": 6, "pageSize": 2},
                "all",
            ),
            Call("data.evm.contracts.listTransfers", {"address": NFT, "pageSize": 4}, "all"),
            Call("data.evm.contracts.listTransfers", {"address": MULTI}, "all"),
            Call("data.evm.contracts.listTransfers", {"address": BOB}, "all"),
            Call(
                "data.evm.contracts.listTransfers",
                {"address": TOKEN, "startBlock": 6, "endBlock": 3},
                "all",
            ),
        ],
        data=store.base,
    )
    erc20, ranged, erc721, erc1155, unknown, backwards = results
    transfers = items(erc20, "transfers")
    assert [t["blockNumber"] for t in transfers] == [str(n) for n in range(13, 0, -1)]
    assert all(t["erc20Token"]["address"] == TOKEN for t in transfers)
    assert [t["blockNumber"] for t in items(ranged, "transfers")] == ["5", "4", "3"]
    nfts = items(erc721, "transfers")
    assert {t["erc721Token"]["address"] for t in nfts} == {NFT} and len(nfts) == 12
    multi = items(erc1155, "transfers")
    assert [t["blockNumber"] for t in multi] == ["12", "9", "6", "3"]
    assert all(t["erc1155Token"]["tokenId"] == "7" for t in multi)
    assert unknown.error["name"] == "NotFoundError"
    assert backwards.error["name"] == "BadRequestError"
    assert transfers == every(
        store.client, f"{BASE}/tokens/{TOKEN}/transfers", "transfers", "ListTransfersResponse",
        pageSize=5,
    )  # fmt: skip


def test_nft_collections_and_tokens(store: Store) -> None:
    results = drive(
        [
            Call("data.nfts.list", {"address": NFT, "pageSize": 2}, "all"),
            Call("data.nfts.list", {"address": MULTI}, "all"),
            Call("data.nfts.get", {"address": NFT, "tokenId": "4"}),
            Call("data.nfts.get", {"address": MULTI, "tokenId": "7"}),
            Call("data.nfts.get", {"address": NFT, "tokenId": "5"}),
            Call("data.nfts.list", {"address": TOKEN}, "all"),
            Call("data.nfts.get", {"address": NFT, "tokenId": "1e3"}),
        ],
        data=store.base,
    )
    listed, multi, four, seven, missing, not_nft, malformed = results
    tokens = items(listed, "tokens")
    assert sorted(int(t["tokenId"]) for t in tokens) == list(range(2, 13, 2))
    # Each even id is minted to ALICE and moved to BOB in the next block.
    assert {t["ownerAddress"] for t in tokens} == {BOB}
    assert all(t["metadata"]["indexStatus"] == "INDEXED" for t in tokens)  # upper-cased for it
    assert four.unwrap() == next(t for t in tokens if t["tokenId"] == "4")
    assert four.unwrap()["metadata"]["name"] == "Art #4" and four.translated == 1
    [item] = items(multi, "tokens")
    assert item == seven.unwrap() and item["ercType"] == "ERC-1155"
    assert item["metadata"]["properties"] == '{"k": 1}' and item["metadata"]["name"] == "Item 7"
    assert missing.error["name"] == "NotFoundError" and not_nft.error["name"] == "NotFoundError"
    assert malformed.error["name"] == "BadRequestError"
    ours = get(store.client, f"{BASE}/nfts/collections/{NFT}/tokens/4", "NftToken")
    assert ours["metadata"]["indexStatus"] == "indexed"  # the spec's spelling on the wire


def test_a_reindex_is_recorded_once_an_hour(store: Store) -> None:
    results = drive(
        [
            Call("data.nfts.reindex", {"address": NFT, "tokenId": "8"}),
            Call("data.nfts.reindex", {"address": NFT, "tokenId": "8"}),
            Call("data.nfts.reindex", {"address": NFT, "tokenId": "9"}),
        ],
        data=store.base,
    )
    first, again, unknown = results
    assert first.ok and first.value is None
    assert again.error["name"] == "TooManyRequestsError" and again.error["statusCode"] == 429
    assert unknown.error["name"] == "NotFoundError"
    path = f"{BASE}/nfts/collections/{NFT}/tokens/10:reindex"
    made = store.client.post(path)
    assert made.status_code == 201 and made.content == b""
    refused = assert_error(store.client.post(path), 429, "in the last hour")
    assert 3500 < int(store.client.post(path).headers["retry-after"]) <= 3600, refused
    pending = nft_reindex.pending(store.db, CHAIN, 10)
    assert {(r.token, r.token_id, r.erc_type) for r in pending} == {
        (NFT, 8, "ERC-721"),
        (NFT, 10, "ERC-721"),
    }
    assert_error(store.client.get(path), 405)


@pytest.mark.parametrize(
    ("path", "status", "mentions"),
    [
        ("/v1/chains/99/blocks/1", 404, "chain 99"),
        (f"{BASE}/blocks/999", 404, "block 999"),
        (f"{BASE}/blocks/0x" + "ab" * 32, 404, "not found"),
        (f"{BASE}/blocks/-1", 400, "blockId"),
        (f"{BASE}/blocks/0x12", 400, "blockId"),
        (f"{BASE}/transactions/0x" + "ab" * 32, 404, "not found"),
        (f"{BASE}/transactions/0x12", 400, "txHash"),
        (f"{BASE}/transactions/0x" + "zz" * 32, 400, "txHash"),
        (f"{BASE}/transactions?status=pending", 400, "status"),
        (f"{BASE}/transactions?pageSize=0", 400, "pageSize"),
        (f"{BASE}/blocks?pageSize=101", 400, "pageSize"),
        ("/v1/transactions?network=devnet", 400, "network"),
        ("/v1/blocks?pageSize=0", 400, "pageSize"),
        ("/v1/chains/99", 404, "chain 99"),
        (f"{BASE}/contracts/0x12/transactions:getDeployment", 400, "address"),
        (f"{BASE}/contracts/{BOB}/transactions:getDeployment", 404, "not a contract"),
        (f"{BASE}/contracts/{FACTORY}/transactions:getDeployment?currency=xyz", 400, "currency"),
        (f"{BASE}/tokens/{BOB}/transfers", 404, "not a known token"),
        (f"{BASE}/tokens/0x12/transfers", 400, "address"),
        (f"{BASE}/tokens/{TOKEN}/transfers?startBlock=5&endBlock=4", 400, "endBlock"),
        (f"{BASE}/nfts/collections/{TOKEN}/tokens", 404, "not a known NFT"),
        (f"{BASE}/nfts/collections/{NFT}/tokens/3", 404, "not indexed"),
        (f"{BASE}/nfts/collections/{NFT}/tokens/x1", 400, "tokenId"),
        (f"{BASE}/nfts/collections/{NFT}/tokens/" + "1" * 79, 400, "tokenId"),
        (f"{BASE}/nfts/collections/{NFT}/tokens/" + str(2**256), 400, "tokenId"),
        (f"{BASE}/nfts/collections/0x12/tokens/1", 400, "address"),
    ],
)
def test_bad_inputs(store: Store, path: str, status: int, mentions: str) -> None:
    assert_error(store.client.get(path), status, mentions)


@pytest.mark.parametrize(
    ("path", "field"),
    [
        (f"{BASE}/blocks", "blocks"),
        (f"{BASE}/transactions", "transactions"),
        ("/v1/blocks", "blocks"),
        ("/v1/transactions", "transactions"),
        ("/v1/chains/allTransactions", "transactions"),
        (f"{BASE}/tokens/{TOKEN}/transfers", "transfers"),
        (f"{BASE}/nfts/collections/{NFT}/tokens", "tokens"),
    ],
)
def test_a_tampered_page_token_is_refused(store: Store, path: str, field: str) -> None:
    token = store.client.get(path, params={"pageSize": 2}).json()["nextPageToken"]
    assert store.client.get(path, params={"pageSize": 2, "pageToken": token}).status_code == 200
    body, _, mac = token.partition(".")
    tampered = f"{body[:-2]}{'A' if body[-2] != 'A' else 'B'}{body[-1]}.{mac}"
    assert_error(
        store.client.get(path, params={"pageSize": 2, "pageToken": tampered}), 400, "pageToken"
    )
    # Bound to its query: another status or network is another list.
    other = {"status": "success"} if "transactions" in path else {"network": "mainnet"}
    if path.startswith("/v1/chains/allTransactions") or path in ("/v1/blocks", "/v1/transactions"):
        reply = store.client.get(path, params={"pageSize": 2, "pageToken": token, **other})
        assert_error(reply, 400, "pageToken")
