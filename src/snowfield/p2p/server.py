"""A node's staking port: accepts peers over TLS, completes the handshake, and answers their
app requests with a handler; can be taken down and brought back (a disconnected validator).

Public API: `PeerServer(identity, handler, peer_list)` (`start`, `stop`, `port`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import replace

from snowfield.p2p import tls
from snowfield.p2p.messages import ProtocolError
from snowfield.p2p.peer import AppHandler, Identity, Peer
from snowfield.p2p.proto import p2p_pb2

log = logging.getLogger(__name__)
MAX_PEERS = 256


class PeerServer:
    """Listens on `identity.host:identity.port` (port 0: one the OS picks, see `port`)."""

    def __init__(
        self,
        identity: Identity,
        handler: AppHandler,
        peer_list: Callable[[], Sequence[p2p_pb2.ClaimedIpPort]] = lambda: (),
    ) -> None:
        self.identity = identity
        self._handler = handler
        self._peer_list = peer_list
        self._server: asyncio.Server | None = None
        self._peers: set[Peer] = set()
        self._context = tls.server_context(identity.staking)
        self.port = identity.port

    async def start(self) -> None:
        self._server = await asyncio.start_server(
            self._serve, self.identity.host, self.port, ssl=self._context
        )
        self.port = self._server.sockets[0].getsockname()[1]
        # the handshake claims the port actually bound (avalanchego refuses port 0)
        self.identity = replace(self.identity, port=self.port)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if len(self._peers) >= MAX_PEERS:
            writer.close()
            return
        try:
            peer = await Peer.accept(reader, writer, self.identity, self._handler, self._peer_list)
        except (ProtocolError, ConnectionError, OSError) as exc:
            log.debug("peer refused: %s", exc)
            writer.close()
            return
        self._peers.add(peer)
        await peer.closed.wait()
        self._peers.discard(peer)

    @property
    def running(self) -> bool:
        return self._server is not None

    async def stop(self) -> None:
        """Stops listening and drops every connection."""
        server, self._server = self._server, None
        if server is not None:
            server.close()
        for peer in list(self._peers):
            await peer.close()
        self._peers.clear()
        if server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 2)
