"""The P-Chain demo traffic against a real devnet: it stakes, delegates, creates a subnet and a
chain, converts the subnet to an L1 and moves time so the rewards are paid."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx

from snowfield.chains.platform import rewards
from snowfield.chains.platform.config import LOCAL_PARAMS
from snowfield.formats.hexcheck import decode_hex
from snowfield.formats.ids import ID
from snowfield.formats.platform.components import UTXO
from snowfield.formats.platform.l1_txs import initial_validation_id
from snowfield.testing import serve_devnet
from snowfield.workload.platform_demo import (
    DELEGATOR_STAKE,
    VALIDATOR_STAKE,
    PlatformDemoReport,
    demo_secret,
    run_platform_demo,
)


def _p(base: str, method: str, params: dict[str, Any] | None = None) -> Any:
    reply = httpx.post(
        base + "/ext/bc/P",
        json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}},
    ).json()
    assert "error" not in reply, reply
    return reply["result"]


def test_platform_demo_runs_every_flow_and_pays_rewards() -> None:
    with serve_devnet(validators=2) as devnet:
        chain = devnet.node.chains["P"].runtime.chain
        supply = chain.current_supply
        secret = demo_secret([k.private_key for k in devnet.node.dev_keys])
        lines: list[str] = []
        report: PlatformDemoReport = asyncio.run(
            run_platform_demo(devnet.base, secret, lines.append)
        )
        for tx_id in report.txs.values():
            assert _p(devnet.base, "platform.getTxStatus", {"txID": tx_id}) == {
                "status": "Committed"
            }
        # the validator and its delegator came and went: the stake is back, the rewards paid
        validators = _p(devnet.base, "platform.getCurrentValidators")["validators"]
        assert report.node_id not in [v["nodeID"] for v in validators]
        paid = int(
            _p(devnet.base, "platform.getBalance", {"addresses": [report.rewards_address]})[
                "balance"
            ]
        )
        config = LOCAL_PARAMS.staking.rewards  # the formula, with the supply each stake saw
        (v_start, v_end), (d_start, d_end) = report.periods.values()
        validator = rewards.calculate(config, v_end - v_start, VALIDATOR_STAKE, supply)
        delegator = rewards.calculate(config, d_end - d_start, DELEGATOR_STAKE, supply + validator)
        assert paid == validator + delegator > 0  # the delegation's split goes to this owner too
        assert any("rewards paid" in line for line in lines)
        reward_utxos = [
            _p(devnet.base, "platform.getRewardUTXOs", {"txID": report.txs[name]})
            for name in ("addValidator", "addDelegator")
        ]
        amounts = [
            UTXO.decode(decode_hex(text)).output.amount  # type: ignore[attr-defined]
            for reply in reward_utxos
            for text in reply["utxos"]
        ]
        assert sum(amounts) == paid and reward_utxos[0]["encoding"] == "hex"
        stake = _p(devnet.base, "platform.getStake", {"addresses": [report.rewards_address]})
        assert stake["staked"] == "0" and stake["stakedOutputs"] == []  # the stakers are gone
        # the subnet has its chain and is an L1 with the demo's validator
        chains = _p(devnet.base, "platform.getBlockchains")["blockchains"]
        assert {"id": report.chain_id, "name": "demochain"}.items() <= next(
            c for c in chains if c["id"] == report.chain_id
        ).items()
        validation = initial_validation_id(ID.from_string(report.subnet_id), 0)
        l1 = _p(devnet.base, "platform.getL1Validator", {"validationID": str(validation)})
        assert l1["subnetID"] == report.subnet_id
        subnet = _p(devnet.base, "platform.getSubnet", {"subnetID": report.subnet_id})
        assert subnet["isPermissioned"] is False
        assert subnet["managerChainID"] == report.chain_id
        assert subnet["managerAddress"] == "0x" + "00" * 20
        assert _p(devnet.base, "platform.validates", {"subnetID": report.subnet_id}) == {
            "blockchainIDs": [report.chain_id]
        }
        assert _p(devnet.base, "platform.validatedBy", {"blockchainID": report.chain_id}) == {
            "subnetID": report.subnet_id
        }
        status = _p(devnet.base, "platform.getBlockchainStatus", {"blockchainID": report.chain_id})
        assert status == {"status": "Validating"}  # a custom-EVM chain: this node runs it
        status = _p(devnet.base, "platform.getBlockchainStatus", {"blockchainID": "C"})
        assert status == {"status": "Validating"}
        on_l1 = _p(devnet.base, "platform.getCurrentValidators", {"subnetID": report.subnet_id})
        (entry,) = on_l1["validators"]
        assert entry["validationID"] == str(validation)
        assert {k: v for k, v in l1.items() if k not in ("subnetID", "height")} == entry
        total = _p(devnet.base, "platform.getTotalStake", {"subnetID": report.subnet_id})
        assert total == {"stake": "100", "weight": "100"}  # the L1 validator's weight


def test_every_demo_flow_replays_after_a_restart(tmp_path: Path) -> None:
    reads = (
        ("platform.getHeight", {}),
        ("platform.getCurrentValidators", {}),
        ("platform.getSubnets", {}),
        ("platform.getBlockchains", {}),
        ("platform.getCurrentSupply", {}),
    )
    with serve_devnet(validators=2, data_dir=tmp_path) as devnet:
        secret = demo_secret([k.private_key for k in devnet.node.dev_keys])
        report = asyncio.run(run_platform_demo(devnet.base, secret, lambda _: None))
        validation = str(initial_validation_id(ID.from_string(report.subnet_id), 0))
        before = [_p(devnet.base, m, params) for m, params in reads]
        l1_before = _p(devnet.base, "platform.getL1Validator", {"validationID": validation})
        last = devnet.node.chains["P"].runtime.chain.last_accepted_id
    with serve_devnet(validators=2, data_dir=tmp_path) as again:
        chain = again.node.chains["P"].runtime.chain
        assert chain.last_accepted_id == last  # the same blocks, byte for byte
        assert [_p(again.base, m, params) for m, params in reads] == before
        l1_after = _p(again.base, "platform.getL1Validator", {"validationID": validation})
        assert l1_after["balance"] == l1_before["balance"]
        for tx_id in report.txs.values():
            status = _p(again.base, "platform.getTxStatus", {"txID": tx_id})
            assert status == {"status": "Committed"}


def test_with_demo_a_new_network_starts_in_the_past_and_the_demo_brings_it_to_now() -> None:
    """`make up` (`--demo`): the demo moves the network clock a day on to pay the stakers'
    rewards, so a new network starts that much in the past and ends in the present: after the
    demo, new blocks are stamped with the wall time, not tomorrow's."""
    import time

    from snowfield.config.network import DEMO_CLOCK_JUMP

    def c(base: str, method: str, *params: Any) -> Any:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}
        return httpx.post(base + "/ext/bc/C/rpc", json=body).json()["result"]

    with serve_devnet(validators=2, demo=True) as devnet:
        started = time.time()
        genesis = int(c(devnet.base, "eth_getBlockByNumber", "0x0", False)["timestamp"], 16)
        assert abs(genesis - (started - DEMO_CLOCK_JUMP)) < 30
        p_time = _p(devnet.base, "platform.getTimestamp")["timestamp"]
        assert p_time < time.strftime("%Y-%m-%dT", time.gmtime(started))  # yesterday
        secret = demo_secret([k.private_key for k in devnet.node.dev_keys])
        report = asyncio.run(run_platform_demo(devnet.base, secret, lambda _: None))
        paid = _p(devnet.base, "platform.getBalance", {"addresses": [report.rewards_address]})
        assert int(paid["balance"]) > 0  # the rewards are still paid
        dev = "0x" + devnet.node.dev_keys[0].address.hex()
        c(devnet.base, "eth_sendTransaction", {"from": dev, "to": dev, "value": "0x1"})
        latest = int(c(devnet.base, "eth_getBlockByNumber", "latest", False)["timestamp"], 16)
        assert abs(latest - time.time()) < 60
        last = _p(devnet.base, "platform.getHeight")["height"]
        block = _p(devnet.base, "platform.getBlockByHeight", {"height": last, "encoding": "json"})
        assert abs(block["block"]["time"] - time.time()) < 60


def test_a_network_that_ran_keeps_its_clock(tmp_path: Path) -> None:
    """Only a new network starts in the past: a restart finds its chains where they were."""
    import time

    with serve_devnet(validators=1, data_dir=tmp_path) as devnet:
        first = _p(devnet.base, "platform.getTimestamp")["timestamp"]
    with serve_devnet(validators=1, data_dir=tmp_path, demo=True) as devnet:
        assert devnet.node.clock.offset == 0
        assert _p(devnet.base, "platform.getTimestamp")["timestamp"] == first
        assert abs(devnet.node.clock() - time.time()) < 5
