"""The aggregator on the peer-to-peer network: an ephemeral TLS identity, connections to the
validators (found from bootstrap nodes and the peer lists they gossip), and ACP-118 signature
requests with a deadline.

Public API: `PeerNetwork(network_id, bootstrap)` (`connect`, `connected`, `request_signature`,
`close`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable

from snowfield.crypto.staking import StakingIdentity, verify_signature
from snowfield.formats.ids import NodeID
from snowfield.p2p import messages
from snowfield.p2p.messages import ProtocolError
from snowfield.p2p.peer import AppError, Identity, Peer
from snowfield.p2p.proto import p2p_pb2

log = logging.getLogger(__name__)
CONNECT_TIMEOUT = 5.0
MAX_PEERS = 1024


def _address(claimed: p2p_pb2.ClaimedIpPort) -> tuple[str, int]:
    host = messages.host_of(claimed.ip_addr)
    return host, claimed.ip_port


class PeerNetwork:
    """Connections by NodeID; `bootstrap` are `host:port` staking addresses to start from."""

    def __init__(self, network_id: int, bootstrap: Iterable[str] = ()) -> None:
        self.identity = Identity(StakingIdentity.generate(), network_id)
        self._bootstrap = list(bootstrap)
        self._peers: dict[NodeID, Peer] = {}
        self._known: dict[NodeID, tuple[str, int]] = {}
        self._lock = asyncio.Lock()

    async def connect(self, wanted: Iterable[NodeID] = ()) -> None:
        """Connects to the bootstrap nodes, learns their peers, and dials every known node
        (those in `wanted` at least) it is not connected to."""
        async with self._lock:
            for address in self._bootstrap:
                if self._live_at(address):
                    continue  # already learnt from it; its peers are known
                host, _, port = address.rpartition(":")
                peer = await self._dial(host, int(port))
                if peer is not None:
                    with contextlib.suppress(TimeoutError):
                        self._learn(await peer.peer_list(timeout=CONNECT_TIMEOUT))
            missing = [n for n in set(wanted) | set(self._known) if not self._live(n)]
            await asyncio.gather(
                *(self._dial(*self._known[n]) for n in missing if n in self._known)
            )

    def _live_at(self, address: str) -> bool:
        host, _, port = address.rpartition(":")
        return any(self._known.get(n) == (host, int(port)) and self._live(n) for n in self._peers)

    def _live(self, node_id: NodeID) -> bool:
        peer = self._peers.get(node_id)
        return peer is not None and not peer.closed.is_set()

    def _learn(self, claimed: Iterable[p2p_pb2.ClaimedIpPort]) -> None:
        for item in claimed:
            host, port = _address(item)
            signed = messages.unsigned_ip(host, port, item.timestamp)
            if not verify_signature(item.x509_certificate, signed, item.signature):
                continue  # a forged address claim
            self._known[NodeID.from_certificate(item.x509_certificate)] = (host, port)

    async def _dial(self, host: str, port: int) -> Peer | None:
        if len(self._peers) >= MAX_PEERS:
            return None
        try:
            peer = await Peer.connect(host, port, self.identity, timeout=CONNECT_TIMEOUT)
        except (OSError, ProtocolError, TimeoutError) as exc:
            log.debug("could not connect to %s:%d: %s", host, port, exc)
            return None
        if peer.node_id is None:
            await peer.close()
            return None
        old = self._peers.get(peer.node_id)
        if old is not None and old is not peer:
            await old.close()
        self._peers[peer.node_id] = peer
        self._known[peer.node_id] = (host, port)
        return peer

    def connected(self) -> set[NodeID]:
        return {n for n in self._peers if self._live(n)}

    async def request_signature(
        self,
        node_id: NodeID,
        chain_id: bytes,
        message: bytes,
        justification: bytes,
        timeout: float,
    ) -> bytes:
        """The node's signature bytes; AppError, TimeoutError or ConnectionError otherwise."""
        peer = self._peers.get(node_id)
        if peer is None or peer.closed.is_set():
            raise ConnectionError(f"not connected to {node_id}")
        request = messages.signature_request(message, justification)
        reply = await peer.request(chain_id, request, timeout)
        return messages.parse_signature_response(reply)

    async def close(self) -> None:
        for peer in list(self._peers.values()):
            await peer.close()
        self._peers.clear()


__all__ = ["AppError", "PeerNetwork"]
