"""@avalabs/avalanchejs 5.2 and @avalanche-sdk/client, unmodified, drive every P-Chain flow
against the devnet (local network id and `--network-id 5`): build, sign, issue, read back."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from snowfield.chains.platform.config import AVAX
from snowfield.chains.platform.genesis import LOCAL_EWOQ_AMOUNT
from snowfield.crypto import bls
from snowfield.crypto.keys import EWOQ_KEY
from snowfield.formats.bech32 import format_address, hrp_for_network
from snowfield.formats.ids import ID, NodeID
from snowfield.testing import RunningNode, run_node_script, serve_devnet
from tests.node.test_node_apis import service

SCRIPTS = Path(__file__).parent / "clients"
VALIDATOR_WEIGHT = 2_000 * AVAX  # the local network's minimum validator stake
DELEGATOR_WEIGHT = 25 * AVAX
L1_BALANCE = AVAX
L1_TOP_UP = AVAX // 2
BASE_AMOUNT = 3 * AVAX
VM_ID = ID(hashlib.sha256(b"client-test-vm").digest())


def bls_pair(seed: bytes) -> tuple[str, str]:
    """A BLS public key and its proof of possession, as the clients take them (0x hex)."""
    secret = bls.SecretKey.from_bytes(b"\x00" + hashlib.sha256(seed).digest()[1:])
    return (
        "0x" + secret.public_key().to_bytes().hex(),
        "0x" + secret.prove_possession().to_bytes().hex(),
    )


def flow_args(tag: str, network_id: int) -> dict[str, str]:
    """Fresh node ids, BLS keys and addresses per client and network (no overlap between runs)."""
    key, pop = bls_pair(tag.encode() + b"-validator")
    l1_key, l1_pop = bls_pair(tag.encode() + b"-l1")
    hrp = hrp_for_network(network_id)

    def node_id(what: str) -> str:
        return str(NodeID(hashlib.sha256(f"{tag}-{what}".encode()).digest()[:20]))

    def raw(what: str) -> bytes:
        return hashlib.sha256(f"{tag}-{what}".encode()).digest()[:20]

    return {
        "hrp": hrp,
        "nodeId": node_id("validator"),
        "blsKey": key,
        "blsPop": pop,
        "l1NodeId": node_id("l1"),
        "l1Key": l1_key,
        "l1Pop": l1_pop,
        "validatorWeight": str(VALIDATOR_WEIGHT),
        "delegatorWeight": str(DELEGATOR_WEIGHT),
        "l1Balance": str(L1_BALANCE),
        "l1TopUp": str(L1_TOP_UP),
        "vmId": str(VM_ID),
        "manager": "0x" + raw("manager").hex(),
        "newOwner": "0x" + raw("new-owner").hex(),
        # avalanchejs takes raw address bytes, the SDK bech32 strings
        "refund": "0x" + raw("refund").hex() if tag.startswith("ajs") else "",
        "recipient": format_address("P", hrp, raw("recipient")),
        "amount": str(BASE_AMOUNT),
    }


def run_flows(node: RunningNode, script: str, args: dict[str, str]) -> dict[str, Any]:
    packages = ("@avalabs/avalanchejs", "@avalanche-sdk/client")
    text = (SCRIPTS / script).read_text()
    out = run_node_script(
        text, node.base, "0x" + EWOQ_KEY.hex(), json.dumps(args), packages=packages
    )
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


@pytest.fixture(scope="module", params=[12345, 5], ids=["local", "fuji-id"])
def devnet(request: pytest.FixtureRequest) -> Iterator[RunningNode]:
    with serve_devnet(network_id=request.param) as node:
        yield node


def p_call(node: RunningNode, method: str, params: dict[str, Any] | None = None) -> Any:
    reply = service(node.base + "/ext/bc/P", method, params)
    assert "error" not in reply, reply
    return reply["result"]


def check_common(node: RunningNode, result: dict[str, Any], args: dict[str, str]) -> None:
    """What both clients' runs must have left on the chain, read back over the node's API."""
    assert {name: tx["status"] for name, tx in result["txs"].items()} == dict.fromkeys(
        result["txs"], "Committed"
    )
    found = p_call(node, "platform.getCurrentValidators", {})["validators"]
    mine = [v for v in found if v["nodeID"] == args["nodeId"]]
    assert len(mine) == 1
    assert mine[0]["weight"] == str(VALIDATOR_WEIGHT)
    assert mine[0]["delegatorCount"] == "1"
    assert mine[0]["delegatorWeight"] == str(DELEGATOR_WEIGHT)
    assert mine[0]["txID"] == result["txs"]["addValidator"]["txID"]
    # the chain lives on the subnet with the VM and name the client gave it
    (chain,) = result["blockchains"]
    assert chain["id"] == result["chainID"]
    assert chain["subnetID"] == result["subnetID"]
    assert chain["vmID"] == str(VM_ID)
    # the L1 validator: topped up, then disabled: its remaining balance refunded to its owner
    before, after = result["l1Before"], result["l1After"]
    assert L1_BALANCE < int(before["balance"]) <= L1_BALANCE + L1_TOP_UP
    assert before["weight"] == after["weight"] == "100"
    assert after["balance"] == "0"
    assert int(before["balance"]) - 10 <= int(result["refund"]) <= int(before["balance"])
    l1 = p_call(node, "platform.getL1Validator", {"validationID": result["validationID"]})
    assert l1["subnetID"] == result["subnetID"]
    assert l1["nodeID"] == args["l1NodeId"]
    assert l1["publicKey"] == args["l1Key"]
    assert l1["balance"] == "0"
    status = p_call(
        node, "platform.getTxStatus", {"txID": result["txs"]["disableL1Validator"]["txID"]}
    )
    assert status == {"status": "Committed"}


def test_avalanchejs_flows(devnet: RunningNode) -> None:
    network_id = devnet.node.settings.network_id
    args = flow_args(f"ajs-{network_id}", network_id)
    result = run_flows(devnet, "ajs_platform_flows.mjs", args)
    assert result["networkID"] == network_id
    assert result["hrp"] == args["hrp"]
    ids = devnet.node.ids  # with network id 5: Fuji's X and C ids, as the SDK hard-codes them
    assert (result["x"], result["c"], result["avax"]) == (ids.x_chain, ids.c_chain, ids.avax_asset)
    if network_id == 5:
        assert result["x"] == "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm"
    assert all(tx["roundTrip"] for tx in result["txs"].values())  # getTx gives the issued bytes
    args["refund"] = format_address("P", args["hrp"], bytes.fromhex(args["refund"][2:]))
    check_common(devnet, result, args)
    assert ["P-" + a for a in result["l1After"]["owner"]] == [result["address"]]
    assert result["l1After"]["threshold"] == 1
    # ownership moved: the second subnet's control key is the new owner's
    subnets = {s["id"]: s for s in result["subnets"]}
    new_owner = format_address("P", args["hrp"], bytes.fromhex(args["newOwner"][2:]))
    assert subnets[result["subnet2"]]["controlKeys"] == [new_owner]
    assert subnets[result["subnetID"]]["controlKeys"] == [result["address"]]
    assert result["l1Validators"] == 1  # an L1's getCurrentValidators lists its validators
    assert result["balance"]["balance"] == result["balance"]["unlocked"]
    assert int(result["balance"]["balance"]) < LOCAL_EWOQ_AMOUNT - VALIDATOR_WEIGHT
    assert result["utxos"] == result["balance"]["utxoIDs"] >= 1


def test_avalanche_sdk_flows(devnet: RunningNode) -> None:
    network_id = devnet.node.settings.network_id
    args = flow_args(f"sdk-{network_id}", network_id)
    args["refund"] = format_address("P", args["hrp"], hashlib.sha256(b"sdk-refund").digest()[:20])
    result = run_flows(devnet, "sdk_platform_flows.mjs", args)
    assert result["address"].startswith(f"P-{args['hrp']}1")
    check_common(devnet, result, args)
    assert result["recipient"] == str(BASE_AMOUNT)
    assert result["validators"] == [{"weight": str(VALIDATOR_WEIGHT), "delegatorCount": "1"}]
    # ewoq's stake: the genesis validators' and this run's validator and delegator
    assert int(result["staked"]) >= VALIDATOR_WEIGHT + DELEGATOR_WEIGHT
    assert result["stakedOutputs"] >= 2
    assert result["subnet"] == {"isPermissioned": False, "managerChainID": result["chainID"]}
    assert result["status"] == "Created"
    one = p_call(devnet, "platform.getCurrentValidators", {"nodeIDs": [args["nodeId"]]})
    assert [v["nodeID"] for v in one["validators"]] == [args["nodeId"]]  # the nodeIDs filter
    (subnet,) = result["subnets"]
    assert subnet == {
        "id": result["subnetID"],
        "controlKeys": [result["address"]],
        "threshold": "1",
    }
