"""The indexer on a node we did not write (anvil): parity traces (trace_block) and callTracer
traces give identical rows, and every balance row matches the node at its block."""

from __future__ import annotations

from pathlib import Path

from web3 import Web3

from snowfield.store.dump import dump
from snowfield.testing import index_node, open_database, run_demo_rounds, serve_anvil


def test_anvil_with_either_trace_api_gives_the_same_rows(tmp_path: Path) -> None:
    with serve_anvil() as url:
        run_demo_rounds(url, 2)
        dumps = {}
        for api in ("parity", "debug"):
            with open_database(str(tmp_path / f"{api}.db")) as db:
                indexer = index_node(db, url, traces=api, batch_blocks=7)
                assert indexer.source.trace_api == api
                dumps[api] = dump(db)
        with open_database(str(tmp_path / "auto.db")) as db:
            assert index_node(db, url).source.trace_api == "parity"
        w3 = Web3(Web3.HTTPProvider(url))
        for _, address, block, balance in dumps["parity"]["balances"]:
            assert int(balance) == w3.eth.get_balance(Web3.to_checksum_address(address), block)
    assert dumps["parity"] == dumps["debug"]
    assert dumps["parity"]["internal_txs"] and dumps["parity"]["contracts"]
    assert {row[7] for row in dumps["parity"]["contracts"]} == {"CREATE", "CREATE2"}


def test_devnet_without_trace_block_falls_back_to_call_tracer(tmp_path: Path) -> None:
    from snowfield.testing import serve_devnet

    with serve_devnet() as node, open_database(str(tmp_path / "d.db")) as db:
        run_demo_rounds(node.rpc, 1)
        indexer = index_node(db, node.rpc, batch_blocks=5)
        assert indexer.source.trace_api == "debug"
        assert db.query("SELECT COUNT(*) FROM internal_txs")[0][0] > 0
