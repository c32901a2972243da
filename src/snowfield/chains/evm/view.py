"""What running code without effects reads of a chain: accepted blocks and the states after them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Protocol

from snowfield.chains.evm.execution.state import StateReader, StateStore
from snowfield.chains.evm.history import TxLocation
from snowfield.chains.evm.model import Block


class ChainView(Protocol):
    """A read-only view of the accepted chain (`ChainHistory` is one)."""

    @property
    def store(self) -> StateStore: ...

    def block(self, number: int) -> Block | None: ...

    def locate(self, tx_hash: bytes) -> TxLocation | None: ...

    def root_of(self, block: Block) -> bytes: ...

    def pre_root(self, block: Block) -> bytes: ...

    def state_at(self, block: Block) -> StateReader: ...

    def ancestors(self, number: int) -> Callable[[], Iterator[bytes]]: ...
