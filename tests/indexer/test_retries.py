"""The node client retries transport failures and 5xx answers, then gives up with Unavailable."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from snowfield.errors import Unavailable
from snowfield.rpc.client import RpcClient


class Flaky(BaseHTTPRequestHandler):
    failures = 0  # answers 503 this many times, then serves eth_blockNumber
    seen = 0

    def do_POST(self) -> None:
        length = int(self.headers["content-length"])
        request = json.loads(self.rfile.read(length))
        type(self).seen += 1
        if type(self).seen <= type(self).failures:
            self.send_response(503)
            self.send_header("content-length", "0")
            self.end_headers()
            return
        body = json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": "0x2a"}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def flaky() -> Iterator[str]:
    Flaky.seen = 0
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Flaky)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def call(url: str, retries: int) -> str:
    async def go() -> str:
        async with RpcClient(url, retries=retries) as client:
            return str(await client.call("eth_blockNumber"))

    return asyncio.run(go())


def test_503s_are_retried_until_the_node_answers(flaky: str) -> None:
    Flaky.failures = 2
    assert call(flaky, retries=3) == "0x2a"
    assert Flaky.seen == 3


def test_retries_end_with_the_last_error(flaky: str) -> None:
    Flaky.failures = 10
    with pytest.raises(Unavailable, match="HTTP 503"):
        call(flaky, retries=1)
    assert Flaky.seen == 2


def test_a_closed_port_is_retried_then_raises() -> None:
    with pytest.raises(Unavailable, match="unreachable"):
        call("http://127.0.0.1:9", retries=1)
