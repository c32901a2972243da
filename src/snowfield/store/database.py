"""The database: SQLite (WAL, the embedded default) or PostgreSQL, behind one small interface.

SQL in the store is written once with `?` placeholders; PostgreSQL statements are translated
to `%s` on first use. Each thread gets its own connection, so async callers run queries in
worker threads and SQLite readers never block the single writer (WAL).
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from snowfield.errors import InvalidParams, Unavailable
from snowfield.store.migration import Schema, Step
from snowfield.store.schema import STORE, ddl_for

Params = Sequence[Any]

# WAL a commit may leave before it checkpoints it into the database file (SQLite's default is
# 1,000 pages). Each checkpoint syncs both files; the indexers' batches dirty hundreds of pages
# each, so at the default most commits paid for one. At ~40 MB of WAL (10,000 pages of 4 KiB),
# writing a P-Chain backfill's batches took 1.15-1.3x less time, the final checkpoint included
# (5,000 containers in batches of 256, three runs). Set in bytes and divided by the store's own
# page size, so that 16 KiB pages keep the measured 40 MB rather than quadrupling it.
WAL_CHECKPOINT_BYTES = 40 * 1024 * 1024
BUSY_TIMEOUT_MS = 30_000  # how long a write waits for another connection's
PAGE_SIZE = 16_384  # bytes, SQLite (see _open_sqlite)


class _Commits:
    """A new mark at every SQLite commit this process makes, by any connection: a snapshot
    held since an older mark (`Database.hold_snapshot`) may miss that commit and is renewed.
    Each mark is new (`itertools.count`), so a mark stored by a racing thread still differs
    from every mark a snapshot kept."""

    mark = 0
    _marks = itertools.count(1)

    @classmethod
    def note(cls) -> None:
        cls.mark = next(cls._marks)


@dataclass(frozen=True, slots=True)
class DatabaseUrl:
    """A parsed `--db` value: a SQLite path or a PostgreSQL URL (with optional `schema=`)."""

    dialect: str  # sqlite | postgresql
    target: str  # file path for SQLite, libpq URL for PostgreSQL
    schema: str | None = None

    @classmethod
    def parse(cls, url: str) -> DatabaseUrl:
        if url.startswith(("postgresql://", "postgres://")):
            parts = urllib.parse.urlsplit(url)
            query = urllib.parse.parse_qs(parts.query)
            schema = query.pop("schema", [None])[0]
            rest = urllib.parse.urlencode({k: v[0] for k, v in query.items()})
            target = urllib.parse.urlunsplit(parts._replace(query=rest))
            return cls("postgresql", target, schema)
        if url.startswith("sqlite:///"):
            return cls("sqlite", url[len("sqlite:///") :])
        if "://" in url:
            raise InvalidParams(f"unsupported database URL {url!r}: use a path or postgresql://")
        return cls("sqlite", url)


@lru_cache(maxsize=512)
def _to_pyformat(sql: str) -> str:
    return sql.replace("%", "%%").replace("?", "%s")


class Database:
    """Connections per thread, transactions, and the schema; the only door to SQL."""

    def __init__(self, url: str, *, query_timeout: float = 10.0, schema: Schema = STORE) -> None:
        self.url_text = url  # as given: a companion on PostgreSQL opens the same
        self.url = DatabaseUrl.parse(url)
        self.dialect = self.url.dialect
        self.query_timeout = query_timeout
        self.schema = schema
        self._local = threading.local()
        self._all: list[Any] = []
        self._lock = threading.Lock()
        self._companions: dict[str, Database] = {}
        if self.dialect == "sqlite" and self.url.target != ":memory:":
            Path(self.url.target).parent.mkdir(parents=True, exist_ok=True)

    # -- connections -------------------------------------------------------------------------

    def _connection(self) -> Any:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._open()
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    def _open(self) -> Any:
        if self.dialect == "sqlite":
            return self._open_sqlite()
        return self._open_postgres()

    def _open_sqlite(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.url.target, timeout=30.0, isolation_level=None, check_same_thread=False
        )
        # A new store's pages (ignored by an existing one: see `_repage`): operation 5's
        # address_txs rows carry two documents (schema 19), about 900 bytes, over the 1,002 a
        # 4 KiB page keeps in place; each spilled into an overflow page of its own (2.8x the
        # store's size at 100k transactions, 1.55x with 16 KiB pages: store/history_pages.py).
        conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
        _enter_wal(conn)
        # NORMAL in WAL mode: a kill -9 loses nothing committed; only power loss can.
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        conn.execute(f"PRAGMA cache_size=-{self.schema.cache_kib}")
        # An existing store keeps its own page size until `_repage` rebuilds it.
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        conn.execute(f"PRAGMA wal_autocheckpoint={WAL_CHECKPOINT_BYTES // page_size}")
        return conn

    def _open_postgres(self) -> Any:
        import psycopg

        try:
            conn = psycopg.connect(self.url.target, autocommit=True)
        except psycopg.OperationalError as exc:
            raise Unavailable(f"cannot connect to PostgreSQL: {exc}") from exc
        if self.url.schema:
            # Two processes starting on a new schema race on IF NOT EXISTS (both see none, one
            # loses on pg_namespace's unique index): the loser's schema exists all the same.
            with contextlib.suppress(psycopg.errors.UniqueViolation):
                conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.url.schema}"')
            conn.execute(f'SET search_path TO "{self.url.schema}"')
        # The store's statements are keyset reads and writes by key, prepared by psycopg from
        # their fifth run. With the default (`auto`), PostgreSQL kept planning operation 5's
        # page read anew on every run on the skewed 1M store of bench/scale.py (the generic
        # plan's estimate never beat the custom plans'): ~0.35 ms of planning on a ~0.7 ms
        # read. The generic plan, the same index range for every address, took 0.21-0.40 ms
        # (0.41-0.57x for every class of address, from the hot contracts to the coldest, at 1M
        # and at 10M, in interleaved rounds: docs/operations.md).
        conn.execute("SET plan_cache_mode = force_generic_plan")
        return conn

    def discard_connection(self) -> None:
        """Closes this thread's connection (broken, say); the next statement opens another."""
        conn = getattr(self._local, "conn", None)
        self._local.conn = None
        self._local.snapshot = None
        if conn is not None:
            with self._lock:
                self._all = [c for c in self._all if c is not conn]
            with contextlib.suppress(Exception):
                conn.close()

    def companion(self, schema: Schema) -> Database:
        """The database beside this store that holds a companion schema's tables, migrated at
        first use (the same object afterwards): on SQLite the file `<store>-<suffix>` (the
        schema's `companion`), with its own pages, page cache, WAL and locks (an in-memory
        store's is in memory too); on PostgreSQL the store's own schema, through connections
        of its own."""
        suffix = schema.companion
        if suffix is None:
            raise ValueError("not a companion schema")
        with self._lock:
            found = self._companions.get(suffix)
        if found is not None:
            return found
        if self.dialect == "sqlite" and self.url.target != ":memory:":
            url = f"{self.url.target}-{suffix}"
        else:
            url = self.url_text
        made = Database(url, query_timeout=self.query_timeout, schema=schema)
        made.migrate()
        with self._lock:
            found = self._companions.setdefault(suffix, made)
        if found is not made:  # another thread made it first
            made.close()
        return found

    def session(self) -> Any:
        """A connection of its own, outside the per-thread ones, for state that lives as long
        as a session does (advisory locks); the caller closes it."""
        return self._open()

    def close(self) -> None:
        with self._lock:
            conns, self._all = self._all, []
            companions = list(self._companions.values())
        for companion in companions:
            companion.close()
        for conn in conns:
            with contextlib.suppress(Exception):
                conn.close()
        self._local = threading.local()

    # -- statements --------------------------------------------------------------------------

    def _sql(self, sql: str) -> str:
        return sql if self.dialect == "sqlite" else _to_pyformat(sql)

    def query(self, sql: str, params: Params = ()) -> list[tuple[Any, ...]]:
        """Rows of one read-only statement, aborted after `query_timeout` seconds."""
        conn = self._connection()
        if self.dialect == "sqlite":
            return self._sqlite_query(conn, sql, params)
        return [tuple(r) for r in conn.execute(_to_pyformat(sql), tuple(params)).fetchall()]

    def _sqlite_query(
        self, conn: sqlite3.Connection, sql: str, params: Params
    ) -> list[tuple[Any, ...]]:
        # The time limit inlined (no context manager): this runs for every API read.
        deadline = time.monotonic() + self.query_timeout
        conn.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
        try:
            return conn.execute(sql, params).fetchall()
        except sqlite3.OperationalError as exc:
            if "interrupted" in str(exc):
                raise Unavailable("query took too long") from exc
            raise
        finally:
            conn.set_progress_handler(None, 0)

    def query_one(self, sql: str, params: Params = ()) -> tuple[Any, ...] | None:
        rows = self.query(sql, params)
        return rows[0] if rows else None

    def hold_snapshot(self) -> bool:
        """SQLite: this thread's statements that follow share one read transaction, one
        snapshot of the store, until `release_snapshot` (or a write of this thread's). A
        snapshot older than a commit this process made since is renewed first, so a caller
        reads what this process wrote before it. True when the caller is to arrange the
        release: no snapshot was held. What it saves: api/operation.py's `call_store`."""
        if self.dialect != "sqlite":
            return False
        local = self._local
        held = getattr(local, "snapshot", None)
        if held is not None:
            if held != _Commits.mark:
                conn = local.conn
                if conn.in_transaction:
                    conn.execute("COMMIT")
                local.snapshot = _Commits.mark  # before the read that takes the snapshot
                conn.execute("BEGIN")
            return False
        conn = self._connection()
        if conn.in_transaction:  # a transaction of this thread's own is open
            return False
        local.snapshot = _Commits.mark
        conn.execute("BEGIN")  # deferred: its first read takes the snapshot
        return True

    def release_snapshot(self) -> None:
        """Ends this thread's held snapshot, if any (`hold_snapshot`)."""
        local = self._local
        if getattr(local, "snapshot", None) is None:
            return
        local.snapshot = None
        conn = getattr(local, "conn", None)
        if conn is not None and conn.in_transaction:
            conn.execute("COMMIT")

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Writer]:
        """One atomic write: everything inside commits together or not at all."""
        conn = self._connection()
        if self.dialect == "sqlite":
            self.release_snapshot()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield Writer(self, conn)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            _Commits.note()
        else:
            with conn.transaction():
                yield Writer(self, conn)

    def write_now(self, fn: Callable[[Writer], None]) -> bool:
        """SQLite: runs `fn` in a transaction on this thread's connection if the write lock is
        free now, never waiting for it; False (nothing written) when another connection holds
        it. For a writer on the thread that also reads (the API's event loop): a commit by
        another connection makes every reader drop its whole page cache at its next read (WAL
        mode), where this connection's own commit keeps it (docs/data-api/operations.md,
        "Usage")."""
        if self.dialect != "sqlite":
            raise ValueError("write_now is for SQLite stores")
        conn = self._connection()
        self.release_snapshot()
        conn.execute("PRAGMA busy_timeout=0")
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                return False
            raise
        finally:
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        # Its commit never checkpoints: one past the WAL's threshold would copy whatever an
        # indexer wrote (up to WAL_CHECKPOINT_BYTES) on this thread. `checkpoint`, from
        # another thread, does it instead.
        pages = conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
        conn.execute("PRAGMA wal_autocheckpoint=0")
        try:
            try:
                fn(Writer(self, conn))
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            _Commits.note()
        finally:
            conn.execute(f"PRAGMA wal_autocheckpoint={pages}")
        return True

    def checkpoint(self) -> tuple[int, int, int]:
        """SQLite: copies the WAL's frames into the database file as far as readers allow,
        without waiting for them (PASSIVE); (busy, frames in the WAL, frames copied)."""
        row = self._connection().execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return int(row[0]), int(row[1]), int(row[2])

    # -- schema ------------------------------------------------------------------------------

    def migrate(self) -> None:
        """Creates missing tables and brings older ones to this schema's version (with the
        store's, the page-token secret); safe to run at every start."""
        schema = self.schema
        with self.transaction() as w:
            if self.dialect == "postgresql":
                # One migrator per store at a time: `index` and `serve` started together both
                # ran CREATE TABLE IF NOT EXISTS, and the second died on pg_type's unique index.
                # (SQLite's BEGIN IMMEDIATE serializes them already.)
                w.execute(
                    "SELECT pg_advisory_xact_lock(?)",
                    (advisory_key(f"snowfield-migrate:{self.url.schema or ''}"),),
                )
            for ddl in schema.tables:
                w.execute(ddl_for(self.dialect, ddl))
            w.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
                (schema.version_key, str(schema.version)),
            )
            stored = int(
                w.query("SELECT value FROM meta WHERE key = ?", (schema.version_key,))[0][0]
            )
            repage = self.dialect == "sqlite" and stored < schema.version
            for version in range(stored + 1, schema.version + 1):
                run_steps(w, schema.upgrades.get(version, ()))
            run_steps(w, schema.after)
            w.execute(
                "UPDATE meta SET value = ? WHERE key = ?", (str(schema.version), schema.version_key)
            )
        if repage:
            self._repage()

    def _repage(self) -> None:
        """An upgraded SQLite store rewritten with the page size a new one gets, which also
        returns the pages an upgrade freed (VACUUM: a one-time copy of the store, at start).
        On a connection of its own, the store's closed first: a connection that ran the
        upgrade kept a lock that later checkpoints tripped over ("database table is
        locked"); the store's connections reopen on their next use."""
        if self.url.target == ":memory:":
            return
        self.close()
        conn = sqlite3.connect(self.url.target, timeout=30.0, isolation_level=None)
        try:
            if conn.execute("PRAGMA page_size").fetchall() == [(PAGE_SIZE,)]:
                return
            for statement in (
                "PRAGMA journal_mode=DELETE",  # WAL mode cannot change the page size
                f"PRAGMA page_size={PAGE_SIZE}",
                "VACUUM",
                "PRAGMA journal_mode=WAL",
            ):
                conn.execute(statement).fetchall()
        finally:
            conn.close()

    def meta(self, key: str) -> str | None:
        row = self.query_one("SELECT value FROM meta WHERE key = ?", (key,))
        return None if row is None else str(row[0])


def _enter_wal(conn: sqlite3.Connection, within: float = 30.0) -> None:
    """WAL mode, waiting out other connections: turning a new store to WAL takes an exclusive
    lock without calling the busy handler, so processes opening a new store together got
    "database is locked" at once (the busy timeout never applied)."""
    deadline = time.monotonic() + within
    pause = 0.005
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL").fetchall()
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.1)


def advisory_key(name: str) -> int:
    """A PostgreSQL advisory lock's signed 64-bit key, named by text. Those locks are the whole
    database's, so a name includes the store's schema where the lock is one store's."""
    return int.from_bytes(
        hashlib.blake2b(name.encode(), digest_size=8).digest(), "big", signed=True
    )


def upgrade(w: Writer, version: int) -> None:
    """The steps that bring a store of `version - 1` to `version`, in the open transaction."""
    run_steps(w, STORE.upgrades.get(version, ()))


def run_steps(w: Writer, steps: Iterable[Step]) -> None:
    """Migration steps (SQL, or functions of the transaction) in `w`'s transaction."""
    for step in steps:
        if callable(step):
            step(w)
        else:
            w.execute(ddl_for(w.dialect, step))


class Writer:
    """Statements inside one transaction."""

    def __init__(self, db: Database, conn: Any) -> None:
        self._db = db
        self._conn = conn

    @property
    def dialect(self) -> str:
        return self._db.dialect

    @property
    def database(self) -> Database:
        return self._db

    @property
    def schema(self) -> str | None:
        """The store's PostgreSQL schema (`?schema=`), None for the default or SQLite."""
        return self._db.url.schema

    def execute(self, sql: str, params: Params = ()) -> int:
        cur = self._conn.execute(self._db._sql(sql), tuple(params))
        return int(cur.rowcount or 0)

    def executemany(self, sql: str, rows: Sequence[Params]) -> None:
        if not rows:
            return
        if self._db.dialect == "sqlite":
            self._conn.executemany(sql, rows)
        else:
            with self._conn.cursor() as cur:
                cur.executemany(self._db._sql(sql), rows)

    def copy(self, statement: str, rows: Iterable[Params]) -> None:
        """PostgreSQL's `COPY ... FROM STDIN` of these rows (text format: each value as its
        column's text, None as NULL)."""
        with self._conn.cursor() as cur, cur.copy(statement) as copy:
            for row in rows:
                copy.write_row(row)

    def copy_new(self, table: str, columns: str, rows: Iterable[Params]) -> bool:
        """PostgreSQL: COPY of rows into `table` directly, in a savepoint; False, with nothing
        written, when a row has the key of another (stored or copied) under a unique index."""
        import psycopg

        try:
            with self._conn.transaction():
                self.copy(f"COPY {table} ({columns}) FROM STDIN", rows)
        except psycopg.errors.UniqueViolation:
            return False
        return True

    def query(self, sql: str, params: Params = ()) -> list[tuple[Any, ...]]:
        cur = self._conn.execute(self._db._sql(sql), tuple(params))
        return [tuple(r) for r in cur.fetchall()]
