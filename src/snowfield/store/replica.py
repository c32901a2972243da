"""Reads from a PostgreSQL read replica, writes to the primary: the database `snowfield serve
--db-read` runs on. A replica that cannot answer (stopped, restarting, unreachable) sends the
reads to the primary until it answers again, so that callers see no error."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg

from snowfield.errors import InvalidParams, Unavailable
from snowfield.store.database import Database, Params

log = logging.getLogger("snowfield.store")
# How long reads stay on the primary after the replica failed, before it is tried again.
RETRY_SECONDS = 1.0


class ReplicaReads(Database):
    """`query` on the replica (or the primary while the replica is down); transactions, and
    the reads inside them, on the primary."""

    def __init__(
        self,
        url: str,
        read_url: str,
        *,
        retry: float = RETRY_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(url)
        self.replica = Database(read_url)
        if self.dialect != "postgresql" or self.replica.dialect != "postgresql":
            raise InvalidParams("a read replica needs postgresql:// URLs for --db and --db-read")
        self._retry = retry
        self._clock = clock
        self._down_until = 0.0
        self._state = threading.Lock()
        self.fallbacks = 0  # reads the primary answered because the replica did not

    def query(self, sql: str, params: Params = ()) -> list[tuple[Any, ...]]:
        if self._clock() >= self._down_until:
            try:
                return self.replica.query(sql, params)
            except (psycopg.OperationalError, psycopg.InterfaceError, Unavailable) as exc:
                self._replica_failed(exc)
        with self._state:
            self.fallbacks += 1
        return super().query(sql, params)

    def _replica_failed(self, exc: Exception) -> None:
        # This thread's broken connection goes; the next try opens a new one.
        self.replica.discard_connection()
        with self._state:
            if self._clock() >= self._down_until:
                log.warning("read replica unavailable, reading from the primary: %s", exc)
            self._down_until = self._clock() + self._retry

    def close(self) -> None:
        self.replica.close()
        super().close()
