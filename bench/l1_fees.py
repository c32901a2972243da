"""The L1 validator fee ledger's replay cost: P-Chain blocks two seconds apart with V active L1
validators (default 20,000 blocks, about eleven hours of chain, and 1,000 validators: mainnet's
scale), written through `primary.write_blocks` into SQLite in batches of 256 as the indexer
writes them, against the same blocks written with no L1 validator in the same run (the
baseline: what empty blocks' own rows cost). The ledger accrues lazily (store/l1_fees.py): a
block costs O(1) and a batch O(active validators) (each one's day and balance written once),
where a per-block loop over the validators took 27 s for the fee arithmetic alone at the
defaults. Measured 2026-11-27 (load average 11.9, 2 cores shared): baseline 0.60 s, 1,000
paying 6.87 s (11.4x; about 88 ms a batch of 256 blocks).

    python bench/l1_fees.py [--blocks 20000] [--validators 1000]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from snowfield.store import primary
from snowfield.store.database import Database
from snowfield.store.l1_fee_math import MAINNET
from snowfield.store.primary_rows import BlockRows, L1Change

PCHAIN = "11111111111111111111111111111111LpoYY"
START = 1_700_000_000
BATCH = 256


def _blocks(count: int, validators: int) -> list[BlockRows]:
    out = []
    for h in range(1, count + 1):
        rows = BlockRows(h, f"b{h}", f"b{h - 1}", START + 2 * h)
        if h == 1:
            rows.l1_changes = [
                L1Change(f"t{i}", i, "register", f"v{i}", f"n{i}", "s", 1, 10**13)
                for i in range(validators)
            ]
        out.append(rows)
    return out


def _run(directory: Path, name: str, blocks: list[BlockRows]) -> float:
    db = Database(str(directory / f"{name}.db"))
    try:
        db.migrate()
        primary.record_network(db, primary.PrimaryNetwork(PCHAIN, 1, "avax", None, None, "AVAX"))
        began = time.perf_counter()
        for i in range(0, len(blocks), BATCH):
            part = blocks[i : i + BATCH]
            primary.write_blocks(db, PCHAIN, part, part[-1].height + 1, fees=MAINNET)
        took = time.perf_counter() - began
        paid = db.query_one("SELECT SUM(fees) FROM l1_fee_days WHERE scope = 'all'")
        print(f"{name}: {took:.2f} s, {0 if paid[0] is None else int(paid[0])} nAVAX charged")
        return took
    finally:
        db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=20_000)
    parser.add_argument("--validators", type=int, default=1_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = _run(Path(tmp), "baseline (no L1 validator)", _blocks(args.blocks, 0))
        paying = _run(Path(tmp), f"{args.validators} paying", _blocks(args.blocks, args.validators))
    print(f"ratio {paying / base:.2f}x; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
