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
    env_name: str | None = None  # where two services' same-named settings must differ

    @property
    def env(self) -> str:
        return self.env_name or ENV_PREFIX + self.name.upper().replace("-", "_")

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
        "genesis-timestamp",
        None,
        "Unix time of the genesis block (default: now); equal values give equal chains.",
        "devnet",
    ),
    Setting(
        "mnemonic",
        "test test test test test test test test test test test junk",
        "Mnemonic of the funded dev accounts.",
        "devnet",
    ),
    Setting("accounts", 10, "Number of dev accounts derived from the mnemonic.", "devnet"),
    Setting(
        "validators",
        5,
        "Number of validators (staking certificate and BLS key each); node 0 serves the APIs.",
        "devnet",
    ),
    Setting(
        "balance", 10_000, "Genesis balance of each dev account, in AVAX (10^18 wei).", "devnet"
    ),
    Setting(
        "demo",
        False,
        "Generate demo traffic (tokens, NFTs, factories, reverts; P-Chain staking, subnet, L1).",
        "devnet",
    ),
    Setting(
        "l1",
        None,
        "Create at boot an L1 named NAME (subnet, custom-EVM chain from genesis.json or a "
        "default, conversion with the devnet's validators); NAME[=genesis.json], repeatable.",
        "devnet",
    ),
    Setting("index-enabled", True, "Serve the index API at /ext/index/C/block.", "devnet"),
    Setting(
        "index-allow-incomplete", False, "Start even if the index would miss containers.", "devnet"
    ),
    Setting(
        "staking-port",
        9651,
        "Staking (peer-to-peer) port of the first validator; the next ones follow (0: any free "
        "ports). A taken port falls back to a free one.",
        "devnet",
    ),
    Setting(
        "x-dag-vertices",
        0,
        "X-Chain vertices accepted before the stop vertex linearizes it (0: linear from genesis).",
        "devnet",
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
    Setting(
        "rpc-gas-cap",
        50_000_000,
        "Most gas one eth_call or eth_estimateGas may use; more is capped (0 = no cap).",
        "devnet",
    ),
    Setting(
        "rpc-evm-timeout",
        5.0,
        "Seconds one eth_call or eth_estimateGas may run before it is aborted (0 = no limit).",
        "devnet",
    ),
    Setting(
        "http-read-header-timeout",
        30.0,
        "Seconds a client has to send a request's line and headers (0 = no limit).",
        "devnet",
    ),
    Setting(
        "http-max-header-bytes",
        16 * 1024,
        "Largest request line plus headers; more answers 414 or 431.",
        "devnet",
    ),
    Setting(
        "http-max-connections",
        1000,
        "Most open connections and requests in flight; more answer 503 (0 = no limit).",
        "devnet",
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
    Setting(
        "load-state",
        None,
        "State file (anvil_dumpState's JSON, ours or anvil's) loaded as the state of latest.",
        "devnet",
    ),
    Setting("dump-state", None, "File the state of latest is written to on exit.", "devnet"),
    Setting(
        "state", None, "As anvil: --load-state if the file exists, and --dump-state.", "devnet"
    ),
    Setting("log-level", "info", "Log level: debug, info, warn, error.", "devnet"),
    Setting("log-format", "text", "Log format: text or json (structured).", "devnet"),
    # snowfield index
    Setting("rpc", "http://127.0.0.1:9650/ext/bc/C/rpc", "JSON-RPC URL of the node.", "index"),
    Setting("ws", None, "WebSocket URL of the node, listed by the data service.", "index"),
    Setting("db", "data/snowfield.db", "SQLite path or postgresql:// URL.", "index"),
    Setting("chain-name", "C-Chain", "Name of the chain in the data service.", "index"),
    Setting("network", "testnet", "Network of the chain: mainnet or testnet.", "index"),
    Setting("description", "", "Description of the chain in the data service.", "index"),
    Setting("explorer-url", None, "Block explorer URL listed for the chain.", "index"),
    Setting(
        "blockchain-id",
        None,
        "Blockchain id (cb58) of the chain; without it, asked of the node's /ext/info"
        " (info.getBlockchainID), else derived from the EVM chain id.",
        "index",
    ),
    Setting("subnet-id", None, "Subnet id (cb58) the chain belongs to, if known.", "index"),
    Setting("token-name", "Avalanche", "Name of the chain's native token.", "index"),
    Setting("token-symbol", "AVAX", "Symbol of the chain's native token.", "index"),
    Setting(
        "features",
        "nftIndexing",
        "Comma-separated features: nftIndexing, webhooks, teleporter.",
        "index",
    ),
    Setting("batch-blocks", 100, "Blocks fetched and written per transaction.", "index"),
    Setting(
        "traces",
        "auto",
        "Trace API: auto (trace_block, else debug callTracer), parity, debug or none.",
        "index",
    ),
    Setting("rpc-batch-size", 40, "Most calls in one JSON-RPC batch (the node's limit).", "index"),
    Setting("rpc-concurrency", 4, "JSON-RPC batches in flight at once.", "index"),
    Setting("poll-interval", 0.5, "Seconds between head checks while following.", "index"),
    Setting("follow", True, "Keep following the head after the backfill.", "index"),
    Setting("until", None, "Stop after this block (implies no follow).", "index"),
    Setting(
        "discover",
        True,
        "Also follow every EVM chain the node's P-Chain lists (L1s), each with its own "
        "checkpoint; new ones are picked up while following.",
        "index",
    ),
    Setting(
        "chain-rpc", None, "JSON-RPC URL of one more EVM chain to follow (repeatable).", "index"
    ),
    Setting(
        "metrics-port",
        None,
        "Serve Prometheus metrics of the indexer on 127.0.0.1 at this port.",
        "index",
    ),
    Setting(
        "log-level", "info", "Log level: debug, info, warn, error.", "index", "SNOWFIELD_LOG_LEVEL"
    ),
    Setting(
        "log-format",
        "text",
        "Log format: text or json (structured).",
        "index",
        "SNOWFIELD_LOG_FORMAT",
    ),
    # snowfield index-primary
    Setting(
        "node",
        "http://127.0.0.1:9650",
        "Base URL of the node (its /ext/index/P/block, /ext/bc/P and /ext/info).",
        "index-primary",
    ),
    Setting("db", "data/snowfield.db", "SQLite path or postgresql:// URL.", "index-primary"),
    Setting(
        "batch-containers",
        256,
        "P-Chain containers fetched and written per transaction (at most 1024).",
        "index-primary",
    ),
    Setting(
        "poll-interval",
        1.0,
        "Seconds between head checks while following.",
        "index-primary",
        env_name="SNOWFIELD_PRIMARY_POLL_INTERVAL",
    ),
    Setting(
        "follow",
        True,
        "Keep following the head after the backfill.",
        "index-primary",
        env_name="SNOWFIELD_PRIMARY_FOLLOW",
    ),
    Setting("log-level", "info", "Log level: debug, info, warn, error.", "index-primary"),
    Setting("log-format", "text", "Log format: text or json (structured).", "index-primary"),
    # snowfield serve
    Setting("host", "127.0.0.1", "Address the data API listens on.", "serve", "SNOWFIELD_API_HOST"),
    Setting("port", 8080, "Port of the data API.", "serve", "SNOWFIELD_API_PORT"),
    Setting("db", "data/snowfield.db", "SQLite path or postgresql:// URL.", "serve"),
    Setting(
        "redis",
        None,
        "Redis URL (redis://host:port/db) for rate limits shared by several API processes;"
        " without it each process counts alone.",
        "serve",
    ),
    Setting(
        "rate-anonymous",
        6000,
        "Compute units per minute for each client IP without an API key.",
        "serve",
    ),
    Setting(
        "rate-keyed",
        8000,
        "Compute units per minute for each API key that sets no rate of its own.",
        "serve",
    ),
    Setting(
        "metrics-api-port",
        8081,
        "Port of the metrics API (operations 17-18), served beside the data API on --host.",
        "serve",
    ),
    Setting(
        "metrics-rate",
        6000,
        "Requests per minute for each client IP on the metrics API.",
        "serve",
    ),
    Setting(
        "forwarded-allow-ips",
        "",
        "Comma-separated proxy IPs (or *) whose X-Forwarded-For names the client for rate"
        " limits; empty trusts no proxy.",
        "serve",
    ),
    Setting(
        "http-read-header-timeout",
        30.0,
        "Seconds a client has to send a request's line and headers (0 = no limit).",
        "serve",
    ),
    Setting(
        "http-max-header-bytes",
        16 * 1024,
        "Largest request line plus headers; more answers 414 or 431.",
        "serve",
    ),
    Setting(
        "http-max-connections",
        1000,
        "Most open connections and requests in flight; more answer 503 (0 = no limit).",
        "serve",
    ),
    Setting(
        "node-url",
        None,
        "Base URL of a node (http://host:port) whose validators operations 1-2 aggregate"
        " signatures from, over the peer-to-peer network; without it they answer 503.",
        "serve",
    ),
    Setting(
        "explorer-rpc",
        None,
        "JSON-RPC URL of the node the explorer (at /) asks for heads, blocks and receipts;"
        " without it, each chain's rpcUrl from /v1/chains.",
        "serve",
    ),
    Setting(
        "explorer-metrics-api",
        None,
        "Base URL of the metrics API the explorer calls; without it, the page's own host on"
        " --metrics-api-port.",
        "serve",
    ),
    Setting(
        "explorer-api-key",
        None,
        "API key the explorer sends in x-service-api-key (visible to every visitor of the page).",
        "serve",
    ),
    Setting(
        "log-level", "info", "Log level: debug, info, warn, error.", "serve", "SNOWFIELD_LOG_LEVEL"
    ),
    Setting(
        "log-format",
        "text",
        "Log format: text or json (structured).",
        "serve",
        "SNOWFIELD_LOG_FORMAT",
    ),
    Setting(
        "node-url",
        "http://127.0.0.1:9650",
        "Base URL of the node whose EVM chains the relayer serves (the C-Chain and every custom "
        "EVM chain it hosts) and whose validators sign.",
        "relayer",
        "SNOWFIELD_RELAYER_NODE_URL",
    ),
    Setting(
        "key",
        None,
        "Hex private key the relayer pays delivery gas with (required).",
        "relayer",
        "SNOWFIELD_RELAYER_KEY",
    ),
    Setting(
        "reward-address",
        None,
        "Address the messenger credits the relayer's rewards to (default: the key's).",
        "relayer",
    ),
    Setting(
        "state-file",
        "data/relayer.json",
        "Where the relayer keeps its position per chain across restarts.",
        "relayer",
    ),
    Setting(
        "chain",
        None,
        "Blockchain id (or C) of a chain to relay between (repeatable; default: every EVM chain"
        " of the node, new ones included as they appear).",
        "relayer",
    ),
    Setting("interval", 1.0, "Seconds between looks for new messages.", "relayer"),
    Setting(
        "log-level",
        "info",
        "Log level: debug, info, warn, error.",
        "relayer",
        "SNOWFIELD_LOG_LEVEL",
    ),
    Setting(
        "log-format",
        "text",
        "Log format: text or json (structured).",
        "relayer",
        "SNOWFIELD_LOG_FORMAT",
    ),
    Setting(
        "host",
        "127.0.0.1",
        "Address the aggregator's HTTP API listens on.",
        "aggregator",
        "SNOWFIELD_AGGREGATOR_HOST",
    ),
    Setting(
        "port",
        8082,
        "Port of the aggregator's HTTP API (/aggregate-signatures, /health, /metrics).",
        "aggregator",
        "SNOWFIELD_AGGREGATOR_PORT",
    ),
    Setting(
        "node-url",
        "http://127.0.0.1:9650",
        "Base URL of a node whose P-Chain API gives validator sets and whose info API gives the "
        "peers to connect to.",
        "aggregator",
        "SNOWFIELD_AGGREGATOR_NODE_URL",
    ),
    Setting(
        "deadline",
        20.0,
        "Seconds to collect signatures before failing (the real aggregator's window).",
        "aggregator",
    ),
    Setting(
        "log-level",
        "info",
        "Log level: debug, info, warn, error.",
        "aggregator",
        "SNOWFIELD_LOG_LEVEL",
    ),
    Setting(
        "log-format",
        "text",
        "Log format: text or json (structured).",
        "aggregator",
        "SNOWFIELD_LOG_FORMAT",
    ),
)


@dataclass(frozen=True, slots=True)
class EvmChainSettings:
    """One EVM chain of the network, as the network's settings describe it."""

    alias: str | None
    chain_id: int
    gas_limit: int
    block_time: float | None
    genesis_timestamp: int | None
    pruning_enabled: bool
    historical_proof_query_window: int


@dataclass(frozen=True, slots=True)
class NetworkSettings:
    """Everything `snowfield devnet` is told about the network it runs; defaults match the
    SETTINGS table. The flags of a chain (the C-Chain's today) are read through `chains`."""

    host: str = "127.0.0.1"
    port: int = 9650
    data_dir: Path | None = None
    network_id: int = 12345
    chain_id: int = 43112
    block_time: float | None = None
    gas_limit: int = 15_000_000
    genesis_timestamp: int | None = None
    mnemonic: str = "test test test test test test test test test test test junk"
    accounts: int = 10
    validators: int = 5
    balance: int = 10_000
    demo: bool = False
    l1: tuple[str, ...] | None = None
    index_enabled: bool = True
    index_allow_incomplete: bool = False
    x_dag_vertices: int = 0
    staking_port: int = 9651
    pruning_enabled: bool = False
    historical_proof_query_window: int = 43_200
    batch_request_limit: int = 40
    max_request_bytes: int = 5 * 1024 * 1024
    rpc_gas_cap: int = 50_000_000
    rpc_evm_timeout: float = 5.0
    http_read_header_timeout: float = 30.0
    http_max_header_bytes: int = 16 * 1024
    http_max_connections: int = 1000
    health_check_frequency: float = 30.0
    health_min_disk_bytes: int = 512 * 1024 * 1024
    fsync: bool = False
    load_state: Path | None = None
    dump_state: Path | None = None
    state: Path | None = None
    log_level: str = "info"
    log_format: str = "text"

    @property
    def c_chain(self) -> EvmChainSettings:
        return EvmChainSettings(
            alias="C",
            chain_id=self.chain_id,
            gas_limit=self.gas_limit,
            block_time=self.block_time,
            genesis_timestamp=self.genesis_timestamp,
            pruning_enabled=self.pruning_enabled,
            historical_proof_query_window=self.historical_proof_query_window,
        )

    @property
    def chains(self) -> tuple[EvmChainSettings, ...]:
        """The chains the network hosts, in registration order."""
        return (self.c_chain,)

    @property
    def state_to_load(self) -> Path | None:
        """--load-state, else --state when that file exists (anvil's rule)."""
        if self.load_state is not None:
            return self.load_state
        return self.state if self.state is not None and self.state.exists() else None

    @property
    def state_to_dump(self) -> Path | None:
        return self.dump_state if self.dump_state is not None else self.state


# The name the CLI command and existing callers know the network's settings by.
DevnetSettings = NetworkSettings


@dataclass(frozen=True, slots=True)
class IndexSettings:
    """Everything `snowfield index` is told; defaults match the SETTINGS table."""

    rpc: str = "http://127.0.0.1:9650/ext/bc/C/rpc"
    ws: str | None = None
    db: str = "data/snowfield.db"
    chain_name: str = "C-Chain"
    network: str = "testnet"
    description: str = ""
    explorer_url: str | None = None
    blockchain_id: str | None = None
    subnet_id: str | None = None
    token_name: str = "Avalanche"
    token_symbol: str = "AVAX"
    features: str = "nftIndexing"
    batch_blocks: int = 100
    traces: str = "auto"
    rpc_batch_size: int = 40
    rpc_concurrency: int = 4
    poll_interval: float = 0.5
    follow: bool = True
    until: int | None = None
    discover: bool = True
    chain_rpc: tuple[str, ...] | None = None
    metrics_port: int | None = None
    log_level: str = "info"
    log_format: str = "text"


@dataclass(frozen=True, slots=True)
class PrimaryIndexSettings:
    """Everything `snowfield index-primary` is told; defaults match the SETTINGS table."""

    node: str = "http://127.0.0.1:9650"
    db: str = "data/snowfield.db"
    batch_containers: int = 256
    poll_interval: float = 1.0
    follow: bool = True
    log_level: str = "info"
    log_format: str = "text"


@dataclass(frozen=True, slots=True)
class ServeSettings:
    """Everything `snowfield serve` (the data API) is told; defaults match the SETTINGS table."""

    host: str = "127.0.0.1"
    port: int = 8080
    db: str = "data/snowfield.db"
    redis: str | None = None
    rate_anonymous: int = 6000
    rate_keyed: int = 8000
    metrics_api_port: int = 8081
    metrics_rate: int = 6000
    forwarded_allow_ips: str = ""
    http_read_header_timeout: float = 30.0
    http_max_header_bytes: int = 16 * 1024
    http_max_connections: int = 1000
    node_url: str | None = None
    explorer_rpc: str | None = None
    explorer_metrics_api: str | None = None
    explorer_api_key: str | None = None
    log_level: str = "info"
    log_format: str = "text"


@dataclass(frozen=True, slots=True)
class AggregatorSettings:
    """Everything `snowfield aggregator` is told; defaults match the SETTINGS table."""

    host: str = "127.0.0.1"
    port: int = 8082
    node_url: str = "http://127.0.0.1:9650"
    deadline: float = 20.0
    log_level: str = "info"
    log_format: str = "text"


@dataclass(frozen=True, slots=True)
class RelayerSettings:
    """Everything `snowfield relayer` is told; defaults match the SETTINGS table."""

    node_url: str = "http://127.0.0.1:9650"
    key: str | None = None
    reward_address: str | None = None
    state_file: str = "data/relayer.json"
    chain: tuple[str, ...] | None = None
    interval: float = 1.0
    log_level: str = "info"
    log_format: str = "text"


# Which settings dataclass each service's rows of SETTINGS describe.
SERVICES: dict[str, type] = {
    "devnet": NetworkSettings,
    "index": IndexSettings,
    "index-primary": PrimaryIndexSettings,
    "serve": ServeSettings,
    "aggregator": AggregatorSettings,
    "relayer": RelayerSettings,
}
