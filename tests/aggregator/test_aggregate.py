"""The aggregator against a devnet over the real peer protocol: a Warp message sent on the
C-Chain is signed by the validators (ACP-118), aggregated to quorum and verifies; faults (silent,
slow, lying, disconnected) at 25% of the weight still reach quorum 67 without a lying signature;
below quorum the real aggregator's error comes within the deadline."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest
from eth_utils import keccak

from snowfield.aggregator.aggregate import AggregationRequest, Aggregator
from snowfield.aggregator.network import PeerNetwork
from snowfield.aggregator.validators import AggregationError, PlatformReader
from snowfield.crypto.warp import ValidatorEntry, canonical_validator_set, verify_signature
from snowfield.formats.ids import ID, PRIMARY_NETWORK_ID, NodeID
from snowfield.formats.warp.message import Message, UnsignedMessage
from snowfield.formats.warp.payload import AddressedCall, encode_payload
from snowfield.testing import RunningNode, serve_devnet
from tests.node.test_node_apis import service
from tests.node.test_warp_evm import SENDER, WARP, _receipt

PAYLOAD = b"hello, validators"


@pytest.fixture(scope="module")
def devnet() -> Iterator[RunningNode]:
    with serve_devnet(validators=4) as node:  # equal weights: one validator is 25%
        yield node


def send_warp(node: RunningNode, payload: bytes = PAYLOAD) -> UnsignedMessage:
    """Sends `payload` with sendWarpMessage on the C-Chain; the unsigned message it made."""
    call = keccak(b"sendWarpMessage(bytes)")[:4] + (
        (32).to_bytes(32, "big")
        + len(payload).to_bytes(32, "big")
        + payload.ljust((len(payload) + 31) // 32 * 32, b"\x00")
    )
    sent = _receipt(node.rpc, {"to": WARP, "data": "0x" + call.hex(), "gas": 300_000})
    assert sent["status"] == "0x1"
    return UnsignedMessage(
        node.node.settings.network_id,
        ID.from_string(node.node.ids.c_chain),
        encode_payload(AddressedCall(bytes.fromhex(SENDER.address[2:]), payload)),
    )


def bootstrap(node: RunningNode) -> str:
    reply = service(f"{node.base}/ext/info", "info.getNodeIP", {})
    return str(reply["result"]["ip"])


async def aggregate(node: RunningNode, request: AggregationRequest) -> tuple[Message, Aggregator]:
    network = PeerNetwork(node.node.settings.network_id, [bootstrap(node)])
    platform = PlatformReader(node.base)
    aggregator = Aggregator(platform, network)
    try:
        return await aggregator.aggregate(request), aggregator
    finally:
        await network.close()
        await platform.close()


def check(node: RunningNode, signed: Message, quorum: int = 67) -> list[int]:
    platform = node.node.chains["P"].runtime.chain
    entries = [
        ValidatorEntry(NodeID(n), key, weight)
        for n, (weight, key) in platform.validators_at(platform.height, PRIMARY_NETWORK_ID).items()
    ]
    validators = canonical_validator_set(entries)
    verify_signature(signed, node.node.settings.network_id, validators, quorum, 100)
    return signed.signature.signer_indices()


def set_fault(node: RunningNode, index: int, fault: str, delay_ms: int = 0) -> None:
    validator = node.node.validators.validators[index]
    params: dict[str, Any] = {"nodeID": str(validator.node_id), "fault": fault, "delayMs": delay_ms}
    assert service(f"{node.base}/ext/devnet", "devnet.setFault", params)["result"]["success"]


def test_a_c_chain_message_is_aggregated_and_verifies(devnet: RunningNode) -> None:
    unsigned = send_warp(devnet)
    signed, aggregator = asyncio.run(aggregate(devnet, AggregationRequest(unsigned)))
    assert signed.unsigned == unsigned
    assert len(check(devnet, signed)) >= 3  # quorum 67 of 4 equal validators
    assert aggregator.invalid_signatures == 0
    # quorum 100 needs every validator
    signed, _ = asyncio.run(aggregate(devnet, AggregationRequest(unsigned, quorum=100)))
    assert check(devnet, signed, 100) == [0, 1, 2, 3]


def test_an_unseen_message_is_refused(devnet: RunningNode) -> None:
    unseen = UnsignedMessage(
        devnet.node.settings.network_id,
        ID.from_string(devnet.node.ids.c_chain),
        encode_payload(AddressedCall(b"\x01" * 20, b"never sent")),
    )
    with pytest.raises(AggregationError, match="failed to collect a threshold of signatures"):
        asyncio.run(aggregate(devnet, AggregationRequest(unseen, deadline=1.0)))


@pytest.mark.parametrize("fault", ["silent", "slow", "lying", "disconnected"])
def test_faults_at_a_quarter_of_the_weight(devnet: RunningNode, fault: str) -> None:
    unsigned = send_warp(devnet, PAYLOAD + fault.encode())
    set_fault(devnet, 2, fault, delay_ms=300)
    # The liar's answer must reach the aggregator before the quorum does, or the aggregation
    # may end without reading it: the honest three answer 300 ms later.
    honest = [0, 1, 3] if fault == "lying" else []
    for index in honest:
        set_fault(devnet, index, "slow", delay_ms=300)
    try:
        signed, aggregator = asyncio.run(
            aggregate(devnet, AggregationRequest(unsigned, deadline=5.0))
        )
    finally:
        for index in [2, *honest]:
            set_fault(devnet, index, "none")
    signers = check(devnet, signed)
    assert len(signers) == 3  # the three others: 75% >= 67%
    if fault == "lying":
        # the liar's signature is never in the aggregate (it would not verify)
        liar = devnet.node.validators.validators[2].signer.public_key().to_bytes()
        platform = devnet.node.chains["P"].runtime.chain
        entries = [
            ValidatorEntry(NodeID(n), key, weight)
            for n, (weight, key) in platform.validators_at(
                platform.height, PRIMARY_NETWORK_ID
            ).items()
        ]
        order = [v.public_key.to_bytes() for v in canonical_validator_set(entries).validators]
        assert order.index(liar) not in signers
        assert aggregator.invalid_signatures == 1


def test_below_quorum_fails_within_the_deadline(devnet: RunningNode) -> None:
    unsigned = send_warp(devnet, PAYLOAD + b" below")
    set_fault(devnet, 0, "silent")
    set_fault(devnet, 1, "lying")
    try:
        started = time.monotonic()
        with pytest.raises(AggregationError, match="failed to collect a threshold of signatures"):
            asyncio.run(aggregate(devnet, AggregationRequest(unsigned, deadline=2.0)))
        assert time.monotonic() - started < 4.0
    finally:
        set_fault(devnet, 0, "none")
        set_fault(devnet, 1, "none")
