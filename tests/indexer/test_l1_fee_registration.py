"""The L1 fee ledger over a RegisterL1ValidatorTx: a devnet L1 booted by ConvertSubnetToL1Tx
(its validators paying from their balances) whose manager contract registers one more validator
through ACP-99's flow, the network clock then hours on. Indexed by the real primary indexer, the
registration is a validation the ledger adds under the id and node the Warp message names, and
every validation's ledger balance equals platform.getL1Validator's; every day equals the
per-second brute force."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx

from snowfield.cli.up import demo_l1_genesis
from snowfield.crypto.keys import EWOQ_KEY
from snowfield.indexer.primary import PlatformSource, PrimaryIndexer
from snowfield.node.l1_boot import MANAGER_ADDRESS
from snowfield.store.database import Database
from snowfield.testing import open_database, serve_devnet
from snowfield.workload.validator_manager import DEMO_BALANCE, run_manager_demo
from tests.metrics import brute_l1_fees
from tests.workload.test_validator_manager import _p_block

P_ID = "11111111111111111111111111111111LpoYY"
MANAGER = "0x" + MANAGER_ADDRESS.hex()
HOURS = 5 * 3600


async def _sync(db: Database, base: str) -> None:
    source = PlatformSource(base)
    try:
        await PrimaryIndexer(db, source, batch_size=4).sync()
    finally:
        await source.aclose()


def _p(base: str, method: str, params: dict[str, object]) -> dict[str, object]:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return dict(httpx.post(f"{base}/ext/bc/P", json=body, timeout=10).json()["result"])


def test_a_registered_validator_pays_what_the_node_charges(tmp_path: Path) -> None:
    genesis = demo_l1_genesis(tmp_path)
    with serve_devnet(validators=4, l1=(f"managed={genesis}",)) as node:
        (chain,) = [c for c in node.node.platform.chain.blockchains() if c.name == "managed"]
        owner_secret = node.node.dev_keys[2].private_key
        done = asyncio.run(
            run_manager_demo(node.base, str(chain.blockchain_id), MANAGER, owner_secret,
                             EWOQ_KEY, lambda _line: None)
        )  # fmt: skip
        assert done is not None
        httpx.post(node.rpc, json={"jsonrpc": "2.0", "id": 1, "method": "evm_increaseTime",
                                   "params": [HOURS]})  # fmt: skip
        settings, ids = node.node.settings, node.node.ids
        asyncio.run(_p_block(node.base, settings.network_id, ids.avax_asset))
        with open_database(str(tmp_path / "i.db")) as db:
            asyncio.run(_sync(db, node.base))
            registered = db.query(
                "SELECT node_id, subnet_id, amount FROM l1_fee_events WHERE kind = 'add'"
                " AND validation_id = ?",
                (str(done.validation_id),),
            )
            got = _p(node.base, "platform.getL1Validator",
                     {"validationID": str(done.validation_id)})  # fmt: skip
            assert registered == [(got["nodeID"], str(chain.subnet_id), DEMO_BALANCE)]
            balances = db.query("SELECT validation_id, balance FROM l1_fee_balances")
            assert len(balances) >= 2
            for validation, balance in balances:
                node_says = _p(node.base, "platform.getL1Validator", {"validationID": validation})
                assert int(str(node_says["balance"])) == int(balance), validation
            paid = db.query_one(
                "SELECT fees FROM l1_fee_days WHERE scope = 'validation' AND member = ?"
                " ORDER BY day DESC LIMIT 1",
                (str(done.validation_id),),
            )
            assert paid is not None and int(paid[0]) > 0
            stored = {
                (str(s), str(m), int(d)): (int(f), int(p))
                for s, m, d, f, p in db.query(
                    "SELECT scope, member, day, fees, payers FROM l1_fee_days"
                )
            }
            assert stored == brute_l1_fees.days(db, P_ID)
