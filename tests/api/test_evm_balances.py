"""The balance operations (getNative, listErc20, listErc1155, listCollectibles), an address's
further histories (listNative, listErc1155, listInternals) and the chains it used, over a
synthetic store of two chains whose token balances follow its transfers: each operation driven
by the official client (its page iterator where it pages) and checked against the store's
transfers replayed here; every body valid under our closed schema; bad inputs refused in the
spec's error body."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import httpx
import pytest

from snowfield.store.database import Database
from snowfield.store.keys import create_key
from snowfield.store.rows import (
    ERC20,
    ERC721,
    ERC1155,
    TOKEN_KINDS,
    BlockBundle,
    TokenBalanceRow,
)
from snowfield.testing import open_database
from tests.api.conftest import (
    ALICE,
    BOB,
    CAROL,
    CHAIN,
    MULTI,
    NFT,
    OTHER_CHAIN,
    TOKEN,
    ZERO,
    ChainBuilder,
    add_chains,
    api_client,
    assert_error,
    assert_matches,
    walk,
)
from tests.clients.chainkit import Call, Result, drive
from tests.conftest import _db_kinds, _url

BASE = f"/v1/chains/{CHAIN}"
HEIGHT = 13
SPAM = "0x" + "5a" * 20  # an ERC-20 that answers no name() or symbol()
STRANGER = "0x" + "99" * 20  # never seen
# (holder, kind, token, token id) → balance
Balances = dict[tuple[str, int, str, int | None], int]


@dataclass
class BalanceBuilder(ChainBuilder):
    """The conftest pattern, plus the token balances its transfers leave (as the indexer
    writes them) and, in block 2, a transfer of a token with no name or symbol (spam)."""

    held: Balances = field(default_factory=dict)
    after: dict[int, Balances] = field(default_factory=dict)
    written: set[tuple[str, int, str, int | None]] = field(default_factory=set)

    def _block(self, n: int) -> BlockBundle:
        bundle = super()._block(n)
        transfers = bundle.transfers
        if n == 2:
            spam = replace(transfers[0], token=SPAM, log_index=9, value=5)
            transfers = (*transfers, spam)
        rows = []
        for t in transfers:
            kind = TOKEN_KINDS[t.erc_type]
            token_id = None if kind == ERC20 else t.token_id
            for holder, sign in ((t.from_addr, -1), (t.to_addr, 1)):
                if holder == ZERO:  # a mint: no holder loses anything
                    continue
                key = (holder, kind, t.token, token_id)
                if kind == ERC721:  # the receiver owns the id, the sender no longer does
                    self.held[key] = 1 if sign > 0 else 0
                else:
                    self.held[key] = self.held.get(key, 0) + sign * t.value
                row = TokenBalanceRow(
                    self.chain_id, holder, kind, t.token, token_id, n, self.held[key]
                )
                rows.append(row)
                self.written.add(key)
        self.after[n] = {k: v for k, v in self.held.items() if k in self.written}
        return replace(bundle, transfers=transfers, token_balances=tuple(rows))


@dataclass
class Store:
    db: Database
    client: httpx.Client
    base: str
    key: str  # an API key limited to CHAIN
    after: dict[int, Balances]


@pytest.fixture(scope="module", params=_db_kinds())
def store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Store]:
    with open_database(_url(request.param, tmp_path_factory.mktemp("db"))) as db:
        add_chains(db)
        builder = BalanceBuilder(db)
        # ALICE sends what no transfer gave her: she starts with it (as from a genesis
        # allocation), so her balances stay positive. SPAM has no `tokens` row: no name.
        builder.held.update({(ALICE, ERC20, TOKEN, None): 10**30, (ALICE, ERC20, SPAM, None): 100})
        builder.held[(ALICE, ERC1155, MULTI, 7)] = 10**6
        builder.add(HEIGHT)
        ChainBuilder(db, chain_id=OTHER_CHAIN).add(3)
        _, key = create_key(db, "one chain", chains=(CHAIN,))
        with api_client(db) as client:
            yield Store(db, client, str(client.base_url), key, builder.after)


def _expected(store: Store, holder: str, kind: int, block: int | None) -> dict[Any, int]:
    held = store.after[HEIGHT if block is None else block]
    return {
        (token, token_id): value
        for (who, k, token, token_id), value in held.items()
        if who == holder and k == kind and value > 0
    }


def _listed(store: Store, path: str, field: str, schema: str, **params: Any) -> list[Any]:
    return walk(store.client, f"{BASE}/addresses/{path}", field, schema, params)


@pytest.mark.parametrize("block", [2, 5, 9, HEIGHT, None])
@pytest.mark.parametrize("holder", [ALICE, BOB, CAROL, STRANGER])
def test_every_balance_now_and_at_a_past_block(
    store: Store, holder: str, block: int | None
) -> None:
    at = {} if block is None else {"blockNumber": str(block)}
    native = store.client.get(f"{BASE}/addresses/{holder}/balances:getNative", params=at)
    assert native.status_code == 200
    assert_matches(native.json(), "GetNativeBalanceResponse")
    expected_native = 0
    if holder == ALICE:  # the builder's ALICE holds 10,000 - n after block n
        expected_native = (10_000 - (HEIGHT if block is None else block)) * 10**18
    assert native.json()["nativeTokenBalance"]["balance"] == str(expected_native)
    erc20 = _listed(
        store, f"{holder}/balances:listErc20", "erc20TokenBalances", "ListErc20BalancesResponse",
        pageSize=1, filterSpamTokens="false", **at,
    )  # fmt: skip
    assert {(t["address"], None): int(t["balance"]) for t in erc20} == _expected(
        store, holder, ERC20, block
    )
    assert all(t["tokenReputation"] is None and t["chainId"] == str(CHAIN) for t in erc20)
    erc1155 = _listed(
        store, f"{holder}/balances:listErc1155", "erc1155TokenBalances",
        "ListErc1155BalancesResponse", pageSize=1, **at,
    )  # fmt: skip
    assert {(t["address"], int(t["tokenId"])): int(t["balance"]) for t in erc1155} == _expected(
        store, holder, ERC1155, block
    )
    collectibles = _listed(
        store, f"{holder}/balances:listCollectibles", "collectibleBalances",
        "ListCollectibleBalancesResponse", pageSize=2, **at,
    )  # fmt: skip
    nfts = [(t["address"], int(t["tokenId"])) for t in collectibles if t["ercType"] == "ERC-721"]
    assert dict.fromkeys(nfts, 1) == _expected(store, holder, ERC721, block)
    assert [t for t in collectibles if t["ercType"] == "ERC-1155"] == erc1155
    assert all(t.get("ownerAddress", holder) == holder for t in collectibles)


def test_spam_tokens_and_contract_filters(store: Store) -> None:
    path = f"{BASE}/addresses/{BOB}/balances:listErc20"
    default = store.client.get(path).json()["erc20TokenBalances"]
    every = store.client.get(path, params={"filterSpamTokens": "false"}).json()
    assert [t["address"] for t in default] == [TOKEN]
    assert [t["address"] for t in every["erc20TokenBalances"]] == sorted([SPAM, TOKEN])
    spam = next(t for t in every["erc20TokenBalances"] if t["address"] == SPAM)
    assert (spam["name"], spam["symbol"], spam["balance"]) == ("", "", "5")
    only = store.client.get(
        path, params={"contractAddresses": f"{SPAM.upper().replace('0X', '0x')}, {NFT}"}
    )
    assert only.json()["erc20TokenBalances"] == []  # spam filtered, NFT is no ERC-20
    only = store.client.get(path, params={"contractAddresses": SPAM, "filterSpamTokens": "false"})
    assert [t["address"] for t in only.json()["erc20TokenBalances"]] == [SPAM]
    one = store.client.get(
        f"{BASE}/addresses/{ALICE}/balances:listCollectibles", params={"contractAddress": MULTI}
    ).json()["collectibleBalances"]
    assert {t["address"] for t in one} == {MULTI}
    assert "price" not in str(every) and "balanceValue" not in str(every)


def _items(result: Result, field: str) -> list[Any]:
    return [item for page in result.all_pages() for item in page[field]]


def test_the_official_client_reads_every_new_operation(store: Store) -> None:
    a = ALICE
    calls = [
        Call("data.evm.address.balances.getNative", {"address": a, "blockNumber": "4"}),
        Call("data.evm.address.balances.getNative", {"address": a, "currency": "eur"}),
        Call(
            "data.evm.address.balances.listErc20",
            {"address": BOB, "pageSize": 1, "filterSpamTokens": False, "blockNumber": "6"},
            "all",
        ),
        Call("data.evm.address.balances.listErc1155", {"address": BOB, "pageSize": 1}, "all"),
        Call("data.evm.address.balances.listCollectibles", {"address": BOB, "pageSize": 2}, "all"),
        Call("data.evm.address.transactions.listNative", {"address": a, "pageSize": 7}, "all"),
        Call(
            "data.evm.address.transactions.listErc1155",
            {"address": BOB, "pageSize": 2, "startBlock": 3, "endBlock": 12},
            "all",
        ),
        Call(
            "data.evm.address.transactions.listInternal", {"address": CAROL, "pageSize": 5}, "all"
        ),
        Call("data.evm.chains.getAddressChains", {"address": a}),
        Call("data.evm.address.chains.list", {"address": BOB}),
        Call("data.evm.address.chains.list", {"address": STRANGER}),
    ]
    got = drive(calls, data=store.base, chain_id=str(CHAIN))
    native_at_4, native, erc20, erc1155, collectibles, history, multi, internals = got[:8]
    chains_a, chains_b, chains_none = got[8:]
    assert native_at_4.unwrap()["nativeTokenBalance"]["balance"] == str(9_996 * 10**18)
    assert native.unwrap()["nativeTokenBalance"]["balance"] == str((10_000 - HEIGHT) * 10**18)
    assert "price" not in native.unwrap()["nativeTokenBalance"]
    listed = _items(erc20, "erc20TokenBalances")
    assert {t["address"]: int(t["balance"]) for t in listed} == {
        t: v for (t, _), v in _expected(store, BOB, ERC20, 6).items()
    }
    assert len(erc20.all_pages()) == 2
    assert [(t["address"], t["tokenId"]) for t in _items(erc1155, "erc1155TokenBalances")] == [
        (MULTI, "7")
    ]
    ours = _listed(
        store, f"{BOB}/balances:listCollectibles", "collectibleBalances",
        "ListCollectibleBalancesResponse", pageSize=100,
    )  # fmt: skip
    theirs = _items(collectibles, "collectibleBalances")
    assert [t["tokenId"] for t in theirs] == [t["tokenId"] for t in ours] and len(theirs) > 2
    # Every transaction ALICE sent (she sends them all) or received, newest first.
    txs = _items(history, "transactions")
    count = store.db.query_one(
        "SELECT COUNT(*) FROM transactions WHERE chain_id = ? AND (from_addr = ? OR to_addr = ?)",
        (CHAIN, a, a),
    )
    assert count is not None and len(txs) == count[0]
    keys = [(int(t["blockNumber"]), t["blockIndex"]) for t in txs]
    assert keys == sorted(keys, reverse=True)
    moved = _items(multi, "transactions")
    assert [int(t["blockNumber"]) for t in moved] == [9, 6, 3]  # every third block, 3 <= n < 12
    assert all(t["erc1155Token"]["address"] == MULTI for t in moved)
    frames = _items(internals, "transactions")
    assert [int(t["blockNumber"]) for t in frames] == list(range(HEIGHT, 0, -1))
    assert all(t["to"]["address"] == CAROL and t["internalTxType"] == "CALL" for t in frames)
    for used in (chains_a, chains_b):  # both chains' builders use ALICE and BOB
        assert [c["chainId"] for c in used.unwrap()["indexedChains"]] == [
            str(CHAIN), str(OTHER_CHAIN),
        ]  # fmt: skip
    assert chains_none.unwrap() == {"indexedChains": [], "unindexedChains": []}


def test_address_chains_across_chains_and_keys(store: Store) -> None:
    # The other chain's builder sends from ALICE too, under the same addresses.
    mixed = "0x" + ALICE[2:].upper()
    for path in (f"/v1/chains/address/{ALICE}", f"/v1/address/{mixed}/chains"):
        reply = store.client.get(path)
        assert_matches(reply.json(), "ListAddressChainsResponse")
        chains = [c["chainId"] for c in reply.json()["indexedChains"]]
        assert chains == [str(CHAIN), str(OTHER_CHAIN)]
        assert all(c["chainName"] for c in reply.json()["indexedChains"])
    limited = store.client.get(
        f"/v1/address/{ALICE}/chains", headers={"x-service-api-key": store.key}
    )
    assert [c["chainId"] for c in limited.json()["indexedChains"]] == [str(CHAIN)]


@pytest.mark.parametrize(
    ("path", "status", "mentions"),
    [
        (f"{BASE}/addresses/{ALICE}/balances:getNative?blockNumber={HEIGHT + 1}", 400, "beyond"),
        (f"{BASE}/addresses/{ALICE}/balances:listErc20?blockNumber=99999", 400, "beyond"),
        (f"{BASE}/addresses/{ALICE}/balances:listErc1155?blockNumber=14", 400, "beyond"),
        (f"{BASE}/addresses/{ALICE}/balances:listCollectibles?blockNumber=14", 400, "beyond"),
        (f"{BASE}/addresses/{ALICE}/balances:getNative?blockNumber=-1", 400, "blockNumber"),
        (f"{BASE}/addresses/{ALICE}/balances:getNative?blockNumber=0x10", 400, "blockNumber"),
        (f"{BASE}/addresses/{ALICE}/balances:getNative?currency=xyz", 400, "currency"),
        (f"{BASE}/addresses/{ALICE}/balances:listErc20?filterSpamTokens=1", 400, "filterSpam"),
        (f"{BASE}/addresses/{ALICE}/balances:listErc20?contractAddresses=0x12", 400, "contract"),
        (f"{BASE}/addresses/{ALICE}/balances:listErc20?pageSize=501", 400, "pageSize"),
        (f"{BASE}/addresses/{ALICE}/balances:listErc1155?contractAddress=0x1", 400, "contract"),
        (f"{BASE}/addresses/0x12/balances:getNative", 400, "address"),
        (f"/v1/chains/999/addresses/{ALICE}/balances:getNative", 404, "999"),
        (f"/v1/chains/999/addresses/{ALICE}/transactions:listNative", 404, "999"),
        (f"{BASE}/addresses/{ALICE}/transactions:listNative?pageSize=101", 400, "pageSize"),
        (
            f"{BASE}/addresses/{ALICE}/transactions:listInternals?startBlock=5&endBlock=4",
            400,
            "end",
        ),
        (f"{BASE}/addresses/{ALICE}/transactions:listErc1155?startBlock=x", 400, "startBlock"),
        ("/v1/chains/address/0x12", 400, "address"),
    ],
)
def test_bad_inputs(store: Store, path: str, status: int, mentions: str) -> None:
    assert_error(store.client.get(path), status, mentions)


def test_the_contract_list_has_a_bound(store: Store) -> None:
    many = ",".join(f"0x{i:040x}" for i in range(101))
    path = f"{BASE}/addresses/{ALICE}/balances:listErc20"
    assert_error(store.client.get(path, params={"contractAddresses": many}), 400, "at most")


@pytest.mark.parametrize(
    ("holder", "op", "query"),
    [
        (BOB, "balances:listCollectibles", {}),
        (BOB, "balances:listErc20", {"filterSpamTokens": "false", "blockNumber": "5"}),
        (ALICE, "transactions:listNative", {}),
        (CAROL, "transactions:listInternals", {}),
        (BOB, "transactions:listErc1155", {}),
    ],
)
def test_a_page_token_is_bound_to_its_query(
    store: Store, holder: str, op: str, query: dict[str, str]
) -> None:
    url = f"{BASE}/addresses/{holder}/{op}"
    token = store.client.get(url, params={**query, "pageSize": 1}).json()["nextPageToken"]
    again = store.client.get(url, params={**query, "pageSize": 1, "pageToken": token})
    assert again.status_code == 200
    body, _, mac = token.partition(".")
    tampered = f"{body[:-2]}{'A' if body[-2] != 'A' else 'B'}{body[-1]}.{mac}"
    reply = store.client.get(url, params={**query, "pageSize": 1, "pageToken": tampered})
    assert_error(reply, 400, "pageToken")
    # Bound to its address and every other argument.
    other = f"{BASE}/addresses/{STRANGER}/{op}"
    assert_error(store.client.get(other, params={**query, "pageToken": token}), 400, "pageToken")
    if query:
        assert_error(store.client.get(url, params={"pageToken": token}), 400, "pageToken")
