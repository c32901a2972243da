"""An ICM relayer for the devnet: it follows SendCrossChainMessage on every chain it is given,
has the Warp message signed by the aggregator, and delivers it with receiveCrossChainMessage
(the signed message as the predicate in the tx's access list) to the destination chain, paying
its rewards to `reward_address`. It keeps its position per chain (in `state_file` across
restarts) and never delivers a message the destination already received. A message it could
not deliver yet (too few signatures, a reverted delivery, a node error) stays in its state as
pending and is tried again on later steps, up to MAX_ATTEMPTS times.

Public API: `Relayer(chains, node_url, secret, reward_address, state_file)` (`step`, `run`,
`close`), `discover_chains(node_url)`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from snowfield.aggregator.aggregate import AggregationRequest
from snowfield.aggregator.service import PRIMARY_NETWORK, AggregatorService
from snowfield.aggregator.validators import AggregationError
from snowfield.errors import SnowfieldError
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
    sent_warp_message,
)

log = logging.getLogger(__name__)
DELIVERY_GAS = 600_000  # the messenger's own work beside the receiver's required gas
MAX_LOGS = 500
DELIVERED, RECEIVED, FAILED = "delivered", "received", "failed"
MAX_ATTEMPTS = 50  # a message still undeliverable after this many steps is given up (logged)
DISCOVER_EVERY = 30  # rounds between looks for chains the node added
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
        *,
        discover: Callable[[], Awaitable[dict[str, str]]] | None = None,
    ) -> None:
        self.rpcs: dict[str, RpcClient] = {}
        self.by_raw: dict[bytes, str] = {}  # raw blockchain id -> its cb58 name
        for chain, url in chains.items():
            self._add(chain, url)
        self.discover = discover
        self._requires_primary: dict[str, bool] = {}
        self.secret = secret
        self.reward_address = reward_address
        self.aggregator = AggregatorService(node_url)
        self.state_file = state_file
        # per chain, the last block whose messages were read; messages read but not delivered
        # yet: (source chain, send tx hash, log index) → attempts so far
        self.cursor: dict[str, int] = {}
        self.pending: dict[tuple[str, str, int], int] = {}
        self._load()
        self.delivered = 0

    def _add(self, chain: str, url: str) -> None:
        self.rpcs[chain] = RpcClient(url)
        self.by_raw[ID.from_string(chain).raw] = chain

    async def _discover(self) -> None:
        """Adds the chains the node hosts now that it did not before (a new L1)."""
        if self.discover is None:
            return
        for chain, url in (await self.discover()).items():
            if chain not in self.rpcs:
                log.info("relaying for a new chain %s", chain)
                self._add(chain, url)

    def _load(self) -> None:
        if self.state_file is None or not self.state_file.exists():
            return
        state = json.loads(self.state_file.read_text())
        if "cursor" not in state:  # the first format: the cursor alone
            state = {"cursor": state, "pending": []}
        self.cursor = {k: int(v) for k, v in state["cursor"].items()}
        self.pending = {(c, h, int(i)): int(n) for c, h, i, n in state["pending"]}

    def _save(self) -> None:
        if self.state_file is not None:
            state = {
                "cursor": self.cursor,
                "pending": [[c, h, i, n] for (c, h, i), n in self.pending.items()],
            }
            tmp = self.state_file.with_suffix(".tmp")
            tmp.write_text(json.dumps(state))
            tmp.replace(self.state_file)

    async def step(self) -> int:
        """Delivers the pending messages and what was sent since the last step; returns how
        many it delivered."""
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
                if self._destination(entry) is not None:
                    key = (chain, entry["transactionHash"].lower(), int(entry["logIndex"], 16))
                    self.pending.setdefault(key, 0)
            # the messages are pending (saved) before they are delivered: a crash from here
            # on finds them again, and the destination's messageReceived stops a second delivery
            self.cursor[chain] = end
            self._save()
        done = await self._retry_pending()
        self.delivered += done
        return done

    async def _retry_pending(self) -> int:
        done = 0
        for key in list(self.pending):  # in the order they were sent
            source, tx_hash, log_index = key
            try:
                outcome = await self._deliver_logged(source, tx_hash, log_index)
            except (SnowfieldError, OSError, RuntimeError) as exc:
                log.warning("message in %s (%s) not delivered yet: %s", tx_hash, source, exc)
                outcome = FAILED
            if outcome != FAILED:
                del self.pending[key]
                done += outcome == DELIVERED
            else:
                self.pending[key] += 1
                if self.pending[key] >= MAX_ATTEMPTS:
                    log.error(
                        "giving up on the message in %s after %d tries", tx_hash, MAX_ATTEMPTS
                    )
                    del self.pending[key]
            self._save()
        return done

    async def _deliver_logged(self, source: str, tx_hash: str, log_index: int) -> str:
        """Delivers the message of one SendCrossChainMessage log (found again by its tx)."""
        receipt = await self.rpcs[source].call("eth_getTransactionReceipt", tx_hash)
        if receipt is None:
            raise RuntimeError("the send transaction is gone (reorganised)")
        (entry,) = [x for x in receipt["logs"] if int(x["logIndex"], 16) == log_index]
        destination = self._destination(entry)
        if destination is None:
            raise RuntimeError(f"the message in {tx_hash} goes to a chain no longer relayed")
        return await self._deliver(source, destination, entry, receipt)

    def _destination(self, entry: dict[str, Any]) -> str | None:
        """The relayed chain a SendCrossChainMessage log names (None: not one of ours)."""
        return self.by_raw.get(bytes.fromhex(entry["topics"][2][2:]))

    async def _deliver(
        self, source: str, destination: str, entry: dict[str, Any], receipt: dict[str, Any]
    ) -> str:
        """DELIVERED by this call, RECEIVED before (by us before a restart, or by another
        relayer), or FAILED (to be tried again). `receipt`: the send's, holding its Warp
        message."""
        message_id = entry["topics"][1]
        dest = self.rpcs[destination]
        received = call_data("messageReceived(bytes32)", bytes.fromhex(message_id[2:]))
        if int(
            await dest.call(
                "eth_call", {"to": MESSENGER_ADDRESS, "data": "0x" + received.hex()}, "latest"
            ),
            16,
        ):
            return RECEIVED
        unsigned = sent_warp_message(receipt)
        if unsigned is None:
            raise RuntimeError(f"no Warp message in {entry['transactionHash']}")
        try:
            signing = await self._signing_subnet(source, destination)
            signed = await self.aggregator.aggregate(
                AggregationRequest(unsigned, signing_subnet=signing)
            )
        except AggregationError as exc:
            log.warning("message %s not signed: %s", message_id, exc)
            return FAILED
        message = decode_message(_payload(unsigned))
        account = EvmAccount(dest, self.secret)
        delivery = await account.send(
            MESSENGER_ADDRESS,
            receive_message_data(0, self.reward_address),
            gas=DELIVERY_GAS + int(message[4]),
            access_list=warp_access_list(signed.encode()),
        )
        log.info("delivered %s to %s: %s", message_id, destination, delivery["status"])
        return DELIVERED if delivery["status"] == "0x1" else FAILED

    async def _signing_subnet(self, source: str, destination: str) -> str | None:
        """Whose signatures the destination verifies: a message from a primary-network chain
        to an L1 is checked against the L1's own validators unless the L1 requires primary
        network signers (warpConfig), as icm-services' relayer asks; otherwise the source's
        (None: the aggregator's default)."""
        if await self.aggregator.validated_by(source) != PRIMARY_NETWORK:
            return None
        target = await self.aggregator.validated_by(destination)
        if target == PRIMARY_NETWORK:
            return None
        if destination not in self._requires_primary:
            config = await self.rpcs[destination].call("eth_getChainConfig")
            warp = (config or {}).get("warpConfig") or {}
            self._requires_primary[destination] = bool(warp.get("requirePrimaryNetworkSigners"))
        return None if self._requires_primary[destination] else target

    async def run(self, interval: float, stop: asyncio.Event) -> None:
        rounds = 0
        while not stop.is_set():
            try:
                if rounds % DISCOVER_EVERY == 0 and rounds:
                    await self._discover()
                rounds += 1
                await self.step()
            except Exception as exc:  # any node or network failure: log, try again next interval
                log.warning("relaying failed, retrying: %s", exc)
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


def chains_alias(name: str, chains: Mapping[str, str]) -> str:
    """The blockchain id a --chain value names: an id, or C for the node's C-Chain."""
    if name.upper() == "C":
        return next((c for c, url in chains.items() if url.endswith("/ext/bc/C/rpc")), name)
    return name


def _payload(unsigned: UnsignedMessage) -> bytes:
    call = decode_payload(unsigned.payload)
    if not isinstance(call, AddressedCall):
        raise RuntimeError("the messenger's Warp message is not an addressed call")
    return call.payload
