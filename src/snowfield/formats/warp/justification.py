"""The justification of an L1ValidatorRegistration(false) signature request: avalanchego's
`platformvm.L1ValidatorRegistrationJustification` protobuf (proto/platformvm/platformvm.proto).

  oneof preimage {
    SubnetIDIndex convert_subnet_to_l1_tx_data = 1;   // {bytes subnet_id = 1; uint32 index = 2}
    bytes register_l1_validator_message = 2;          // the RegisterL1Validator codec bytes
  }

The first proves a validator of a ConvertSubnetToL1Tx was removed, the second that a
registration expired or never happened. Hand-written wire format: two small messages.

Public API: `SubnetIDIndex`, `encode_justification`, `decode_justification`.
"""

from __future__ import annotations

from dataclasses import dataclass

from snowfield.errors import InvalidParams

_LEN, _VARINT = 2, 0  # protobuf wire types
_MAX_UINT32 = 2**32 - 1


@dataclass(frozen=True, slots=True)
class SubnetIDIndex:
    """A ConvertSubnetToL1Tx's validator: its subnet (32 bytes on the wire) and index."""

    subnet_id: bytes
    index: int


Preimage = SubnetIDIndex | bytes  # bytes: a RegisterL1Validator message


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | _LEN) + _varint(len(payload)) + payload


def encode_justification(preimage: Preimage) -> bytes:
    if isinstance(preimage, SubnetIDIndex):
        inner = _field(1, preimage.subnet_id)
        if preimage.index:  # proto3 leaves a zero out
            inner += _varint(2 << 3 | _VARINT) + _varint(preimage.index)
        return _field(1, inner)
    return _field(2, preimage)


def _read_varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data) or shift > 63:
            raise InvalidParams("unexpected EOF")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, at


def _fields(data: bytes) -> list[tuple[int, int, int | bytes]]:
    """(field number, wire type, value) of every field, as proto.Unmarshal reads them."""
    out: list[tuple[int, int, int | bytes]] = []
    at = 0
    while at < len(data):
        key, at = _read_varint(data, at)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise InvalidParams("invalid field number")
        if wire == _VARINT:
            value, at = _read_varint(data, at)
            out.append((number, wire, value))
        elif wire == _LEN:
            size, at = _read_varint(data, at)
            if at + size > len(data):
                raise InvalidParams("unexpected EOF")
            out.append((number, wire, data[at : at + size]))
            at += size
        else:
            raise InvalidParams(f"unsupported wire type {wire}")
    return out


def decode_justification(data: bytes) -> Preimage | None:
    """The preimage the justification sets (the last one wins, as in protobuf); None if none."""
    preimage: Preimage | None = None
    for number, wire, value in _fields(data):
        if number == 1 and wire == _LEN and isinstance(value, bytes):
            subnet, index = b"", 0
            for inner_number, inner_wire, inner in _fields(value):
                if inner_number == 1 and inner_wire == _LEN and isinstance(inner, bytes):
                    subnet = inner
                elif inner_number == 2 and inner_wire == _VARINT and isinstance(inner, int):
                    index = inner & _MAX_UINT32
            preimage = SubnetIDIndex(subnet, index)
        elif number == 2 and wire == _LEN and isinstance(value, bytes):
            preimage = value
    return preimage
