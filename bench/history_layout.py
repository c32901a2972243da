"""Operation 5's page read two ways over the same store, in one run (store/history_pages.py's
docstring reports the figures): the contiguous copy (address_txs.native_document, one range
read) against the join into `transactions` (its row per entry: what schema 11 read). Store
level only (query and joining the bytes), over bench/api.py's cached stores: one address's
first page, and the first 4 pages of 1,024 addresses in turn. Rounds interleave the two, so
the machine's load hits both alike; each figure is the best round. Bounded in count.

    python bench/history_layout.py [--sizes 100000 400000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import api as op5
from snowfield.store.database import Database
from snowfield.store.history_pages import _EMPTY_REST, _ITEM, _JOIN

_WHERE = (
    " WHERE a.chain_id = ? AND a.address = ?{ks}"
    " ORDER BY a.block_number DESC, a.tx_index DESC LIMIT 11"
)
CONTIGUOUS = (
    f"SELECT a.block_number, a.tx_index, CAST({_ITEM.format(native='a.native_document')} AS BLOB)"
    " FROM address_txs a" + _WHERE
)
JOINED = (
    f"SELECT a.block_number, a.tx_index, CAST({_ITEM.format(native='t.document')} AS BLOB)"
    " FROM address_txs a" + _JOIN + _WHERE
)
KS = " AND (a.block_number, a.tx_index) < (?, ?)"


def pages(db: Database) -> list[tuple[str, tuple[int, int] | None]]:
    """(address, key after) of the spread load's pages: bench/api.py's addresses, 4 pages each."""
    out: list[tuple[str, tuple[int, int] | None]] = []
    for address in op5.OTHERS[: op5.SPREAD_ADDRESSES]:
        after = None
        for _ in range(op5.SPREAD_PAGES):
            out.append((address, after))
            rows = db.query(
                CONTIGUOUS.replace("{ks}", KS if after else ""), _params(address, after)
            )
            if len(rows) < 11:
                break
            after = (int(rows[9][0]), int(rows[9][1]))
    return out


def _params(address: str, after: tuple[int, int] | None) -> list[object]:
    return [_EMPTY_REST, op5.CHAIN_ID, address, *(after or ())]


def run(db: Database, sql: str, load: list[tuple[str, tuple[int, int] | None]]) -> float:
    """Microseconds per page: query, then the page's items joined as the service joins them."""
    started = time.perf_counter()
    for address, after in load:
        rows = db.query(sql.replace("{ks}", KS if after else ""), _params(address, after))
        b"[" + b",".join(r[2] for r in rows[:10]) + b"]"
    return (time.perf_counter() - started) / len(load) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 400_000])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    for size in args.sizes:
        path = op5.cache_path(size)
        if not path.exists():
            print(f"{size:,}: no cached store (run bench/api.py first)")
            continue
        db = Database(str(path))
        one = [(op5.TARGET, None)] * 2_000
        spread = pages(db)
        best: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.rounds):
            for load_name, load in (("one URL", one), ("spread", spread)):
                for name, sql in (("contiguous", CONTIGUOUS), ("join", JOINED)):
                    best.setdefault((load_name, name), []).append(run(db, sql, load))
        db.close()
        for load_name in ("one URL", "spread"):
            c, j = (min(best[(load_name, n)]) for n in ("contiguous", "join"))
            med = statistics.median(best[(load_name, "contiguous")])
            print(f"{size:>9,} {load_name:8} ({len(spread) if load_name == 'spread' else 2000:,}"
                  f" pages): contiguous {c:7.1f} us, join {j:7.1f} us, join/contiguous"
                  f" {j / c:4.2f}x (contiguous median {med:.1f} us)", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
