"""What validator_activity webhooks cost the P-Chain block writer: `primary.write_blocks` of the
same batches (one delegation per block, as a staking-heavy chain has) into a fresh SQLite file,
without webhooks (the baseline, measured in the same run) and with `--hooks` active
validator_activity webhooks, one per node, so every block's delegation is a message for one.
Modes alternate for `--rounds` rounds (best of each), so drift on a noisy machine hits both.

    python bench/validator_webhooks.py [--rounds 3] [--blocks 4096] [--hooks 100]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import tempfile
import time
from pathlib import Path

from snowfield.formats.ids import NodeID
from snowfield.store import primary, webhooks
from snowfield.store.database import Database
from snowfield.store.keys import create_key
from snowfield.store.primary_rows import BlockRows, StakerRow, TxRow
from snowfield.store.webhooks import WebhookRow

P = "11111111111111111111111111111111LpoYY"
BATCH = 256  # the indexer's batch


def _node(n: int) -> str:
    return str(NodeID(hashlib.sha256(b"node %d" % n).digest()[:20]))


def _batches(blocks: int, nodes: int) -> list[list[BlockRows]]:
    out: list[list[BlockRows]] = []
    for start in range(1, blocks + 1, BATCH):
        batch = []
        for height in range(start, min(start + BATCH, blocks + 1)):
            tx = f"tx{height}"
            b = BlockRows(height, f"block{height}", f"block{height - 1}", 1_700_000_000 + height)
            b.txs = [TxRow(tx, "AddPermissionlessDelegatorTx", 0, "", {}, ())]
            b.stakers = [
                StakerRow(tx, "DELEGATOR", _node(height % nodes), P, 1_700_000_000,
                          1_800_000_000, 25 * 10**9, ("custom1reward",), (), None)
            ]  # fmt: skip
            batch.append(b)
        out.append(batch)
    return out


def _store(path: Path, hooks: int) -> Database:
    db = Database(str(path))
    db.migrate()
    primary.record_network(db, primary.PrimaryNetwork(P, 1337, "custom", None, None, "A"))
    key, _ = create_key(db, "bench")
    webhooks.ensure_secret(db, key.id)
    for n in range(hooks):
        meta = {
            "keyType": "nodeId",
            "keys": [_node(n)],
            "subEvents": {"validatorActivitySubEvents": ["delegator_stake"]},
        }
        draft = WebhookRow(
            "", key.id, "validator_activity", "http://127.0.0.1:9/", "", "", P, None, "fuji",
            "active", 0, False, False, meta,
        )  # fmt: skip
        webhooks.create_webhook(db, draft, ())
    return db


def run(work: Path, batches: list[list[BlockRows]], hooks: int) -> tuple[float, int]:
    """(blocks/s of the writes, messages written)."""
    db = _store(work / f"bench-{time.monotonic_ns()}.db", hooks)
    try:
        started = time.perf_counter()
        for batch in batches:
            primary.write_blocks(db, P, batch, batch[-1].height + 1)
        elapsed = time.perf_counter() - started
        messages = int(db.query("SELECT COUNT(*) FROM webhook_outbox")[0][0])
    finally:
        db.close()
    return sum(len(b) for b in batches) / elapsed, messages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--blocks", type=int, default=4096)
    parser.add_argument("--hooks", type=int, default=100)
    args = parser.parse_args()
    batches = _batches(args.blocks, args.hooks)
    best = {0: 0.0, args.hooks: 0.0}
    messages = dict.fromkeys(best, 0)
    with tempfile.TemporaryDirectory() as work:
        for _ in range(args.rounds):
            for hooks in best:
                rate, messages[hooks] = run(Path(work), batches, hooks)
                best[hooks] = max(best[hooks], rate)
    print(f"P-Chain blocks written: {args.blocks} (batches of {BATCH}); cores: {os.cpu_count()};"
          f" load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    for hooks, rate in best.items():
        print(f"{f'{hooks} validator_activity webhooks':<34}{rate:>10,.0f} blocks/s"
              f"  {rate / best[0]:.0%}  ({messages[hooks]} messages)")  # fmt: skip


if __name__ == "__main__":
    main()
