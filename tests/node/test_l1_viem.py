"""viem drives an L1 of the devnet as it drives the C-Chain: deploy, call, storage, logs, and
WebSocket subscriptions at /ext/bc/<blockchainID>/ws."""

from __future__ import annotations

import json
from pathlib import Path

from snowfield.testing import run_node_script, serve_devnet
from tests.bytecode import STORE, deploy_code, word
from tests.helpers import KEY0

SCRIPT = Path(__file__).parent / "dapp" / "l1_flows.mjs"


def test_viem_deploys_calls_and_subscribes_on_an_l1() -> None:
    with serve_devnet(l1=("viem L1",), validators=1) as running:
        l1 = next(c for c in running.node.chains if c.vm.name == "subnet-evm")
        rpc = f"{running.base}/ext/bc/{l1.blockchain_id}/rpc"
        ws = rpc.replace("http://", "ws://")[: -len("/rpc")] + "/ws"
        value = "0x" + word(0x5EED).hex()
        args = (rpc, ws, "99999", KEY0, "0x" + deploy_code(STORE).hex(), value)
        got = json.loads(run_node_script(SCRIPT.read_text(), *args, packages=("viem",)))
        assert got["chainId"] == 99999 and got["status"] == "success"
        assert got["receiptLogs"] == 1 and got["logTxs"] == [got["hash"]]
        assert got["wsLogTxs"] == [got["hash"]]  # eth_subscribe("logs") on the L1's socket
        assert got["blockNumber"] in got["heads"]  # eth_subscribe("newHeads")
        assert got["call"] == value and got["stored"] == value
        assert running.node.c.chain.head.number == 0  # all of it happened on the L1 only
