"""One connection of avalanchego's peer protocol over TLS: the handshake both ways (network id,
time, signed IP with the TLS and BLS signatures, client version, known-peers filter), then
ping/pong, peer lists and app requests answered by a handler or awaited by request id.

Public API: `Identity`, `AppError`, `AppHandler`, `Peer` (`connect`, `accept`, `request`,
`close`), `claimed_ip`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from snowfield.crypto.bls import SecretKey
from snowfield.crypto.staking import StakingIdentity, verify_signature
from snowfield.formats.ids import NodeID
from snowfield.p2p import messages, tls
from snowfield.p2p.messages import ProtocolError
from snowfield.p2p.proto import p2p_pb2

HANDSHAKE_TIMEOUT = 10.0
MAX_CLOCK_DIFFERENCE = 60  # seconds, avalanchego's default
CLIENT = ("avalanchego", 1, 14, 0)  # the version we speak as, accepted by current nodes
MAX_PENDING = 1024


class AppError(Exception):
    """Raised with avalanchego's AppError code and text, on either side of a request."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# (peer, chain id, request app bytes) → response app bytes, or AppError
AppHandler = Callable[["Peer", bytes, bytes], Awaitable[bytes]]


@dataclass(frozen=True, slots=True)
class Identity:
    """Who we are on the network: a staking identity, its BLS key if a validator, and the
    address we claim (port 0 is not allowed by avalanchego: clients claim port 1)."""

    staking: StakingIdentity
    network_id: int
    host: str = "127.0.0.1"
    port: int = 1
    bls: SecretKey | None = None
    tracked_subnets: tuple[bytes, ...] = ()


@dataclass(slots=True)
class _State:
    pending: dict[int, asyncio.Future[bytes]] = field(default_factory=dict)
    handshake: p2p_pb2.Handshake | None = None
    got_peer_list: asyncio.Event = field(default_factory=asyncio.Event)
    peers: list[p2p_pb2.ClaimedIpPort] = field(default_factory=list)


def claimed_ip(identity: Identity, timestamp: int) -> p2p_pb2.ClaimedIpPort:
    """This identity's address as a peer list gossips it."""
    data = messages.unsigned_ip(identity.host, identity.port, timestamp)
    return p2p_pb2.ClaimedIpPort(
        x509_certificate=identity.staking.certificate_der,
        ip_addr=messages.ip_bytes(identity.host),
        ip_port=identity.port,
        timestamp=timestamp,
        signature=identity.staking.sign(data),
    )


def _handshake(identity: Identity) -> p2p_pb2.Message:
    now = int(time.time())
    data = messages.unsigned_ip(identity.host, identity.port, now)
    name, major, minor, patch = CLIENT
    handshake = p2p_pb2.Handshake(
        network_id=identity.network_id,
        my_time=now,
        ip_addr=messages.ip_bytes(identity.host),
        ip_port=identity.port,
        ip_signing_time=now,
        ip_node_id_sig=identity.staking.sign(data),
        tracked_subnets=list(identity.tracked_subnets),
        client=p2p_pb2.Client(name=name, major=major, minor=minor, patch=patch),
        known_peers=p2p_pb2.BloomFilter(filter=messages.EMPTY_BLOOM),
    )
    if identity.bls is not None:
        handshake.ip_bls_sig = identity.bls.sign_proof_of_possession(data).to_bytes()
    return p2p_pb2.Message(handshake=handshake)


class Peer:
    """A live connection; `node_id` is the other side's when it presented a certificate."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        identity: Identity,
        handler: AppHandler | None = None,
        peer_list: Callable[[], Sequence[p2p_pb2.ClaimedIpPort]] = lambda: (),
    ) -> None:
        self._reader, self._writer = reader, writer
        self.identity = identity
        self._handler = handler
        self._peer_list = peer_list
        self._state = _State()
        self._ids = itertools.count(1, 2)  # odd request ids, as avalanchego's clients use
        self._tasks: set[asyncio.Task[None]] = set()
        certificate = tls.peer_certificate(writer.get_extra_info("ssl_object"))
        self.certificate = certificate
        self.node_id: NodeID | None = tls.node_id_of(certificate) if certificate else None
        self._loop_task: asyncio.Task[None] | None = None
        self.closed = asyncio.Event()

    # --- opening -----------------------------------------------------------------------

    @classmethod
    async def connect(
        cls, host: str, port: int, identity: Identity, timeout: float = HANDSHAKE_TIMEOUT
    ) -> Peer:
        """Dials a node's staking port and completes the handshake (theirs verified)."""
        context = tls.client_context(identity.staking)
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(host, port, ssl=context, server_hostname=None), timeout
        )
        peer = cls(reader, writer, identity)
        await peer._start(timeout)
        return peer

    @classmethod
    async def accept(
        cls,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        identity: Identity,
        handler: AppHandler,
        peer_list: Callable[[], Sequence[p2p_pb2.ClaimedIpPort]],
    ) -> Peer:
        peer = cls(reader, writer, identity, handler, peer_list)
        await peer._start(HANDSHAKE_TIMEOUT)
        return peer

    async def _start(self, timeout: float) -> None:
        self._send(_handshake(self.identity))
        try:
            first = await asyncio.wait_for(messages.read_message(self._reader), timeout)
        except (TimeoutError, asyncio.IncompleteReadError, ConnectionError) as exc:
            self.abort()
            raise ProtocolError(f"no handshake from the peer: {exc!r}") from None
        if first.WhichOneof("message") != "handshake":
            self.abort()
            raise ProtocolError("the first message was not a handshake")
        self._check_handshake(first.handshake)
        self._send(p2p_pb2.Message(peer_list=p2p_pb2.PeerList(claimed_ip_ports=self._peer_list())))
        self._loop_task = asyncio.create_task(self._read_loop())

    def _check_handshake(self, handshake: p2p_pb2.Handshake) -> None:
        problem = None
        if handshake.network_id != self.identity.network_id:
            problem = f"network id {handshake.network_id} != {self.identity.network_id}"
        elif abs(handshake.my_time - time.time()) > MAX_CLOCK_DIFFERENCE:
            problem = "clock difference too large"
        elif handshake.ip_port == 0:
            problem = "port 0"
        elif self.certificate is not None:
            host = messages.host_of(handshake.ip_addr)
            signed = messages.unsigned_ip(host, handshake.ip_port, handshake.ip_signing_time)
            if not verify_signature(self.certificate, signed, handshake.ip_node_id_sig):
                problem = "invalid TLS signature"
        if problem is not None:
            self.abort()
            raise ProtocolError(f"bad handshake: {problem}")
        self._state.handshake = handshake

    # --- traffic -----------------------------------------------------------------------

    def _send(self, message: p2p_pb2.Message) -> None:
        self._writer.write(messages.frame(message))

    async def _read_loop(self) -> None:
        try:
            while True:
                self._dispatch(await messages.read_message(self._reader))
        except (asyncio.IncompleteReadError, ConnectionError, ProtocolError, OSError):
            pass
        finally:
            self._fail_pending(ConnectionError("connection closed"))
            self.closed.set()
            self._writer.close()

    def _dispatch(self, message: p2p_pb2.Message) -> None:
        kind = message.WhichOneof("message")
        if kind == "ping":
            self._send(p2p_pb2.Message(pong=p2p_pb2.Pong()))
        elif kind == "peer_list":
            self._state.peers.extend(message.peer_list.claimed_ip_ports)
            self._state.got_peer_list.set()
        elif kind == "get_peer_list":
            peers = p2p_pb2.PeerList(claimed_ip_ports=self._peer_list())
            self._send(p2p_pb2.Message(peer_list=peers))
        elif kind == "app_request" and self._handler is not None:
            if len(self._tasks) < MAX_PENDING:  # a flood is dropped, as a throttled node does
                task = asyncio.create_task(self._answer(message.app_request))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
        elif kind == "app_response":
            self._resolve(message.app_response.request_id, message.app_response.app_bytes, None)
        elif kind == "app_error":
            error = message.app_error
            self._resolve(error.request_id, b"", AppError(error.error_code, error.error_message))

    async def _answer(self, request: p2p_pb2.AppRequest) -> None:
        assert self._handler is not None
        try:
            reply = await self._handler(self, request.chain_id, request.app_bytes)
        except AppError as exc:
            error = p2p_pb2.AppError(
                chain_id=request.chain_id,
                request_id=request.request_id,
                error_code=exc.code,
                error_message=exc.message,
            )
            self._send_safely(p2p_pb2.Message(app_error=error))
            return
        response = p2p_pb2.AppResponse(
            chain_id=request.chain_id, request_id=request.request_id, app_bytes=reply
        )
        self._send_safely(p2p_pb2.Message(app_response=response))

    def _send_safely(self, message: p2p_pb2.Message) -> None:
        with contextlib.suppress(ConnectionError, RuntimeError, ProtocolError):
            if not self._writer.is_closing():
                self._send(message)

    def _resolve(self, request_id: int, data: bytes, error: AppError | None) -> None:
        future = self._state.pending.pop(request_id, None)
        if future is None or future.done():
            return  # an answer after the deadline, or one we never asked for
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(data)

    def _fail_pending(self, error: Exception) -> None:
        for future in self._state.pending.values():
            if not future.done():
                future.set_exception(error)
        self._state.pending.clear()

    async def request(self, chain_id: bytes, app_bytes: bytes, timeout: float) -> bytes:
        """Sends an AppRequest and waits for its AppResponse; AppError, TimeoutError or
        ConnectionError otherwise."""
        if self.closed.is_set():
            raise ConnectionError("connection closed")
        request_id = next(self._ids) & 0xFFFFFFFF
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._state.pending[request_id] = future
        deadline_ns = int(timeout * 1_000_000_000)
        message = p2p_pb2.AppRequest(
            chain_id=chain_id, request_id=request_id, deadline=deadline_ns, app_bytes=app_bytes
        )
        self._send(p2p_pb2.Message(app_request=message))
        try:
            return await asyncio.wait_for(future, timeout)
        finally:
            self._state.pending.pop(request_id, None)

    async def peer_list(self, timeout: float = HANDSHAKE_TIMEOUT) -> list[p2p_pb2.ClaimedIpPort]:
        """The peers the other side gossiped (its first peer list, sent after the handshake)."""
        await asyncio.wait_for(self._state.got_peer_list.wait(), timeout)
        return list(self._state.peers)

    @property
    def handshake(self) -> p2p_pb2.Handshake | None:
        return self._state.handshake

    def abort(self) -> None:
        self._writer.close()

    async def close(self) -> None:
        self._writer.close()
        if self._loop_task is not None:
            self._loop_task.cancel()
            await asyncio.gather(self._loop_task, return_exceptions=True)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        with contextlib.suppress(ConnectionError, OSError, asyncio.CancelledError):
            await self._writer.wait_closed()
