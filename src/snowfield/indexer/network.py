"""The EVM chains of a network an indexer follows beside the one it was pointed at: found
through the P-Chain's blockchain list (`platform.getBlockchains`, then each chain's
`eth_chainId`) or named on the command line, each followed with its own checkpoint."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from snowfield.errors import SnowfieldError
from snowfield.indexer.identity import info_target, learn_blockchain_id
from snowfield.rpc.client import RpcClient
from snowfield.store.rows import ChainRow

log = logging.getLogger("snowfield.indexer")
# Bounds one discovery: a P-Chain lists every chain of every subnet.
MAX_CHAINS = 256
PROBE_TIMEOUT = 5.0
PROBES_IN_FLIGHT = 8  # a public network lists hundreds of chains a node mostly does not run
_CHAIN_RPC = re.compile(r"^(?P<node>.+)/ext/bc/[^/]+/rpc/?$")


@dataclass(frozen=True, slots=True)
class ChainTarget:
    """One EVM chain to index: where it answers and what the P-Chain says of it."""

    rpc_url: str
    chain_id: int
    blockchain_id: str | None = None
    name: str | None = None
    subnet_id: str | None = None
    vm_id: str | None = None

    @property
    def ws_url(self) -> str | None:
        if not self.rpc_url.endswith("/rpc"):
            return None
        return re.sub(r"^http", "ws", self.rpc_url[: -len("/rpc")] + "/ws")


async def probe(rpc_url: str) -> ChainTarget | None:
    """The chain behind an RPC URL named on the command line (None: no EVM answers there)."""
    try:
        async with RpcClient(rpc_url, timeout=PROBE_TIMEOUT) as client:
            chain_id = int(await client.call("eth_chainId"), 16)
    except (SnowfieldError, ValueError, TypeError) as exc:
        log.warning("no EVM chain at %s: %s", rpc_url, exc)
        return None
    return ChainTarget(rpc_url, chain_id, await learn_blockchain_id(rpc_url))


async def discover(rpc_url: str) -> list[ChainTarget]:
    """The EVM chains the P-Chain of `rpc_url`'s node lists (those whose /rpc answers
    eth_chainId); empty for a node without a P-Chain (anvil, geth)."""
    match = _CHAIN_RPC.match(rpc_url)
    if match is None or info_target(rpc_url) is None:
        return []
    node = match["node"]
    try:
        async with RpcClient(f"{node}/ext/bc/P", timeout=PROBE_TIMEOUT) as client:
            reply = await client.call_object("platform.getBlockchains", {})
    except SnowfieldError:
        return []
    listed = reply.get("blockchains") if isinstance(reply, dict) else None
    if not isinstance(listed, list):
        return []
    gate = asyncio.Semaphore(PROBES_IN_FLIGHT)

    async def gated(listed_chain: object) -> ChainTarget | None:
        async with gate:
            return await _evm_chain(node, listed_chain)

    found = await asyncio.gather(*(gated(c) for c in listed[:MAX_CHAINS]))
    return [t for t in found if t is not None]


async def _evm_chain(node: str, listed: object) -> ChainTarget | None:
    if not isinstance(listed, dict) or not isinstance(listed.get("id"), str):
        return None
    blockchain_id = listed["id"]
    url = f"{node}/ext/bc/{blockchain_id}/rpc"
    try:
        async with RpcClient(url, timeout=PROBE_TIMEOUT) as client:
            chain_id = int(await client.call("eth_chainId"), 16)
    except (SnowfieldError, ValueError, TypeError):
        return None  # not an EVM, or not started on this node
    return ChainTarget(
        url,
        chain_id,
        blockchain_id,
        _text(listed.get("name")),
        _text(listed.get("subnetID")),
        _text(listed.get("vmID")),
    )


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


Follow = Callable[[ChainTarget], Coroutine[Any, Any, None]]


class NetworkFollower:
    """Runs `follow(target)` for each chain once, finding new ones every `rediscover` seconds
    (a CreateChainTx can start a chain while the indexer runs)."""

    def __init__(
        self,
        follow: Follow,
        find: Callable[[], Awaitable[list[ChainTarget]]],
        *,
        rediscover: float = 10.0,
    ) -> None:
        self._follow = follow
        self._find = find
        self._rediscover = rediscover
        self.following: dict[int, ChainTarget] = {}

    async def run(self, stop: asyncio.Event) -> None:
        async with asyncio.TaskGroup() as group:
            while not stop.is_set():
                try:
                    found = await self._find()
                except Exception as exc:  # the node may be down a while: look again later
                    log.warning("chain discovery failed: %s", exc)
                    found = []
                for target in found:
                    if target.chain_id not in self.following:
                        self.following[target.chain_id] = target
                        log.info("following chain %s (%s)", target.chain_id, target.rpc_url)
                        group.create_task(self._follow(target))
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), timeout=self._rediscover)


def chain_row(target: ChainTarget, network: str, features: tuple[str, ...]) -> ChainRow:
    """What operation 3 lists of a chain found beside the configured one: its P-Chain name,
    subnet and VM; its native token named after the chain (the genesis does not name it)."""
    name = target.name or f"EVM chain {target.chain_id}"
    words = [w for w in re.split(r"[^A-Za-z0-9]+", name) if w]
    symbol = "".join(w[0] for w in words).upper()[:6] or "TOKEN"
    return ChainRow(
        chain_id=target.chain_id,
        name=name,
        network=network,
        rpc_url=target.rpc_url,
        ws_url=target.ws_url,
        blockchain_id=target.blockchain_id,
        subnet_id=target.subnet_id,
        vm_id=target.vm_id,
        description=f"{name}, an EVM chain of subnet {target.subnet_id}"
        if target.subnet_id
        else name,
        token_name=f"{name} token",
        token_symbol=symbol,
        features=features,
    )
