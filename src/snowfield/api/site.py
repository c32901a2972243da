"""The explorer's page and assets, answered in front of the data service's router.

`/`, `/explorer/<file>` and `/explorer/config.json` never reach the gate: they are static bytes
held in memory (cheaper to answer than to count), so a visitor's page load costs nothing of
their API budget; every API call the page then makes is charged as usual."""

from __future__ import annotations

import gzip
import hashlib
import importlib.resources
from dataclasses import dataclass
from importlib.resources.abc import Traversable

import orjson
from starlette.types import ASGIApp, Receive, Scope, Send

PREFIX = "/explorer/"
_TYPES = {
    ".html": b"text/html; charset=utf-8",
    ".js": b"text/javascript; charset=utf-8",
    ".css": b"text/css; charset=utf-8",
    ".svg": b"image/svg+xml",
    ".json": b"application/json",
}
# Scripts and styles from the page's own origin only; API calls may go to the configured
# metrics API and node (other origins); NFT images may be data: URIs or anywhere on the web.
_CSP = (
    b"default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    b"img-src 'self' data: http: https:; connect-src 'self' http: https:; "
    b"base-uri 'none'; frame-ancestors 'none'"
)


@dataclass(frozen=True, slots=True)
class ExplorerConfig:
    """What the page is told in config.json: where the node's JSON-RPC and the metrics API are
    (None: each chain's rpcUrl; the page's host on `metrics_port`) and the API key to send."""

    rpc: str | None = None
    metrics_api: str | None = None
    metrics_port: int = 8081
    api_key: str | None = None

    def document(self, scope: Scope) -> bytes:
        metrics = self.metrics_api or f"{scope.get('scheme', 'http')}://{_hostname(scope)}"
        if not self.metrics_api:
            metrics += f":{self.metrics_port}"
        body = {"dataApi": "", "metricsApi": metrics.rstrip("/"), "rpc": self.rpc}
        return orjson.dumps({**body, "apiKey": self.api_key})


@dataclass(frozen=True, slots=True)
class _Asset:
    body: bytes
    gzipped: bytes
    ctype: bytes
    etag: bytes


class Site:
    """Answers GET and HEAD of the explorer's paths; everything else goes to `app`."""

    def __init__(self, app: ASGIApp, config: ExplorerConfig) -> None:
        self.app = app
        self.config = config
        self.assets = dict(_load(importlib.resources.files("snowfield.explorer"), PREFIX))
        self.assets["/"] = self.assets[PREFIX + "index.html"]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        if path == PREFIX + "config.json":
            body = self.config.document(scope)
            await _send(scope, send, _Asset(body, b"", _TYPES[".json"], b""))
        elif path in self.assets:
            await _send(scope, send, self.assets[path])
        else:
            await self.app(scope, receive, send)


def _load(folder: Traversable, prefix: str) -> list[tuple[str, _Asset]]:
    """Every shipped file under `folder` by URL path (sub-folders kept; Python files skipped)."""
    found: list[tuple[str, _Asset]] = []
    for entry in folder.iterdir():
        suffix = "." + entry.name.rsplit(".", 1)[-1]
        if entry.is_dir() and not entry.name.startswith("__"):
            found += _load(entry, f"{prefix}{entry.name}/")
        elif entry.is_file() and suffix in _TYPES:
            body = entry.read_bytes()
            etag = b'"%s"' % hashlib.sha256(body).hexdigest()[:20].encode()
            asset = _Asset(body, gzip.compress(body, 9, mtime=0), _TYPES[suffix], etag)
            found.append((prefix + entry.name, asset))
    return found


def _hostname(scope: Scope) -> str:
    """The host the browser asked for, without its port (the data API's own)."""
    host = _header(scope, b"host").decode("latin-1")
    if host:
        return host if host.endswith("]") else host.rsplit(":", 1)[0]
    server = scope.get("server")
    return str(server[0]) if server else "127.0.0.1"


def _header(scope: Scope, wanted: bytes) -> bytes:
    for name, value in scope["headers"]:
        if name == wanted:
            return bytes(value)
    return b""


async def _send(scope: Scope, send: Send, asset: _Asset) -> None:
    """The asset, gzipped when the client accepts it, 304 when its ETag is current."""
    headers = [
        (b"content-type", asset.ctype),
        (b"cache-control", b"no-cache"),
        (b"x-content-type-options", b"nosniff"),
        (b"content-security-policy", _CSP),
    ]
    if asset.etag:
        headers.append((b"etag", asset.etag))
        if _header(scope, b"if-none-match") == asset.etag:
            await send({"type": "http.response.start", "status": 304, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return
    body = asset.body
    if asset.gzipped and b"gzip" in _header(scope, b"accept-encoding"):
        body = asset.gzipped
        headers += [(b"content-encoding", b"gzip"), (b"vary", b"accept-encoding")]
    headers.append((b"content-length", b"%d" % len(body)))
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})
