"""The P-Chain's UTXO set with an address index, and the ownership views of its outputs.

Public API: `UTXOSet` (`add`, `remove`, `get`, `__contains__`, `by_addresses` paging in
(address, utxo id) order like platform.getUTXOs), `owners_of(output)` and `locktime_of(output)`
(the stakeable lock's locktime, 0 when unlocked).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID, ShortID
from snowfield.formats.platform.components import UTXO
from snowfield.formats.platform.secp256k1fx import OutputOwners, TransferOutput
from snowfield.formats.platform.stakeable import LockOut
from snowfield.formats.platform.types import TransferableOut


def inner_output(output: TransferableOut) -> TransferOutput:
    """The secp256k1fx output inside an optional stakeable lock."""
    inner = output.output if isinstance(output, LockOut) else output
    if not isinstance(inner, TransferOutput):
        raise InvalidParams("unsupported output type")
    return inner


def owners_of(output: TransferableOut) -> OutputOwners:
    return inner_output(output).owners


def locktime_of(output: TransferableOut) -> int:
    """The stakeable lock's locktime (0 for an output that was never stake-locked)."""
    return output.locktime if isinstance(output, LockOut) else 0


class UTXOSet:
    """UTXOs by id, with the ids each address owns."""

    def __init__(self) -> None:
        self._utxos: dict[ID, UTXO] = {}
        self._by_address: dict[ShortID, set[ID]] = {}

    def __contains__(self, utxo_id: ID) -> bool:
        return utxo_id in self._utxos

    def __len__(self) -> int:
        return len(self._utxos)

    def __iter__(self) -> Iterator[UTXO]:
        return iter(self._utxos.values())

    def get(self, utxo_id: ID) -> UTXO | None:
        return self._utxos.get(utxo_id)

    def add(self, utxo: UTXO) -> None:
        self._utxos[utxo.id] = utxo
        for address in owners_of(utxo.output).addresses:
            self._by_address.setdefault(address, set()).add(utxo.id)

    def remove(self, utxo_id: ID) -> UTXO:
        utxo = self._utxos.pop(utxo_id)
        for address in owners_of(utxo.output).addresses:
            self._by_address[address].discard(utxo_id)
        return utxo

    def of_addresses(self, addresses: Iterable[ShortID]) -> list[UTXO]:
        """Every UTXO any of `addresses` owns, each once, ordered by id."""
        ids = set().union(*(self._by_address.get(a, set()) for a in addresses))
        return [self._utxos[utxo_id] for utxo_id in sorted(ids)]

    def by_addresses(
        self,
        addresses: Iterable[ShortID],
        start: tuple[ShortID, ID] | None = None,
        limit: int = 1024,
    ) -> tuple[list[UTXO], tuple[ShortID, ID] | None]:
        """A page of UTXOs owned by `addresses` in (address, utxo id) order after `start`, each
        UTXO once; returns the page and the last (address, id) pair for the next call."""
        pairs = sorted((a, u) for a in set(addresses) for u in self._by_address.get(a, ()))
        if start is not None:
            pairs = [pair for pair in pairs if pair > start]
        page: list[UTXO] = []
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
