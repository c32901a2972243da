"""The composition root: builds the node, the HTTP servers' limits and error answers, and the
data services' parts from their settings. The commands use it, and so do the test builders
(`snowfield.testing`), the one module outside the CLI that may import it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from snowfield.config import NetworkSettings, ServeSettings
from snowfield.errors import InvalidParams
from snowfield.server import HttpLimits

# Each part's modules load when it is built: `snowfield devnet` never loads the data API.
if TYPE_CHECKING:
    from snowfield.api.ratelimit import Limiter
    from snowfield.api.site import ExplorerConfig
    from snowfield.store.database import Database


def build_node(settings: NetworkSettings) -> Any:
    """Builds the node over its data dir (or memory): each hosted chain opens its own journal
    and index state under `<data-dir>/<alias or blockchain id>/` and `<data-dir>/index/`."""
    from snowfield.node.node import Node
    from snowfield.node.storage import NodeStorage
    from snowfield.node.vms.avm.host import AvmFactory
    from snowfield.node.vms.evm.host import CorethFactory, SubnetEvmFactory
    from snowfield.node.vms.platform.host import PlatformFactory

    # The VMs the node runs (a new VM: its folder under node/vms/ and one entry here).
    vms = (PlatformFactory(), AvmFactory(), CorethFactory(), SubnetEvmFactory())
    node = Node(settings, NodeStorage(settings.data_dir, fsync=settings.fsync), vms)
    for name, genesis in l1_specs(settings.l1 or ()):
        node.ensure_l1(name, genesis)
    return node


def l1_specs(specs: tuple[str, ...]) -> list[tuple[str, bytes | None]]:
    """`--l1 NAME[=genesis.json]` values: each name with its genesis file's bytes (or None)."""
    found: list[tuple[str, bytes | None]] = []
    for spec in specs:
        name, _, path = spec.partition("=")
        name = name.strip()
        if not name or len(name) > 128 or not name.isascii() or not name.isprintable():
            raise InvalidParams(f"--l1 {spec!r}: NAME must be 1 to 128 printable ASCII characters")
        genesis = None
        if path:
            try:
                genesis = Path(path).read_bytes()
            except OSError as exc:
                raise InvalidParams(f"--l1 {spec!r}: cannot read {path}: {exc.strerror}") from None
        found.append((name, genesis))
    return found


def http_limits(settings: Any) -> HttpLimits:
    """The HTTP server's limits a service's settings give."""
    return HttpLimits(
        read_header_timeout=settings.http_read_header_timeout,
        max_header_bytes=settings.http_max_header_bytes,
        max_connections=settings.http_max_connections,
        forwarded_allow_ips=getattr(settings, "forwarded_allow_ips", ""),
    )


def data_api_error(status: int, message: str) -> tuple[bytes, bytes]:
    """The data API's error body, for requests its HTTP server refuses."""
    from snowfield.api.errors import error_body

    return b"application/json", orjson.dumps(error_body(status, message))


def metrics_api_error(status: int, message: str) -> tuple[bytes, bytes]:
    """The metrics API's error body (its message is a list), for requests its server refuses."""
    from snowfield.api.errors import error_body

    return b"application/json", orjson.dumps({**error_body(status, message), "message": [message]})


def rate_limiter(settings: ServeSettings) -> Limiter:
    """Counts in this process, or in Redis when the API processes share their limits."""
    from snowfield.api.ratelimit import MemoryLimiter, RedisLimiter

    return RedisLimiter(settings.redis) if settings.redis else MemoryLimiter()


def explorer_config(settings: ServeSettings) -> ExplorerConfig:
    """Where the explorer's page finds the node and the metrics API, and the key it sends."""
    from snowfield.api.site import ExplorerConfig

    return ExplorerConfig(
        rpc=settings.explorer_rpc,
        metrics_api=settings.explorer_metrics_api,
        metrics_port=settings.metrics_api_port,
        api_key=settings.explorer_api_key,
    )


def data_app(db: Database, settings: ServeSettings) -> Any:
    """The data API (with the explorer at /, and Warp aggregation when a node is named)."""
    from snowfield.aggregator.service import AggregatorService
    from snowfield.api.app import create_data_app
    from snowfield.api.gate import RatePolicy

    policy = RatePolicy(anonymous=settings.rate_anonymous, keyed=settings.rate_keyed)
    signatures = AggregatorService(settings.node_url) if settings.node_url else None
    return create_data_app(
        db,
        policy=policy,
        limiter=rate_limiter(settings),
        explorer=explorer_config(settings),
        signatures=signatures,
        public_url=public_url(settings),
    )


def public_url(settings: ServeSettings) -> str:
    """Where clients reach the data API: --public-url, else its own address."""
    if settings.public_url:
        return settings.public_url.rstrip("/")
    return f"http://{settings.host}:{settings.port}"


def export_worker(db: Database, settings: ServeSettings) -> Any:
    """The worker that runs the data API's export jobs (beside its servers in `serve`)."""
    from snowfield.api.operations.export_worker import ExportWorker

    return ExportWorker(db, max_rows=settings.export_max_rows)


def metrics_app(db: Database, settings: ServeSettings) -> Any:
    """The metrics API, with its own limiter: each app closes its limiter when it stops."""
    from snowfield.api.metrics.service import create_metrics_app

    return create_metrics_app(
        db, limiter=rate_limiter(settings), rate_per_minute=settings.metrics_rate
    )
