"""Operations 3-10 over the builder's chain: shapes, JSON types, filters and the values in them."""

from __future__ import annotations

from typing import Any

import httpx

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
    WEI,
    assert_matches,
)

BASE = f"/v1/chains/{CHAIN}"


def get(api: httpx.Client, path: str, schema: str, **params: Any) -> Any:
    response = api.get(path, params=params)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert_matches(body, schema)
    return body


def test_chains_lists_both_and_filters_by_network_and_feature(api: httpx.Client) -> None:
    chains = get(api, "/v1/chains", "ListChainsResponse")["chains"]
    assert [c["chainId"] for c in chains] == [str(CHAIN), str(OTHER_CHAIN)]
    local = chains[0]
    assert local["isTestnet"] is True and local["platformChainId"] == BLOCKCHAIN_ID
    assert local["utilityAddresses"] == {"multicall": "0x" + "ca" * 20}
    assert local["networkToken"] == {"name": "Avalanche", "symbol": "AVAX", "decimals": 18}
    assert chains[1]["networkToken"]["logoUri"] == "https://example.invalid/avax.png"
    assert "wsUrl" not in local  # unknown optional fields are omitted, not null
    main = get(api, "/v1/chains", "ListChainsResponse", network="mainnet")["chains"]
    assert [c["chainId"] for c in main] == [str(OTHER_CHAIN)]
    for alias in ("fuji", "testnet"):
        test = get(api, "/v1/chains", "ListChainsResponse", network=alias)["chains"]
        assert [c["chainId"] for c in test] == [str(CHAIN)]
    # Configured, but no delivery worker runs: not offered (tests/api/test_webhooks.py).
    hooks = get(api, "/v1/chains", "ListChainsResponse", feature="webhooks")["chains"]
    assert hooks == []
    assert (
        get(api, "/v1/chains", "ListChainsResponse", network="mainnet", feature="nftIndexing")[
            "chains"
        ]
        == []
    )


def test_chain_is_found_by_blockchain_id_too(api: httpx.Client) -> None:
    by_id = get(api, f"{BASE}/blocks/3/transactions", "ListBlockTransactionsResponse")
    by_name = get(
        api, f"/v1/chains/{BLOCKCHAIN_ID}/blocks/3/transactions", "ListBlockTransactionsResponse"
    )
    assert by_id == by_name and len(by_id["transactions"]) == 4


def test_address_transactions_types_and_values(api: httpx.Client) -> None:
    body = get(api, f"{BASE}/addresses/{BOB}/transactions", "ListTransactionsResponse")
    entries = body["transactions"]
    assert len(entries) == 10 and "nextPageToken" in body
    native = entries[0]["nativeTransaction"]
    assert native["blockNumber"] == "12" and isinstance(native["blockTimestamp"], int)
    first = next(e for e in entries if e["nativeTransaction"]["blockIndex"] == 0)
    transfer = first["nativeTransaction"]
    assert transfer["value"] == str(12 * WEI)  # beyond 2^53: a string
    assert transfer["method"] == {
        "callType": "NATIVE_TRANSFER",
        "methodHash": "",
        "methodName": "Native Transfer",
    }
    assert transfer["txStatus"] == "1" and transfer["gasPrice"] == str(25 * 10**9)
    assert transfer["nonce"] == str(12 * 16) and transfer["txType"] == 2
    assert transfer["chainId"] == str(CHAIN)


def _entry(api: httpx.Client, address: str, block: int, index: int) -> dict[str, Any]:
    body = get(
        api,
        f"{BASE}/addresses/{address}/transactions",
        "ListTransactionsResponse",
        startBlock=block,
        endBlock=block + 1,
        pageSize=100,
    )
    found = [e for e in body["transactions"] if e["nativeTransaction"]["blockIndex"] == index]
    assert len(found) == 1
    entry: dict[str, Any] = found[0]
    return entry


def test_sub_lists_hold_only_what_the_address_sent_or_received(api: httpx.Client) -> None:
    bob = _entry(api, BOB, 6, 1)
    assert [t["value"] for t in bob["erc20Transfers"]] == [str(10**24 + 6)]
    assert bob["internalTransactions"] == []
    token = bob["erc20Transfers"][0]["erc20Token"]
    assert token == {
        "address": TOKEN,
        "name": "Token",
        "symbol": "TOK",
        "decimals": 6,
        "ercType": "ERC-20",
    }
    assert bob["nativeTransaction"]["to"] == {
        "address": TOKEN,
        "name": "Token",
        "symbol": "TOK",
        "decimals": 6,
    }
    assert bob["nativeTransaction"]["method"] == {
        "callType": "CONTRACT_CALL",
        "methodHash": "0xa9059cbb",
        "methodName": "transfer(address,uint256)",
    }
    carol = _entry(api, CAROL, 6, 1)
    assert carol["erc20Transfers"] == []
    internal = carol["internalTransactions"]
    assert len(internal) == 1
    assert internal[0]["internalTxType"] == "CALL" and internal[0]["isReverted"] is False
    assert internal[0]["from"]["address"] == TOKEN and internal[0]["to"] == {"address": CAROL}


def test_nft_and_multi_token_sub_lists(api: httpx.Client) -> None:
    minted = _entry(api, ALICE, 6, 2)["erc721Transfers"]
    assert len(minted) == 1
    token = minted[0]["erc721Token"]
    assert token["tokenId"] == "6" and token["tokenUri"] == "ipfs://art/6"
    assert token["metadata"]["indexStatus"] == "indexed"
    assert token["metadata"]["imageUri"] == "ipfs://img/6"
    assert token["metadata"]["attributes"] == '[{"v": 6}]'
    multi = _entry(api, BOB, 6, 3)["erc1155Transfers"]
    assert multi[0]["erc1155Token"]["address"] == MULTI
    assert multi[0]["erc1155Token"]["metadata"] == {"indexStatus": "unindexed"}
    assert multi[0]["value"] == "6"


def test_contract_creation_names_the_created_contract(api: httpx.Client) -> None:
    creation = _entry(api, ALICE, 1, 2)
    native = creation["nativeTransaction"]
    assert native["method"]["callType"] == "CONTRACT_CREATION"
    assert native["to"]["address"] == FACTORY
    child = _entry(api, CHILD, 1, 2)
    assert child["internalTransactions"][0]["internalTxType"] == "CREATE2"


def test_erc20_list(api: httpx.Client) -> None:
    body = get(
        api,
        f"{BASE}/addresses/{ALICE}/transactions:listErc20",
        "ListErc20TransactionsResponse",
        pageSize=3,
    )
    items = body["transactions"]
    assert [i["blockNumber"] for i in items] == ["12", "11", "10"]
    assert items[0]["blockHash"] == "0x00" + f"{12:062x}"
    assert items[0]["value"] == str(10**24 + 12) and items[0]["erc20Token"]["decimals"] == 6
    assert get(
        api,
        f"{BASE}/addresses/{CAROL}/transactions:listErc20",
        "ListErc20TransactionsResponse",
    ) == {"transactions": []}


def test_erc721_list_and_balances(api: httpx.Client) -> None:
    body = get(
        api,
        f"{BASE}/addresses/{BOB}/transactions:listErc721",
        "ListErc721TransactionsResponse",
        pageSize=100,
    )
    assert [i["erc721Token"]["tokenId"] for i in body["transactions"]] == [
        "10",
        "8",
        "6",
        "4",
        "2",
    ]
    assert body["transactions"][0]["erc721Token"]["name"] == "Art"
    owned = get(
        api,
        f"{BASE}/addresses/{BOB}/balances:listErc721",
        "ListErc721BalancesResponse",
        pageSize=500,
    )
    assert sorted(int(t["tokenId"]) for t in owned["erc721TokenBalances"]) == [2, 4, 6, 8, 10]
    assert all(t["ownerAddress"] == BOB for t in owned["erc721TokenBalances"])
    assert owned["nativeTokenBalance"]["balance"] == "0"
    alice = get(
        api,
        f"{BASE}/addresses/{ALICE}/balances:listErc721",
        "ListErc721BalancesResponse",
        contractAddress=NFT.upper().replace("0X", "0x"),
    )
    assert [t["tokenId"] for t in alice["erc721TokenBalances"]] == ["12"]
    assert alice["erc721TokenBalances"][0]["chainId"] == str(CHAIN)
    assert alice["nativeTokenBalance"] == {
        "name": "Avalanche",
        "symbol": "AVAX",
        "decimals": 18,
        "chainId": str(CHAIN),
        "balance": str(10_000 * WEI - 12 * WEI),
    }
    other = get(
        api,
        f"{BASE}/addresses/{ALICE}/balances:listErc721",
        "ListErc721BalancesResponse",
        contractAddress=TOKEN,
    )
    assert other["erc721TokenBalances"] == []


def test_block_transactions_by_number_and_hash(api: httpx.Client) -> None:
    whole = get(api, f"{BASE}/blocks/6/transactions", "ListBlockTransactionsResponse")
    assert [t["blockIndex"] for t in whole["transactions"]] == [0, 1, 2, 3]
    assert "nextPageToken" not in whole
    by_hash = get(api, f"{BASE}/blocks/0x00{6:062x}/transactions", "ListBlockTransactionsResponse")
    assert by_hash == whole
    first = get(api, f"{BASE}/blocks/6/transactions", "ListBlockTransactionsResponse", pageSize=3)
    assert len(first["transactions"]) == 3 and "nextPageToken" in first


def test_contract_metadata(api: httpx.Client) -> None:
    token = get(api, f"{BASE}/addresses/{TOKEN}", "ContractMetadata")
    assert token == {
        "address": TOKEN,
        "ercType": "ERC-20",
        "name": "Token",
        "symbol": "TOK",
        "decimals": 6,
    }
    child = get(api, f"{BASE}/addresses/{CHILD}", "ContractMetadata")
    assert child["ercType"] == "UNKNOWN"
    assert child["deploymentDetails"] == {
        "txHash": "0x01" + f"{16 + 2:062x}",
        "deployerAddress": ALICE,
        "deployerContractAddress": FACTORY,
    }
    factory = get(api, f"{BASE}/addresses/{FACTORY}", "ContractMetadata")
    assert "deployerContractAddress" not in factory["deploymentDetails"]


def test_deployments_by_sender_and_by_factory(api: httpx.Client) -> None:
    by_alice = get(api, f"{BASE}/contracts/{ALICE}/deployments", "ListContractsResponse")[
        "contracts"
    ]
    assert sorted(c["address"] for c in by_alice) == sorted([FACTORY, CHILD])
    by_factory = get(api, f"{BASE}/contracts/{FACTORY}/deployments", "ListContractsResponse")[
        "contracts"
    ]
    assert [c["address"] for c in by_factory] == [CHILD]
    assert by_factory[0]["deploymentDetails"]["deployerAddress"] == ALICE
    assert get(api, f"{BASE}/contracts/{BOB}/deployments", "ListContractsResponse") == {
        "contracts": []
    }
