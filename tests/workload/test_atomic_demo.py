"""The C-Chain atomic demo: its exports are accepted, in blocks' extra data, importable on P."""

from __future__ import annotations

import asyncio

from snowfield.crypto.secp256k1 import public_key_of
from snowfield.formats.bech32 import format_address
from snowfield.formats.ids import ID, ShortID
from snowfield.testing import serve_devnet
from snowfield.workload.atomic_demo import run_atomic_demo
from tests.node.test_node_apis import service


def test_atomic_demo_exports_to_p() -> None:
    with serve_devnet() as node:
        secret = node.node.dev_keys[0].private_key
        lines: list[str] = []
        accepted = asyncio.run(
            run_atomic_demo(node.base, secret, rounds=2, interval=0, stop=None, log=lines.append)
        )
        assert len(accepted) == 2 and len(lines) == 2
        owner = format_address("P", "local", ShortID.from_public_key(public_key_of(secret)).raw)
        reply = service(
            node.base + "/ext/bc/P", "platform.getUTXOs", {"addresses": [owner], "sourceChain": "C"}
        )
        assert reply["result"]["numFetched"] == "2"
        ledger = node.node.c.chain.atomic
        assert ledger is not None
        heights = [ledger.status(ID.from_string(t))[1] for t in accepted]
        assert all(h is not None and node.node.c.chain.blocks[h].ext_data for h in heights)
