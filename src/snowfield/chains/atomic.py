"""Atomic (shared) memory of a network: UTXOs one chain exported for another, indexed by address.

Why our own: avalanchego's `chains/atomic` is a Go database layer; what the devnet needs is the
same contract in memory. Each ordered pair (source → destination) has its own set of elements
(key = UTXO id, value = the encoded UTXO, traits = the addresses that own it). A chain applies its
requests atomically when it accepts a block: removals from the sets peers exported to it, puts
into the sets it exports to peers; if any removal is missing nothing changes. The values are
opaque bytes, so the P-, X- and C-Chain share one instance.

Persistence: each chain replays its own blocks, and chains import from each other, so no
replay order of the chains would find every UTXO where it was at the time. Instead the memory
journals its own requests (as avalanchego keeps shared memory in its own database) and loads
them first; while the chains replay (`replaying` until `end_replay()`), `apply` does nothing
and `get` also finds values since removed, as they were when the block was first accepted.

Public API: `AtomicElement`, `AtomicRequests`, `SharedMemory(journal)`, `.get`, `.indexed`,
`.apply`, `.end_replay`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import rlp

from snowfield.chains.journal import Journal
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID
from snowfield.formats.rlp import encode as rlp_encode


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

    def __init__(self, journal: Journal | None = None) -> None:
        self._sets: dict[tuple[ID, ID], _Set] = {}
        self._journal = journal
        # Chains on different threads (the C-Chain's writer, the event loop) share it.
        self._lock = threading.RLock()
        self._history: dict[tuple[ID, ID], dict[bytes, bytes]] = {}
        self.replaying = journal is not None
        for record in journal.records() if journal is not None else ():
            chain, requests = _decode(record)
            self._apply(chain, requests)

    def end_replay(self) -> None:
        """The chains have replayed their blocks: requests apply (and journal) again."""
        self.replaying = False
        self._history.clear()

    def _set(self, source: ID, destination: ID) -> _Set:
        return self._sets.setdefault((source, destination), _Set())

    def get(self, destination: ID, source: ID, keys: Iterable[bytes]) -> list[bytes]:
        """The values `source` exported to `destination` under `keys`; InvalidParams if any is
        missing (avalanchego: "not found")."""
        with self._lock:
            elements = self._set(source, destination).elements
            history = self._history.get((source, destination), {}) if self.replaying else {}
            try:
                return [elements[key].value if key in elements else history[key] for key in keys]
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
        with self._lock:
            shared = self._set(source, destination)
            pairs = sorted(
                (trait, key) for trait in set(traits) for key in shared.by_trait.get(trait, ())
            )
            if start is not None:
                pairs = [pair for pair in pairs if pair > start]
            return [(trait, shared.elements[key]) for trait, key in pairs[:limit]]

    def apply(self, chain: ID, requests: Mapping[ID, AtomicRequests]) -> None:
        """Applies `chain`'s requests with each peer atomically (and journals them); while the
        chains replay, does nothing: the journal already holds its outcome."""
        if self.replaying:
            return
        with self._lock:
            self._apply(chain, requests)
            if self._journal is not None and requests:
                self._journal.append(_encode(chain, requests))

    def _apply(self, chain: ID, requests: Mapping[ID, AtomicRequests]) -> None:
        for peer, request in requests.items():
            inbound = self._set(peer, chain).elements
            if any(key not in inbound for key in request.remove) or len(set(request.remove)) != len(
                request.remove
            ):
                raise InvalidParams("failed to apply shared memory requests: not found")
        for peer, request in requests.items():
            source, outbound = self._set(peer, chain), self._set(chain, peer)
            history = self._history.setdefault((chain, peer), {}) if self.replaying else None
            for key in request.remove:
                source.remove(key)
            for element in request.put:
                outbound.put(element)
                if history is not None:
                    history[element.key] = element.value


def _encode(chain: ID, requests: Mapping[ID, AtomicRequests]) -> bytes:
    return rlp_encode(
        [
            chain.raw,
            [
                [
                    peer.raw,
                    list(request.remove),
                    [[e.key, e.value, list(e.traits)] for e in request.put],
                ]
                for peer, request in requests.items()
            ],
        ]
    )


def _decode(record: bytes) -> tuple[ID, dict[ID, AtomicRequests]]:
    chain, peers = rlp.decode(record)
    requests = {
        ID(bytes(peer)): AtomicRequests(
            tuple(bytes(k) for k in remove),
            tuple(
                AtomicElement(bytes(k), bytes(v), tuple(bytes(t) for t in traits))
                for k, v, traits in put
            ),
        )
        for peer, remove, put in peers
    }
    return ID(bytes(chain)), requests
