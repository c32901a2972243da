"""Operation 16 end to end: messages between the C-Chain and an L1 of a real devnet, sent,
relayed and retried with the real messenger and relayer, indexed by the real indexer from both
chains, read back at each stage (pending, delivered, executed or failed, the receipt back)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from eth_abi import decode

from snowfield.crypto.keys import key_from_bytes
from snowfield.formats.icm import MESSAGE_TYPE
from snowfield.formats.ids import ID
from snowfield.rpc.client import RpcClient
from snowfield.store.database import Database
from snowfield.store.rows import ChainRow
from snowfield.store.writes import upsert_chain
from snowfield.testing import (
    RunningNode,
    database_urls,
    index_node,
    open_database,
    serve_devnet,
)
from snowfield.workload.contracts import call_data, load
from snowfield.workload.icm import (
    MESSENGER_ADDRESS,
    TOPICS,
    EvmAccount,
    deploy_messenger,
    send_message_data,
)
from snowfield.workload.icm_relayer import Relayer
from tests.api.conftest import api_client, assert_error, assert_matches, walk

REWARD = "0x" + "cd" * 20
FEE = 3 * 10**18
PATH = "/v1/icm/addresses/{}/messages"


class Playground:
    """The C-Chain and an L1 with the messenger, an echo on each and a fee token on C."""

    def __init__(self, node: RunningNode, l1: str, tmp: Path) -> None:
        self.node = node
        self.c_id = str(node.node.ids.c_chain)
        self.l1 = l1
        self.urls = {self.c_id: node.rpc, l1: f"{node.base}/ext/bc/{l1}/rpc"}
        self.secret = node.node.dev_keys[1].private_key
        self.state = tmp / "relayer.json"
        self.evm = {
            chain: int(
                httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "eth_chainId"}).json()[
                    "result"
                ],
                16,
            )
            for chain, url in self.urls.items()
        }

    def run(self, step: Any) -> Any:
        async def go() -> Any:
            clients = {k: RpcClient(u) for k, u in self.urls.items()}
            accounts = {k: EvmAccount(c, self.secret) for k, c in clients.items()}
            relayer = Relayer(self.urls, self.node.base, self.secret, REWARD, self.state)
            try:
                return await step(clients, accounts, relayer)
            finally:
                await relayer.close()
                for client in clients.values():
                    await client.aclose()

        return asyncio.run(go())

    def index(self, *dbs: Database, chains: tuple[str, ...] = ()) -> None:
        for db in dbs:
            for chain in chains or tuple(self.urls):
                index_node(db, self.urls[chain])


def _clients(dbs: list[Database]) -> Iterator[httpx.Client]:
    """A data API client over each store in turn (SQLite; PostgreSQL too when configured)."""
    for db in dbs:
        with api_client(db) as client:
            yield client


def _record(db: Database, play: Playground) -> None:
    for blockchain_id, name in ((play.c_id, "C-Chain"), (play.l1, "icm")):
        upsert_chain(
            db,
            ChainRow(
                chain_id=play.evm[blockchain_id],
                name=name,
                network="local",
                rpc_url=play.urls[blockchain_id],
                blockchain_id=blockchain_id,
            ),
        )


@pytest.fixture(scope="module")
def network() -> Iterator[tuple[RunningNode, str]]:
    with serve_devnet(l1=("icm",)) as node:
        (chain,) = [c for c in node.node.platform.chain.blockchains() if c.name == "icm"]
        yield node, str(chain.blockchain_id)


def _messages(client: httpx.Client, address: str, **params: Any) -> list[dict[str, Any]]:
    return walk(
        client,
        PATH.format(address),
        "messages",
        "ListIcmMessagesResponse",
        {"pageSize": 10, **params},
    )


def _by_id(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    ids = [m["messageId"] for m in items]
    assert len(ids) == len(set(ids))
    return {m["messageId"]: m for m in items}


def _message_id(receipt: dict[str, Any]) -> str:
    topic = "0x" + TOPICS["SendCrossChainMessage"].hex()
    (log,) = [x for x in receipt["logs"] if x["topics"][0] == topic]
    return str(log["topics"][1][2:])


def test_messages_through_every_state(network: tuple[RunningNode, str], tmp_path: Path) -> None:
    node, l1 = network
    play = Playground(node, l1, tmp_path)
    assert play.evm[play.c_id] != play.evm[l1]
    setup: dict[str, Any] = {}

    async def deploy(clients: Any, accounts: Any, _relayer: Any) -> None:
        c, on_l1 = accounts[play.c_id], accounts[l1]
        await deploy_messenger(clients[play.c_id], c)
        await deploy_messenger(clients[l1], on_l1)
        echo = load("IcmEcho")
        setup["l_echo"] = (
            await on_l1.send(None, echo.deploy_data(MESSENGER_ADDRESS), gas=2_000_000)
        )["contractAddress"].lower()
        setup["c_echo"] = (await c.send(None, echo.deploy_data(MESSENGER_ADDRESS), gas=2_000_000))[
            "contractAddress"
        ].lower()
        token = load("DemoToken").deploy_data("Relay Fee", "RFEE", 18, 10**24)
        setup["token"] = (await c.send(None, token, gas=3_000_000))["contractAddress"].lower()
        await c.send(
            setup["token"], call_data("approve(address,uint256)", MESSENGER_ADDRESS, 10**24)
        )
        sent = await c.send(
            MESSENGER_ADDRESS,
            send_message_data(
                ID.from_string(l1).raw,
                setup["l_echo"],
                b"hello",
                fee_token=setup["token"],
                fee=FEE,
                gas_limit=300_000,
            ),
        )
        setup["first"] = _message_id(sent)
        setup["first_tx"] = sent["transactionHash"].lower()

    play.run(deploy)
    sender = key_from_bytes(play.secret).checksum_address.lower()
    with contextlib.ExitStack() as stack:
        dbs = [stack.enter_context(open_database(u)) for u in database_urls(tmp_path)]
        for db in dbs:
            _record(db, play)
        play.index(*dbs)
        for client in _clients(dbs):
            # sent, not yet relayed: pending, with its fee in the token's terms
            (pending,) = _messages(client, sender)
            assert pending["status"] == "pending"
            assert pending["messageId"] == setup["first"]
            assert pending["icmContractAddress"] == MESSENGER_ADDRESS
            assert pending["sourceBlockchainId"] == play.c_id
            assert pending["destinationBlockchainId"] == l1
            assert pending["sourceEvmChainId"] == str(play.evm[play.c_id])
            assert pending["destinationEvmChainId"] == str(play.evm[l1])
            assert pending["from"] == sender and pending["to"] == setup["l_echo"]
            assert pending["data"] == "0x" + b"hello".hex()
            assert pending["messageExecuted"] is False and pending["receiptDelivered"] is False
            assert pending["rewardDetails"] == {
                "address": setup["token"],
                "name": "Relay Fee",
                "symbol": "RFEE",
                "decimals": 18,
                "ercType": "ERC-20",
                "value": str(FEE),
            }
            assert pending["sourceTransaction"]["txHash"] == setup["first_tx"]
            assert int(pending["sourceTransaction"]["gasSpent"]) > 21_000
            assert "destinationTransaction" not in pending
            # the destination address finds it too; another address and mainnet do not
            assert [m["messageId"] for m in _messages(client, setup["l_echo"])] == [setup["first"]]
            assert _messages(client, "0x" + "77" * 20) == []
            assert _messages(client, sender, network="mainnet") == []
            assert len(_messages(client, sender, network="fuji")) == 1
            # the teleporter feature is on for both chains (the messenger is deployed there)
            chains = client.get("/v1/chains", params={"feature": "teleporter"}).json()["chains"]
            assert {c["platformChainId"] for c in chains} == {play.c_id, l1}

        async def relay_then_reply(clients: Any, accounts: Any, relayer: Relayer) -> None:
            assert await relayer.step() == 1
            back = await accounts[l1].send(
                MESSENGER_ADDRESS,
                send_message_data(ID.from_string(play.c_id).raw, setup["c_echo"], b"back"),
            )
            setup["back"] = _message_id(back)
            # a message whose execution fails: the echo refuses "fail" while set failing
            failing = await accounts[play.c_id].send(
                MESSENGER_ADDRESS,
                send_message_data(ID.from_string(l1).raw, setup["l_echo"], b"fail"),
            )
            setup["failing"] = _message_id(failing)
            assert await relayer.step() == 2

        play.run(relay_then_reply)
        play.index(*dbs)
        for client in _clients(dbs):
            found = _by_id(_messages(client, sender))
            assert set(found) == {setup["first"], setup["back"], setup["failing"]}
            first = found[setup["first"]]
            assert first["status"] == "delivered" and first["messageExecuted"] is True
            assert first["receiptDelivered"] is True  # carried back on the L1 → C message
            destination = first["destinationTransaction"]
            assert destination["rewardRedeemer"] == REWARD
            assert destination["delivererAddress"] == sender  # the relayer used the same key
            back = found[setup["back"]]
            assert back["receipts"] == [
                {"receivedMessageNonce": "1", "relayerRewardAddress": REWARD}
            ]
            assert back["sourceBlockchainId"] == l1 and back["destinationEvmChainId"] == str(
                play.evm[play.c_id]
            )
            assert back["rewardDetails"]["value"] == "0"
            refused = found[setup["failing"]]
            assert refused["status"] == "delivered" and refused["messageExecuted"] is False
            # newest first
            stamps = [m["sourceTransaction"]["timestamp"] for m in _messages(client, sender)]
            assert stamps == sorted(stamps, reverse=True)
            # paging one at a time lists each message once
            one_by_one = walk(
                client, PATH.format(sender), "messages", "ListIcmMessagesResponse", {"pageSize": 1}
            )
            assert [m["messageId"] for m in one_by_one] == [
                m["messageId"] for m in _messages(client, sender)
            ]

        async def retry(clients: Any, accounts: Any, _relayer: Any) -> None:
            l1_rpc = clients[l1]
            head = int(await l1_rpc.call("eth_blockNumber"), 16)
            logs = await l1_rpc.call(
                "eth_getLogs",
                {
                    "fromBlock": "0x0",
                    "toBlock": hex(head),
                    "address": MESSENGER_ADDRESS,
                    "topics": ["0x" + TOPICS["MessageExecutionFailed"].hex()],
                },
            )
            (failed,) = [x for x in logs if x["topics"][1][2:] == setup["failing"]]
            (message,) = decode([MESSAGE_TYPE], bytes.fromhex(failed["data"][2:]))
            await accounts[l1].send(setup["l_echo"], call_data("setFailing(bool)", False))
            await accounts[l1].send(
                MESSENGER_ADDRESS,
                call_data(
                    f"retryMessageExecution(bytes32,{MESSAGE_TYPE})",
                    ID.from_string(play.c_id).raw,
                    message,
                ),
            )

        play.run(retry)
        play.index(*dbs)
        for client in _clients(dbs):
            retried = _by_id(_messages(client, sender))[setup["failing"]]
            assert retried["messageExecuted"] is True

    # an index of the L1 alone: delivered messages whose source is not indexed here
    with open_database(str(tmp_path / "l1-only.db")) as db:
        _record(db, play)
        play.index(db, chains=(l1,))
        with api_client(db) as client:
            found = _by_id(_messages(client, sender))
            assert found[setup["first"]]["status"] == "delivered_source_not_indexed"
            assert "sourceTransaction" not in found[setup["first"]]
            assert found[setup["first"]]["sourceBlockchainId"] == play.c_id
            assert found[setup["back"]]["status"] == "pending"


def test_bad_requests_get_the_error_shape(tmp_path: Path) -> None:
    with open_database(str(tmp_path / "empty.db")) as db, api_client(db) as client:
        assert_error(client.get(PATH.format("0x12")), 400, "address")
        assert_error(
            client.get(PATH.format("0x" + "11" * 20), params={"pageSize": 0}), 400, "pageSize"
        )
        assert_error(
            client.get(PATH.format("0x" + "11" * 20), params={"pageSize": 101}), 400, "pageSize"
        )
        assert_error(
            client.get(PATH.format("0x" + "11" * 20), params={"network": "x"}), 400, "network"
        )
        assert_error(
            client.get(PATH.format("0x" + "11" * 20), params={"pageToken": "zz"}), 400, "pageToken"
        )
        empty = client.get(PATH.format("0x" + "11" * 20))
        assert empty.status_code == 200
        assert_matches(empty.json(), "ListIcmMessagesResponse")
        assert empty.json() == {"messages": []}
