"""Interface fields of the linear codec: a registry from u32 type id to the class it decodes to.

Public API: `Encodable` (a codec struct: `pack`, `unpack`, and for registered types `type_id`),
`TypeRegistry.register(type_id)` (class decorator), `TypeRegistry.pack(packer, value)` writes
`u32 type id ‖ fields`, `TypeRegistry.unpack(reader, kind)` reads one and insists it is a `kind`,
`TypeRegistry.encode` / `.decode` for a whole message of one interface value; `TopLevel` for
structs that are whole messages (`encode()` / `decode(data)`); `encode_top` /
`decode_top` for any top-level message (`u16 version ‖ fields`, every byte consumed); and
`read_id` / `read_short_id` / `read_node_id` for the fixed-size ids every struct carries.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import ClassVar, Self, TypeVar

from snowfield.errors import InvalidParams
from snowfield.formats.codec import CODEC_VERSION, DEFAULT_MAX_SIZE, Packer, Unpacker
from snowfield.formats.ids import ID, ID_LEN, SHORT_ID_LEN, NodeID, ShortID


class Encodable:
    """A codec struct: fields written in declaration order, with no version or type id."""

    __slots__ = ()
    type_id: ClassVar[int] = -1  # set by TypeRegistry.register; -1 for unregistered structs

    def pack(self, packer: Packer) -> None:
        raise NotImplementedError

    @classmethod
    def unpack(cls, reader: Unpacker) -> Self:
        raise NotImplementedError


T = TypeVar("T")
E = TypeVar("E", bound=Encodable)


class TopLevel(Encodable):
    """A struct that is also a whole message: `encode()` adds the codec version, `decode()`
    insists on it and on every byte being read. `max_size` is its codec manager's limit."""

    __slots__ = ()
    max_size: ClassVar[int] = DEFAULT_MAX_SIZE

    def encode(self) -> bytes:
        return encode_top(self.pack, max_size=self.max_size)

    @classmethod
    def decode(cls, data: bytes) -> Self:
        """Parse a whole message; InvalidParams on truncated, trailing or invalid input."""
        return decode_top(data, cls.unpack, max_size=cls.max_size)


C = TypeVar("C", bound=type[Encodable])


class TypeRegistry:
    """One codec's type-id table (registration order in avalanchego, skipped slots included)."""

    __slots__ = ("_by_id", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self._by_id: dict[int, type[Encodable]] = {}

    def register(self, type_id: int) -> Callable[[C], C]:
        def add(cls: C) -> C:
            if type_id in self._by_id:
                raise ValueError(f"{self.name} type id {type_id} registered twice")
            cls.type_id = type_id
            self._by_id[type_id] = cls
            return cls

        return add

    def types(self) -> dict[int, type[Encodable]]:
        return dict(self._by_id)

    def pack(self, packer: Packer, value: Encodable) -> None:
        if self._by_id.get(value.type_id) is not type(value):
            raise InvalidParams(f"{type(value).__name__} is not a registered {self.name} type")
        packer.u32(value.type_id)
        value.pack(packer)

    def unpack(self, reader: Unpacker, kind: type[E]) -> E:
        type_id = reader.u32()
        cls = self._by_id.get(type_id)
        if cls is None:
            raise InvalidParams(f"unknown {self.name} type id {type_id}")
        if not issubclass(cls, kind):
            raise InvalidParams(
                f"{self.name} type id {type_id} ({cls.__name__}) is not a {kind.__name__}"
            )
        return cls.unpack(reader)

    def encode(self, value: Encodable, *, max_size: int = DEFAULT_MAX_SIZE) -> bytes:
        """`u16 version ‖ u32 type id ‖ fields`."""
        return encode_top(lambda packer: self.pack(packer, value), max_size=max_size)

    def decode(self, data: bytes, kind: type[E], *, max_size: int = DEFAULT_MAX_SIZE) -> E:
        """Parse `encode`'s bytes into a `kind`; InvalidParams on anything else."""
        return decode_top(data, lambda reader: self.unpack(reader, kind), max_size=max_size)


def encode_top(write: Callable[[Packer], object], *, max_size: int = DEFAULT_MAX_SIZE) -> bytes:
    """A top-level codec message: the u16 codec version, then what `write` packs."""
    packer = Packer(max_size=max_size).u16(CODEC_VERSION)
    write(packer)
    return packer.to_bytes()


def decode_top(
    data: bytes, read: Callable[[Unpacker], T], *, max_size: int = DEFAULT_MAX_SIZE
) -> T:
    """Parse a top-level message: version, what `read` reads, then no byte left over."""
    reader = Unpacker(data, max_size=max_size)
    reader.version()
    value = read(reader)
    reader.finish()
    return value


def read_id(reader: Unpacker) -> ID:
    return ID(reader.fixed(ID_LEN))


def read_short_id(reader: Unpacker) -> ShortID:
    return ShortID(reader.fixed(SHORT_ID_LEN))


def read_node_id(reader: Unpacker) -> NodeID:
    return NodeID(reader.fixed(SHORT_ID_LEN))


def require_sorted_unique(values: list[bytes] | tuple[bytes, ...], what: str) -> None:
    """Raise unless `values` are strictly ascending (avalanchego's IsSortedAndUnique)."""
    if any(a >= b for a, b in itertools.pairwise(values)):
        raise InvalidParams(f"{what} not sorted and unique")


def require_sorted(values: list[bytes] | tuple[bytes, ...], what: str) -> None:
    """Raise unless `values` are ascending, equal neighbours allowed (avalanchego's IsSorted)."""
    if any(a > b for a, b in itertools.pairwise(values)):
        raise InvalidParams(f"{what} not sorted")


def pack_struct(packer: Packer, value: Encodable) -> None:
    """`Packer.items` writer for inline structs (no type id)."""
    value.pack(packer)
