"""P-Chain blocks as the network sees them: ProposerVM containers signed by the validators in
turn, /ext/index/P/block with the index API's rules, platform.getBlock*, health, the block timer
on clock moves (rewards committed, a stopped validator's aborted), and replay after a restart or
a torn journal tail."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from snowfield.crypto.keys import EWOQ_KEY
from snowfield.crypto.staking import verify_signature
from snowfield.formats.hexcheck import decode_hex, encode_hex
from snowfield.formats.ids import ID, P_CHAIN_ID
from snowfield.formats.platform.blocks import (
    BanffAbortBlock,
    BanffCommitBlock,
    BanffProposalBlock,
    BanffStandardBlock,
    decode_block,
)
from snowfield.formats.platform.components import TransferableOutput
from snowfield.formats.platform.secp256k1fx import TransferOutput
from snowfield.formats.platform.transfer_txs import BaseTx
from snowfield.formats.proposervm import OptionBlock, ProposerBlock, StatelessBlock, signing_header
from snowfield.testing import RunningNode, serve_devnet
from tests.chains.platform.wallet import KEY2, Wallet, owner
from tests.node.test_node_apis import service

ONE_YEAR = 366 * 24 * 3600


def call(url: str, method: str, params: Any = None) -> Any:
    reply = service(url, method, params)
    assert "error" not in reply, reply
    return reply["result"]


def issue_base_tx(devnet: RunningNode, amount: int) -> str:
    chain = devnet.node.chains["P"].runtime.chain  # type: ignore[attr-defined]
    wallet = Wallet(chain, EWOQ_KEY, chain.state.network_id, chain.state.avax_asset_id)
    pay = (TransferableOutput(chain.state.avax_asset_id, TransferOutput(amount, owner(KEY2))),)
    tx = wallet.build(BaseTx, amount, pay)
    result = call(devnet.base + "/ext/bc/P", "platform.issueTx", {"tx": encode_hex(tx.encode())})
    return str(result["txID"])


def containers(base: str) -> list[dict[str, Any]]:
    index = base + "/ext/index/P/block"
    last = int(call(index, "index.getLastAccepted", {"encoding": "hex"})["index"])
    found = call(index, "index.getContainerRange", {"startIndex": 0, "numToFetch": last + 1})
    assert isinstance(found, list) and len(found) == last + 1
    return found


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("p-blocks")


@pytest.fixture(scope="module")
def devnet(data_dir: Path) -> Iterator[RunningNode]:
    with serve_devnet(data_dir=data_dir, validators=3) as node:
        issue_base_tx(node, 1_000_000_000)
        issue_base_tx(node, 2_000_000_000)
        yield node


def test_blocks_are_signed_proposervm_containers(devnet: RunningNode) -> None:
    p = devnet.base + "/ext/bc/P"
    genesis = decode_hex(call(p, "platform.getBlockByHeight", {"height": 0})["block"])
    parent = ID(hashlib.sha256(genesis).digest())
    certificates = {v.staking.certificate_der for v in devnet.node.validators}
    proposers = set()
    for height, entry in enumerate(containers(devnet.base), start=1):
        data = decode_hex(entry["bytes"])
        wrapper = ProposerBlock.parse(data)
        assert isinstance(wrapper, StatelessBlock) and wrapper.parent_id == parent
        unsigned = data[: -(4 + len(wrapper.signature))]
        assert entry["id"] == str(wrapper.id) == str(ID(hashlib.sha256(unsigned).digest()))
        assert wrapper.certificate in certificates
        header = signing_header(P_CHAIN_ID, parent, wrapper.id)
        assert verify_signature(wrapper.certificate, header, wrapper.signature)
        proposers.add(wrapper.proposer)
        inner = decode_block(wrapper.inner_block)
        assert isinstance(inner, BanffStandardBlock) and inner.height == height
        by_height = call(p, "platform.getBlockByHeight", {"height": str(height)})
        assert decode_hex(by_height["block"]) == wrapper.inner_block
        inner_id = str(ID(hashlib.sha256(wrapper.inner_block).digest()))
        assert call(p, "platform.getBlock", {"blockID": inner_id})["block"] == by_height["block"]
        parent = wrapper.id
    assert len(proposers) == 2  # two blocks, two validators in turn
    assert call(p, "platform.getHeight") == {"height": "2"}
    check = devnet.node.chains["P"].health()  # the check the health service runs periodically
    assert check["engine"]["consensus"]["lastAcceptedID"] == str(parent)


def test_index_rules(devnet: RunningNode) -> None:
    index = devnet.base + "/ext/index/P/block"
    first = call(index, "index.getContainerByIndex", {"index": "0", "encoding": "hexnc"})
    assert first["index"] == "0" and first["encoding"] == "hexnc" and first["timestamp"]
    assert call(index, "index.getContainerByID", {"id": first["id"]})["bytes"].startswith("0x")
    assert call(index, "index.getIndex", {"id": first["id"]}) == {"index": "0"}
    assert call(index, "index.isAccepted", {"id": first["id"]}) == {"isAccepted": True}
    unknown = str(ID(b"\x07" * 32))
    assert call(index, "index.isAccepted", {"id": unknown}) == {"isAccepted": False}
    assert "not found" in service(index, "index.getIndex", {"id": unknown})["error"]["message"]
    beyond = service(index, "index.getContainerByIndex", {"index": 99})["error"]["message"]
    assert "no container at index 99" in beyond
    too_many = service(index, "index.getContainerRange", {"startIndex": 0, "numToFetch": 1025})
    assert too_many["error"]["message"] == "numToFetch must be in [0,1024] but is 1025"
    p = devnet.base + "/ext/bc/P"
    missing = service(p, "platform.getBlock", {"blockID": unknown})["error"]["message"]
    assert missing == f"couldn't get block with id {unknown}: not found"
    high = service(p, "platform.getBlockByHeight", {"height": 99})["error"]["message"]
    assert high == "couldn't get block at height 99: not found"


def test_clock_move_pays_rewards_and_aborts_a_stopped_validator(devnet: RunningNode) -> None:
    p = devnet.base + "/ext/bc/P"
    chain = devnet.node.chains["P"].runtime.chain  # type: ignore[attr-defined]
    stopped = devnet.node.validators.validators[2].node_id
    call(devnet.base + "/ext/devnet", "devnet.stopValidator", {"nodeID": str(stopped)})
    before = len(containers(devnet.base))
    # A year on the C-Chain's clock is a year for the network: every genesis staker ends, and
    # the P-Chain issues the reward proposals by itself before the call returns.
    reply = service(devnet.base + "/ext/bc/C/rpc", "evm_increaseTime", [ONE_YEAR])
    assert "error" not in reply, reply
    assert call(p, "platform.getCurrentValidators")["validators"] == []
    outcomes: dict[str, str] = {}
    proposal: BanffProposalBlock | None = None
    for entry in containers(devnet.base)[before:]:
        wrapper = ProposerBlock.parse(decode_hex(entry["bytes"]))
        inner = decode_block(wrapper.inner_block)
        if isinstance(inner, BanffProposalBlock):
            assert isinstance(wrapper, StatelessBlock) and wrapper.signature
            proposal = inner
        elif isinstance(inner, BanffCommitBlock | BanffAbortBlock):
            assert isinstance(wrapper, OptionBlock) and proposal is not None
            staker_tx = chain.state.txs[proposal.tx.unsigned.tx_id].tx.unsigned
            outcomes[str(staker_tx.validator.node_id)] = type(inner).__name__
            status = call(p, "platform.getTxStatus", {"txID": str(proposal.tx.id)})["status"]
            assert status == ("Committed" if isinstance(inner, BanffCommitBlock) else "Aborted")
            proposal = None
    expected = {
        str(v.node_id): "BanffAbortBlock" if v.node_id == stopped else "BanffCommitBlock"
        for v in devnet.node.validators
    }
    assert outcomes == expected
    call(devnet.base + "/ext/devnet", "devnet.startValidator", {"nodeID": str(stopped)})


def test_blocks_replay_after_restart_and_a_torn_tail(tmp_path: Path) -> None:
    with serve_devnet(data_dir=tmp_path, validators=2) as first:
        issue_base_tx(first, 1_000_000_000)
        issue_base_tx(first, 1_000_000_000)
        seen = containers(first.base)
    journal = tmp_path / "P" / "chain.journal"
    with journal.open("ab") as tail:  # a record cut short by kill -9 mid-write
        tail.write(b"\x00\x00\x01\x00\x12\x34")
    with serve_devnet(data_dir=tmp_path, validators=2) as second:
        assert containers(second.base) == seen
        consensus = second.node.chains["P"].health()["engine"]["consensus"]
        assert consensus["lastAcceptedID"] == seen[-1]["id"]
        issue_base_tx(second, 1_000_000_000)
        latest = containers(second.base)[-1]
        assert ProposerBlock.parse(decode_hex(latest["bytes"])).parent_id == ID.from_string(
            seen[-1]["id"]
        )


def test_block_identity_without_the_index() -> None:
    with serve_devnet(index_enabled=False, validators=1) as node:
        issue_base_tx(node, 1_000_000_000)
        body = {"jsonrpc": "2.0", "id": 1, "method": "index.getLastAccepted", "params": {}}
        gone = httpx.post(node.base + "/ext/index/P/block", json=body, timeout=30)
        assert gone.status_code == 404
        runtime = node.node.chains["P"].runtime  # type: ignore[attr-defined]
        consensus = node.node.chains["P"].health()["engine"]["consensus"]
        assert consensus == {
            "lastAcceptedHeight": 1,
            "lastAcceptedID": str(runtime.blocks.last.id),
            "longestProcessingBlock": "0s",
            "processingBlocks": 0,
        }
        assert runtime.blocks.last.id != runtime.blocks.last.inner_id
