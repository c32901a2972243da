"""Data API, the balance operations and listNative, each measured against operation 5 in the
same run, over bench/api.py's stores with their token balances added.

bench/api.py's stores hold ERC-20 transfers (one body transaction in three) but no token
balance rows: this script adds them once per cached store, as the indexer writes them (each
transfer's sender and receiver, a history row per block that changed a balance, the newest as
the current row; through store/token_balances.py), marked in the store's meta table. So that
listErc1155 and listCollectibles read rows too, the same transfers drive collectibles: every
fourth one also moves one of 8 ids of an ERC-1155 contract between the same parties, and another
fourth mints a new ERC-721 id to its receiver (NFT_MARK; no tokens or nfts rows for them).

1. Throughput: requests/s of each operation against operation 5's on the same server (the
   large store), alternating rounds, best round of each (bench/evm_views.py's loop); target
   >= 50% of operation 5's. One-URL loads (TARGET: getNative, listErc20, listErc1155 and
   listCollectibles now and at the store's middle block, listNative's first page) against
   operation 5's one URL; spread loads (getNative now and listErc20 at the middle block, of
   1,024 addresses) against operation 5's first pages of the same addresses.
2. Latency: p50/p95 of sequential requests against the two stores (`--sizes`, default 100k and
   2M transactions), the stores taking turns request by request. Targets: p50 large/small
   <= 1.2x, and a balance at a past block <= 2x the current one (p50, same store).

Loopback only; every loop is bounded in count and time.

    python bench/evm_balances.py [--sizes 100000 2000000] [--duration 8] [--skip-latency]
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parent))
import evm_views
from snowfield.store import token_balances
from snowfield.store.database import Database
from snowfield.store.rows import ERC20, ERC721, ERC1155, TokenBalanceRow

MARK = "bench_token_balances"  # meta key: this store has its token balances
NFT_MARK = "bench_nft_balances"  # meta key: ... and its collectibles' balances
ERC1155_CONTRACTS = ("0x" + "1155" * 10, "0x" + "1156" * 10)
ERC721_CONTRACTS = ("0x" + "0721" * 10, "0x" + "0722" * 10)
ERC1155_IDS = 8
SPREAD = 1_024
DEEP_PAGE = 50
TARGET_HISTORY = 2.0  # a balance at a past block costs at most this many current ones
ENRICH_LIMIT = 1_800.0  # seconds for adding one store's token balances
BATCH = 50_000


def add_token_balances(path: Path, chain_id: int) -> None:
    """The token balance rows of every transfer in the store, once (see the module's text)."""
    db = Database(str(path), query_timeout=600)
    try:
        if db.meta(MARK) == "1":
            return
        started = time.monotonic()
        held: dict[tuple[str, str], int] = {}
        rows: list[TokenBalanceRow] = []
        last = -1
        while True:  # keyset over the transfers in block order, bounded by ENRICH_LIMIT
            found = db.query(
                "SELECT block_number, token, from_addr, to_addr, value FROM transfers"
                " WHERE chain_id = ? AND erc_type = 'ERC-20' AND block_number > ?"
                " ORDER BY block_number, log_index, batch_index LIMIT ?",
                (chain_id, last, BATCH),
            )
            if not found:
                break
            cut = found[-1][0]  # whole blocks only: a block's rows go in together
            whole = [r for r in found if r[0] < cut] or found
            for number, token, src, dst, value in whole:
                for holder, delta in ((src, -int(value)), (dst, int(value))):
                    key = (holder, token)
                    held[key] = held.get(key, 0) + delta
                    rows.append(
                        TokenBalanceRow(chain_id, holder, ERC20, token, None, number, held[key])
                    )
            last = whole[-1][0]
            with db.transaction() as w:
                token_balances.insert(w, rows)
            rows.clear()
            if time.monotonic() - started > ENRICH_LIMIT:
                raise RuntimeError("adding token balances took too long")
        with db.transaction() as w:
            w.execute("INSERT INTO meta (key, value) VALUES (?, '1')", (MARK,))
        print(f"  token balances added to {path.name} in {time.monotonic() - started:.0f} s")
    finally:
        db.close()


def add_nft_balances(path: Path, chain_id: int) -> None:
    """ERC-1155 and ERC-721 balance rows driven by the ERC-20 transfers, once (module text)."""
    db = Database(str(path), query_timeout=600)
    try:
        if db.meta(NFT_MARK) == "1":
            return
        started = time.monotonic()
        held: dict[tuple[str, str, int], int] = {}
        minted = 0
        last = -1
        while True:  # the same keyset walk as add_token_balances, whole blocks per batch
            found = db.query(
                "SELECT block_number, log_index, from_addr, to_addr FROM transfers"
                " WHERE chain_id = ? AND erc_type = 'ERC-20' AND block_number > ?"
                " ORDER BY block_number, log_index, batch_index LIMIT ?",
                (chain_id, last, BATCH),
            )
            if not found:
                break
            cut = found[-1][0]
            whole = [r for r in found if r[0] < cut] or found
            rows: list[TokenBalanceRow] = []
            for number, log_index, src, dst in whole:
                mixed = zlib.crc32(b"%d:%d" % (number, log_index))  # TARGET's are periodic
                turn, pick = mixed % 4, mixed >> 2 & 1
                if turn == 0:
                    contract, token_id = ERC1155_CONTRACTS[pick], (mixed >> 3) % ERC1155_IDS
                    for holder, delta in ((src, -1), (dst, 1)):
                        key = (holder, contract, token_id)
                        held[key] = held.get(key, 0) + delta
                        rows.append(TokenBalanceRow(chain_id, holder, ERC1155, contract,
                                                    token_id, number, held[key]))  # fmt: skip
                elif turn == 2:
                    minted += 1
                    rows.append(TokenBalanceRow(chain_id, dst, ERC721, ERC721_CONTRACTS[pick],
                                                minted, number, 1))  # fmt: skip
            last = whole[-1][0]
            with db.transaction() as w:
                token_balances.insert(w, rows)
            if time.monotonic() - started > ENRICH_LIMIT:
                raise RuntimeError("adding collectible balances took too long")
        with db.transaction() as w:
            w.execute("INSERT INTO meta (key, value) VALUES (?, '1')", (NFT_MARK,))
        print(f"  collectible balances added to {path.name} in {time.monotonic() - started:.0f} s")
    finally:
        db.close()


def paths(ab: ModuleType, head: int) -> dict[str, Callable[[str], str]]:
    """Each measured operation as a path of an address."""
    base = f"/v1/chains/{ab.CHAIN_ID}/addresses"
    middle = head // 2
    return {
        "getNative": lambda a: f"{base}/{a}/balances:getNative",
        "getNative at a past block": lambda a: (
            f"{base}/{a}/balances:getNative?blockNumber={middle}"
        ),
        "listErc20": lambda a: f"{base}/{a}/balances:listErc20?pageSize=10",
        "listErc20 at a past block": (
            lambda a: f"{base}/{a}/balances:listErc20?pageSize=10&blockNumber={middle}"
        ),
        "listErc1155": lambda a: f"{base}/{a}/balances:listErc1155?pageSize=10",
        "listErc1155 at a past block": (
            lambda a: f"{base}/{a}/balances:listErc1155?pageSize=10&blockNumber={middle}"
        ),
        "listCollectibles": lambda a: f"{base}/{a}/balances:listCollectibles?pageSize=10",
        "listCollectibles at a past block": (
            lambda a: f"{base}/{a}/balances:listCollectibles?pageSize=10&blockNumber={middle}"
        ),
        "listNative": lambda a: f"{base}/{a}/transactions:listNative?pageSize=10",
    }


def head_of(path: Path) -> int:
    db = Database(str(path))
    try:
        row = db.query_one("SELECT MAX(height) FROM checkpoints")
        assert row is not None
        return int(row[0])
    finally:
        db.close()


def run(
    sizes: Sequence[int], duration: float, generator: str, cpus: set[int], flat: bool, rates: bool
) -> None:
    ab = evm_views._api_bench()
    cores = os.cpu_count() or 1
    ab.pin({cores - 1})
    print(f"bench/evm_balances.py: servers on CPU {sorted(cpus)}, load generator {generator}"
          f" on CPU {cores - 1}; stores of bench/api.py:")  # fmt: skip
    stores = {size: ab.database(size) for size in sizes}
    for size, path in stores.items():
        add_token_balances(path, ab.CHAIN_ID)
        add_nft_balances(path, ab.CHAIN_ID)
        print(f"  {size:>11,}: {ab.describe(path)}", flush=True)
    heads = {size: head_of(path) for size, path in stores.items()}
    before = ab.load_average()
    large = sizes[-1]
    with contextlib.ExitStack() as stack:
        ports = {
            s: stack.enter_context(ab.server("data", p, ab.op5_path(), cpus))
            for s, p in stores.items()
        }
        if rates:
            ops = paths(ab, heads[large])
            port = ports[large]
            spread = ab.OTHERS[:SPREAD]
            # First pages only, as ours are: operation 5's first page of the same addresses.
            op5_one, op5_spread = [ab.op5_path()], [ab.op5_path(a) for a in spread]
            loads = {
                f"{name}, one URL": (evm_views.checked(ab, port, [path(ab.TARGET)]), op5_one)
                for name, path in ops.items()
            }
            for name in ("getNative", "listErc20 at a past block"):
                mine = evm_views.checked(ab, port, [ops[name](a) for a in spread])
                loads[f"{name}, spread"] = (mine, op5_spread)
            print(f"\n1. throughput against operation 5, {large:,}-transaction store:", flush=True)
            evm_views.report_throughput(evm_views.throughput(ab, generator, port, loads, duration))
        if flat:
            latency(ab, sizes, ports, heads)
    print(f"(1-minute load average: {before} before, {ab.load_average()} after)")


def latency(
    ab: ModuleType, sizes: Sequence[int], ports: dict[int, int], heads: dict[int, int]
) -> None:
    print("\n2. latency by store size (ms):", flush=True)
    head = "".join(f"{f'{s:,} p50':>15}{'p95':>8}" for s in sizes)
    print(f"  {'':<32}{head}{'p50 ratio':>11}")
    worst = 0.0
    medians: dict[str, list[float]] = {}
    for name in paths(ab, 0):
        cases = {s: (ports[s], [paths(ab, heads[s])[name](ab.TARGET)]) for s in sizes}
        if name == "listNative":
            deep = {
                s: (ports[s], [evm_views.deep(ab, ports[s], cases[s][1][0], "", DEEP_PAGE)])
                for s in sizes
            }
            worst = max(worst, _row(ab, f"{name}, page 1", cases, sizes, medians))
            worst = max(worst, _row(ab, f"{name}, page {DEEP_PAGE}", deep, sizes, medians))
        else:
            worst = max(worst, _row(ab, name, cases, sizes, medians))
    verdict = "meets" if worst <= evm_views.TARGET_FLAT else "ABOVE"
    print(f"  worst p50 ratio {sizes[-1]:,} / {sizes[0]:,}: {worst:.2f}x ({verdict} the"
          f" <= {evm_views.TARGET_FLAT}x target)")  # fmt: skip
    for name in ("getNative", "listErc20", "listErc1155", "listCollectibles"):
        for i, size in enumerate(sizes):
            ratio = medians[f"{name} at a past block"][i] / medians[name][i]
            verdict = "meets" if ratio <= TARGET_HISTORY else "ABOVE"
            print(f"  {name} at a past block / now, {size:,}: {ratio:.2f}x ({verdict} the"
                  f" <= {TARGET_HISTORY}x target)")  # fmt: skip


def _row(
    ab: ModuleType,
    name: str,
    cases: dict[int, tuple[int, list[str]]],
    sizes: Sequence[int],
    medians: dict[str, list[float]],
) -> float:
    found = evm_views.latency(ab, cases)
    cells = [evm_views.p50_p95(found[s]) for s in sizes]
    medians[name] = [p50 for p50, _ in cells]
    ratio = cells[-1][0] / cells[0][0]
    row = "".join(f"{p50:>15.2f}{p95:>8.2f}" for p50, p95 in cells)
    print(f"  {name:<32}{row}{ratio:>10.2f}x", flush=True)
    return ratio


def main() -> None:
    evm_views.main_with(__doc__ or "", run)


if __name__ == "__main__":
    main()
