"""Primitives of avalanchego's linear codec: big-endian ints, bools, raw and sized bytes, lists."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Self, TypeVar

from snowfield.errors import InvalidParams

T = TypeVar("T")

CODEC_VERSION = 0
DEFAULT_MAX_SIZE = 256 * 1024  # the codec manager's default message limit
MAX_STRING_LEN = 0xFFFF

_INSUFFICIENT = "packer has insufficient length for input"


def _to_bytes(value: int, size: int, *, signed: bool, kind: str) -> bytes:
    try:
        return value.to_bytes(size, "big", signed=signed)
    except OverflowError:
        raise InvalidParams(f"value {value} out of range for {kind}") from None


class Packer:
    """Appends codec fields to a growing buffer; each writer returns the packer for chaining."""

    __slots__ = ("_buffer", "_max_size")

    def __init__(self, *, max_size: int = DEFAULT_MAX_SIZE) -> None:
        self._buffer = bytearray()
        self._max_size = max_size

    def __len__(self) -> int:
        return len(self._buffer)

    def to_bytes(self) -> bytes:
        return bytes(self._buffer)

    def fixed(self, data: bytes) -> Self:
        """Raw bytes with no length prefix (ids, keys, signatures)."""
        if len(self._buffer) + len(data) > self._max_size:
            raise InvalidParams(f"encoded size exceeds the maximum of {self._max_size} bytes")
        self._buffer += data
        return self

    def u8(self, value: int) -> Self:
        return self.fixed(_to_bytes(value, 1, signed=False, kind="u8"))

    def u16(self, value: int) -> Self:
        return self.fixed(_to_bytes(value, 2, signed=False, kind="u16"))

    def u32(self, value: int) -> Self:
        return self.fixed(_to_bytes(value, 4, signed=False, kind="u32"))

    def u64(self, value: int) -> Self:
        return self.fixed(_to_bytes(value, 8, signed=False, kind="u64"))

    def i64(self, value: int) -> Self:
        return self.fixed(_to_bytes(value, 8, signed=True, kind="i64"))

    def boolean(self, value: bool) -> Self:
        return self.u8(1 if value else 0)

    def var_bytes(self, data: bytes) -> Self:
        """u32 length + data (Go `[]byte`)."""
        return self.u32(len(data)).fixed(data)

    def string(self, text: str) -> Self:
        """u16 length + UTF-8 (Go `string`); at most 65535 bytes."""
        raw = text.encode()
        if len(raw) > MAX_STRING_LEN:
            raise InvalidParams(f"string of {len(raw)} bytes exceeds {MAX_STRING_LEN}")
        return self.u16(len(raw)).fixed(raw)

    def items(self, values: Sequence[T], pack_one: Callable[[Packer, T], object]) -> Self:
        """u32 count + each value written by pack_one (Go slices)."""
        self.u32(len(values))
        for value in values:
            pack_one(self, value)
        return self


class Unpacker:
    """Reads codec fields from bytes in order; `finish()` insists that every byte was read."""

    __slots__ = ("_data", "_offset", "_size")

    def __init__(self, data: bytes, *, max_size: int = DEFAULT_MAX_SIZE) -> None:
        if len(data) > max_size:
            raise InvalidParams(f"byte array exceeds maximum length, {max_size}")
        self._data = bytes(data)
        self._offset = 0
        self._size = len(self._data)

    @property
    def offset(self) -> int:
        return self._offset

    @property
    def remaining(self) -> int:
        return self._size - self._offset

    def read_since(self, start: int) -> bytes:
        """The bytes read from offset `start` to here."""
        return self._data[start : self._offset]

    # The readers below are the decoders' innermost loop (every id, amount and count of every
    # block the indexers read): they check and slice without the property and call layers
    # they had (primary extract 128 -> 124 us per container).
    def fixed(self, size: int) -> bytes:
        start = self._offset
        end = start + size
        if size < 0 or end > self._size:
            raise InvalidParams(_INSUFFICIENT)
        self._offset = end
        return self._data[start:end]

    def u8(self) -> int:
        start = self._offset
        if start >= self._size:
            raise InvalidParams(_INSUFFICIENT)
        self._offset = start + 1
        return self._data[start]

    def u16(self) -> int:
        return self._int(2)

    def u32(self) -> int:
        return self._int(4)

    def u64(self) -> int:
        return self._int(8)

    def i64(self) -> int:
        return int.from_bytes(self.fixed(8), "big", signed=True)

    def _int(self, size: int) -> int:
        start = self._offset
        end = start + size
        if end > self._size:
            raise InvalidParams(_INSUFFICIENT)
        self._offset = end
        return int.from_bytes(self._data[start:end], "big")

    def boolean(self) -> bool:
        value = self.u8()
        if value > 1:
            raise InvalidParams("unexpected value when unpacking bool")
        return value == 1

    def var_bytes(self) -> bytes:
        return self.fixed(self.u32())

    def string(self) -> str:
        raw = self.fixed(self.u16())
        try:
            return raw.decode()
        except UnicodeDecodeError:
            raise InvalidParams("string is not valid UTF-8") from None

    def items(self, unpack_one: Callable[[Unpacker], T], *, min_item_size: int = 1) -> list[T]:
        """u32 count + that many values read by unpack_one.

        min_item_size bounds the count by the bytes left, so a forged count cannot make us loop
        billions of times; pass 0 only for items that may serialize to nothing.
        """
        count = self._int(4)
        if count * min_item_size > self._size - self._offset:
            raise InvalidParams(_INSUFFICIENT)
        return [unpack_one(self) for _ in range(count)]

    def version(self, expected: int = CODEC_VERSION) -> int:
        """Read the u16 version opening every top-level message; only `expected` is known."""
        if self.remaining < 2:
            raise InvalidParams("couldn't unpack codec version")
        found = self.u16()
        if found != expected:
            raise InvalidParams("unknown codec version")
        return found

    def finish(self) -> None:
        """Raise unless every byte was consumed (the node's `trailing buffer space`)."""
        if self.remaining:
            raise InvalidParams(
                f"trailing buffer space: read {self._offset} provided {len(self._data)}"
            )
