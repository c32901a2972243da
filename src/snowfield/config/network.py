"""The settings of `snowfield devnet`: one network, and the chains it hosts read from them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from snowfield.config import shared
from snowfield.config.setting import setting

# How far the P-Chain demo moves the network clock: its stakers stake for a day (avalanchego's
# local minimum stake duration) and ten minutes, and it moves time a minute past their end. With
# --demo a new network starts this far in the past, so that the demo brings it to the present.
DEMO_CLOCK_JUMP = 24 * 3600 + 600 + 60

_C_CHAIN_EVM_IDS = {1: 43114, 5: 43113}  # mainnet's and Fuji's C-Chain genesis
LOCAL_C_CHAIN_EVM_ID = 43112  # avalanchego's local genesis, and every other network's here


def c_chain_evm_id(network_id: int) -> int:
    """The C-Chain's EVM chain id on a network, as avalanchego's genesis of it sets it."""
    return _C_CHAIN_EVM_IDS.get(network_id, LOCAL_C_CHAIN_EVM_ID)


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
    """The settings of one network (`NetworkSettings` in `config/network.py`). The chains it
    hosts are entries read from these flags: the C-Chain's entry takes `--chain-id`,
    `--gas-limit`, `--block-time`, `--genesis-timestamp`, `--pruning-enabled` and
    `--historical-proof-query-window`. Each chain keeps its data in
    `<data-dir>/<alias or blockchain id>/` (the C-Chain: `<data-dir>/C/`)."""

    host: str = setting("127.0.0.1", "Address the node listens on.")
    port: int = setting(9650, "Port of the node's HTTP and WebSocket APIs.")
    data_dir: Path | None = setting(
        None, "Directory for chain data; without it state lives in memory."
    )
    network_id: int = setting(12345, "Avalanche network id (1 mainnet, 5 fuji, 12345 local).")
    chain_id: int | None = setting(
        None,
        "EVM chain id of the C-Chain (default by network id, as avalanchego's genesis: 43114 "
        "for 1, 43113 for 5, 43112 otherwise).",
    )
    block_time: float | None = setting(
        None, "Seconds between blocks; without it every transaction is mined at once.", min=0.01
    )
    gas_limit: int = setting(15_000_000, "Gas limit of each block.", min=21_000)
    genesis_timestamp: int | None = setting(
        None,
        "Unix time of the genesis block (default: now); equal values give equal chains.",
        min=0,
    )
    mnemonic: str = setting(
        "test test test test test test test test test test test junk",
        "Mnemonic of the funded dev accounts.",
    )
    accounts: int = setting(
        10, "Number of dev accounts derived from the mnemonic.", min=1, max=1000
    )
    validators: int = setting(
        5,
        "Number of validators (staking certificate and BLS key each); node 0 serves the APIs.",
        min=1,
        max=100,
    )
    balance: int = setting(
        10_000, "Genesis balance of each dev account, in AVAX (10^18 wei).", min=0
    )
    demo: bool = setting(
        False,
        "Generate demo traffic (tokens, NFTs, factories, reverts; P-Chain staking, subnet, L1).",
        doc="The P-Chain demo moves the network clock a day and 11 minutes on so that its "
        "stakers' rewards are paid; a new network (a fresh data dir) starts that far in the "
        "past, so that the demo brings it to the present.",
    )
    l1: tuple[str, ...] | None = setting(
        None,
        "Create at boot an L1 named NAME (subnet, custom-EVM chain from genesis.json or a "
        "default, conversion with the devnet's validators); NAME[=genesis.json], repeatable.",
        doc="An existing chain of that name is kept. Without a genesis the chain id is 99999 "
        "(then 100000, …) and the dev accounts are funded.",
    )
    index_enabled: bool = setting(True, "Serve the index API at /ext/index/C/block.")
    index_allow_incomplete: bool = setting(False, "Start even if the index would miss containers.")
    x_dag_vertices: int = setting(
        0,
        "X-Chain vertices accepted before the stop vertex linearizes it (0: linear from genesis).",
        min=0,
        max=1_000_000,
    )
    staking_port: int = setting(
        9651,
        "Staking (peer-to-peer) port of the first validator; the next ones follow (0: any free "
        "ports). A taken port falls back to a free one.",
        min=0,
        max=65_435,
    )
    pruning_enabled: bool = setting(
        False, "Act as a pruning node: eth_getProof only within 32 blocks."
    )
    historical_proof_query_window: int = setting(
        43_200,
        "Blocks before the last accepted one that eth_getProof serves (archive; 0 = any).",
        min=0,
    )
    batch_request_limit: int = setting(40, "Most items in one JSON-RPC batch.", min=1)
    max_request_bytes: int = setting(
        5 * 1024 * 1024, "Largest JSON-RPC request body accepted.", min=1024
    )
    rpc_gas_cap: int = setting(
        50_000_000,
        "Most gas one eth_call or eth_estimateGas may use; more is capped (0 = no cap).",
        min=0,
    )
    rpc_evm_timeout: float = setting(
        5.0,
        "Seconds one eth_call or eth_estimateGas may run before it is aborted (0 = no limit).",
        min=0,
    )
    http_write_timeout: float = setting(
        30.0,
        "Seconds a request may run before it is answered with -32002 `request timed out` "
        "(avalanchego's --http-write-timeout; 0 = no limit).",
        min=0,
        doc="Every JSON-RPC API over HTTP (EVM, platform, avm, info, index, health, …); in a "
        "batch, the calls not answered by then. The call itself finishes in the background.",
    )
    http_read_header_timeout: float = shared.http_read_header_timeout()
    http_max_header_bytes: int = shared.http_max_header_bytes()
    http_max_connections: int = shared.http_max_connections()
    health_check_frequency: float = setting(30.0, "Seconds between health check runs.", min=0.1)
    health_min_disk_bytes: int = setting(
        512 * 1024 * 1024, "Free disk below which the diskspace check fails.", min=0
    )
    fsync: bool = setting(
        False, "fsync every accepted block (survives power loss, not only kill -9)."
    )
    load_state: Path | None = setting(
        None,
        "State file (anvil_dumpState's JSON, ours or anvil's) loaded as the state of latest.",
    )
    dump_state: Path | None = setting(None, "File the state of latest is written to on exit.")
    state: Path | None = setting(
        None, "As anvil: --load-state if the file exists, and --dump-state."
    )
    log_level: str = shared.log_level()
    log_format: str = shared.log_format()

    @property
    def c_chain_id(self) -> int:
        """--chain-id, else the C-Chain's EVM chain id of the network id's genesis."""
        return self.chain_id if self.chain_id is not None else c_chain_evm_id(self.network_id)

    @property
    def c_chain(self) -> EvmChainSettings:
        return EvmChainSettings(
            alias="C",
            chain_id=self.c_chain_id,
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
