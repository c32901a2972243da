"""The settings of the indexers: `snowfield index` (EVM chains) and `snowfield index-primary`."""

from __future__ import annotations

from dataclasses import dataclass

from snowfield.config import shared
from snowfield.config.setting import setting


@dataclass(frozen=True, slots=True)
class IndexSettings:
    """Indexes an EVM node (ours or any other) over JSON-RPC into SQLite or PostgreSQL: the
    chain of `--rpc` and beside it every EVM chain found or named."""

    rpc: str = setting("http://127.0.0.1:9650/ext/bc/C/rpc", "JSON-RPC URL of the node.")
    ws: str | None = setting(None, "WebSocket URL of the node, listed by the data service.")
    db: str = shared.db()
    chain_name: str = setting("C-Chain", "Name of the chain in the data service.")
    network: str | None = setting(
        None,
        "Network of the chain: mainnet or testnet (default: the node's info.getNetworkID, "
        "1 being mainnet; testnet for any other id or a node without the info API).",
    )
    description: str = setting("", "Description of the chain in the data service.")
    explorer_url: str | None = setting(None, "Block explorer URL listed for the chain.")
    blockchain_id: str | None = setting(
        None,
        "Blockchain id (cb58) of the chain; without it, asked of the node's /ext/info"
        " (info.getBlockchainID), else derived from the EVM chain id.",
        doc="A derived id reads `evm-<chain id>` and is not shown as `platformChainId`.",
    )
    subnet_id: str | None = setting(None, "Subnet id (cb58) the chain belongs to, if known.")
    token_name: str = setting("Avalanche", "Name of the chain's native token.")
    token_symbol: str = setting("AVAX", "Symbol of the chain's native token.")
    features: str = setting(
        "nftIndexing", "Comma-separated features: nftIndexing, webhooks, teleporter."
    )
    batch_blocks: int = setting(
        100, "Blocks fetched and written per transaction.", min=1, max=10_000
    )
    traces: str = setting(
        "auto", "Trace API: auto (trace_block, else debug callTracer), parity, debug or none."
    )
    rpc_batch_size: int = setting(40, "Most calls in one JSON-RPC batch (the node's limit).", min=1)
    rpc_concurrency: int = setting(4, "JSON-RPC batches in flight at once.", min=1, max=64)
    poll_interval: float = setting(0.5, "Seconds between head checks while following.", min=0.05)
    follow: bool = setting(True, "Keep following the head after the backfill.")
    until: int | None = setting(None, "Stop after this block (implies no follow).", min=0)
    discover: bool = setting(
        True,
        "Also follow every EVM chain the node's P-Chain lists (L1s), each with its own "
        "checkpoint; new ones are picked up while following.",
        doc="Found through `platform.getBlockchains` at the node of `--rpc` and each chain's "
        "`eth_chainId` at `/ext/bc/<blockchainID>/rpc`; listed by operation 3 with their name, "
        "subnet, VM id and a token named after the chain.",
    )
    chain_rpc: tuple[str, ...] | None = setting(
        None, "JSON-RPC URL of one more EVM chain to follow (repeatable)."
    )
    metrics_port: int | None = setting(
        None, "Serve Prometheus metrics of the indexer on 127.0.0.1 at this port."
    )
    parallel_backfill: bool = setting(
        False,
        "Split the chain's backfill with the other `snowfield index --parallel-backfill`"
        " processes on the same PostgreSQL database (this machine or others): each claims"
        " block ranges, and one of them follows the head.",
        doc="See [operations](operations.md#backfill-in-parallel). PostgreSQL only.",
    )
    backfill_range_blocks: int = setting(
        1000,
        "Blocks per claimed range of a parallel backfill (a multiple of --batch-blocks"
        " keeps batches where one process puts them).",
        min=1,
    )
    log_level: str = shared.log_level()
    log_format: str = shared.log_format()


@dataclass(frozen=True, slots=True)
class PrimaryIndexSettings:
    """Indexes the primary network (the P-Chain's blocks, txs, UTXOs, stakers, subnets and
    chains) of a node over its public interfaces, for operations 11-13 of the data API. A real
    node needs `--index-enabled`."""

    node: str = setting(
        "http://127.0.0.1:9650",
        "Base URL of the node (its /ext/index/P/block, /ext/bc/P and /ext/info).",
    )
    db: str = shared.db()
    batch_containers: int = setting(
        256,
        "P-Chain containers fetched and written per transaction (at most 1024).",
        min=1,
        max=1024,
    )
    poll_interval: float = setting(
        1.0,
        "Seconds between head checks while following.",
        env="SNOWFIELD_PRIMARY_POLL_INTERVAL",
        min=0.05,
    )
    follow: bool = setting(
        True, "Keep following the head after the backfill.", env="SNOWFIELD_PRIMARY_FOLLOW"
    )
    verify_containers: bool = setting(
        False,
        "Check every P-Chain container before indexing it, as avalanchego's proposervm parses "
        "blocks: the proposer's certificate and signature for the P-Chain, Granite's epoch.",
        doc="For a node you do not trust; a container that fails stops the indexer with the "
        "container's index, id and the reason (e.g. `staking: ECDSA verification failure`).",
    )
    log_level: str = shared.log_level()
    log_format: str = shared.log_format()
