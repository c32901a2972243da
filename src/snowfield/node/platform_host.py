"""The P-Chain hosted by the node: its genesis (local-network shaped, the node's validators
staking), runtime and platform.* service, as one HostedChain."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from snowfield.chains.atomic import SharedMemory
from snowfield.chains.evm.journal import Journal
from snowfield.chains.platform.chain import PlatformChain
from snowfield.chains.platform.genesis import LocalStaker, local_config
from snowfield.chains.platform.records import Blockchain
from snowfield.crypto.secp256k1 import public_key_of
from snowfield.formats.ids import ID, P_CHAIN_ID, PRIMARY_NETWORK_ID, ShortID
from snowfield.node.evm_host import EVM_VM
from snowfield.node.methods.platform import ChainIds, platform_methods
from snowfield.node.networks import NetworkIds
from snowfield.node.registry import GorillaService, HostedChain, Vm
from snowfield.node.x_host import AVM_VM
from snowfield.rpc.service import ServiceDispatcher

# platformvm's VM id (cb58 of "platformvm" padded to 32 bytes), as info.getVMs lists it.
PLATFORM_VM = Vm("11111111111111111111111111111111LpoYY", "platformvm")


@dataclass(frozen=True, slots=True)
class PlatformHosting:
    """What hosting the P-Chain takes from the node."""

    ids: NetworkIds
    funded_keys: tuple[bytes, ...]  # secp256k1 secrets whose P addresses the genesis funds
    stakers: tuple[LocalStaker, ...]  # the node's validators, staking from genesis
    directory: Path | None  # the genesis time persists here; None: memory
    journal: Journal  # the accepted blocks, replayed on start
    clock: Callable[[], float] = time.time  # the network's clock


class PlatformRuntime:
    """The P-Chain at work: every write runs on the event loop, so calls never interleave;
    each issued tx is built into a block at once (clients see `Committed` on their next poll)."""

    def __init__(
        self, chain: PlatformChain, journal: Journal, clock: Callable[[], float] = time.time
    ) -> None:
        self.chain = chain
        self.journal = journal
        self._clock = clock
        for record in journal.records():
            chain.apply_block(record)

    async def start(self) -> None:
        self.advance()

    async def stop(self) -> None:
        return None

    def now(self) -> int:
        return int(self._clock())

    def advance(self) -> None:
        """Builds whatever is due by now: staker ends, time moves, the mempool's txs."""
        for block in self.chain.build_block(self.now()):
            self.journal.append(block.data)

    def issue(self, tx_bytes: bytes) -> ID:
        tx_id = self.chain.issue(tx_bytes)
        self.advance()
        return tx_id


def genesis_time(directory: Path | None) -> int:
    """The genesis start time: now on first start, then what `<dir>/genesis-time` kept (the
    journaled blocks replay only on the same genesis)."""
    path = directory / "genesis-time" if directory else None
    if path is not None and path.exists():
        return int(path.read_text())
    now = int(time.time())
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(str(now))
    return now


def p_addresses(secrets: Sequence[bytes]) -> tuple[ShortID, ...]:
    return tuple(ShortID.from_public_key(public_key_of(s)) for s in secrets)


def host_platform_chain(
    hosting: PlatformHosting, shared_memory: SharedMemory, chain_ids: ChainIds
) -> HostedChain:
    """The P-Chain, answering at /ext/bc/{P,platform,<id>} and /ext/{P,platform}."""
    ids = hosting.ids
    directory = hosting.directory
    config = local_config(
        ids.network_id,
        ID.from_string(ids.avax_asset),
        genesis_time(directory),
        hosting.stakers,
        (),  # the X and C ids come from the network's table, not from genesis CreateChainTxs
        dev_addresses=p_addresses(hosting.funded_keys),
    )
    chain = PlatformChain.from_genesis(config, shared_memory)
    _add_network_chains(chain, ids)
    runtime = PlatformRuntime(chain, hosting.journal, hosting.clock)
    service = ServiceDispatcher(platform_methods(runtime, ids.network_id, chain_ids))
    return HostedChain(
        alias="P",
        blockchain_id=str(P_CHAIN_ID),
        subnet_id=ids.primary_subnet,
        vm=PLATFORM_VM,
        runtime=runtime,
        services={"": GorillaService(service)},
        health=lambda: _health(runtime),
        aliases=("platform",),
        short_forms=("P", "platform"),
    )


def _add_network_chains(chain: PlatformChain, ids: NetworkIds) -> None:
    """X and C as primary-network chains of the state under the network's known ids, so that
    atomic txs to and from them verify (until the genesis creates them with CreateChainTxs)."""
    for name, blockchain_id, vm in (
        ("C-Chain", ids.c_chain, EVM_VM),
        ("X-Chain", ids.x_chain, AVM_VM),
    ):
        key = ID.from_string(blockchain_id)
        chain.state.blockchains.setdefault(
            key, Blockchain(key, name, PRIMARY_NETWORK_ID, ID.from_string(vm.id), (), b"")
        )


def _health(runtime: PlatformRuntime) -> dict[str, Any]:
    return {"height": runtime.chain.height, "timestamp": runtime.chain.timestamp}
