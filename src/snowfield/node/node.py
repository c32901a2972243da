"""The devnet node: composes the C-Chain runtime, keystore, index, health and admin."""

from __future__ import annotations

import shutil
from dataclasses import asdict
from pathlib import Path
from typing import Any

from snowfield.chains.evm.chain import EvmChain
from snowfield.chains.evm.execution.call import CallLimits
from snowfield.chains.evm.genesis import Allocation, ChainConfig
from snowfield.chains.evm.journal import Journal
from snowfield.config import DevnetSettings
from snowfield.crypto.keys import EWOQ_KEY, DevKey, derive_keys, key_from_bytes
from snowfield.formats.timefmt import format_rfc3339
from snowfield.node.health import CheckFailed, HealthService
from snowfield.node.index import BlockIndex, IndexState
from snowfield.node.methods.accesslist import access_list_methods
from snowfield.node.methods.admin import Admin
from snowfield.node.methods.cheats import cheat_methods
from snowfield.node.methods.debug import debug_methods
from snowfield.node.methods.eth import ProofPolicy, eth_methods
from snowfield.node.methods.evm import evm_methods
from snowfield.node.methods.keystore import Keystore
from snowfield.node.methods.logs import log_methods
from snowfield.node.methods.personal import personal_methods
from snowfield.node.methods.signing import signing_methods
from snowfield.node.methods.simulate import simulate_methods
from snowfield.node.methods.txpool import txpool_methods
from snowfield.node.methods.web3net import web3_net_methods
from snowfield.node.networks import network_ids
from snowfield.node.runtime import EvmRuntime
from snowfield.rpc.dispatch import Dispatcher, Limits
from snowfield.rpc.service import ServiceDispatcher

AVAX = 10**18
VERSION = "snowfield/v0.1.0"


class Node:
    """One devnet node. Build it, `await start()`, serve `create_node_app(node)`, `await stop()`."""

    def __init__(
        self,
        settings: DevnetSettings,
        journal: Journal,
        *,
        work_dir: Path | None,
        index_state: IndexState,
    ) -> None:
        self.settings = settings
        self.work_dir = work_dir
        self.ids = network_ids(settings.network_id)
        self.dev_keys: list[DevKey] = derive_keys(settings.mnemonic, settings.accounts)
        funded = [*self.dev_keys, key_from_bytes(EWOQ_KEY)]
        config = ChainConfig(
            chain_id=settings.chain_id,
            gas_limit=settings.gas_limit,
            alias="C",
            client_version=VERSION,
            alloc=tuple(Allocation(k.address, settings.balance * AVAX) for k in funded),
        )
        limits = CallLimits(settings.rpc_gas_cap, settings.rpc_evm_timeout)
        chain = EvmChain(
            config, journal, genesis_time=settings.genesis_timestamp, call_limits=limits
        )
        self.c = EvmRuntime(chain, blockchain_id=self.ids.c_chain, block_time=settings.block_time)
        self.keystore = Keystore(funded)
        proofs = ProofPolicy(settings.pruning_enabled, settings.historical_proof_query_window)
        self.evm_rpc = Dispatcher(
            [
                *web3_net_methods(VERSION, evm_network_id(settings)),
                *eth_methods(self.c, proofs, [k.address for k in self.dev_keys]),
                *log_methods(self.c),
                *personal_methods(self.c, self.keystore),
                *signing_methods(self.c, self.keystore),
                *access_list_methods(self.c),
                *txpool_methods(self.c),
                *debug_methods(self.c),
                *simulate_methods(self.c),
                *evm_methods(self.c),
                *cheat_methods(self.c),
            ],
            Limits(
                batch_items=settings.batch_request_limit, request_bytes=settings.max_request_bytes
            ),
        )
        self.index = (
            BlockIndex(chain, index_state, self.ids.c_chain) if settings.index_enabled else None
        )
        self.admin = Admin(work_dir / "profiles" if work_dir else None, self.vm_config())
        self.admin_rpc = ServiceDispatcher(self.admin.handlers(), self.admin.aliases())
        self.health = HealthService(format_rfc3339, settings.health_check_frequency)
        self.health_rpc = ServiceDispatcher(
            {
                "health.health": lambda p: self.health.health.report(_tags(p)),
                "health.readiness": lambda p: self.health.readiness.report(_tags(p)),
                "health.liveness": lambda p: self.health.liveness(),
            }
        )
        self._register_checks()

    def vm_config(self) -> dict[str, Any]:
        config = {
            k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(self.settings).items()
        }
        config.pop("mnemonic", None)
        return config

    def _register_checks(self) -> None:
        chain = self.c.chain
        primary = self.ids.primary_subnet

        def chain_check() -> dict[str, Any]:
            head = chain.head
            return {
                "engine": {
                    "consensus": {
                        "lastAcceptedHeight": head.number,
                        "lastAcceptedID": self.index.container_id_of(head)
                        if self.index
                        else "0x" + head.hash.hex(),
                        "longestProcessingBlock": "0s",
                        "processingBlocks": 0,
                    },
                    "vm": None,
                },
                "networking": {"percentConnected": 1.0},
            }

        def disk_check() -> dict[str, Any]:
            usage = shutil.disk_usage(self.work_dir or Path.cwd())
            details = {
                "availableDiskBytes": usage.free,
                "availableDiskPercentage": usage.free * 100 // usage.total,
            }
            if usage.free < self.settings.health_min_disk_bytes:
                raise CheckFailed(
                    f"remaining available disk space ({usage.free}) is below minimum required "
                    f"available space ({self.settings.health_min_disk_bytes})",
                    details,
                )
            return details

        def database_check() -> None:
            if self.work_dir is not None and not self.work_dir.exists():
                raise CheckFailed(f"data directory {self.work_dir} is missing")

        health = self.health.health
        health.register(
            "network",
            lambda: {
                "connectedPeers": 0,
                "sendFailRate": 0,
                "timeSinceLastMsgReceived": "0s",
                "timeSinceLastMsgSent": "0s",
            },
        )
        health.register("router", lambda: {"longestRunningRequest": "0s", "outstandingRequests": 0})
        health.register("database", database_check)
        health.register("diskspace", disk_check)
        health.register("bootstrapped", lambda: [])
        health.register("C", chain_check, tags=(primary,))
        self.health.readiness.register("bootstrapped", lambda: [])

    async def start(self) -> None:
        await self.c.start()
        await self.health.start()

    async def stop(self) -> None:
        await self.health.stop()
        await self.c.stop()


def _tags(params: dict[str, Any]) -> list[str]:
    tags = params.get("tags") or []
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        from snowfield.errors import InvalidParams

        raise InvalidParams("tags must be an array of strings")
    return tags


def evm_network_id(settings: DevnetSettings) -> int:
    """net_version: 1 on mainnet and the test network (as the spec says), else the chain id."""
    return 1 if settings.network_id in (1, 5) else settings.chain_id
