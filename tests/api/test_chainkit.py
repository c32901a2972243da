"""The official data client (@avalanche-sdk/chainkit) drives the spec's EVM operations against
a real server: every answer passes the client's own models, and its page iterator walks every
listing to the same items our pages hold."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from snowfield.store.database import Database
from tests.api.conftest import ALICE, BOB, CHAIN, NFT, TOKEN, api_client
from tests.clients.chainkit import Call, drive


@pytest.fixture(scope="module")
def base(filled: Database) -> Iterator[str]:
    with api_client(filled) as client:
        yield str(client.base_url)


def _items(pages: list[dict[str, object]], key: str) -> list[object]:
    return [item for page in pages for item in page[key]]  # type: ignore[attr-defined]


def test_the_client_accepts_every_spec_operation(base: str) -> None:
    chain = str(CHAIN)
    results = drive(
        [
            Call("data.evm.chains.list", {}),
            Call("data.evm.address.transactions.list", {"address": ALICE, "pageSize": 7}, "all"),
            Call("data.evm.address.transactions.listErc20", {"address": BOB, "pageSize": 5}, "all"),
            Call(
                "data.evm.address.transactions.listErc721", {"address": ALICE, "pageSize": 4}, "all"
            ),
            Call("data.evm.address.balances.listErc721", {"address": ALICE, "pageSize": 2}, "all"),
            Call("data.evm.blocks.listTransactions", {"blockId": "3"}),
            Call("data.evm.address.contracts.listDeployments", {"address": ALICE}, "all"),
        ],
        data=base,
        chain_id=chain,
    )
    chains, history, erc20, erc721, owned, block, deployed = results
    assert {c["chainId"] for c in chains.unwrap()["chains"]} == {str(CHAIN), "43114"}
    entries = _items(history.all_pages(), "transactions")
    with httpx.Client(base_url=base) as ours:
        every = ours.get(
            f"/v1/chains/{chain}/addresses/{ALICE}/transactions", params={"pageSize": 100}
        ).json()["transactions"]
    assert [e["nativeTransaction"]["txHash"] for e in entries] == [  # type: ignore[index]
        e["nativeTransaction"]["txHash"] for e in every
    ]
    assert len(history.all_pages()) == -(-len(every) // 7)
    assert {t["erc20Token"]["address"] for t in _items(erc20.all_pages(), "transactions")} == {
        TOKEN
    }  # type: ignore[index]
    assert {t["erc721Token"]["address"] for t in _items(erc721.all_pages(), "transactions")} == {
        NFT
    }  # type: ignore[index]
    assert all(t["address"] == NFT for t in _items(owned.all_pages(), "erc721TokenBalances"))  # type: ignore[index]
    assert [t["blockNumber"] for t in block.unwrap()["transactions"]] == ["3"] * len(
        block.unwrap()["transactions"]
    )
    assert len(_items(deployed.all_pages(), "contracts")) == 2
    assert erc721.translated > 0  # the spec's lower-case indexStatus was on the wire


def test_the_client_reads_our_errors(base: str) -> None:
    results = drive(
        [
            Call("data.evm.address.transactions.list", {"address": "0x12", "chainId": "43112"}),
            Call("data.evm.blocks.listTransactions", {"blockId": "999999", "chainId": "43112"}),
            Call("data.evm.chains.list", {"network": "mainnet"}),
        ],
        data=base,
    )
    bad, missing, mainnet = results
    assert bad.error["name"] == "BadRequestError" and bad.error["statusCode"] == 400
    assert missing.error["name"] == "NotFoundError" and missing.error["statusCode"] == 404
    assert [c["chainId"] for c in mainnet.unwrap()["chains"]] == ["43114"]
