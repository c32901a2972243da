"""web3.py drives a custom EVM chain as it drives the C-Chain (deploy, call, logs), and the
custom EVM's own methods answer with node-api.md's field names."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from eth_account import Account
from web3 import Web3
from web3.middleware import ExtraDataToPOAMiddleware

from snowfield.chains.evm.customgenesis import genesis_json
from snowfield.chains.evm.feeconfig import FeeConfig
from snowfield.testing import serve_custom_evm
from tests.bytecode import STORE, STORE_TOPIC, deploy_code
from tests.helpers import rpc_reply

KEY = Account.from_key(b"\x21" * 32)
ADMIN = "0x" + "a1" * 20
FEE = FeeConfig(min_block_gas_cost=0, max_block_gas_cost=0, block_gas_cost_step=0)


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, Any]]:
    genesis = genesis_json(
        55_555,
        {bytes.fromhex(KEY.address[2:]): 10**24},
        fee=FEE,
        precompiles={"feeManagerConfig": {"blockTimestamp": 0, "adminAddresses": [ADMIN]}},
        upgrades=[
            {"txAllowListConfig": {"blockTimestamp": 4_000_000_000, "adminAddresses": [ADMIN]}}
        ],
    )
    with serve_custom_evm(genesis) as running:
        yield running


def _send(w3: Web3, tx: dict[str, Any]) -> Any:
    tx.setdefault("nonce", w3.eth.get_transaction_count(KEY.address))
    tx.setdefault("chainId", w3.eth.chain_id)
    tx.setdefault("gas", 200_000)
    tx.setdefault("maxFeePerGas", 2 * w3.eth.get_block("latest")["baseFeePerGas"] + 10**9)
    tx.setdefault("maxPriorityFeePerGas", 10**9)
    signed = Account.sign_transaction(tx, KEY.key)
    return w3.eth.wait_for_transaction_receipt(
        w3.eth.send_raw_transaction(signed.raw_transaction), timeout=10
    )


def test_web3_deploys_calls_and_reads_logs(served: tuple[str, Any]) -> None:
    url, chain = served
    w3 = Web3(Web3.HTTPProvider(url))
    # As with real subnet-evm: header.Extra holds the 80-byte fee window, longer than
    # Ethereum's 32, so web3.py needs its POA middleware.
    w3.middleware_onion.inject(ExtraDataToPOAMiddleware, layer=0)
    assert w3.eth.chain_id == 55_555
    created = _send(w3, {"data": deploy_code(STORE)})
    assert created["status"] == 1
    address = created["contractAddress"]
    stored = _send(w3, {"to": address, "data": (42).to_bytes(32, "big")})
    assert stored["status"] == 1
    assert w3.eth.get_storage_at(address, 0) == (42).to_bytes(32, "big")
    assert w3.eth.call({"to": address, "data": (7).to_bytes(32, "big")}) == (7).to_bytes(32, "big")
    logs = w3.eth.get_logs({"address": address, "fromBlock": 0, "toBlock": "latest"})
    assert [bytes(log["topics"][0]) for log in logs] == [STORE_TOPIC]
    block = w3.eth.get_block(stored["blockNumber"])
    assert block["gasLimit"] == FEE.gas_limit and block["baseFeePerGas"] >= FEE.min_base_fee
    raw = rpc_reply(url, "eth_getBlockByNumber", hex(stored["blockNumber"]), False)["result"]
    assert "extDataHash" not in raw and "blockExtraData" not in raw and "blockGasCost" in raw
    assert raw["hash"] == "0x" + chain.block(stored["blockNumber"]).hash.hex()


def test_fee_config_chain_config_and_active_rules(served: tuple[str, Any]) -> None:
    url, _ = served
    fee = rpc_reply(url, "eth_feeConfig")["result"]
    assert fee == {"feeConfig": FEE.as_json(), "lastChangedAt": 0}
    assert set(fee["feeConfig"]) == {
        "gasLimit",
        "targetBlockRate",
        "minBaseFee",
        "targetGas",
        "baseFeeChangeDenominator",
        "minBlockGasCost",
        "maxBlockGasCost",
        "blockGasCostStep",
    }
    config = rpc_reply(url, "eth_getChainConfig")["result"]
    assert config["chainId"] == 55_555 and config["feeConfig"] == FEE.as_json()
    assert config["allowFeeRecipients"] is False and config["customEVMTimestamp"] == 0
    assert config["feeManagerConfig"] == {"blockTimestamp": 0, "adminAddresses": [ADMIN]}
    assert config["upgrades"] == {
        "precompileUpgrades": [
            {"txAllowListConfig": {"blockTimestamp": 4_000_000_000, "adminAddresses": [ADMIN]}}
        ]
    }
    rules = rpc_reply(url, "eth_getActiveRulesAt")["result"]
    assert rules["ethRules"]["IsCancun"] is True and rules["nativeRules"]["IsCustomEVM"] is True
    assert rules["precompiles"] == {"feeManagerConfig": {"timestamp": 0}}
    later = rpc_reply(url, "eth_getActiveRulesAt", 4_000_000_000)["result"]["precompiles"]
    assert later == {
        "feeManagerConfig": {"timestamp": 0},
        "txAllowListConfig": {"timestamp": 4_000_000_000},
    }
    configs = rpc_reply(url, "eth_getActivePrecompilesAt", 4_000_000_000)["result"]
    assert configs == {
        "feeManagerConfig": {"blockTimestamp": 0, "adminAddresses": [ADMIN]},
        "txAllowListConfig": {"blockTimestamp": 4_000_000_000, "adminAddresses": [ADMIN]},
    }
    bad = rpc_reply(url, "eth_getActiveRulesAt", "0x10")["error"]
    assert bad["code"] == -32602
    assert "cannot unmarshal string into Go value of type uint64" in bad["message"]


def test_a_block_waiting_for_its_block_gas_cost_is_built_once_the_cost_falls() -> None:
    genesis = genesis_json(55_556, {bytes.fromhex(KEY.address[2:]): 10**24})  # default fees
    with serve_custom_evm(genesis) as (url, chain):
        w3 = Web3(Web3.HTTPProvider(url))
        w3.middleware_onion.inject(ExtraDataToPOAMiddleware, layer=0)
        first = _send(w3, {"to": "0x" + "00" * 19 + "01", "value": 1, "gas": 21_000})
        assert first["status"] == 1
        # Right after it, the block gas cost is 400,000 gas: a 1 gwei tip buys 840 of it.
        second = _send(w3, {"to": "0x" + "00" * 19 + "01", "value": 1, "gas": 21_000})
        assert second["blockNumber"] == first["blockNumber"] + 1
        block = chain.block(second["blockNumber"])
        # Only at the target rate (2 s) is the cost back to 0.
        assert block.header.timestamp - chain.block(first["blockNumber"]).header.timestamp >= 2
