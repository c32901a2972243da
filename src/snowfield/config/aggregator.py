"""The settings of `snowfield aggregator`: Warp signatures over the real aggregator's API."""

from __future__ import annotations

from dataclasses import dataclass

from snowfield.config import shared
from snowfield.config.setting import setting


@dataclass(frozen=True, slots=True)
class AggregatorSettings:
    """A Warp signature aggregator with the real aggregator's HTTP API (icm-services v0.5:
    `/aggregate-signatures` with kebab-case keys `message`, `justification`,
    `signing-subnet-id`, `quorum-percentage`, `quorum-percentage-buffer`, `pchain-height`;
    `/health`; Prometheus `/metrics`), so existing relayers work unchanged. It asks the
    validators over the peer-to-peer network with an ephemeral TLS identity, starting from the
    node's `info.getNodeIP` and `info.peers`. See [node-api.md](node-api.md) for what the
    devnet's validators sign."""

    host: str = setting(
        "127.0.0.1",
        "Address the aggregator's HTTP API listens on.",
        env="SNOWFIELD_AGGREGATOR_HOST",
    )
    port: int = setting(
        8082,
        "Port of the aggregator's HTTP API (/aggregate-signatures, /health, /metrics).",
        env="SNOWFIELD_AGGREGATOR_PORT",
    )
    node_url: str = setting(
        "http://127.0.0.1:9650",
        "Base URL of a node whose P-Chain API gives validator sets and whose info API gives the "
        "peers to connect to.",
        env="SNOWFIELD_AGGREGATOR_NODE_URL",
    )
    deadline: float = setting(
        20.0,
        "Seconds to collect signatures before failing (the real aggregator's window).",
        min=0.1,
        max=600,
    )
    log_level: str = shared.log_level()
    log_format: str = shared.log_format()
