"""Settings of every service: one frozen dataclass per service and one SETTINGS table
(name, default, environment variable, help) that the CLI and docs/settings.md follow."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ENV_PREFIX = "SNOWFIELD_"


@dataclass(frozen=True, slots=True)
class Setting:
    name: str
    default: object
    help: str
    service: str

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.name.upper().replace("-", "_")

    @property
    def flag(self) -> str:
        return "--" + self.name


SETTINGS: tuple[Setting, ...] = (
    Setting("host", "127.0.0.1", "Address the node listens on.", "devnet"),
    Setting("port", 9650, "Port of the node's HTTP and WebSocket APIs.", "devnet"),
    Setting(
        "data-dir", None, "Directory for chain data; without it state lives in memory.", "devnet"
    ),
    Setting(
        "network-id", 12345, "Avalanche network id (1 mainnet, 5 fuji, 12345 local).", "devnet"
    ),
    Setting(
        "chain-id", 43112, "EVM chain id of the C-Chain (43114 mainnet, 43113 fuji).", "devnet"
    ),
    Setting(
        "block-time",
        None,
        "Seconds between blocks; without it every transaction is mined at once.",
        "devnet",
    ),
    Setting("gas-limit", 15_000_000, "Gas limit of each block.", "devnet"),
    Setting(
        "mnemonic",
        "test test test test test test test test test test test junk",
        "Mnemonic of the funded dev accounts.",
        "devnet",
    ),
    Setting("accounts", 10, "Number of dev accounts derived from the mnemonic.", "devnet"),
    Setting(
        "balance", 10_000, "Genesis balance of each dev account, in AVAX (10^18 wei).", "devnet"
    ),
    Setting("demo", False, "Generate demo traffic (tokens, NFTs, factories, reverts).", "devnet"),
    Setting("index-enabled", True, "Serve the index API at /ext/index/C/block.", "devnet"),
    Setting(
        "index-allow-incomplete", False, "Start even if the index would miss containers.", "devnet"
    ),
    Setting(
        "pruning-enabled",
        False,
        "Act as a pruning node: eth_getProof only within 32 blocks.",
        "devnet",
    ),
    Setting(
        "historical-proof-query-window",
        43_200,
        "Blocks before the last accepted one that eth_getProof serves (archive; 0 = any).",
        "devnet",
    ),
    Setting("batch-request-limit", 40, "Most items in one JSON-RPC batch.", "devnet"),
    Setting(
        "max-request-bytes", 5 * 1024 * 1024, "Largest JSON-RPC request body accepted.", "devnet"
    ),
    Setting("health-check-frequency", 30.0, "Seconds between health check runs.", "devnet"),
    Setting(
        "health-min-disk-bytes",
        512 * 1024 * 1024,
        "Free disk below which the diskspace check fails.",
        "devnet",
    ),
    Setting(
        "fsync",
        False,
        "fsync every accepted block (survives power loss, not only kill -9).",
        "devnet",
    ),
    Setting("log-level", "info", "Log level: debug, info, warn, error.", "devnet"),
    Setting("log-format", "text", "Log format: text or json (structured).", "devnet"),
)


@dataclass(frozen=True, slots=True)
class DevnetSettings:
    """Everything `snowfield devnet` is told; defaults match the SETTINGS table."""

    host: str = "127.0.0.1"
    port: int = 9650
    data_dir: Path | None = None
    network_id: int = 12345
    chain_id: int = 43112
    block_time: float | None = None
    gas_limit: int = 15_000_000
    mnemonic: str = "test test test test test test test test test test test junk"
    accounts: int = 10
    balance: int = 10_000
    demo: bool = False
    index_enabled: bool = True
    index_allow_incomplete: bool = False
    pruning_enabled: bool = False
    historical_proof_query_window: int = 43_200
    batch_request_limit: int = 40
    max_request_bytes: int = 5 * 1024 * 1024
    health_check_frequency: float = 30.0
    health_min_disk_bytes: int = 512 * 1024 * 1024
    fsync: bool = False
    log_level: str = "info"
    log_format: str = "text"
