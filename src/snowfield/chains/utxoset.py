"""A chain's UTXO set with an address index, in the order the getUTXOs APIs page through.

Generic over the chain's UTXO type: the P- and X-Chain UTXOs differ in which outputs they may
hold, so each chain passes how to read the owners' addresses of one of its outputs.

Public API: `UTXOSet(addresses_of)` (`add`, `remove`, `get`, `__contains__`, `of_addresses`,
`by_addresses` paging in (address, utxo id) order).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Generic, Protocol, TypeVar

from snowfield.formats.ids import ID, ShortID


class _Utxo(Protocol):
    @property
    def id(self) -> ID: ...


U = TypeVar("U", bound=_Utxo)


class UTXOSet(Generic[U]):
    """UTXOs by id, with the ids each address owns."""

    def __init__(self, addresses_of: Callable[[U], Iterable[ShortID]]) -> None:
        self._addresses_of = addresses_of
        self._utxos: dict[ID, U] = {}
        self._by_address: dict[ShortID, set[ID]] = {}

    def __contains__(self, utxo_id: ID) -> bool:
        return utxo_id in self._utxos

    def __len__(self) -> int:
        return len(self._utxos)

    def __iter__(self) -> Iterator[U]:
        return iter(self._utxos.values())

    def get(self, utxo_id: ID) -> U | None:
        return self._utxos.get(utxo_id)

    def add(self, utxo: U) -> None:
        self._utxos[utxo.id] = utxo
        for address in self._addresses_of(utxo):
            self._by_address.setdefault(address, set()).add(utxo.id)

    def remove(self, utxo_id: ID) -> U:
        utxo = self._utxos.pop(utxo_id)
        for address in self._addresses_of(utxo):
            self._by_address[address].discard(utxo_id)
        return utxo

    def of_addresses(self, addresses: Iterable[ShortID]) -> list[U]:
        """Every UTXO any of `addresses` owns, each once, ordered by id."""
        ids = set().union(*(self._by_address.get(a, set()) for a in addresses))
        return [self._utxos[utxo_id] for utxo_id in sorted(ids)]

    def by_addresses(
        self,
        addresses: Iterable[ShortID],
        start: tuple[ShortID, ID] | None = None,
        limit: int = 1024,
    ) -> tuple[list[U], tuple[ShortID, ID] | None]:
        """A page of UTXOs owned by `addresses` in (address, utxo id) order after `start`, each
        UTXO once; returns the page and the last (address, id) pair for the next call."""
        pairs = sorted((a, u) for a in set(addresses) for u in self._by_address.get(a, ()))
        if start is not None:
            pairs = [pair for pair in pairs if pair > start]
        page: list[U] = []
        seen: set[ID] = set()
        last: tuple[ShortID, ID] | None = start
        for address, utxo_id in pairs:
            if len(page) >= limit:
                break
            last = (address, utxo_id)
            if utxo_id not in seen:
                seen.add(utxo_id)
                page.append(self._utxos[utxo_id])
        return page, last
