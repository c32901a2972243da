"""Processes that start together on a new store (`index` and `serve` from one script) migrate
it together: each must come up, none may die on the other's CREATE TABLE."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from snowfield.store.database import Database
from snowfield.store.schema import SCHEMA_VERSION
from snowfield.testing import PG_ENV, database_urls, open_database


def _kinds() -> list[str]:
    return ["sqlite", "postgresql"] if os.environ.get(PG_ENV) else ["sqlite"]


@pytest.mark.parametrize("kind", _kinds())
def test_stores_migrated_at_once_by_several_processes_all_come_up(
    kind: str, tmp_path: Path
) -> None:
    urls = database_urls(tmp_path)
    url = urls[0] if kind == "sqlite" else urls[1]
    starters = 6
    barrier = threading.Barrier(starters)
    errors: list[BaseException] = []

    def start() -> None:
        db = Database(url)
        try:
            barrier.wait(timeout=30)
            db.migrate()
        except BaseException as exc:
            errors.append(exc)
        finally:
            db.close()

    for _round in range(3):  # a race needs a few chances; each round starts on an empty store
        threads = [threading.Thread(target=start) for _ in range(starters)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert not errors, [f"{type(e).__name__}: {e}" for e in errors]
        with open_database(url) as db:  # drops a PostgreSQL schema afterwards
            assert db.meta("schema_version") == str(SCHEMA_VERSION)
            assert db.meta("page_token_secret")
        urls = database_urls(tmp_path / str(_round))
        url = urls[0] if kind == "sqlite" else urls[1]
