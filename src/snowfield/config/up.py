"""The settings of `snowfield up`: where everything lives and the ports it is served on."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from snowfield.config.setting import setting


@dataclass(frozen=True, slots=True)
class UpSettings:
    """Everything on this machine, each service its own process (what `make up` runs): the
    devnet with demo traffic, the indexers, the relayer and the data and metrics APIs. Its
    flags have no environment variables: the services' own variables reach the services."""

    data_dir: Path = setting(Path("data"), "Where chain data, the index and logs live.", env="")
    node_port: int = setting(9650, "Port of the devnet node.", env="")
    api_port: int = setting(8080, "Port of the data API.", env="")
    metrics_api_port: int = setting(8081, "Port of the metrics API.", env="")
    db: str | None = setting(
        None,
        "Database of the index for every service (a postgresql:// URL puts the whole stack on"
        " PostgreSQL); without it, the embedded SQLite file DATA_DIR/snowfield.db.",
        env="",
    )
    redis: str | None = setting(
        None,
        "Redis URL (redis://host:port/db) the data API keeps its rate limits in; without it,"
        " in the API process's memory.",
        env="",
    )
