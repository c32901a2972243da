"""GET /v1/icm/messages (and by id), the legacy /v1/teleporter/… paths, and forged messenger
events: messages between the C-Chain and an L1 of a real devnet (real messenger and relayer),
plus a contract that replays the messenger's SendCrossChainMessage log under its own address,
indexed by the real indexer and read through the API and the official client."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import httpx

from snowfield.crypto.keys import key_from_bytes
from snowfield.formats.ids import ID
from snowfield.testing import RunningNode, database_urls, open_database
from snowfield.workload.contracts import load
from snowfield.workload.icm import MESSENGER_ADDRESS, deploy_messenger, send_message_data
from snowfield.workload.icm_relayer import Relayer
from tests.api.conftest import api_client, assert_error, assert_matches, walk
from tests.api.test_icm_messages import (  # noqa: F401 (network: the devnet fixture)
    Playground,
    _message_id,
    _record,
    network,
)
from tests.bytecode import deploy_code
from tests.clients.chainkit import Call, drive

FORGED_ID = "ee" * 32
OTHER = "0x" + "ab" * 20  # the recipient of the last message (the echoes share an address)
# calldatacopy(0, 0, calldatasize); log3(0x60, calldatasize - 0x60, m[0], m[0x20], m[0x40]):
# the caller hands it three topics and the log's data.
FORGER = bytes.fromhex("366000600037604051602051600051606036036060a300")


def _list(client: httpx.Client, path: str, schema: str, **params: Any) -> list[dict[str, Any]]:
    return walk(client, path, "messages", schema, {"pageSize": 10, **params})


def _ids(items: list[dict[str, Any]]) -> list[str]:
    return [m["messageId"] for m in items]


def _setup(play: Playground, l1: str) -> dict[str, Any]:
    setup: dict[str, Any] = {}

    async def go(clients: Any, accounts: Any, relayer: Relayer) -> None:
        c, on_l1 = accounts[play.c_id], accounts[l1]
        await deploy_messenger(clients[play.c_id], c)
        await deploy_messenger(clients[l1], on_l1)
        echo = load("IcmEcho")
        for name, account in (("l_echo", on_l1), ("c_echo", c)):
            deployed = await account.send(None, echo.deploy_data(MESSENGER_ADDRESS), gas=2_000_000)
            setup[name] = deployed["contractAddress"].lower()
        sent = await c.send(
            MESSENGER_ADDRESS, send_message_data(ID.from_string(l1).raw, setup["l_echo"], b"one")
        )
        setup["one"] = _message_id(sent)
        back = await on_l1.send(
            MESSENGER_ADDRESS,
            send_message_data(ID.from_string(play.c_id).raw, setup["c_echo"], b"two"),
        )
        setup["two"] = _message_id(back)
        assert await relayer.step() == 2
        # The forgery: the real send's log, replayed by another contract under a new id.
        forger = await c.send(None, deploy_code(FORGER), gas=500_000)
        setup["forger"] = forger["contractAddress"].lower()
        (log,) = [x for x in sent["logs"] if x["topics"][1][2:] == setup["one"]]
        topics = [bytes.fromhex(t[2:]) for t in log["topics"]]
        topics[1] = bytes.fromhex(FORGED_ID)
        forged = await c.send(setup["forger"], b"".join(topics) + bytes.fromhex(log["data"][2:]))
        (copy,) = forged["logs"]
        assert copy["topics"] == ["0x" + t.hex() for t in topics] and copy["data"] == log["data"]
        pending = await c.send(
            MESSENGER_ADDRESS, send_message_data(ID.from_string(l1).raw, OTHER, b"3")
        )
        setup["three"] = _message_id(pending)

    play.run(go)
    return setup


def test_listing_filters_legacy_paths_and_forgeries(
    network: tuple[RunningNode, str],  # noqa: F811
    tmp_path: Path,
) -> None:
    node, l1 = network
    play = Playground(node, l1, tmp_path)
    setup = _setup(play, l1)
    sender = key_from_bytes(play.secret).checksum_address.lower()
    c_evm, l1_evm = str(play.evm[play.c_id]), str(play.evm[l1])
    with contextlib.ExitStack() as stack:
        dbs = [stack.enter_context(open_database(u)) for u in database_urls(tmp_path)]
        for db in dbs:
            _record(db, play)
        play.index(*dbs)
        for db in dbs:
            with api_client(db) as client:
                everything = _list(client, "/v1/icm/messages", "ListIcmMessagesResponse")
                # the forged event is no message: not listed, not found, not the sender's
                assert set(_ids(everything)) == {setup["three"], setup["two"], setup["one"]}
                keys = [(_time(m), m["messageId"]) for m in everything]
                assert keys == sorted(keys, reverse=True)  # newest first, ties by id
                setup["order"] = _ids(everything)
                assert {m["icmContractAddress"] for m in everything} == {MESSENGER_ADDRESS}
                assert_error(client.get(f"/v1/icm/messages/{FORGED_ID}"), 404)
                by_sender = _list(
                    client, f"/v1/icm/addresses/{sender}/messages", "ListIcmMessagesResponse"
                )
                assert FORGED_ID not in _ids(by_sender) and len(by_sender) == 3
                _check_filters(client, setup, play, l1, c_evm, l1_evm, sender)
                _check_one_and_legacy(client, everything)
                _check_client(str(client.base_url), everything, sender)


def _time(message: dict[str, Any]) -> int:
    return int(message["sourceTransaction"]["timestamp"])


def _check_filters(
    client: httpx.Client,
    setup: dict[str, Any],
    play: Playground,
    l1: str,
    c_evm: str,
    l1_evm: str,
    sender: str,
) -> None:
    def ids(**params: Any) -> list[str]:
        return _ids(_list(client, "/v1/icm/messages", "ListIcmMessagesResponse", **params))

    order = setup["order"]
    from_c = [m for m in order if m in (setup["three"], setup["one"])]
    assert ids(sourceBlockchainId=play.c_id) == from_c
    assert ids(sourceBlockchainId=c_evm) == from_c
    assert ids(destinationBlockchainId=l1) == from_c
    assert ids(destinationBlockchainId=l1_evm) == from_c
    assert ids(sourceBlockchainId=l1) == [setup["two"]]
    assert ids(sourceBlockchainId=l1, destinationBlockchainId=l1) == []
    assert ids(blockchainId=l1) == order
    assert ids(to=OTHER) == [setup["three"]]
    echoed = [m for m in order if m != setup["three"]]
    assert ids(to=setup["l_echo"].upper().replace("0X", "0x")) == echoed
    assert ids(to=setup["l_echo"], sourceBlockchainId=l1) == [setup["two"]]
    assert ids(**{"from": sender}) == order
    assert ids(**{"from": "0x" + "12" * 20}) == []
    assert ids(network="mainnet") == [] and len(ids(network="fuji")) == 3
    # a chain no index holds, by its blockchain id: no message; by an EVM chain id: unknown
    assert ids(sourceBlockchainId=str(ID(b"\x07" * 32))) == []
    assert_error(client.get("/v1/icm/messages", params={"sourceBlockchainId": "999"}), 404)
    for name, bad in (("sourceBlockchainId", "nope"), ("blockchainId", "43112"),
                      ("to", "0x12"), ("from", "x"), ("network", "x"), ("pageSize", "101"),
                      ("pageSize", "0"), ("pageToken", "zz")):  # fmt: skip
        assert_error(client.get("/v1/icm/messages", params={name: bad}), 400, name)
    assert_error(client.get("/v1/icm/messages/xyz"), 400, "messageId")
    assert_error(client.get("/v1/teleporter/messages/" + "0" * 64), 404)
    # one at a time: each message once, in the same order
    one_by_one = walk(client, "/v1/icm/messages", "messages", "ListIcmMessagesResponse",
                      {"pageSize": 1, "sourceBlockchainId": play.c_id})  # fmt: skip
    assert _ids(one_by_one) == from_c


def _check_one_and_legacy(client: httpx.Client, everything: list[dict[str, Any]]) -> None:
    legacy = _list(client, "/v1/teleporter/messages", "ListTeleporterMessagesResponse")
    assert len(legacy) == len(everything)
    for icm, old in zip(everything, legacy, strict=True):
        one = client.get(f"/v1/icm/messages/{icm['messageId']}")
        assert one.status_code == 200 and one.json() == icm
        assert_matches(one.json(), "IcmMessage")
        renamed = {k: v for k, v in icm.items() if k != "icmContractAddress"}
        renamed["teleporterContractAddress"] = icm["icmContractAddress"]
        assert old == renamed
        got = client.get(f"/v1/teleporter/messages/0x{icm['messageId']}")
        assert got.json() == renamed
        assert_matches(got.json(), "TeleporterMessage")
    statuses = {m["status"] for m in everything}
    assert statuses == {"delivered", "pending"}


def _check_client(base: str, everything: list[dict[str, Any]], sender: str) -> None:
    first = everything[0]["messageId"]
    paged = {"pageSize": 1}
    results = drive(
        [
            Call("data.icm.list", paged, "all"),
            Call("data.icm.get", {"messageId": first}),
            # the client does not page these two (no iterator): one page of them
            Call("data.icm.listByAddress", {"address": sender}),
            Call("data.teleporter.listTeleporterMessages", paged, "all"),
            Call("data.teleporter.getTeleporterMessage", {"messageId": first}),
            Call("data.teleporter.listTeleporterMessagesByAddress", {"address": sender}),
        ],
        data=base,
    )
    ids = _ids(everything)
    assert [m["messageId"] for p in results[0].all_pages() for m in p["messages"]] == ids
    assert results[1].unwrap()["messageId"] == first
    assert _ids(results[2].unwrap()["messages"]) == ids
    assert [m["messageId"] for p in results[3].all_pages() for m in p["messages"]] == ids
    assert results[4].unwrap()["teleporterContractAddress"] == MESSENGER_ADDRESS
    assert _ids(results[5].unwrap()["messages"]) == ids
