"""Settings several services take alike (logging, the database, the HTTP server's limits),
each declared once here; a service's dataclass names the field and calls its declaration."""

from __future__ import annotations

from typing import Any

from snowfield.config.setting import setting


def log_level() -> Any:
    return setting("info", "Log level: debug, info, warn, error.")


def log_format() -> Any:
    return setting("text", "Log format: text or json (structured).")


def db() -> Any:
    return setting("data/snowfield.db", "SQLite path or postgresql:// URL.")


def http_read_header_timeout() -> Any:
    return setting(
        30.0,
        "Seconds a client has to send a request's line and headers (0 = no limit).",
        min=0,
    )


def http_max_header_bytes() -> Any:
    return setting(
        16 * 1024, "Largest request line plus headers; more answers 414 or 431.", min=1024
    )


def http_max_connections() -> Any:
    return setting(
        1000,
        "Most open connections and requests in flight; more answer 503 (0 = no limit).",
        min=0,
    )
