"""What every tracer is given: the transaction about to run, and how it is asked for a result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from eth.abc import ComputationAPI
from eth.vm.forks.prague.state import PragueState


@dataclass(frozen=True, slots=True)
class TxStart:
    """The transaction (or call) a tracer is about to watch."""

    sender: bytes
    to: bytes | None  # None: contract creation
    gas: int
    coinbase: bytes
    log_index: int = 0  # index in the block of the transaction's first log


class TxTrace(Protocol):
    """One transaction's tracer, asked once the transaction ran."""

    def result(self, state: PragueState, computation: ComputationAPI, gas_used: int) -> Any: ...


class Tracer(Protocol):
    """A tracer kind with its options: runs on its own state class."""

    state_class: ClassVar[type[PragueState]]

    def start(self, state: PragueState, tx: TxStart) -> TxTrace:
        """Called on the state before the transaction runs."""
        ...
