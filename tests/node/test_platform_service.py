"""platform.* and the Context reads over HTTP: routes, avalanchego's shapes, paging, errors,
and genesis validators that survive a restart with a data dir."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from snowfield.chains.platform.genesis import EWOQ_ADDRESS, LOCAL_EWOQ_AMOUNT
from snowfield.chains.platform.records import L1Validator
from snowfield.formats.hexcheck import decode_hex
from snowfield.formats.ids import ID, NodeID
from snowfield.formats.platform.components import UTXO
from snowfield.formats.platform.l1_txs import PChainOwner
from snowfield.testing import RunningNode, serve_devnet
from tests.node.test_node_apis import service

EWOQ = "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
P_ID = "11111111111111111111111111111111LpoYY"


post = service


def call(url: str, method: str, params: Any = None) -> Any:
    reply = post(url, method, params)
    assert "error" not in reply, reply
    return reply["result"]


@pytest.fixture(scope="module")
def devnet() -> Iterator[RunningNode]:
    with serve_devnet() as node:
        yield node


@pytest.mark.parametrize("path", ["/ext/bc/P", "/ext/P", "/ext/platform", "/ext/bc/platform"])
def test_routes(devnet: RunningNode, path: str) -> None:
    assert call(devnet.base + path, "platform.getHeight") == {"height": "0"}


def test_info_and_context_reads(devnet: RunningNode) -> None:
    info = devnet.base + "/ext/info"
    ids = devnet.node.ids
    assert call(info, "info.getBlockchainID", {"alias": "P"}) == {"blockchainID": P_ID}
    assert call(info, "info.getBlockchainID", {"alias": "X"}) == {"blockchainID": ids.x_chain}
    x = devnet.base + "/ext/bc/X"
    asset = call(x, "avm.getAssetDescription", {"assetID": "AVAX"})
    assert asset == {
        "assetID": ids.avax_asset,
        "name": "Avalanche",
        "symbol": "AVAX",
        "denomination": "9",
    }
    # avalanchego's local genesis: 1 milliAVAX each (Fuji and mainnet: 10 for an asset)
    assert call(x, "avm.getTxFee") == {"txFee": "1000000", "createAssetTxFee": "1000000"}
    assert post(x, "avm.getAssetDescription", {"assetID": "BTC"})["error"]["code"] == -32000


def test_fee_endpoints_are_numbers(devnet: RunningNode) -> None:
    p = devnet.base + "/ext/bc/P"
    config = call(p, "platform.getFeeConfig")
    assert config["weights"] == [1, 1000, 1000, 4]
    assert config["maxCapacity"] == 1_000_000 and config["minPrice"] == 1
    state = call(p, "platform.getFeeState")
    assert state["capacity"] == 1_000_000 and state["price"] == 1 and state["excess"] == 0
    assert state["timestamp"].endswith("Z")


def test_balance_and_utxos(devnet: RunningNode) -> None:
    p = devnet.base + "/ext/bc/P"
    balance = call(p, "platform.getBalance", {"Addresses": [EWOQ]})  # names are case-blind
    assert balance["unlocked"] == balance["balance"] == str(LOCAL_EWOQ_AMOUNT)
    assert balance["lockedStakeable"] == balance["lockedNotStakeable"] == "0"
    assert balance["balances"] == {devnet.node.ids.avax_asset: str(LOCAL_EWOQ_AMOUNT)}
    assert len(balance["utxoIDs"]) == 1
    page = call(p, "platform.getUTXOs", {"addresses": [EWOQ], "limit": 1, "encoding": "hex"})
    assert page["numFetched"] == "1" and page["encoding"] == "hex"
    utxo = UTXO.decode(decode_hex(page["utxos"][0]))
    assert page["endIndex"] == {"address": EWOQ, "utxo": str(utxo.id)}
    after = call(p, "platform.getUTXOs", {"addresses": [EWOQ], "startIndex": page["endIndex"]})
    assert after["numFetched"] == "0" and after["utxos"] == []


def test_validators_and_supply(devnet: RunningNode) -> None:
    p = devnet.base + "/ext/bc/P"
    validators = call(p, "platform.getCurrentValidators")["validators"]
    assert len(validators) == 5
    assert {v["weight"] for v in validators} == {str(2_000_000 * 10**9)}
    assert all(v["nodeID"].startswith("NodeID-") for v in validators)
    supply = int(call(p, "platform.getCurrentSupply")["supply"])
    assert supply > LOCAL_EWOQ_AMOUNT + 5 * 2_000_000 * 10**9
    assert call(p, "platform.getStakingAssetID") == {"assetID": devnet.node.ids.avax_asset}
    assert call(p, "platform.getMinStake")["minValidatorStake"] == str(2_000 * 10**9)


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("platform.getBalance", {"addresses": ["X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"]}),
        ("platform.getBalance", {"addresses": "nope"}),
        ("platform.getUTXOs", {"addresses": []}),
        ("platform.getUTXOs", {"addresses": [EWOQ], "limit": -1}),
        ("platform.getUTXOs", {"addresses": [EWOQ], "sourceChain": "nowhere"}),
        ("platform.issueTx", {"tx": "0x00"}),
        ("platform.issueTx", {"tx": "0xdeadbeefdeadbeef"}),
        ("platform.getTxStatus", {"txID": "x"}),
        ("platform.getTx", {"txID": P_ID}),
    ],
)
def test_bad_input_is_a_gorilla_error(
    devnet: RunningNode, method: str, params: dict[str, Any]
) -> None:
    reply = post(devnet.base + "/ext/bc/P", method, params)
    assert reply["error"]["code"] == -32000
    assert reply["error"]["message"] != "internal error"


def test_unknown_tx_status(devnet: RunningNode) -> None:
    status = call(devnet.base + "/ext/P", "platform.getTxStatus", {"txID": P_ID})
    assert status == {"status": "Unknown"}


def test_genesis_validators_persist_in_the_data_dir(tmp_path: Path) -> None:
    def node_ids() -> set[str]:
        with serve_devnet(data_dir=tmp_path) as node:
            found = call(node.base + "/ext/P", "platform.getCurrentValidators")["validators"]
            return {v["nodeID"] for v in found}

    first = node_ids()
    assert len(first) == 5
    assert (tmp_path / "staking" / "0" / "signer.key").exists()
    assert node_ids() == first
    with serve_devnet(data_dir=tmp_path) as node:  # the P-Chain stakes the node's validators
        assert {str(v.node_id) for v in node.node.validators.validators} == first


def test_subnets_list_the_primary_network(devnet: RunningNode) -> None:
    subnets = call(devnet.base + "/ext/P", "platform.getSubnets")["subnets"]
    assert subnets == [{"id": P_ID, "controlKeys": [], "threshold": "0"}]
    bad = post(devnet.base + "/ext/P", "platform.getSubnets", {"ids": ["nope"]})
    assert bad["error"]["code"] == -32000


def test_l1_validator_shape(devnet: RunningNode) -> None:
    chain = devnet.node.chains["P"].runtime.chain
    owner = PChainOwner(1, (EWOQ_ADDRESS,))
    validation_id = ID(bytes(range(32)))
    record = L1Validator(
        validation_id, ID(b"\x07" * 32), b"\x01" * 20, b"\x02" * 48, owner, owner, 5, 9, 11, 3
    )
    chain.state.l1_validators[validation_id] = record  # as a ConvertSubnetToL1Tx would record it
    try:
        found = call(
            devnet.base + "/ext/P", "platform.getL1Validator", {"validationID": str(validation_id)}
        )
    finally:
        del chain.state.l1_validators[validation_id]
    assert found["nodeID"] == str(NodeID(b"\x01" * 20))
    assert found["publicKey"] == "0x" + "02" * 48
    assert found["deactivationOwner"] == {"locktime": "0", "threshold": "1", "addresses": [EWOQ]}
    assert (found["startTime"], found["weight"], found["balance"], found["minNonce"]) == (
        "5",
        "9",
        "11",
        "3",
    )
    missing = post(devnet.base + "/ext/P", "platform.getL1Validator", {"validationID": P_ID})
    assert "not found" in missing["error"]["message"]


def test_health_reports_the_p_chain(devnet: RunningNode) -> None:
    report = httpx.get(devnet.base + "/ext/health", timeout=30).json()
    consensus = report["checks"]["P"]["message"]["engine"]["consensus"]
    assert consensus["lastAcceptedHeight"] == devnet.node.chains["P"].runtime.blocks.last.height
    assert consensus["lastAcceptedID"] == str(devnet.node.chains["P"].runtime.blocks.last.id)
    assert "X" in report["checks"]


def test_a_refused_tx_leaves_no_trace(devnet: RunningNode) -> None:
    """issueTx verifies in the block built for the call: a tx that cannot apply answers with
    the executor's error, reads as Unknown, and holds nothing (the same UTXOs spend next)."""
    import asyncio
    from dataclasses import replace

    from snowfield.crypto.keys import EWOQ_KEY
    from snowfield.errors import SnowfieldError
    from snowfield.formats.ids import ShortID
    from snowfield.formats.platform.components import TransferableOutput
    from snowfield.formats.platform.secp256k1fx import OutputOwners, TransferOutput
    from snowfield.formats.platform.transfer_txs import BaseTx
    from snowfield.rpc.client import RpcClient
    from snowfield.workload.platform_demo import PWallet

    url = devnet.base + "/ext/bc/P"
    asset = ID.from_string(call(url, "platform.getStakingAssetID")["assetID"])
    network_id = devnet.node.settings.network_id
    before = call(url, "platform.getBalance", {"addresses": [EWOQ]})["balance"]

    def paying(amount: int) -> Any:
        extra = TransferableOutput(
            asset, TransferOutput(amount, OutputOwners(0, 1, (ShortID(b"\x07" * 20),)))
        )

        def make(base: Any) -> BaseTx:
            outputs = sorted((*base.outputs, extra), key=lambda o: o.sort_key())
            return BaseTx(replace(base, outputs=tuple(outputs)))

        return make

    async def flow() -> str:
        async with RpcClient(url) as p:
            wallet = PWallet(p, EWOQ_KEY, network_id, asset)
            with pytest.raises(SnowfieldError, match="couldn't issue tx:") as refused:
                await wallet.issue(paying(10**30 // 10**12))  # more than the inputs hold
            assert "flow" in str(refused.value) or "funds" in str(refused.value)
            return await wallet.issue(paying(1), spend=1)

    tx_id = asyncio.run(flow())
    assert call(url, "platform.getTxStatus", {"txID": tx_id}) == {"status": "Committed"}
    after = call(url, "platform.getBalance", {"addresses": [EWOQ]})["balance"]
    assert int(after) < int(before)
