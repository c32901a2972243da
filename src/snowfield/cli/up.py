"""`snowfield up`: every service on this machine, each its own process (what `make up` runs)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from snowfield.cli.options import command_line, settings_command
from snowfield.cli.service import console
from snowfield.config import (
    IndexSettings,
    NetworkSettings,
    PrimaryIndexSettings,
    RelayerSettings,
    ServeSettings,
    UpSettings,
    WebhookSettings,
)

if TYPE_CHECKING:
    from snowfield.supervisor import Child

# `make up` crosses the X-Chain's linearization within its first minute of demo traffic.
UP_X_DAG_VERTICES = 6


@settings_command(UpSettings)
def up(settings: UpSettings) -> None:
    """Start everything on this machine: devnet with demo traffic, indexers, APIs, explorer.

    The devnet with demo traffic on every chain, the indexers, the ICM relayer, and the data
    and metrics APIs with the explorer, each its own process; it prints the URLs, keeps the
    logs under DATA_DIR/logs, and Ctrl-C stops it all."""
    from snowfield.supervisor import supervise

    raise typer.Exit(supervise(children(settings), _urls(settings), console))


def children(settings: UpSettings) -> list[Child]:
    """The services `up` starts, in order, each with the flags it is given."""
    from snowfield.supervisor import Child
    from snowfield.workload.orchestra import ICM_RELAYER_KEY

    python = [sys.executable, "-m", "snowfield"]
    data_dir, node_port = settings.data_dir, settings.node_port
    node = f"http://127.0.0.1:{node_port}"
    rpc = f"{node}/ext/bc/C/rpc"
    # Every child gets the same store: the embedded SQLite file unless `--db` names another.
    db = settings.db or str(data_dir / "snowfield.db")
    logs_dir = data_dir / "logs"
    devnet = command_line(NetworkSettings)(
        demo=True,
        x_dag_vertices=UP_X_DAG_VERTICES,
        l1=(f"snowfield demo L1={demo_l1_genesis(data_dir)}",),
        data_dir=data_dir / "devnet",
        port=node_port,
        log_level="warn",
    )
    index = command_line(IndexSettings)(
        rpc=rpc,
        db=db,
        ws=f"ws://127.0.0.1:{node_port}/ext/bc/C/ws",
        blockchain_id=_c_chain_id(),
        description="The local devnet's C-Chain",
        poll_interval=0.25,
    )
    primary = command_line(PrimaryIndexSettings)(node=node, db=db, poll_interval=0.5)
    relayer = command_line(RelayerSettings)(
        node_url=node, key=_dev_key(ICM_RELAYER_KEY), state_file=str(data_dir / "relayer.json")
    )
    api = command_line(ServeSettings)(
        db=db,
        redis=settings.redis,
        port=settings.api_port,
        metrics_api_port=settings.metrics_api_port,
        explorer_rpc=rpc,
        node_url=node,
    )
    # Loopback receivers are allowed on the devnet (the default policy refuses them).
    hooks = command_line(WebhookSettings)(db=db, allow="127.0.0.0/8,::1/128")
    return [
        # The devnet's banner (funded accounts, URLs) belongs on the terminal: no log file.
        Child("devnet", [*python, "devnet", *devnet], f"{node}/ext/health/liveness", None),
        Child("indexer", [*python, "index", *index], None, logs_dir / "indexer.log"),
        Child(
            "primary", [*python, "index-primary", *primary], None, logs_dir / "primary-indexer.log"
        ),
        Child("relayer", [*python, "relayer", *relayer], None, logs_dir / "relayer.log"),
        Child("webhooks", [*python, "webhooks", *hooks], None, logs_dir / "webhooks.log"),
        Child(
            "api",
            [*python, "serve", *api],
            f"http://127.0.0.1:{settings.api_port}/v1/chains",
            logs_dir / "api.log",
        ),
    ]


def _urls(settings: UpSettings) -> dict[str, str]:
    api = f"http://127.0.0.1:{settings.api_port}"
    return {
        "Explorer": f"{api}/",
        "Data API": f"{api}/v1/chains",
        "Data API OpenAPI": f"{api}/openapi.json",
        "Primary network": f"{api}/v1/networks/fuji/subnets",
        "Metrics API": f"http://127.0.0.1:{settings.metrics_api_port}/v2/chains/43112/metrics/"
        "txCount?timeInterval=hour",
        "C-Chain JSON-RPC": f"http://127.0.0.1:{settings.node_port}/ext/bc/C/rpc",
        "Logs": str(settings.data_dir / "logs"),
    }


def demo_l1_genesis(data_dir: Path) -> Path:
    """`make up`'s L1: the devnet's default L1 genesis with every precompile active, dev
    account 0 their admin (the demo calls each), the other dev accounts allowed, the ICM
    messenger's one-time deployer (its keyless deployment must pass the allow lists), and our
    ValidatorManager at the manager address the devnet's conversion names."""
    import time

    from snowfield.crypto.keys import EWOQ_KEY, derive_keys, key_from_bytes
    from snowfield.node.l1_boot import DEFAULT_L1_CHAIN_ID, MANAGER_ADDRESS, devnet_l1_genesis
    from snowfield.workload.icm import KEYLESS
    from snowfield.workload.validator_manager import genesis_with_manager

    defaults = NetworkSettings()
    keys = [*derive_keys(defaults.mnemonic, defaults.accounts), key_from_bytes(EWOQ_KEY)]
    deployer = bytes.fromhex(KEYLESS.deployer[2:])
    genesis = devnet_l1_genesis(
        DEFAULT_L1_CHAIN_ID,
        [*(k.address for k in keys), deployer],
        defaults.balance * 10**18,
        defaults.gas_limit,
        int(time.time()),
        precompiles=True,
    )
    genesis = genesis_with_manager(genesis, MANAGER_ADDRESS)
    path = data_dir / "demo-l1-genesis.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(genesis)
    return path


def _dev_key(index: int) -> str:
    """A dev key of the devnet `make up` starts, as hex."""
    from snowfield.crypto.keys import derive_keys

    settings = NetworkSettings()
    return "0x" + derive_keys(settings.mnemonic, settings.accounts)[index].private_key.hex()


def _c_chain_id() -> str:
    """The C-Chain id of the devnet `make up` starts (its genesis: the default settings)."""
    from snowfield.crypto.keys import derive_keys
    from snowfield.node.primary_genesis import primary_genesis

    settings = NetworkSettings()
    keys = derive_keys(settings.mnemonic, settings.accounts)
    return primary_genesis(settings, [k.private_key for k in keys]).ids.c_chain
