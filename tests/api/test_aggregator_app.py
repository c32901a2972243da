"""`snowfield aggregator`'s HTTP API as icm-services serves it: kebab-case keys, any method,
`signed-message`, and its error texts and statuses."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from snowfield.aggregator.service import AggregatorService
from snowfield.api.aggregator_app import create_aggregator_app
from snowfield.formats.warp.message import Message
from snowfield.testing import RunningNode, serve_asgi, serve_devnet
from tests.aggregator.test_aggregate import check, send_warp


@pytest.fixture(scope="module")
def running() -> Iterator[tuple[RunningNode, httpx.Client]]:
    with serve_devnet(validators=4) as node:
        app = create_aggregator_app(AggregatorService(node.base, deadline=1.0))
        with serve_asgi(app, name="aggregator") as base, httpx.Client(base_url=base) as client:
            yield node, client


def test_aggregates_with_kebab_case_keys(running: tuple[RunningNode, httpx.Client]) -> None:
    node, client = running
    unsigned = send_warp(node, b"standalone")
    body = {"message": unsigned.encode().hex(), "quorum-percentage": 75}
    reply = client.put("/aggregate-signatures", json=body)  # the method is not checked
    assert reply.status_code == 200, reply.text
    signed = Message.decode(bytes.fromhex(reply.json()["signed-message"]))
    assert len(check(node, signed, 75)) >= 3
    assert client.get("/health").json() == {"status": "ok"}
    assert "agg_sigs_req_count_total 1.0" in client.get("/metrics").text


@pytest.mark.parametrize(
    ("body", "status", "text"),
    [
        ("{", 400, "Could not decode request body"),
        ({"quorum-percentage": -1}, 400, "Could not decode request body"),
        ({"message": "zz"}, 400, "Could not decode message"),
        ({"message": ""}, 400, "Error unpacking warp message"),
        ({"message": "00"}, 400, "Error unpacking warp message"),
        ({"message": "VALID", "quorum-percentage": 101}, 400, "Invalid quorum number"),
        ({"message": "VALID", "quorum-percentage-buffer": 40}, 400, "Invalid quorum buffer"),
        ({"message": "VALID", "signing-subnet-id": "abc"}, 400, "Error parsing signing subnet"),
        ({"message": "VALID", "signing-subnet-id": "0x" + "00" * 32, "quorum-percentage": 100},
         500, "failed to aggregate signatures. error: failed to collect a threshold"),
    ],
)  # fmt: skip
def test_errors(
    running: tuple[RunningNode, httpx.Client], body: Any, status: int, text: str
) -> None:
    node, client = running
    if isinstance(body, dict) and body.get("message") == "VALID":
        body["message"] = send_warp(node, b"errors").encode().hex()
        if status == 500:  # a fault makes quorum 100 unreachable
            validator = node.node.validators.validators[1]
            params = {"nodeID": str(validator.node_id), "fault": "lying"}
            httpx.post(
                f"{node.base}/ext/devnet",
                json={"jsonrpc": "2.0", "id": 1, "method": "devnet.setFault", "params": params},
            )
    try:
        content = body if isinstance(body, str) else None
        reply = client.post(
            "/aggregate-signatures", content=content, json=None if content else body
        )
    finally:
        params = {"nodeID": str(node.node.validators.validators[1].node_id), "fault": "none"}
        httpx.post(
            f"{node.base}/ext/devnet",
            json={"jsonrpc": "2.0", "id": 1, "method": "devnet.setFault", "params": params},
        )
    assert reply.status_code == status, reply.text
    assert text in reply.json()["error"]
