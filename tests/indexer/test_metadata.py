"""NFT metadata over http(s) from a real local server: each outcome has its index status."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from snowfield.indexer.nfts import _metadata
from snowfield.rpc.client import DocumentFetcher

DOCS = {
    "/ok.json": (200, b'{"name": "Flake", "image": "https://x/y.png", "attributes": []}'),
    "/broken.json": (200, b"{not json"),
    "/list.json": (200, b"[1, 2]"),
    "/big.json": (200, b'{"name": "' + b"x" * 5000 + b'"}'),
    "/gone.json": (404, b"not here"),
}


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        status, body = DOCS.get(self.path, (404, b""))
        self.send_response(status)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/ok.json", "indexed"),
        ("/broken.json", "invalid_metadata_json"),
        ("/list.json", "invalid_metadata"),
        ("/big.json", "metadata_content_too_large"),
        ("/gone.json", "unreachable_token_uri"),
    ],
)
def test_http_metadata_outcomes(server: str, path: str, status: str) -> None:
    async def go() -> tuple[str, dict[str, object]]:
        fetcher = DocumentFetcher(timeout=5, max_bytes=1024)
        try:
            return await _metadata(fetcher, b"x", server + path)
        finally:
            await fetcher.aclose()

    got_status, metadata = asyncio.run(go())
    assert got_status == status
    if status == "indexed":
        assert metadata == {"name": "Flake", "imageUri": "https://x/y.png", "attributes": "[]"}
    else:
        assert metadata == {}


@pytest.mark.parametrize(
    ("raw", "uri", "status"),
    [
        (None, "", "missing_token"),  # tokenURI reverted: no such token
        (b"x", "", "invalid_token_uri"),
        (b"x", "ipfs://bafy/1.json", "invalid_token_uri_scheme"),
        (b"x", "data:application/json,%7Bnope", "invalid_metadata_json"),
        (b"x", "http://127.0.0.1:9/closed", "unreachable_token_uri"),
    ],
)
def test_uri_outcomes(raw: bytes | None, uri: str, status: str) -> None:
    async def go() -> str:
        fetcher = DocumentFetcher(timeout=2)
        try:
            return (await _metadata(fetcher, raw, uri))[0]
        finally:
            await fetcher.aclose()

    assert asyncio.run(go()) == status
