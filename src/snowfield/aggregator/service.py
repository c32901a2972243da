"""The aggregator as a service over one node's public APIs: it learns the network id and the
validators' staking addresses from info.*, keeps its peer connections, and turns requests (a
message, or a P-Chain L1 tx) into signed messages.

Public API: `AggregatorService(node_url)` (`aggregate`, `aggregate_tx`, `close`),
`parse_message`, `parse_subnet`, `TxNotFound`, `TxNotSupported`.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from snowfield.aggregator.aggregate import DEADLINE, AggregationRequest, Aggregator
from snowfield.aggregator.network import PeerNetwork
from snowfield.aggregator.validators import AggregationError, PlatformReader
from snowfield.errors import InvalidParams
from snowfield.formats.cb58 import decode_cb58
from snowfield.formats.ids import ID, P_CHAIN_ID
from snowfield.formats.platform.l1_txs import (
    ConvertSubnetToL1Tx,
    RegisterL1ValidatorTx,
    SetL1ValidatorWeightTx,
)
from snowfield.formats.platform.txs import Tx
from snowfield.formats.warp.message import Message, UnsignedMessage
from snowfield.formats.warp.payload import AddressedCall, decode_payload, encode_payload
from snowfield.formats.warp.platform_messages import (
    L1ValidatorRegistration,
    L1ValidatorWeight,
    RegisterL1Validator,
    SubnetToL1Conversion,
    conversion_id_of,
    decode_message,
    encode_message,
)
from snowfield.rpc.client import RpcClient

PRIMARY_NETWORK = "11111111111111111111111111111111LpoYY"


class TxNotFound(Exception):
    """Raised when the node does not know the P-Chain tx."""


class TxNotSupported(Exception):
    """Raised for a P-Chain tx that carries no L1 message to sign."""


def parse_message(data: bytes) -> UnsignedMessage:
    """An unsigned Warp message from its bytes, or from a SendWarpMessage log's ABI data
    (offset, length, bytes), as the real aggregator accepts both; InvalidParams otherwise."""
    if len(data) >= 64 and int.from_bytes(data[:32], "big") == 32:
        length = int.from_bytes(data[32:64], "big")
        if 64 + length <= len(data):
            try:
                return UnsignedMessage.decode(data[64 : 64 + length])
            except InvalidParams:
                pass
    return UnsignedMessage.decode(data)


def parse_subnet(text: str) -> str:
    """A signing subnet id given as 0x-hex (32 bytes) or cb58, as cb58; InvalidParams else."""
    if text.startswith("0x"):
        raw = bytes.fromhex(text[2:])
        return str(ID(raw))
    return str(ID(decode_cb58(text)))


class AggregatorService:
    """One aggregator over the node at `node_url`, connected on first use."""

    def __init__(self, node_url: str, deadline: float = DEADLINE) -> None:
        self.node_url = node_url.rstrip("/")
        self.deadline = deadline
        self._aggregator: Aggregator | None = None
        self._network_id: int | None = None
        self._lock = asyncio.Lock()

    async def _ready(self) -> Aggregator:
        async with self._lock:
            if self._aggregator is None:
                network_id, addresses = await self._discover()
                network = PeerNetwork(network_id, addresses)
                self._network_id = network_id
                self._aggregator = Aggregator(PlatformReader(self.node_url), network)
            return self._aggregator

    async def _discover(self) -> tuple[int, list[str]]:
        """The network id and the staking addresses to bootstrap from (the node's, its peers')."""
        try:
            async with RpcClient(f"{self.node_url}/ext/info") as info:
                network_id = int((await info.call_object("info.getNetworkID"))["networkID"])
                own = (await info.call_object("info.getNodeIP"))["ip"]
                peers = (await info.call_object("info.peers"))["peers"] or []
        except Exception as exc:
            raise AggregationError(f"failed to reach the node's info API: {exc}") from None
        return network_id, [own, *(p["ip"] for p in peers)]

    async def aggregate(self, request: AggregationRequest) -> Message:
        aggregator = await self._ready()
        return await aggregator.aggregate(replace(request, deadline=self.deadline))

    async def validated_by(self, blockchain_id: str) -> str:
        """The subnet validating a chain (cb58), as the P-Chain says (cached)."""
        aggregator = await self._ready()
        return await aggregator.platform.validated_by(ID.from_string(blockchain_id))

    async def aggregate_tx(self, tx_id: str, *, signing_subnet: str = PRIMARY_NETWORK) -> Message:
        """The signed P-Chain L1 message a ConvertSubnetToL1Tx, RegisterL1ValidatorTx or
        SetL1ValidatorWeightTx calls for, signed by the primary network's validators (or by
        `signing_subnet`'s: an L1 verifies a P-Chain message against its own validators)."""
        aggregator = await self._ready()
        data = await aggregator.platform.tx(tx_id)
        if data is None:
            raise TxNotFound(f"transaction {tx_id} not found")
        assert self._network_id is not None
        message, justification = _l1_message(Tx.decode(data))
        unsigned = UnsignedMessage(
            self._network_id, P_CHAIN_ID, encode_payload(AddressedCall(b"", message))
        )
        request = AggregationRequest(
            unsigned, justification, signing_subnet=signing_subnet, deadline=self.deadline
        )
        return await aggregator.aggregate(request)

    async def close(self) -> None:
        if self._aggregator is not None:
            await self._aggregator.network.close()
            await self._aggregator.platform.close()


def _l1_message(tx: Tx) -> tuple[bytes, bytes]:
    """(L1 message bytes, justification) for a P-Chain tx."""
    unsigned = tx.unsigned
    if isinstance(unsigned, ConvertSubnetToL1Tx):
        message = SubnetToL1Conversion(conversion_id_of(unsigned))
        return encode_message(message), unsigned.subnet_id.raw
    if isinstance(unsigned, RegisterL1ValidatorTx | SetL1ValidatorWeightTx):
        inner = _carried(unsigned.message)
        if isinstance(inner, RegisterL1Validator):
            registration = L1ValidatorRegistration(inner.validation_id, True)
            return encode_message(registration), b""
        if isinstance(inner, L1ValidatorWeight):
            return encode_message(inner), b""
    raise TxNotSupported(f"{type(unsigned).__name__} carries no L1 warp message to sign")


def _carried(signed: bytes) -> object:
    message = Message.decode(signed)
    payload = decode_payload(message.unsigned.payload)
    if not isinstance(payload, AddressedCall):
        raise TxNotSupported("the tx's warp message is not an addressed call")
    return decode_message(payload.payload)
