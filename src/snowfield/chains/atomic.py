"""Atomic (shared) memory of a network: UTXOs one chain exported for another, indexed by address.

Why our own: avalanchego's `chains/atomic` is a Go database layer; what the devnet needs is the
same contract in memory. Each ordered pair (source → destination) has its own set of elements
(key = UTXO id, value = the encoded UTXO, traits = the addresses that own it). A chain applies its
requests atomically when it accepts a block: removals from the sets peers exported to it, puts
into the sets it exports to peers; if any removal is missing nothing changes. The values are
opaque bytes, so the P-, X- and C-Chain share one instance.

Public API: `AtomicElement`, `AtomicRequests`, `SharedMemory.get`, `.indexed`, `.apply`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID


@dataclass(frozen=True, slots=True)
class AtomicElement:
    """One exported UTXO: its id, its encoded bytes and the addresses that can spend it."""

    key: bytes
    value: bytes
    traits: tuple[bytes, ...] = ()


@dataclass(frozen=True, slots=True)
class AtomicRequests:
    """What a chain does to its shared memory with one peer in one block."""

    remove: tuple[bytes, ...] = ()
    put: tuple[AtomicElement, ...] = ()


@dataclass(slots=True)
class _Set:
    elements: dict[bytes, AtomicElement] = field(default_factory=dict)
    by_trait: dict[bytes, set[bytes]] = field(default_factory=dict)

    def put(self, element: AtomicElement) -> None:
        self.elements[element.key] = element
        for trait in element.traits:
            self.by_trait.setdefault(trait, set()).add(element.key)

    def remove(self, key: bytes) -> None:
        element = self.elements.pop(key)
        for trait in element.traits:
            self.by_trait[trait].discard(key)


class SharedMemory:
    """The network's atomic memory; one instance shared by every chain of a network."""

    def __init__(self) -> None:
        self._sets: dict[tuple[ID, ID], _Set] = {}

    def _set(self, source: ID, destination: ID) -> _Set:
        return self._sets.setdefault((source, destination), _Set())

    def get(self, destination: ID, source: ID, keys: Iterable[bytes]) -> list[bytes]:
        """The values `source` exported to `destination` under `keys`; InvalidParams if any is
        missing (avalanchego: "not found")."""
        elements = self._set(source, destination).elements
        try:
            return [elements[key].value for key in keys]
        except KeyError:
            raise InvalidParams("failed to get shared memory: not found") from None

    def indexed(
        self,
        destination: ID,
        source: ID,
        traits: Iterable[bytes],
        start: tuple[bytes, bytes] | None = None,
        limit: int = 1024,
    ) -> list[tuple[bytes, AtomicElement]]:
        """Up to `limit` (trait, element) pairs owned by `traits`, ordered by (trait, key),
        strictly after `start` (the previous page's last pair)."""
        shared = self._set(source, destination)
        pairs = sorted(
            (trait, key) for trait in set(traits) for key in shared.by_trait.get(trait, ())
        )
        if start is not None:
            pairs = [pair for pair in pairs if pair > start]
        return [(trait, shared.elements[key]) for trait, key in pairs[:limit]]

    def apply(self, chain: ID, requests: Mapping[ID, AtomicRequests]) -> None:
        """Applies `chain`'s requests with each peer atomically."""
        for peer, request in requests.items():
            inbound = self._set(peer, chain).elements
            if any(key not in inbound for key in request.remove) or len(set(request.remove)) != len(
                request.remove
            ):
                raise InvalidParams("failed to apply shared memory requests: not found")
        for peer, request in requests.items():
            source, outbound = self._set(peer, chain), self._set(chain, peer)
            for key in request.remove:
                source.remove(key)
            for element in request.put:
                outbound.put(element)
