"""platform.getCurrentValidators in avalanchego's full shape and getValidatorsAt's bare map,
over the devnet's genesis validators."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from snowfield.testing import RunningNode, serve_devnet
from tests.node.test_node_apis import service


def _call(devnet: RunningNode, method: str, params: dict[str, Any]) -> Any:
    reply = service(devnet.base + "/ext/bc/P", method, params)
    assert "error" not in reply, reply
    return reply["result"]


@pytest.fixture(scope="module")
def devnet() -> Iterator[RunningNode]:
    with serve_devnet(validators=3) as running:
        yield running


def test_current_validators_carry_signer_owners_and_delegators(devnet: RunningNode) -> None:
    validators = _call(devnet, "platform.getCurrentValidators", {})["validators"]
    assert len(validators) == 3
    for v in validators:
        assert v["signer"]["publicKey"].startswith("0x") and len(v["signer"]["publicKey"]) == 98
        assert v["validationRewardOwner"]["threshold"] == "1"
        assert v["validationRewardOwner"]["addresses"][0].startswith("P-local1")
        assert v["delegationRewardOwner"]["addresses"]
        assert v["accruedDelegateeReward"] == "0" and v["delegatorCount"] == "0"
        assert "delegators" not in v  # listed only when one node is asked for
    one = _call(devnet, "platform.getCurrentValidators", {"nodeIDs": [validators[0]["nodeID"]]})
    (only,) = one["validators"]
    assert only["delegators"] == [] and only["txID"] == validators[0]["txID"]


def test_validators_at_is_a_bare_map_of_keys_and_weights(devnet: RunningNode) -> None:
    validators = _call(devnet, "platform.getCurrentValidators", {})["validators"]
    at = _call(devnet, "platform.getValidatorsAt", {"height": "proposed"})
    assert set(at) == {v["nodeID"] for v in validators}
    for v in validators:
        assert at[v["nodeID"]]["weight"] == v["weight"]
        assert at[v["nodeID"]]["publicKey"] == v["signer"]["publicKey"]
    height = int(_call(devnet, "platform.getHeight", {})["height"])
    reply = service(devnet.base + "/ext/bc/P", "platform.getValidatorsAt", {"height": height + 5})
    assert "unfinalized height" in reply["error"]["message"]
