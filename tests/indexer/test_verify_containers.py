"""Every ProposerVM container the devnet serves verifies as avalanchego's `proposervm.Parse
(bytes, chainID)` checks it, for its own chain; `snowfield index-primary --verify-containers`
checks each P-Chain container before indexing it and stops on a forged one."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from snowfield.crypto.proposervm import parse_verified
from snowfield.errors import InvalidParams
from snowfield.formats.hexcheck import decode_hex
from snowfield.formats.ids import ID, P_CHAIN_ID
from snowfield.formats.proposervm import StatelessBlock
from snowfield.indexer.primary import Container, PlatformSource, PrimaryIndexer
from snowfield.store.database import Database
from snowfield.testing import RunningNode, serve_devnet
from snowfield.workload.platform_demo import demo_secret, run_platform_demo
from snowfield.workload.x_demo import run_x_demo
from tests.helpers import rpc_reply
from tests.node.test_node_apis import service


@pytest.fixture(scope="module")
def devnet() -> Iterator[RunningNode]:
    with serve_devnet(validators=3, l1=("verified",), x_dag_vertices=0) as node:
        keys = [k.private_key for k in node.node.dev_keys]
        asyncio.run(run_platform_demo(node.base, demo_secret(keys), lambda _: None))
        asyncio.run(run_x_demo(node.base, keys[3:6], rounds=1, interval=0, stop=None, log=print))
        (l1,) = [c for c in node.node.platform.chain.blockchains() if c.name == "verified"]
        dev = "0x" + node.node.dev_keys[0].address.hex()
        for url in (node.rpc, f"{node.base}/ext/bc/{l1.blockchain_id}/rpc"):  # a block each
            send = {"from": dev, "to": dev, "value": "0x1"}
            rpc_reply(url, "eth_sendTransaction", send)
        yield node


def _containers(node: RunningNode, path: str) -> list[tuple[str, bytes]]:
    url = f"{node.base}/ext/index/{path}"
    reply = service(url, "index.getLastAccepted", {})
    assert "result" in reply, (path, reply)
    last = int(reply["result"]["index"])
    reply = service(url, "index.getContainerRange", {"startIndex": 0, "numToFetch": last + 1})
    assert "result" in reply, (path, reply)
    return [(c["id"], decode_hex(c["bytes"])) for c in reply["result"]]


def test_every_container_of_the_devnet_verifies_for_its_chain(devnet: RunningNode) -> None:
    ids = devnet.node.ids
    (l1,) = [c for c in devnet.node.platform.chain.blockchains() if c.name == "verified"]
    chains = {
        "P/block": P_CHAIN_ID,
        "X/block": ID.from_string(ids.x_chain),
        "C/block": ID.from_string(ids.c_chain),
        f"{l1.blockchain_id}/block": l1.blockchain_id,
    }
    signed = 0
    for path, chain in chains.items():
        containers = _containers(devnet, path)
        assert containers, path
        for container_id, data in containers:
            block = parse_verified(data, chain)
            assert str(block.id) == container_id
            if isinstance(block, StatelessBlock) and block.certificate:
                signed += 1
                other = P_CHAIN_ID if chain != P_CHAIN_ID else ID(b"\x01" * 32)
                with pytest.raises(InvalidParams, match="verification"):
                    parse_verified(data, other)  # signed for its chain, not another
    assert signed > 0


class ForgingSource(PlatformSource):
    """A node that serves one P-Chain container with a signature byte flipped (a failure no
    honest node produces)."""

    forged_index = 2

    async def containers(self, start: int, count: int) -> list[Container]:
        found = await super().containers(start, count)
        return [self._forge(c) if c.index == self.forged_index else c for c in found]

    def _forge(self, container: Container) -> Container:
        data = bytearray(container.data)
        data[-1] ^= 1  # the last byte of the proposer's signature
        return dataclasses.replace(container, data=bytes(data))


async def _index(db: Database, source: PlatformSource, verify: bool) -> int:
    try:
        return await PrimaryIndexer(db, source, batch_size=4, verify_containers=verify).sync()
    finally:
        await source.aclose()


def test_the_primary_indexer_checks_what_it_reads(devnet: RunningNode, tmp_path: Path) -> None:
    honest = Database(str(tmp_path / "honest.db"))
    honest.migrate()
    try:
        asyncio.run(_index(honest, PlatformSource(devnet.base), verify=True))
    finally:
        honest.close()
    forged = Database(str(tmp_path / "forged.db"))
    forged.migrate()
    try:
        [(container_id, data)] = [
            c
            for i, c in enumerate(_containers(devnet, "P/block"))
            if i == ForgingSource.forged_index
        ]
        block = parse_verified(data, P_CHAIN_ID)
        assert isinstance(block, StatelessBlock) and block.certificate  # a signed one
        with pytest.raises(InvalidParams) as raised:
            asyncio.run(_index(forged, ForgingSource(devnet.base), verify=True))
        assert raised.value.message == (
            f"P-Chain container 2 ({container_id}) failed verification: "
            "staking: ECDSA verification failure"
        )
        # without the opt-in, the same node is indexed as it serves
        asyncio.run(_index(forged, ForgingSource(devnet.base), verify=False))
    finally:
        forged.close()
