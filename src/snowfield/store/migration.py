"""What `Database.migrate` brings a database to: a schema's tables, its version and the steps
from each older version. The store has one (store/schema.py); the request log's companion
file another (store/ops_schema.py), so that one Database type migrates both."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

# A step is SQL, or a function of the open transaction (a Writer) where SQL cannot say it.
Step = str | Callable[[Any], None]


@dataclass(frozen=True)
class Schema:
    """`tables`: the current DDL (a new database gets it and runs no upgrade); `upgrades`:
    by version, the steps from the version before; `after`: steps run at every migration
    after the upgrades (indexes over columns an upgrade adds); `version_key`: the `meta` row
    that holds the version (two schemas may share one PostgreSQL schema's `meta`);
    `cache_kib`: SQLite's page cache a connection keeps for it; `companion`: for a schema
    kept beside a store rather than in it, the suffix of its SQLite file
    (`Database.companion`)."""

    version_key: str
    version: int
    tables: tuple[str, ...]
    upgrades: Mapping[int, tuple[Step, ...]]
    after: tuple[Step, ...] = ()
    cache_kib: int = 65_536
    companion: str | None = None
