"""The wire of avalanchego's peer protocol: length-prefixed protobuf `p2p.Message`s, the bytes a
peer signs to claim its IP, app-request handler prefixes and ACP-118 signature requests.

Public API: `MAX_MESSAGE_SIZE`, `SIGNATURE_HANDLER_ID`, `frame`, `read_message`,
`unsigned_ip`, `ip_bytes`, `host_of`, `EMPTY_BLOOM`, `prefixed`, `split_prefix`,
`signature_request`,
`parse_signature_request`, `signature_response`, `parse_signature_response`, `ProtocolError`.
"""

from __future__ import annotations

import asyncio
import ipaddress
import struct

from snowfield.p2p.proto import p2p_pb2, sdk_pb2

MAX_MESSAGE_SIZE = 2 * 1024 * 1024  # avalanchego's constants.DefaultMaxMessageSize
SIGNATURE_HANDLER_ID = 2  # p2p.SignatureRequestHandlerID (ACP-118)
# bloom.EmptyFilter marshalled: one hash seed (0) and one entry byte.
EMPTY_BLOOM = bytes([1]) + bytes(8) + bytes(1)
_LENGTH = struct.Struct(">I")


class ProtocolError(Exception):
    """Raised when a peer breaks the protocol (oversized or unparsable message, bad handshake)."""


def frame(message: p2p_pb2.Message) -> bytes:
    data = message.SerializeToString()
    if len(data) > MAX_MESSAGE_SIZE:
        raise ProtocolError(f"message of {len(data)} bytes exceeds {MAX_MESSAGE_SIZE}")
    return _LENGTH.pack(len(data)) + data


async def read_message(reader: asyncio.StreamReader) -> p2p_pb2.Message:
    """The next message; ProtocolError on an oversized or unparsable one, IncompleteReadError
    when the peer closed."""
    (length,) = _LENGTH.unpack(await reader.readexactly(_LENGTH.size))
    if length > MAX_MESSAGE_SIZE:
        raise ProtocolError(f"message of {length} bytes exceeds {MAX_MESSAGE_SIZE}")
    message = p2p_pb2.Message()
    try:
        message.ParseFromString(await reader.readexactly(length))
    except Exception as exc:  # protobuf's DecodeError and friends
        raise ProtocolError(f"unparsable message: {exc}") from None
    return message


def ip_bytes(host: str) -> bytes:
    """The 16-byte form avalanchego packs (IPv4 as an IPv4-mapped IPv6 address)."""
    address = ipaddress.ip_address(host)
    if isinstance(address, ipaddress.IPv4Address):
        return ipaddress.IPv6Address(f"::ffff:{address}").packed
    return address.packed


def host_of(ip_addr: bytes) -> str:
    """The text form of a 16-byte address (an IPv4-mapped one as plain IPv4)."""
    address = ipaddress.IPv6Address(ip_addr)
    mapped = address.ipv4_mapped
    return str(mapped) if mapped is not None else str(address)


def unsigned_ip(host: str, port: int, timestamp: int) -> bytes:
    """What a peer signs to claim its IP: ip (16 bytes) ‖ port u16 ‖ timestamp u64."""
    return ip_bytes(host) + struct.pack(">HQ", port, timestamp)


def _uvarint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def prefixed(handler_id: int, body: bytes) -> bytes:
    """App bytes for a handler: uvarint handler id, then the handler's request."""
    return _uvarint(handler_id) + body


def split_prefix(app_bytes: bytes) -> tuple[int, bytes]:
    """(handler id, request) of prefixed app bytes; ProtocolError if there is no prefix."""
    value = shift = 0
    for index, byte in enumerate(app_bytes[:10]):
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, app_bytes[index + 1 :]
        shift += 7
    raise ProtocolError("app request without a handler prefix")


def signature_request(message: bytes, justification: bytes = b"") -> bytes:
    body = sdk_pb2.SignatureRequest(message=message, justification=justification)
    return prefixed(SIGNATURE_HANDLER_ID, body.SerializeToString())


def parse_signature_request(body: bytes) -> tuple[bytes, bytes]:
    request = sdk_pb2.SignatureRequest()
    try:
        request.ParseFromString(body)
    except Exception as exc:
        raise ProtocolError(f"failed to unmarshal request: {exc}") from None
    return request.message, request.justification


def signature_response(signature: bytes) -> bytes:
    return sdk_pb2.SignatureResponse(signature=signature).SerializeToString()


def parse_signature_response(data: bytes) -> bytes:
    response = sdk_pb2.SignatureResponse()
    try:
        response.ParseFromString(data)
    except Exception as exc:
        raise ProtocolError(f"failed to unmarshal response: {exc}") from None
    return response.signature
