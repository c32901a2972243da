"""Inactive L1 validators (balance ran out, or never had one) keep their weight in the L1's
validator set, as avalanchego keeps it: under the empty node id, without a key; so the real
aggregator's quorum (and the P-Chain's and the EVM's Warp verification) counts it in the total."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from snowfield.aggregator.aggregate import AggregationRequest
from snowfield.aggregator.validators import AggregationError
from snowfield.crypto.bls import SecretKey
from snowfield.formats.ids import ID, ShortID
from snowfield.formats.platform.l1_txs import PChainOwner, RegisterL1ValidatorTx
from snowfield.formats.warp.platform_messages import RegisterL1Validator, encode_message
from snowfield.testing import RunningNode, serve_devnet
from tests.aggregator.test_aggregate import aggregate
from tests.aggregator.test_l1_validators import _issue, _send_from_manager, _status
from tests.node.test_node_apis import service

EMPTY_NODE_ID = "NodeID-111111111111111111116DBWJs"


@pytest.fixture(scope="module")
def l1() -> Iterator[tuple[RunningNode, str, ID]]:
    with serve_devnet(validators=4, l1=("inactive",)) as node:
        (chain,) = [c for c in node.node.platform.chain.blockchains() if c.name == "inactive"]
        yield node, str(chain.blockchain_id), chain.subnet_id


def _register(node: RunningNode, chain: str, subnet: ID, seed: int, weight: int) -> str:
    key = SecretKey.generate()
    owner = PChainOwner(1, (ShortID(bytes(range(20))),))
    expiry = int(node.node.clock()) + 3600
    message = RegisterL1Validator(
        subnet, bytes([seed]) * 20, key.public_key().to_bytes(), expiry, owner, owner, weight
    )
    unsigned = _send_from_manager(node, chain, encode_message(message))
    signed, _ = asyncio.run(aggregate(node, AggregationRequest(unsigned)))
    pop = key.prove_possession().to_bytes()
    # No balance: registered inactive, as a validator whose balance ran out.
    return asyncio.run(
        _issue(node, lambda base: RegisterL1ValidatorTx(base, 0, pop, signed.encode()))
    )


def _validators_at(node: RunningNode, subnet: ID) -> dict[str, dict[str, object]]:
    reply = service(
        f"{node.base}/ext/bc/P",
        "platform.getValidatorsAt",
        {"height": "proposed", "subnetID": str(subnet)},
    )
    result: dict[str, dict[str, object]] = reply["result"]
    return result


def test_inactive_weight_stays_in_the_set_and_in_the_quorum(
    l1: tuple[RunningNode, str, ID],
) -> None:
    node, chain, subnet = l1
    before = _validators_at(node, subnet)
    active = sum(int(str(v["weight"])) for v in before.values())
    assert EMPTY_NODE_ID not in before and active == 400  # four validators, 100 each
    # a third of the total weight inactive: a quorum of the active ones still holds
    tx = _register(node, chain, subnet, 21, 150)
    assert _status(node, tx) == {"status": "Committed"}
    after = _validators_at(node, subnet)
    assert after[EMPTY_NODE_ID] == {"publicKey": None, "weight": "150"}
    assert {k: v for k, v in after.items() if k != EMPTY_NODE_ID} == before
    total = service(f"{node.base}/ext/bc/P", "platform.getTotalStake", {"subnetID": str(subnet)})
    assert total["result"]["weight"] == "550"
    # two inactive validators add up under the one empty node id: now half the weight cannot
    # sign, and the L1's messages no longer reach a 67% quorum of the total
    tx = _register(node, chain, subnet, 22, 250)
    assert _status(node, tx) == {"status": "Committed"}
    assert _validators_at(node, subnet)[EMPTY_NODE_ID]["weight"] == "400"
    message = RegisterL1Validator(
        subnet, bytes([23]) * 20, SecretKey.generate().public_key().to_bytes(),
        int(node.node.clock()) + 3600, PChainOwner(0, ()), PChainOwner(0, ()), 1,
    )  # fmt: skip
    unsigned = _send_from_manager(node, chain, encode_message(message))
    with pytest.raises(AggregationError, match="threshold of stake"):
        asyncio.run(aggregate(node, AggregationRequest(unsigned)))
