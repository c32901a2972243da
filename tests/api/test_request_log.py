"""The request log's flush: a batch the store refuses stays pending and goes in whole at the
next flush, its new contexts stored once (none cached from the refused transaction)."""

from __future__ import annotations

import asyncio
import time

from snowfield.api.operations.request_log import RequestLog
from snowfield.store.database import Database
from snowfield.store.keys import ApiKey
from snowfield.store.usage_log import RequestFilter, requests_in


def _scope(path: str, agent: bytes) -> dict[str, object]:
    return {
        "method": "GET",
        "path": path,
        "client": ("127.0.0.1", 5000),
        "headers": [(b"host", b"127.0.0.1:9650"), (b"user-agent", agent)],
    }


def _record(log: RequestLog, n: int, key: ApiKey) -> None:
    for i in range(n):
        scope = _scope(f"/v1/chains/43112/blocks/{i}", b"agent-%d" % (i % 3))
        started = time.perf_counter()
        log.record(scope, "/v1/chains/{chainId}/blocks/{blockId}", {"chainId": "43112"}, 200,
                   started, key, 2)  # fmt: skip


def test_a_refused_batch_goes_in_whole_at_the_next_flush(db: Database) -> None:
    key = ApiKey("k1", "one", created=0, revoked=None, chains=None, rate_per_minute=None)

    async def go() -> None:
        log = RequestLog(db, interval=3600)
        _record(log, 1_300, key)  # more than one multi-row INSERT (1,024 rows)
        with db.transaction() as w:  # the store refuses: the log's table is gone
            w.execute("ALTER TABLE api_request_log RENAME TO parked")
        await log.flush()
        assert len(log._pending) == 1_300
        with db.transaction() as w:
            w.execute("ALTER TABLE parked RENAME TO api_request_log")
        _record(log, 5, key)
        await log.flush()
        assert log._pending == []

    asyncio.run(go())
    rows = requests_in(db, RequestFilter("k1", 0, 2**62), limit=10_000)
    assert len(rows) == 1_305
    assert len({r.log_id for r in rows}) == 1_305
    assert {r.user_agent for r in rows} == {"agent-0", "agent-1", "agent-2"}
    assert {(r.key_name, r.chain_id, r.status, r.credits) for r in rows} == {
        ("one", "43112", 200, 2)
    }
    assert rows[0].path == "/v1/chains/43112/blocks/0"
    stored = db.query("SELECT COUNT(*) FROM api_request_contexts")[0][0]
    assert stored == 3  # one per user agent, none from the refused transaction
