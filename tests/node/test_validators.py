"""Devnet validators: staking and BLS keys persisted, info.* about them, stop/start."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from snowfield.crypto import bls
from snowfield.crypto.staking import certificate_node_id
from snowfield.testing import serve_devnet


def _call(base: str, path: str, method: str, params: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": 0, "method": method}
    if params is not None:
        body["params"] = params
    reply = httpx.post(f"{base}{path}", json=body)
    assert reply.status_code == 200
    data: dict[str, Any] = reply.json()
    return data


def test_keys_persist_and_node_id_has_a_valid_pop(tmp_path: Path) -> None:
    with serve_devnet(data_dir=tmp_path, validators=3) as node:
        first = _call(node.base, "/ext/info", "info.getNodeID")["result"]
        ids = [str(v.node_id) for v in node.node.validators]
    assert (tmp_path / "staking" / "2" / "signer.key").exists()
    cert = (tmp_path / "staking" / "0" / "staker.crt").read_bytes()
    own = node.node.validators.own
    assert str(certificate_node_id(own.staking.certificate_der)) == first["nodeID"]
    assert b"BEGIN CERTIFICATE" in cert
    pop = first["nodePOP"]
    public = bls.PublicKey.from_bytes(bytes.fromhex(pop["publicKey"][2:]))
    proof = bls.Signature.from_bytes(bytes.fromhex(pop["proofOfPossession"][2:]))
    assert bls.verify_proof_of_possession(public, proof)
    with serve_devnet(data_dir=tmp_path, validators=3) as again:
        assert [str(v.node_id) for v in again.node.validators] == ids
        assert _call(again.base, "/ext/info", "info.getNodeID")["result"] == first


def test_in_memory_validators_differ_per_node() -> None:
    with serve_devnet(validators=2) as a, serve_devnet(validators=2) as b:
        assert a.node.validators.own.node_id != b.node.validators.own.node_id


def test_stopping_a_validator_drops_it_from_peers_and_uptime() -> None:
    with serve_devnet(validators=3) as node:
        peers = _call(node.base, "/ext/info", "info.peers", [{}])["result"]
        assert peers["numPeers"] == "2"
        victim = peers["peers"][0]["nodeID"]
        uptime = _call(node.base, "/ext/info", "info.uptime")["result"]
        assert uptime["rewardingStakePercentage"] == "100.0000"
        stopped = _call(node.base, "/ext/devnet", "devnet.stopValidator", {"NODEID": victim})
        assert stopped["result"] == {"success": True}
        peers = _call(node.base, "/ext/info", "info.peers")["result"]
        assert [p["nodeID"] for p in peers["peers"]] != [] and victim not in [
            p["nodeID"] for p in peers["peers"]
        ]
        uptime = _call(node.base, "/ext/info", "info.uptime")["result"]
        assert uptime["rewardingStakePercentage"] == "66.6667"
        listing = _call(node.base, "/ext/devnet", "devnet.getValidators")["result"]
        assert [v["running"] for v in listing["validators"]].count(False) == 1
        _call(node.base, "/ext/devnet", "devnet.startValidator", {"nodeID": victim})
        assert _call(node.base, "/ext/info", "info.peers")["result"]["numPeers"] == "2"


def test_devnet_validator_errors() -> None:
    with serve_devnet(validators=2) as node:
        own = str(node.node.validators.own.node_id)
        bad = _call(node.base, "/ext/devnet", "devnet.stopValidator", {"nodeID": "nope"})
        assert bad["error"]["message"] == "ID: nope is missing the prefix: NodeID-"
        unknown = "NodeID-111111111111111111116DBWJs"
        missing = _call(node.base, "/ext/devnet", "devnet.stopValidator", {"nodeID": unknown})
        assert missing["error"]["message"] == f"validator {unknown} not found"
        refused = _call(node.base, "/ext/devnet", "devnet.stopValidator", {"nodeID": own})
        assert "cannot be stopped" in refused["error"]["message"]
        nothing = _call(node.base, "/ext/devnet", "devnet.startValidator")
        assert nothing["error"]["message"] == "nodeID must be a string"


def test_info_identity_methods() -> None:
    with serve_devnet(network_id=5) as node:
        name = _call(node.base, "/ext/info", "info.getNetworkName", [])["result"]
        assert name == {"networkName": "fuji"}
        c_chain = _call(node.base, "/ext/info", "info.getBlockchainID", {"ALIAS": "C"})["result"]
        assert c_chain == {"blockchainID": "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp"}
        boot = _call(node.base, "/ext/info", "info.isBootstrapped", {"Chain": "C"})["result"]
        assert boot == {"isBootstrapped": True}
        missing = _call(node.base, "/ext/info", "info.isBootstrapped", {"chain": "Q"})
        assert missing["error"]["message"] == "there is no chain with alias/ID 'Q'"
        upper = _call(node.base, "/ext/info", "info.GetNodeID")
        assert upper["error"]["message"] == "method must start with a non-uppercase letter"
        unknown = _call(node.base, "/ext/info", "info.nope")
        assert unknown["error"]["message"] == 'rpc: can\'t find method "info.Nope"'
        # the first validator's staking port (any free one in tests: --staking-port 0)
        ip = _call(node.base, "/ext/info", "info.getNodeIP")["result"]["ip"]
        assert ip == node.node.staking.address_of(node.node.validators.own)
        assert ip.startswith("127.0.0.1:") and int(ip.rsplit(":", 1)[1]) > 0


def test_info_upgrades_fees_and_vms() -> None:
    with serve_devnet(validators=1) as node:
        upgrades = _call(node.base, "/ext/info", "info.upgrades")["result"]
        assert upgrades["etnaTime"] == "2020-12-05T05:00:00Z"
        assert upgrades["heliconTime"].startswith("9999")
        assert upgrades["graniteEpochDuration"] == 30_000_000_000
        assert upgrades["apricotPhase4MinPChainHeight"] == 0
        fees = _call(node.base, "/ext/info", "info.getTxFee", {})["result"]
        assert len(fees) == 9 and fees["txFee"] == "1000000"
        assert fees["createSubnetTxFee"] == "100000000"
        vms = _call(node.base, "/ext/info", "info.getVMs")["result"]
        assert vms["vms"]["jvYyfQTxGMJLuGWa55kdP2p2zSUYsQ5Raupu4TW34ZAUBAbtq"] == ["avm"]
        # the custom EVM's plugin, which L1s run here
        assert vms["vms"]["srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy"] == ["subnet-evm"]
        assert vms["fxs"]["spdxUxVJQbX85MGxMHbKw1sHxMnSqJ3QBzDyDYEP3h6TLuxqQ"] == "secp256k1fx"
        assert _call(node.base, "/ext/info", "info.acps", {})["result"] == {"acps": {}}
        assert _call(node.base, "/ext/info", "info.peers")["result"]["numPeers"] == "0"
