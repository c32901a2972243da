"""An ICM relayer for the devnet: it follows SendCrossChainMessage on every chain it is given,
has the Warp message signed by the aggregator, and delivers it with receiveCrossChainMessage
(the signed message as the predicate in the tx's access list) to the destination chain, paying
its rewards to `reward_address`. It keeps its position per chain (in `state_file` across
restarts) and never delivers a message the destination already received.

Public API: `Relayer(chains, node_url, secret, reward_address, state_file)` (`step`, `run`,
`close`), `discover_chains(node_url)`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from eth_abi import decode

from snowfield.aggregator.aggregate import AggregationRequest
from snowfield.aggregator.service import AggregatorService
from snowfield.aggregator.validators import AggregationError
from snowfield.crypto.hashing import keccak
from snowfield.formats.ids import ID
from snowfield.formats.warp.message import UnsignedMessage
from snowfield.formats.warp.payload import AddressedCall, decode_payload
from snowfield.formats.warp.predicate import warp_access_list
from snowfield.rpc.client import RpcClient
from snowfield.workload.contracts import call_data
from snowfield.workload.icm import (
    MESSENGER_ADDRESS,
    TOPICS,
    EvmAccount,
    decode_message,
    receive_message_data,
)

log = logging.getLogger(__name__)
WARP = "0x0200000000000000000000000000000000000005"
SEND_WARP_TOPIC = keccak(b"SendWarpMessage(address,bytes32,bytes)")
DELIVERY_GAS = 600_000  # the messenger's own work beside the receiver's required gas
MAX_LOGS = 500
CUSTOM_EVM_VM_ID = "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy"  # subnet-evm


class Relayer:
    """`chains` maps a blockchain id (cb58) to its JSON-RPC URL."""

    def __init__(
        self,
        chains: Mapping[str, str],
        node_url: str,
        secret: bytes,
        reward_address: str,
        state_file: Path | None = None,
    ) -> None:
        self.rpcs = {chain: RpcClient(url) for chain, url in chains.items()}
        self.ids = {chain: _raw(chain) for chain in chains}
        self.secret = secret
        self.reward_address = reward_address
        self.aggregator = AggregatorService(node_url)
        self.state_file = state_file
        self.cursor: dict[str, int] = self._load()
        self.delivered = 0

    def _load(self) -> dict[str, int]:
        if self.state_file is None or not self.state_file.exists():
            return {}
        return {k: int(v) for k, v in json.loads(self.state_file.read_text()).items()}

    def _save(self) -> None:
        if self.state_file is not None:
            tmp = self.state_file.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.cursor))
            tmp.replace(self.state_file)

    async def step(self) -> int:
        """Delivers what was sent since the last step; returns how many it delivered."""
        done = 0
        by_raw = {raw: chain for chain, raw in self.ids.items()}
        for chain, rpc in self.rpcs.items():
            head = int(await rpc.call("eth_blockNumber"), 16)
            start = self.cursor.get(chain, -1) + 1
            if start > head:
                continue
            end = min(head, start + MAX_LOGS)
            logs = await rpc.call(
                "eth_getLogs",
                {
                    "fromBlock": hex(start),
                    "toBlock": hex(end),
                    "address": MESSENGER_ADDRESS,
                    "topics": ["0x" + TOPICS["SendCrossChainMessage"].hex()],
                },
            )
            for entry in logs:
                destination = by_raw.get(bytes.fromhex(entry["topics"][2][2:]))
                if destination is not None:
                    done += await self._deliver(chain, destination, entry)
            self.cursor[chain] = end
            self._save()
        self.delivered += done
        return done

    async def _deliver(self, source: str, destination: str, entry: dict[str, Any]) -> int:
        message_id = entry["topics"][1]
        dest = self.rpcs[destination]
        received = call_data("messageReceived(bytes32)", bytes.fromhex(message_id[2:]))
        if int(
            await dest.call(
                "eth_call", {"to": MESSENGER_ADDRESS, "data": "0x" + received.hex()}, "latest"
            ),
            16,
        ):
            return 0  # delivered already (by us before a restart, or by another relayer)
        unsigned = await self._warp_message(self.rpcs[source], entry)
        try:
            signed = await self.aggregator.aggregate(AggregationRequest(unsigned))
        except AggregationError as exc:
            log.warning("message %s not signed: %s", message_id, exc)
            return 0
        message = decode_message(_payload(unsigned))
        account = EvmAccount(dest, self.secret)
        receipt = await account.send(
            MESSENGER_ADDRESS,
            receive_message_data(0, self.reward_address),
            gas=DELIVERY_GAS + int(message[4]),
            access_list=warp_access_list(signed.encode()),
        )
        log.info("delivered %s to %s: %s", message_id, destination, receipt["status"])
        return 1 if receipt["status"] == "0x1" else 0

    async def _warp_message(self, rpc: RpcClient, entry: dict[str, Any]) -> UnsignedMessage:
        """The Warp message the messenger sent in the same transaction as `entry`."""
        receipt = await rpc.call("eth_getTransactionReceipt", entry["transactionHash"])
        for item in receipt["logs"]:
            if (
                item["address"].lower() == WARP
                and item["topics"][0] == "0x" + SEND_WARP_TOPIC.hex()
            ):
                (data,) = decode(["bytes"], bytes.fromhex(item["data"][2:]))
                return UnsignedMessage.decode(data)
        raise RuntimeError(f"no Warp message in {entry['transactionHash']}")

    async def run(self, interval: float, stop: asyncio.Event) -> None:
        while not stop.is_set():
            await self.step()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval)

    async def close(self) -> None:
        for rpc in self.rpcs.values():
            await rpc.aclose()
        await self.aggregator.close()


async def discover_chains(node_url: str) -> dict[str, str]:
    """The EVM chains of a node: the C-Chain and every chain of the custom EVM it answers for
    (blockchain id → JSON-RPC URL)."""
    base = node_url.rstrip("/")
    async with RpcClient(f"{base}/ext/info") as info, RpcClient(f"{base}/ext/bc/P") as p:
        c_chain = (await info.call_object("info.getBlockchainID", {"alias": "C"}))["blockchainID"]
        listed = (await p.call_object("platform.getBlockchains"))["blockchains"]
    chains = {c_chain: f"{base}/ext/bc/C/rpc"}
    for chain in listed:
        if chain["vmID"] != CUSTOM_EVM_VM_ID:
            continue
        url = f"{base}/ext/bc/{chain['id']}/rpc"
        try:
            async with RpcClient(url) as rpc:
                await rpc.call("eth_chainId")
        except Exception:  # created on the P-Chain but not hosted by this node
            continue
        chains[chain["id"]] = url
    return chains


def _payload(unsigned: UnsignedMessage) -> bytes:
    call = decode_payload(unsigned.payload)
    if not isinstance(call, AddressedCall):
        raise RuntimeError("the messenger's Warp message is not an addressed call")
    return call.payload


def _raw(chain: str) -> bytes:
    return ID.from_string(chain).raw
