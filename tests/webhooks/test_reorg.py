"""A real fork seen by a webhook: two devnets share five blocks, then diverge; the indexer
indexes one, the worker delivers, then the indexer follows the other. The webhook is told
`removed` for every delivered event of the abandoned branch, then gets the new branch's."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from web3 import Web3

from snowfield.store import webhooks
from snowfield.store.keys import create_key
from snowfield.store.rows import ChainRow
from snowfield.store.webhooks import WebhookRow
from snowfield.store.writes import upsert_chain
from snowfield.testing import index_node, open_database, serve_devnet
from snowfield.webhooks.policy import UrlPolicy, networks
from snowfield.webhooks.worker import Worker
from tests.helpers import signed_transfer
from tests.indexer.test_reorg import X, Y, head_hash, send_at
from tests.webhooks.receiver import receiver, validate

LOOPBACK = UrlPolicy(allow=networks(["127.0.0.0/8"]))


async def _deliver(worker: Worker) -> None:
    await worker.run_once()
    await worker.close()


def test_a_fork_sends_removed_for_the_abandoned_branch(tmp_path: Path) -> None:
    start = int(time.time()) + 10
    genesis = start - 100
    with serve_devnet(genesis_timestamp=genesis) as a, serve_devnet(genesis_timestamp=genesis) as b:
        for i in range(5):
            raw = signed_transfer(i, to="0x" + "11" * 20, value=1000 + i)
            send_at(a, start + i, raw)
            send_at(b, start + i, raw)
        for i in range(5, 9):
            send_at(a, start + 100 + i, signed_transfer(i, to=Web3.to_checksum_address(X), value=7))
        for i in range(5, 12):
            send_at(b, start + 200 + i, signed_transfer(i, to=Web3.to_checksum_address(Y), value=9))
        assert head_hash(a, 6) != head_hash(b, 6)
        with open_database(str(tmp_path / "forked.db")) as db, receiver() as rx:
            upsert_chain(db, ChainRow(chain_id=43112, name="C", network="local", rpc_url=a.rpc))
            key, _ = create_key(db, "owner")
            webhooks.ensure_secret(db, key.id)
            draft = WebhookRow(
                "", key.id, "address_activity", rx.url, "", "", "43112", 43112, None, "active",
                0, True, False,
            )  # fmt: skip
            webhooks.create_webhook(db, draft, [X, Y])
            index_node(db, a.rpc, batch_blocks=4)
            asyncio.run(_deliver(Worker(db, policy=LOOPBACK)))
            first = rx.bodies()
            assert [int(m["event"]["transaction"]["blockNumber"]) for m in first] == [6, 7, 8, 9]
            index_node(db, b.rpc, batch_blocks=4)  # unwinds to block 5, then b's 6-12
            asyncio.run(_deliver(Worker(db, policy=LOOPBACK)))
            later = rx.bodies()[len(first) :]
            secret = webhooks.shared_secret(db, key.id)
            assert secret is not None
            assert all(v["ok"] for v in validate(secret, rx.received))
    removed = [m for m in later if m.get("removed")]
    events = [m for m in later if not m.get("removed")]
    assert sorted(m["removedMessageId"] for m in removed) == sorted(m["messageId"] for m in first)
    assert {m["event"]["transaction"]["to"] for m in removed} == {X}
    assert [int(m["event"]["transaction"]["blockNumber"]) for m in events] == list(range(6, 13))
    assert {m["event"]["transaction"]["to"] for m in events} == {Y}
    assert not {m["messageId"] for m in later} & {m["messageId"] for m in first}
    assert later[: len(removed)] == removed  # told of the old branch before the new one
