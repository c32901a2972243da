"""The HTTP server's limits as `snowfield serve` sets them: malformed requests answer in the
error shape, slow clients are cut off, and only trusted proxies name the client."""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest

from snowfield.api.app import create_data_app
from snowfield.api.gate import RatePolicy
from snowfield.api.ratelimit import MemoryLimiter
from snowfield.cli.compose import data_api_error, http_limits
from snowfield.config import ServeSettings
from snowfield.store.database import Database
from snowfield.testing import serve_asgi
from tests.api.conftest import frozen_clock


@contextlib.contextmanager
def data_api(db: Database, rate: int = 10**9, **settings: Any) -> Iterator[str]:
    app = create_data_app(
        db, policy=RatePolicy(rate, 10**9), limiter=MemoryLimiter(clock=frozen_clock)
    )
    limits = http_limits(ServeSettings(**settings))
    with serve_asgi(app, limits=limits, render=data_api_error) as base:
        yield base


def raw_request(base: str, head: bytes) -> tuple[int, dict[str, Any]]:
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(head)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    status_line, _, rest = reply.partition(b"\r\n")
    headers, _, body = rest.partition(b"\r\n\r\n")
    assert b"content-type: application/json" in headers.lower(), reply[:300]
    return int(status_line.split()[1]), orjson.loads(body)


@pytest.fixture(scope="module")
def base(filled: Database) -> Iterator[str]:
    with data_api(filled) as url:
        yield url


@pytest.mark.parametrize(
    ("head", "status"),
    [
        (b"GET /v1/" + b"a" * 100_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
        (b"GET /v1/chains?q=" + b"b" * 1_000_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
        (b"GET /v1/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        (b"BREW /v1/chains HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        (b"GET /v1/chains HTTP/1.1\r\nHost: x\r\nX-Big: " + b"c" * 40_000 + b"\r\n\r\n", 431),
        (b"\x16\x03\x01\x02\x00garbage\r\n\r\n", 400),
    ],
    ids=["long-path", "long-query", "bad-utf8", "unknown-method", "big-header", "tls-hello"],
)
def test_malformed_requests_answer_in_the_error_shape(base: str, head: bytes, status: int) -> None:
    got, body = raw_request(base, head)
    assert got == status
    assert set(body) == {"message", "statusCode", "error"} and body["statusCode"] == status


def test_slow_clients_are_cut_off(filled: Database) -> None:
    with data_api(filled, http_read_header_timeout=1.0) as url:
        host, port = url.removeprefix("http://").split(":")
        clients = [socket.create_connection((host, int(port)), timeout=5) for _ in range(100)]
        try:
            deadline = time.monotonic() + 4
            for sock in clients:
                sock.sendall(b"GET /v1/chains HTTP/1.1\r\nHost: x\r\n")
            while time.monotonic() < deadline:  # trickle: each byte would reset an idle timer
                for sock in clients:
                    with contextlib.suppress(OSError):
                        sock.sendall(b"X")
                time.sleep(0.2)
            answers = []
            for sock in clients:
                with contextlib.suppress(OSError):
                    answers.append(sock.recv(65536))
            assert len(answers) == 100
            assert all(a.startswith(b"HTTP/1.1 408") for a in answers), answers[:2]
            assert httpx.get(f"{url}/v1/chains", timeout=10).status_code == 200
        finally:
            for sock in clients:
                sock.close()


def test_forwarded_for_is_ignored_unless_the_proxy_is_trusted(filled: Database) -> None:
    def third_client_answer(**settings: Any) -> int:
        with data_api(filled, rate=2, **settings) as url, httpx.Client(base_url=url) as client:
            for ip in ("1.1.1.1", "2.2.2.2"):
                assert client.get("/v1/chains", headers={"x-forwarded-for": ip}).status_code == 200
            return client.get("/v1/chains", headers={"x-forwarded-for": "3.3.3.3"}).status_code

    assert third_client_answer() == 429  # one client (127.0.0.1), whatever the header says
    assert third_client_answer(forwarded_allow_ips="127.0.0.1") == 200
