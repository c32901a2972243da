"""Two peers over real TLS on loopback: handshake both ways (signed IPs verified), peer list,
app requests answered and failed with AppErrors, deadlines, and refused handshakes."""

from __future__ import annotations

import asyncio

import pytest

from snowfield.crypto.bls import SecretKey
from snowfield.crypto.staking import StakingIdentity
from snowfield.p2p import messages
from snowfield.p2p.messages import ProtocolError
from snowfield.p2p.peer import AppError, Identity, Peer, claimed_ip
from snowfield.p2p.proto import p2p_pb2, sdk_pb2
from snowfield.p2p.server import PeerServer

CHAIN = bytes(range(32))


async def _echo(peer: Peer, chain_id: bytes, app_bytes: bytes) -> bytes:
    handler, body = messages.split_prefix(app_bytes)
    if body == b"fail":
        raise AppError(-1, "unexpected error")
    if body == b"slow":
        await asyncio.sleep(5)
    return chain_id[:1] + bytes([handler]) + body


def _server(network_id: int = 12345) -> tuple[PeerServer, Identity]:
    identity = Identity(StakingIdentity.generate(), network_id, port=0, bls=SecretKey.generate())
    server = PeerServer(identity, _echo, lambda: [claimed_ip(server.identity, 1_700_000_000)])
    return server, identity


def test_handshake_requests_and_errors() -> None:
    async def run() -> None:
        server, server_identity = _server()
        await server.start()
        me = Identity(StakingIdentity.generate(), 12345)
        peer = await Peer.connect("127.0.0.1", server.port, me)
        try:
            assert peer.node_id == server_identity.staking.node_id
            assert peer.handshake is not None and peer.handshake.network_id == 12345
            assert peer.handshake.client.name == "avalanchego"
            gossiped = await peer.peer_list()
            assert [p.x509_certificate for p in gossiped] == [
                server_identity.staking.certificate_der
            ]
            reply = await peer.request(CHAIN, messages.prefixed(2, b"hi"), timeout=5)
            assert reply == bytes([0, 2]) + b"hi"
            with pytest.raises(AppError) as error:
                await peer.request(CHAIN, messages.prefixed(2, b"fail"), timeout=5)
            assert (error.value.code, error.value.message) == (-1, "unexpected error")
            with pytest.raises(TimeoutError):
                await peer.request(CHAIN, messages.prefixed(2, b"slow"), timeout=0.2)
            many = await asyncio.gather(
                *(peer.request(CHAIN, messages.prefixed(2, bytes([i])), 5) for i in range(50))
            )
            assert many == [bytes([0, 2, i]) for i in range(50)]
        finally:
            await peer.close()
            await server.stop()

    asyncio.run(run())


def test_wrong_network_and_stopped_server_are_refused() -> None:
    async def run() -> None:
        server, _ = _server(network_id=5)
        await server.start()
        port = server.port
        with pytest.raises(ProtocolError):
            await Peer.connect("127.0.0.1", port, Identity(StakingIdentity.generate(), 12345))
        await server.stop()
        with pytest.raises(OSError):
            await Peer.connect("127.0.0.1", port, Identity(StakingIdentity.generate(), 5))

    asyncio.run(run())


def test_signature_request_bytes() -> None:
    """ACP-118 app bytes: uvarint handler id 2, then sdk.SignatureRequest."""
    data = messages.signature_request(b"\x01\x02", b"\x03")
    assert (
        data
        == bytes([2])
        + sdk_pb2.SignatureRequest(message=b"\x01\x02", justification=b"\x03").SerializeToString()
    )
    assert data == bytes.fromhex("02") + bytes.fromhex("0a020102") + bytes.fromhex("120103")
    assert messages.parse_signature_request(messages.split_prefix(data)[1]) == (
        b"\x01\x02",
        b"\x03",
    )
    framed = messages.frame(p2p_pb2.Message(ping=p2p_pb2.Ping(uptime=100)))
    assert framed == bytes.fromhex("00000004") + bytes.fromhex("5a020864")
    assert messages.unsigned_ip("127.0.0.1", 9651, 1) == bytes.fromhex(
        "00000000000000000000ffff7f00000125b30000000000000001"
    )


@pytest.mark.parametrize(
    ("data", "outcome"),
    [  # avalanchego network/peer/msg_length_test.go's prefixes, then a message after one
        (bytes([0xFF, 0xFF, 0xFF, 0xFF]), "exceeds"),
        (bytes([0xFF, 0xFF]), "short"),
        (bytes([0x00, 0x00, 0x00, 0x02, 0x62, 0x00]), "pong"),
        (bytes([0x00, 0x00, 0x00, 0x01, 0x00]), "unparsable"),
    ],
)
def test_length_prefixed_reads(data: bytes, outcome: str) -> None:
    async def read() -> str:
        reader = asyncio.StreamReader()
        reader.feed_data(data)
        reader.feed_eof()
        try:
            message = await messages.read_message(reader)
        except ProtocolError as exc:
            return "exceeds" if "exceeds" in str(exc) else "unparsable"
        except asyncio.IncompleteReadError:
            return "short"
        return str(message.WhichOneof("message"))

    assert asyncio.run(read()) == outcome
    assert messages.frame(p2p_pb2.Message(pong=p2p_pb2.Pong())) == bytes([0, 0, 0, 2, 0x62, 0])
