"""geth's 4byteTracer: how often each function selector was called, by call-data size."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar

from eth.abc import ComputationAPI
from eth.vm.forks.prague.state import PragueState

from snowfield.chains.evm.execution.tracer import TracingState
from snowfield.chains.evm.execution.tracing import TxStart

_CALLS = ("CALL", "CALLCODE", "DELEGATECALL", "STATICCALL")


@dataclass(frozen=True, slots=True)
class FourByteTracer:
    """Counts `0x<selector>-<size of the arguments>` over every call that is not to a
    precompile, the transaction's own call included."""

    state_class: ClassVar[type[PragueState]] = TracingState

    def start(self, state: PragueState, tx: TxStart) -> _FourByteTrace:
        return _FourByteTrace("CREATE" if tx.to is None else "CALL")


@dataclass(frozen=True, slots=True)
class _FourByteTrace:
    top_kind: str

    def result(self, state: PragueState, computation: ComputationAPI, gas_used: int) -> Any:
        counts: Counter[str] = Counter()
        _count(computation, self.top_kind, counts)
        return dict(counts)


def _count(comp: Any, kind: str, counts: Counter[str]) -> None:
    data = bytes(comp.msg.data_as_bytes)
    is_precompile = comp.msg.code_address in comp.precompiles
    if kind in _CALLS and len(data) >= 4 and not is_precompile:
        counts[f"0x{data[:4].hex()}-{len(data) - 4}"] += 1
    for child in comp.children:
        _count(child, getattr(child, "frame_kind", "CALL"), counts)
