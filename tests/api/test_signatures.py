"""Operations 1-2 over a real devnet: the data API aggregates the validators' signatures over
the peer-to-peer network; every bad body gets the real aggregator's text in the error shape."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from snowfield.aggregator.service import AggregatorService
from snowfield.api.app import create_data_app
from snowfield.api.gate import RatePolicy
from snowfield.formats.ids import P_CHAIN_ID
from snowfield.formats.platform.l1_txs import ConvertSubnetToL1Tx
from snowfield.formats.platform.subnet_txs import CreateChainTx
from snowfield.formats.warp.message import Message
from snowfield.formats.warp.payload import AddressedCall, decode_payload
from snowfield.formats.warp.platform_messages import SubnetToL1Conversion, decode_message
from snowfield.testing import RunningNode, open_database, serve_devnet
from tests.aggregator.test_aggregate import check, send_warp
from tests.api.conftest import serve_app

PATH = "/v1/signatureAggregator/fuji/aggregateSignatures"


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunningNode, httpx.Client]]:
    folder: Path = tmp_path_factory.mktemp("sig")
    with (
        serve_devnet(validators=5, l1=("signers",)) as node,
        open_database(f"sqlite:///{folder / 'api.db'}") as db,
    ):
        service = AggregatorService(node.base, deadline=2.0)
        app = create_data_app(db, policy=RatePolicy(10**9, 10**9), signatures=service)
        with serve_app(app) as base, httpx.Client(base_url=base, timeout=30) as client:
            yield node, client


def _error(reply: httpx.Response, status: int, text: str) -> None:
    assert reply.status_code == status, reply.text
    body = reply.json()
    assert body["statusCode"] == status and text in body["message"], body


def test_a_message_is_aggregated(running: tuple[RunningNode, httpx.Client]) -> None:
    node, api = running
    unsigned = send_warp(node, b"op 1")
    reply = api.post(PATH, json={"message": "0x" + unsigned.encode().hex()})
    assert reply.status_code == 200, reply.text
    signed = Message.decode(bytes.fromhex(reply.json()["signedMessage"]))
    assert signed.unsigned == unsigned
    assert len(check(node, signed)) >= 4
    # the SendWarpMessage log's ABI data works as well, and quorum 100 takes everyone
    data = (32).to_bytes(32, "big") + len(unsigned.encode()).to_bytes(32, "big")
    data += unsigned.encode().ljust((len(unsigned.encode()) + 31) // 32 * 32, b"\x00")
    body = {"message": data.hex(), "quorumPercentage": 100, "pChainHeight": 0}
    reply = api.post(PATH, json=body)
    assert reply.status_code == 200, reply.text
    signed = Message.decode(bytes.fromhex(reply.json()["signedMessage"]))
    assert check(node, signed, 100) == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(
    ("body", "text"),
    [
        ("not json", "Could not decode request body"),
        ([1, 2], "Could not decode request body"),
        ({"message": "0xzz"}, "Could not decode message"),
        ({}, "Must provide either message or justification"),
        ({"message": "0x00"}, "Must provide either message or justification"),
        ({"message": "0x0102"}, "Error unpacking warp message"),
        ({"justification": 5}, "Could not decode justification"),
    ],
)
def test_bad_bodies(running: tuple[RunningNode, httpx.Client], body: Any, text: str) -> None:
    _, api = running
    content = body if isinstance(body, str) else None
    reply = api.post(PATH, content=content, json=None if content else body)
    _error(reply, 400, text)


def test_bounds_and_unsignable(running: tuple[RunningNode, httpx.Client]) -> None:
    node, api = running
    message = "0x" + send_warp(node, b"bounds").encode().hex()
    _error(api.post(PATH, json={"message": message, "quorumPercentage": 101}), 400, "quorum")
    bad = {"message": message, "quorumPercentage": 80, "quorumPercentageBuffer": 30}
    _error(api.post(PATH, json=bad), 400, "Invalid quorum buffer number")
    bad = {"message": message, "signingSubnetId": "nope"}
    _error(api.post(PATH, json=bad), 400, "Error parsing signing subnet ID")
    _error(api.post(PATH, json={"message": message, "pChainHeight": -1}), 400, "pChainHeight")
    _error(api.get(PATH), 405, "")
    unseen = send_warp(node, b"x").encode().hex().replace("78", "79")  # a message never sent
    _error(
        api.post(PATH, json={"message": unseen}),
        400,
        "failed to aggregate signatures. error: failed to collect a threshold of signatures",
    )


def test_operation_2_from_a_conversion(running: tuple[RunningNode, httpx.Client]) -> None:
    node, api = running
    platform = node.node.platform.chain
    (conversion,) = [
        record.tx
        for record in platform.state.txs.values()
        if isinstance(record.tx.unsigned, ConvertSubnetToL1Tx)
    ]
    reply = api.get(f"{PATH}/{conversion.id}")
    assert reply.status_code == 200, reply.text
    signed = Message.decode(bytes.fromhex(reply.json()["signedMessage"]))
    assert signed.unsigned.source_chain_id == P_CHAIN_ID
    payload = decode_payload(signed.unsigned.payload)
    assert isinstance(payload, AddressedCall) and payload.source_address == b""
    message = decode_message(payload.payload)
    subnet = platform.state.subnets[conversion.unsigned.subnet_id]
    assert message == SubnetToL1Conversion(subnet.conversion_id)
    assert len(check(node, signed)) >= 4
    _error(api.get(f"{PATH}/2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm"), 404, "not found")
    (create_chain,) = [
        r.tx
        for r in platform.state.txs.values()
        if isinstance(r.tx.unsigned, CreateChainTx)
        and r.tx.unsigned.subnet_id == conversion.unsigned.subnet_id
    ]
    _error(api.get(f"{PATH}/{create_chain.id}"), 400, "carries no L1 warp message")
