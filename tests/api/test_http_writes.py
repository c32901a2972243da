"""How the HTTP server writes answers: one system call for a small answer's head and body
(server.CoalescingTransport), and streamed bodies intact under flow control."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import httpx
from starlette.types import Receive, Scope, Send

from snowfield.api.app import create_data_app
from snowfield.api.gate import RatePolicy
from snowfield.api.ratelimit import MemoryLimiter
from snowfield.store.database import Database
from snowfield.testing import serve_asgi


def _writes(thread_name: str) -> int:
    """The write system calls made so far by the server's thread (its event loop's)."""
    (thread,) = [t for t in threading.enumerate() if t.name == thread_name]
    io = Path(f"/proc/self/task/{thread.native_id}/io").read_text()
    return int(next(line for line in io.splitlines() if line.startswith("syscw:")).split()[1])


def test_a_small_answer_leaves_in_one_write(filled: Database) -> None:
    app = create_data_app(
        filled, policy=RatePolicy(10**9, 10**9), limiter=MemoryLimiter(), log_requests=False
    )
    with serve_asgi(app, name="writes") as base, httpx.Client(base_url=base) as client:
        assert client.get("/v1/chains").status_code == 200  # connected and warm
        before = _writes("writes-server")
        answers = [client.get("/v1/chains") for _ in range(40)]
        written = _writes("writes-server") - before
    assert all(a.status_code == 200 and a.json()["chains"] for a in answers)
    assert all(int(a.headers["ratelimit-remaining"]) > 0 for a in answers)
    # Head and body apart would be 80 writes.
    assert 40 <= written < 50, written


async def _stream(scope: Scope, receive: Receive, send: Send) -> None:
    """Eight MiB in 100 messages sent without a pause: more than FLUSH_BYTES each time."""
    if scope["type"] != "http":
        return
    head = [(b"content-type", b"application/octet-stream")]
    await send({"type": "http.response.start", "status": 200, "headers": head})
    for i in range(100):
        chunk = bytes([i]) * (80 * 1024 + i)
        await send({"type": "http.response.body", "body": chunk, "more_body": i < 99})


def test_a_streamed_body_arrives_whole_and_in_order() -> None:
    expected = hashlib.sha256()
    for i in range(100):
        expected.update(bytes([i]) * (80 * 1024 + i))
    with serve_asgi(_stream, name="stream") as base, httpx.Client(base_url=base) as client:
        for _ in range(2):  # the connection is kept and serves the next answer whole
            got = hashlib.sha256()
            with client.stream("GET", "/") as answer:
                for part in answer.iter_bytes():
                    got.update(part)
            assert answer.status_code == 200
            assert got.hexdigest() == expected.hexdigest()
