"""The SQLite plan of the last statement a store read runs, for tests that pin plans."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from snowfield.store.database import Database


def last_query_plan(db: Database, read: Callable[[Database], Any]) -> str:
    """Runs `read(db)` and returns EXPLAIN QUERY PLAN of its last query, steps joined by |."""
    captured: list[tuple[str, list[object]]] = []
    query = db.query

    def capture(sql: str, params: object = ()) -> list[tuple[object, ...]]:
        captured.append((sql, list(params)))  # type: ignore[call-overload]
        return query(sql, params)  # type: ignore[arg-type]

    db.query = capture  # type: ignore[method-assign]
    try:
        read(db)
    finally:
        db.query = query  # type: ignore[method-assign]
    sql, params = captured[-1]
    return " | ".join(str(r[-1]) for r in db.query("EXPLAIN QUERY PLAN " + sql, params))
