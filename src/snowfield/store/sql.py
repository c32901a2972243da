"""SQL fragments the store's reads share: keyset conditions, ORDER BY, ranges and IN lists."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

from snowfield.store.pagination import Key

T = TypeVar("T")

MAX_BIGINT = 2**63 - 1  # BIGINT bound: larger numbers name no row and must not reach PostgreSQL
CHUNK = 500  # values in one IN list: lookups of a whole indexed batch stay far below the
# parameter limits of SQLite and PostgreSQL


def keyset(columns: str, descending: bool, after: Key | None) -> tuple[str, list[Any]]:
    """`AND (a, b) < (?, ?)` (or `>`): rows strictly past the last row of the previous page."""
    if after is None:
        return "", []
    marks = ", ".join("?" for _ in after)
    return f" AND ({columns}) {'<' if descending else '>'} ({marks})", list(after)


def order(columns: str, descending: bool) -> str:
    way = " DESC" if descending else " ASC"
    return " ORDER BY " + ", ".join(c.strip() + way for c in columns.split(","))


def between(column: str, start: int | None, end: int | None) -> tuple[str, list[Any]]:
    """`AND column >= ? AND column < ?`, each bound only when given."""
    sql, params = "", []
    if start is not None:
        sql, params = f" AND {column} >= ?", [start]
    if end is not None:
        sql, params = sql + f" AND {column} < ?", [*params, end]
    return sql, params


def in_list(values: Sequence[Any]) -> str:
    """`(?, ?, …)`: one placeholder per value."""
    return "(" + ", ".join("?" for _ in values) + ")"


def listed(column: str, dialect: str) -> str:
    """`column` (a comma-separated list) holds the bound value, given as `,value,`: instr /
    strpos rather than LIKE, for SQLite re-prepares a statement whose LIKE pattern is a bound
    parameter on every run (about 60 us of a P-Chain balance or UTXO request, where the
    whole search of a small table took 5 us). Case-sensitive on both, as PostgreSQL's LIKE."""
    find = "instr" if dialect == "sqlite" else "strpos"
    return f"{find}(',' || {column} || ',', ?) > 0"


def chunks(values: Sequence[T]) -> Iterator[Sequence[T]]:
    """`values` in slices of at most CHUNK, one IN list each."""
    for i in range(0, len(values), CHUNK):
        yield values[i : i + CHUNK]
