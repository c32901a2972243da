"""L1s in the devnet: `--l1` creates one at boot (subnet, custom-EVM chain, conversion with the
devnet's validators); a CreateChainTx any client issues starts one in the running node; each
is served at /ext/bc/<blockchainID>/{rpc,ws,validators,admin} with health and index, and a
restart over the same data dir brings them back."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from websockets.sync.client import connect

from snowfield.chains.evm.customgenesis import genesis_json
from snowfield.cli.compose import build_node
from snowfield.config import NetworkSettings
from snowfield.errors import InvalidParams
from snowfield.formats.hexcheck import encode_hex
from snowfield.formats.ids import ID
from snowfield.formats.platform.secp256k1fx import Input
from snowfield.formats.platform.subnet_txs import CreateChainTx, CreateSubnetTx
from snowfield.node.l1_boot import PlatformWallet
from snowfield.node.registry import CUSTOM_EVM_VM
from snowfield.testing import RunningNode, serve_devnet

DEV = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
FUNDED = "0x" + "ab" * 20


def call(url: str, method: str, params: Any) -> Any:
    reply = httpx.post(
        url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, timeout=30
    ).json()
    assert "error" not in reply, reply
    return reply["result"]


def error(url: str, method: str, params: Any) -> dict[str, Any]:
    reply = httpx.post(
        url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, timeout=30
    ).json()
    assert "error" in reply, reply
    return dict(reply["error"])


def custom_chains(node: RunningNode) -> dict[str, str]:
    listed = call(node.base + "/ext/bc/P", "platform.getBlockchains", {})["blockchains"]
    return {c["name"]: c["id"] for c in listed if c["vmID"] == CUSTOM_EVM_VM.id}


def genesis(chain_id: int) -> bytes:
    """A custom EVM genesis with subnet-evm's default fee config (8M gas)."""
    alloc = {bytes.fromhex(FUNDED[2:]): 0x1000, bytes.fromhex(DEV[2:]): 10**21}
    return genesis_json(chain_id, alloc, timestamp=0x65000000)


def issue_chain(node: RunningNode, name: str, data: bytes) -> str:
    """A client's flow: CreateSubnetTx then CreateChainTx, issued through platform.issueTx."""
    runtime = node.node.platform
    ids = node.node.ids
    wallet = PlatformWallet(
        runtime, ids.network_id, ID.from_string(ids.avax_asset), node.node.dev_keys[1].private_key
    )
    p_url = node.base + "/ext/bc/P"
    subnet = wallet.build(lambda base: CreateSubnetTx(base, wallet.owner))
    call(p_url, "platform.issueTx", {"tx": encode_hex(subnet.encode()), "encoding": "hex"})
    # its block is built before the node reads the next request: the wallet sees its change
    assert call(p_url, "platform.getTxStatus", {"txID": str(subnet.id)})["status"] == "Committed"
    vm = ID.from_string(CUSTOM_EVM_VM.id)
    chain = wallet.build(lambda b: CreateChainTx(b, subnet.id, name, vm, (), data, Input((0,))))
    call(p_url, "platform.issueTx", {"tx": encode_hex(chain.encode()), "encoding": "hex"})
    assert call(p_url, "platform.getTxStatus", {"txID": str(chain.id)})["status"] == "Committed"
    return str(chain.id)


@pytest.fixture(scope="module")
def running() -> Iterator[RunningNode]:
    with serve_devnet(l1=("snowfield demo L1",), validators=3, health_check_frequency=0.1) as node:
        yield node


def test_l1_flag_creates_a_converted_l1_served_like_the_c_chain(running: RunningNode) -> None:
    chain_id = custom_chains(running)["snowfield demo L1"]
    rpc = f"{running.base}/ext/bc/{chain_id}/rpc"
    assert call(rpc, "eth_chainId", []) == hex(99999)
    assert int(call(rpc, "eth_getBalance", [DEV, "latest"]), 16) == 10_000 * 10**18
    # The custom EVM's rules: its fee config (the devnet's gas limit, no block gas cost).
    fee = call(rpc, "eth_feeConfig", [])["feeConfig"]
    assert fee["gasLimit"] == 15_000_000 and fee["minBaseFee"] == 25 * 10**9
    assert fee["maxBlockGasCost"] == fee["blockGasCostStep"] == 0
    assert "feeConfig" in call(rpc, "eth_getChainConfig", [])
    assert error(running.rpc, "eth_feeConfig", [])["code"] == -32601  # not on the C-Chain
    tx = call(rpc, "eth_sendTransaction", [{"from": DEV, "to": FUNDED, "value": "0x7"}])
    receipt = call(rpc, "eth_getTransactionReceipt", [tx])
    assert receipt["status"] == "0x1" and call(rpc, "eth_blockNumber", []) == "0x1"
    # The C-Chain is another chain: the L1's transfer is not there.
    assert call(running.rpc, "eth_getTransactionReceipt", [tx]) is None
    index = call(
        f"{running.base}/ext/index/{chain_id}/block", "index.getLastAccepted", {"encoding": "hex"}
    )
    assert index["index"] == "0"  # the first block accepted after genesis
    admin = call(f"{running.base}/ext/bc/{chain_id}/admin", "admin.getVMConfig", {})
    assert "config" in admin
    subnet = next(
        c["subnetID"]
        for c in call(running.base + "/ext/bc/P", "platform.getBlockchains", {})["blockchains"]
        if c["id"] == chain_id
    )
    # Its health check is tagged with its subnet, as avalanchego tags chain checks.
    checks = call(running.base + "/ext/health", "health.health", {"tags": [subnet]})["checks"]
    assert chain_id in checks and "C" not in checks
    assert checks[chain_id]["message"]["engine"]["consensus"]["lastAcceptedHeight"] == 1


def test_validators_api_reports_the_l1_validators(running: RunningNode) -> None:
    chain_id = custom_chains(running)["snowfield demo L1"]
    url = f"{running.base}/ext/bc/{chain_id}/validators"
    found = call(url, "validators.getCurrentValidators", {})["validators"]
    own = [str(v.node_id) for v in running.node.validators]
    assert sorted(v["nodeID"] for v in found) == sorted(own)
    for validator in found:
        assert set(validator) == {
            "validationID",
            "nodeID",
            "weight",
            "startTimestamp",
            "isActive",
            "isL1Validator",
            "isConnected",
            "uptimePercentage",
            "uptimeSeconds",
        }
        assert validator["weight"] == 100 and validator["isL1Validator"] is True
        assert validator["isActive"] is True and validator["isConnected"] is True
        assert validator["uptimePercentage"] == 100.0
        l1 = call(
            running.base + "/ext/bc/P",
            "platform.getL1Validator",
            {"validationID": validator["validationID"]},
        )
        assert l1["nodeID"] == validator["nodeID"]
        assert int(l1["startTime"]) == validator["startTimestamp"]
    # A stopped validator is disconnected.
    call(running.base + "/ext/devnet", "devnet.stopValidator", {"nodeID": own[1]})
    try:
        (one,) = call(url, "validators.getCurrentValidators", {"nodeIDs": [own[1]]})["validators"]
        assert one["nodeID"] == own[1] and one["isConnected"] is False
    finally:
        call(running.base + "/ext/devnet", "devnet.startValidator", {"nodeID": own[1]})
    unknown = "NodeID-111111111111111111116DBWJs"
    assert error(url, "validators.getCurrentValidators", {"nodeIDs": [unknown]}) == {
        "code": -32000,
        "message": f"couldn't find validator with node ID {unknown}",
        "data": None,
    }
    bad = error(url, "validators.getCurrentValidators", {"nodeIDs": ["nope"]})
    assert bad["code"] == -32000 and "NodeID-" in bad["message"]
    assert error(url, "validators.getCurrentValidators", {"nodeIDs": "x"})["code"] == -32000


def test_a_create_chain_tx_starts_the_chain_in_the_running_node(running: RunningNode) -> None:
    chain_id = issue_chain(running, "client chain", genesis(777))
    rpc = f"{running.base}/ext/bc/{chain_id}/rpc"
    assert call(rpc, "eth_chainId", []) == hex(777)
    assert call(rpc, "eth_getBalance", [FUNDED, "latest"]) == "0x1000"
    genesis_block = call(rpc, "eth_getBlockByNumber", ["0x0", False])
    assert genesis_block["timestamp"] == "0x65000000" and genesis_block["gasLimit"] == "0x7a1200"
    # Its socket, routed after the app was built, carries its own heads.
    ws_url = rpc.replace("http://", "ws://")[: -len("/rpc")] + "/ws"
    with connect(ws_url, open_timeout=10) as socket:
        socket.send(orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_subscribe",
                                  "params": ["newHeads"]}).decode())  # fmt: skip
        assert "result" in orjson.loads(socket.recv(timeout=10))
        call(rpc, "evm_mine", [])
        head = orjson.loads(socket.recv(timeout=10))["params"]["result"]
        assert head["number"] == "0x1"
    index = f"{running.base}/ext/index/{chain_id}/block"
    assert call(index, "index.getLastAccepted", {"encoding": "hex"})["index"] == "0"
    checks: dict[str, Any] = {}
    for _ in range(50):  # its health check joins the node's next round, then sees block 1
        checks = call(running.base + "/ext/health", "health.health", {})["checks"]
        engine = checks.get(chain_id, {}).get("message", {}).get("engine", {})
        if engine.get("consensus", {}).get("lastAcceptedHeight", 0) >= 1:
            break
        time.sleep(0.1)
    assert checks[chain_id]["message"]["engine"]["consensus"]["lastAcceptedHeight"] >= 1
    # Its default fee config charges a block gas cost: automine builds the block once the
    # cost has fallen enough for the transaction's tip (within seconds).
    tx = call(rpc, "eth_sendTransaction", [{"from": DEV, "to": FUNDED, "value": "0x1"}])
    receipt = None
    for _ in range(100):
        receipt = call(rpc, "eth_getTransactionReceipt", [tx])
        if receipt is not None:
            break
        time.sleep(0.1)
    assert receipt is not None and receipt["status"] == "0x1"
    # Not converted: its validators API lists the subnet's (no) validators.
    url = f"{running.base}/ext/bc/{chain_id}/validators"
    assert call(url, "validators.getCurrentValidators", {}) == {"validators": []}


def test_a_chain_with_a_bad_genesis_is_not_started(running: RunningNode) -> None:
    chain_id = issue_chain(running, "broken", b"{not json")
    reply = httpx.post(
        f"{running.base}/ext/bc/{chain_id}/rpc",
        json={"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []},
    )
    assert reply.status_code == 404
    assert call(running.rpc, "eth_chainId", []) == hex(43112)  # the node goes on


def test_a_restart_brings_the_l1s_back(tmp_path: Path) -> None:
    with serve_devnet(data_dir=tmp_path, l1=("kept",), validators=2) as first:
        before = custom_chains(first)
        rpc = f"{first.base}/ext/bc/{before['kept']}/rpc"
        call(rpc, "eth_sendTransaction", [{"from": DEV, "to": FUNDED, "value": "0x7"}])
        head = call(rpc, "eth_getBlockByNumber", ["latest", False])
    with serve_devnet(data_dir=tmp_path, l1=("kept",), validators=2) as again:
        assert custom_chains(again) == before  # the same chain, not a second one
        rpc = f"{again.base}/ext/bc/{before['kept']}/rpc"
        assert call(rpc, "eth_getBlockByNumber", ["latest", False])["hash"] == head["hash"]
        assert call(rpc, "eth_getBalance", [FUNDED, "latest"]) == "0x7"


def test_a_bad_l1_genesis_file_is_refused_before_any_tx(tmp_path: Path) -> None:
    bad = tmp_path / "genesis.json"
    bad.write_text('{"config": {"chainId": 5}, "gasLimit": "0x1"}')
    with pytest.raises(InvalidParams, match="gas limit in genesis"):
        build_node(NetworkSettings(l1=(f"broken={bad}",), validators=1))
    with pytest.raises(InvalidParams, match="cannot read"):
        build_node(NetworkSettings(l1=(f"missing={tmp_path / 'nope.json'}",), validators=1))
