"""What primary_network_address_activity webhooks cost the P-Chain writer: the write stage of
bench/primary_index.py (the rows of fetched, extracted containers written batch by batch into
a fresh SQLite file, the outbox with them) under three sets of webhooks, measured in the same
run, alternating for `--rounds` rounds (best of each), ratios against no webhooks:

- none: the writer asks once per batch whether any webhook follows the P-Chain;
- 100 idle: 100 webhooks following addresses no tx names (the common case);
- 1 busy: one webhook (all three sub-events, a threshold) following the address that pays for
  every tx of the chain, so every block writes a message with that address's balances.

The chain: `--base-txs` BaseTxs issued to a `snowfield devnet` child process (bench/pchain.py),
one block each, all spending from the one funded address. Loopback only; bounded.

    python bench/webhooks_primary.py [--rounds 3] [--base-txs 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from snowfield.formats.bech32 import format_address
from snowfield.indexer.extract.platform import Addresses
from snowfield.indexer.primary import PlatformSource, PrimaryIndexer
from snowfield.indexer.primary_extraction import InlineExtraction
from snowfield.store import primary, webhooks
from snowfield.store.database import Database
from snowfield.store.keys import create_key
from snowfield.store.primary_rows import BlockRows
from snowfield.store.webhooks import WebhookRow

BATCH = 256
Setup = Callable[[Database, str, str], None]  # (db, hrp, the funded address)


def _bench(name: str) -> ModuleType:
    path = Path(__file__).resolve().parent / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{name}_bench", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"{name}_bench"] = module
    spec.loader.exec_module(module)
    return module


def _hook(db: Database, owner: str, addresses: list[str]) -> None:
    metadata = {
        "keyType": "addresses",
        "subEvents": ["balance_change", "balance_threshold", "reward_distribution"],
        "balanceThresholdFilter": {"balanceType": "unlockedUnstaked", "balanceThreshold": "1"},
    }
    draft = WebhookRow(
        "", owner, "primary_network_address_activity", "http://127.0.0.1:9/", "bench", "",
        "p-chain", None, "fuji", "active", 0, False, False, metadata,
    )  # fmt: skip
    webhooks.create_webhook(db, draft, addresses)


def _none(db: Database, hrp: str, funded: str) -> None:
    pass


def _idle(db: Database, hrp: str, funded: str) -> None:
    key, _ = create_key(db, "bench")
    for n in range(100):
        _hook(db, key.id, [format_address("P", hrp, n.to_bytes(20, "big"))[2:]])


def _busy(db: Database, hrp: str, funded: str) -> None:
    key, _ = create_key(db, "bench")
    _hook(db, key.id, [funded])


SETUPS: dict[str, Setup] = {"none": _none, "100 idle": _idle, "1 busy": _busy}


async def fetch(
    base: str, count: int, work: Path
) -> tuple[primary.PrimaryNetwork, list[list[BlockRows]]]:
    """The chain's containers, extracted, batch by batch."""
    db = Database(str(work / "fetch.db"))
    db.migrate()
    source = PlatformSource(base)
    try:
        net = await PrimaryIndexer(db, source).prepare()
        extraction = InlineExtraction(Addresses(net.hrp))
        batches = [await source.containers(i, BATCH) for i in range(0, count, BATCH)]
        return net, [await extraction.blocks(b) for b in batches]
    finally:
        await source.aclose()
        db.close()


def write(
    work: Path, net: primary.PrimaryNetwork, rows: list[list[BlockRows]], setup: Setup, funded: str
) -> tuple[float, int]:
    """(containers/s of writing every batch, messages written) into a fresh file."""
    db = Database(str(work / f"w-{time.monotonic_ns()}.db"))
    db.migrate()
    try:
        primary.record_network(db, net)
        setup(db, net.hrp, funded)
        started = time.perf_counter()
        done = 0
        for blocks in rows:
            done += len(blocks)
            primary.write_blocks(db, net.pchain, blocks, done)
        elapsed = time.perf_counter() - started
        got = db.query_one("SELECT COUNT(*) FROM webhook_outbox")
        return done / elapsed, int(got[0]) if got else 0
    finally:
        db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--base-txs", type=int, default=2000)
    args = parser.parse_args()
    pb = _bench("pchain")
    pi = _bench("primary_index")
    with pb.devnet() as base, tempfile.TemporaryDirectory() as work:
        count = pi.build_chain(pb, base, args.base_txs, 0)
        net, rows = asyncio.run(fetch(base, count, Path(work)))
        funded = pb._p_address(net.network_id)[2:]
        best = dict.fromkeys(SETUPS, 0.0)
        messages = dict.fromkeys(SETUPS, 0)
        for _ in range(args.rounds):
            for name, setup in SETUPS.items():
                rate, messages[name] = write(Path(work), net, rows, setup, funded)
                best[name] = max(best[name], rate)
    load = os.getloadavg()
    print(f"P-Chain containers: {count} (batches of {BATCH}); cores: {os.cpu_count()};"
          f" load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")  # fmt: skip
    for name, rate in best.items():
        print(f"{name:<10}{rate:>10,.0f} containers/s  {rate / best['none']:.2f} of none"
              f"  ({messages[name]:,} messages)")  # fmt: skip


if __name__ == "__main__":
    main()
