"""The X-Chain demo against a devnet: assets, transfers, NFT mints and atomic moves, all
accepted; the X→P exports are imported on P."""

from __future__ import annotations

import asyncio

from snowfield.testing import serve_devnet
from snowfield.workload.x_demo import run_x_demo
from tests.node.test_node_apis import service


def test_x_demo_rounds() -> None:
    with serve_devnet(x_dag_vertices=4) as node:
        keys = [k.private_key for k in node.node.dev_keys[-3:]]
        lines: list[str] = []
        done = asyncio.run(
            run_x_demo(node.base, keys, rounds=4, interval=0.0, stop=None, log=lines.append)
        )
        assert done == 4
        exchange = node.node.chains["X"].runtime
        # the token, per round a send and an export, the NFT family and mints on rounds 1 and 4
        assert len(exchange.containers.txs) == 2 + 4 + 4 + 2
        assert exchange.chain.linearized
        assert len(exchange.containers.vertices) == 5  # 4 vertices and the stop vertex
        imports = [line.split("imported on P ")[1] for line in lines if "imported on P " in line]
        assert len(imports) == 2
        for tx_id in imports:
            status = service(f"{node.base}/ext/bc/P", "platform.getTxStatus", {"txID": tx_id})
            assert status["result"] == {"status": "Committed"}
