"""Operation 5's page read two ways over the same store, in one run (store/history_pages.py's
docstring reports the figures): the contiguous copy (address_txs.native_document, one range
read) against the join into `transactions` (its row per entry: what schema 11 read). Store
level only (query and joining the bytes), over bench/api.py's cached stores: one address's
first page, and the first 4 pages of 1,024 addresses in turn. Rounds interleave the two, so
the machine's load hits both alike; each figure is the best round. Bounded in count.

`--pg URL`: the same on PostgreSQL (issue 34: use the layout there only if it measures better;
it did, and schema 27 took it up). bench/api.py's rows are written into a schema of their own
per size (`bench_layout_<size>_...`, kept for the next run) by the store's own `write_batch`,
so address_txs, with the copies, is laid out as the writer lays it (rows appended in block
order); a second table, `address_txs_plain`, holds the same rows without the copies (as
PostgreSQL stores were before 27), inserted in the same order, with the same key index, so the
two reads share every other table and the same run. The contiguous read on PostgreSQL is still
one heap fetch per entry (no clustered tables there); the join adds the `transactions` key
probe and its heap fetch. Also prints both tables' sizes.

    python bench/history_layout.py [--sizes 100000 400000] [--rounds 5] [--pg postgresql://127.0.0.1:5432/test]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import orjson

import api as op5
from snowfield.store import documents
from snowfield.store.database import Database
from snowfield.store.schema import SCHEMA_VERSION

# The item as SQL concatenated it (schemas 19-29; store/history_pages.py now joins the two
# documents' bytes itself): prefix, the transaction's document, then the sub-lists' members.
# `{native}`: where the document is read from (the copy beside the row, or the join).
_EMPTY_REST = orjson.dumps(documents.sublists((), (), {}, {}))[1:].decode()
_ITEM = (
    "'{{\"nativeTransaction\":' || {native} || ',' ||"
    " CASE WHEN a.document = '' THEN ? ELSE substr(a.document, 2) END"
)
# The join the copies replaced.
_JOIN = (
    " JOIN transactions t ON t.chain_id = a.chain_id AND t.block_number = a.block_number"
    " AND t.tx_index = a.tx_index"
)

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


# PostgreSQL: text concatenation (no BLOB cast); the rows without copies in their own table.
PG_CONTIGUOUS = (
    f"SELECT a.block_number, a.tx_index, {_ITEM.format(native='a.native_document')}"
    " FROM address_txs a" + _WHERE
)
PG_JOINED = (
    f"SELECT a.block_number, a.tx_index, {_ITEM.format(native='t.document')}"
    " FROM address_txs_plain a" + _JOIN + _WHERE
)


def pages(db: Database, sql: str = CONTIGUOUS) -> list[tuple[str, tuple[int, int] | None]]:
    """(address, key after) of the spread load's pages: bench/api.py's addresses, 4 pages each."""
    out: list[tuple[str, tuple[int, int] | None]] = []
    for address in op5.OTHERS[: op5.SPREAD_ADDRESSES]:
        after = None
        for _ in range(op5.SPREAD_PAGES):
            out.append((address, after))
            rows = db.query(sql.replace("{ks}", KS if after else ""), _params(address, after))
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
        if db.dialect != "sqlite":  # text arrives as str, as in history_pages.address_items
            rows = [(b, i, item.encode()) for b, i, item in rows]
        b"[" + b",".join(r[2] for r in rows[:10]) + b"]"
    return (time.perf_counter() - started) / len(load) * 1e6


def pg_store(url: str, size: int) -> Database:
    """The PostgreSQL schema of `size` transactions with both tables, built when missing."""
    schema = f"bench_layout_{size}_schema{SCHEMA_VERSION}_gen{op5.GENERATOR_VERSION}"
    target = f"{url}?schema={schema}"
    db = Database(target, query_timeout=600)  # its connection creates the schema
    built = db.query(
        "SELECT count(*) FROM information_schema.tables WHERE table_schema = ?"
        " AND table_name = 'address_txs_plain'",
        (schema,),
    )
    if int(built[0][0]):
        print(f"{size:,}: cached PostgreSQL schema {schema}", flush=True)
        return db
    print(f"{size:,}: writing PostgreSQL schema {schema} with write_batch", flush=True)
    with db.transaction() as w:  # whatever an interrupted build left
        w.execute(f"DROP SCHEMA {schema} CASCADE")
    db.close()
    op5.build(target, size)
    db = Database(target, query_timeout=600)
    with db.transaction() as w:
        # Same columns and key as address_txs, rows in the writer's order (block, then tx),
        # without the copies.
        w.execute("CREATE TABLE address_txs_plain (LIKE address_txs INCLUDING ALL)")
        w.execute(
            "INSERT INTO address_txs_plain (chain_id, address, block_number, tx_index,"
            " document, native) SELECT chain_id, address, block_number, tx_index, document,"
            " native FROM address_txs ORDER BY block_number, tx_index, address"
        )
    with db.transaction() as w:
        w.execute("ANALYZE")
    return db


def pg_sizes(db: Database) -> str:
    rows = db.query(
        "SELECT c.relname, pg_table_size(c.oid), pg_indexes_size(c.oid) FROM pg_class c"
        " WHERE c.relname IN ('address_txs', 'address_txs_plain', 'transactions')"
        " AND c.relnamespace = to_regnamespace(?)::oid ORDER BY c.relname",
        (db.url.schema,),
    )
    total = db.query("SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c"
                     " WHERE c.relkind = 'r' AND c.relnamespace = to_regnamespace(?)::oid",
                     (db.url.schema,))  # fmt: skip
    parts = ", ".join(f"{n} {t / 2**20:,.0f} + {i / 2**20:,.0f} MiB indexes" for n, t, i in rows)
    return f"{parts}; whole schema {int(total[0][0]) / 2**20:,.0f} MiB"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 400_000])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pg", help="PostgreSQL URL: measure there (schemas kept)")
    args = parser.parse_args()
    for size in args.sizes:
        if args.pg:
            db = pg_store(args.pg, size)
            print(f"{size:,}: {pg_sizes(db)}", flush=True)
            contiguous, joined = PG_CONTIGUOUS, PG_JOINED
        else:
            path = op5.cache_path(size)
            if not path.exists():
                print(f"{size:,}: no cached store (run bench/api.py first)")
                continue
            db = Database(str(path))
            contiguous, joined = CONTIGUOUS, JOINED
        one: list[tuple[str, tuple[int, int] | None]] = [(op5.TARGET, None)] * 2_000
        spread = pages(db, contiguous)
        best: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.rounds):
            for load_name, load in (("one URL", one), ("spread", spread)):
                for name, sql in (("contiguous", contiguous), ("join", joined)):
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
