"""The settings of `snowfield serve`: the data API, the metrics API and the explorer."""

from __future__ import annotations

from dataclasses import dataclass

from snowfield.config import shared
from snowfield.config.setting import setting


@dataclass(frozen=True, slots=True)
class ServeSettings:
    """The data API (see [data-api.md](data-api.md)) and, on `--metrics-api-port`, the metrics
    API (see [metrics.md](metrics.md)). `snowfield keys` and `snowfield contracts` take `--db`
    as well."""

    host: str = setting("127.0.0.1", "Address the data API listens on.", env="SNOWFIELD_API_HOST")
    port: int = setting(8080, "Port of the data API.", env="SNOWFIELD_API_PORT", min=1, max=65535)
    db: str = shared.db()
    db_read: str | None = setting(
        None,
        "PostgreSQL URL of a read replica of --db: the APIs read from it and write (keys,"
        " usage) to --db; while it does not answer, they read from --db.",
        doc="See [operations](operations.md#add-a-read-replica).",
    )
    redis: str | None = setting(
        None,
        "Redis URL (redis://host:port/db) for rate limits shared by several API processes;"
        " without it each process counts alone.",
    )
    rate_anonymous: int = setting(
        6000, "Compute units per minute for each client IP without an API key.", min=1
    )
    rate_keyed: int = setting(
        8000, "Compute units per minute for each API key that sets no rate of its own.", min=1
    )
    metrics_api_port: int = setting(
        8081,
        "Port of the metrics API (operations 17-18), served beside the data API on --host.",
        min=1,
        max=65535,
    )
    metrics_rate: int = setting(
        6000, "Requests per minute for each client IP on the metrics API.", min=1
    )
    forwarded_allow_ips: str = setting(
        "",
        "Comma-separated proxy IPs (or *) whose X-Forwarded-For names the client for rate"
        " limits; empty trusts no proxy.",
        doc="See [operations](operations.md#behind-a-proxy).",
    )
    http_read_header_timeout: float = shared.http_read_header_timeout()
    http_max_header_bytes: int = shared.http_max_header_bytes()
    http_max_connections: int = shared.http_max_connections()
    node_url: str | None = setting(
        None,
        "Base URL of a node (http://host:port) whose validators operations 1-2 aggregate"
        " signatures from, over the peer-to-peer network; without it they answer 503.",
    )
    explorer_rpc: str | None = setting(
        None,
        "JSON-RPC URL of the node the explorer (at /) asks for heads, blocks and receipts;"
        " without it, each chain's rpcUrl from /v1/chains.",
        doc="See [explorer.md](explorer.md).",
    )
    explorer_metrics_api: str | None = setting(
        None,
        "Base URL of the metrics API the explorer calls; without it, the page's own host on"
        " --metrics-api-port.",
    )
    explorer_api_key: str | None = setting(
        None,
        "API key the explorer sends in x-service-api-key (visible to every visitor of the page).",
    )
    public_url: str | None = setting(
        None,
        "Base URL clients reach the data API at (behind a proxy: its public address), used in"
        " the links it hands out (export files); without it, http://--host:--port.",
    )
    export_max_rows: int = setting(
        1_000_000,
        "Most transactions in one export file; a longer history completes with the warning"
        " WarnTruncatedExport and the nextDate to ask again from.",
        min=1,
    )
    log_level: str = shared.log_level()
    log_format: str = shared.log_format()
