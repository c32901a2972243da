"""The callTracer: re-executes transactions with the call/create opcodes tagged, then walks
the computation tree into geth's callTracer frames."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from eth.abc import ComputationAPI, MessageAPI
from eth.vm.forks.prague.computation import PragueComputation
from eth.vm.forks.prague.state import PragueState

from snowfield.chains.evm.execution.accounts import State as FastState
from snowfield.chains.evm.execution.deadline import interruptible
from snowfield.chains.evm.execution.state import error_text, is_revert, revert_reason

_TAGGED = {
    0xF0: "CREATE",
    0xF1: "CALL",
    0xF2: "CALLCODE",
    0xF4: "DELEGATECALL",
    0xF5: "CREATE2",
    0xFA: "STATICCALL",
}


class _Tag:
    """Wraps an opcode so the computation knows which opcode spawned its next child."""

    def __init__(self, inner: Any, kind: str) -> None:
        self.inner = inner
        self.kind = kind
        self.mnemonic = getattr(inner, "mnemonic", kind)

    def __call__(self, computation: Any) -> None:
        computation.trace_kind = self.kind
        self.inner(computation)


class TracingComputation(PragueComputation):
    """A computation that records the opcode that created each child frame."""

    trace_kind: str = "CALL"
    frame_kind: str = "CALL"
    opcodes = {
        code: (_Tag(fn, _TAGGED[code]) if code in _TAGGED else fn)
        for code, fn in interruptible(PragueComputation.opcodes).items()
    }

    def apply_child_computation(self, child_msg: MessageAPI) -> ComputationAPI:
        kind = self.trace_kind
        child = self.generate_child_computation(child_msg)
        child.frame_kind = kind
        self.add_child_computation(child)
        return child


class TracingState(FastState):
    computation_class = TracingComputation


@cache
def tracing_state_class() -> type[PragueState]:
    return TracingState


def call_frame(
    computation: ComputationAPI,
    *,
    top_type: str,
    gas: int,
    gas_used: int,
    to_hex: Callable[[bytes], str],
) -> dict[str, Any]:
    """geth's callTracer frame for a transaction's top-level computation."""
    return _frame(computation, top_type, gas, gas_used, to_hex)


def _frame(
    comp: ComputationAPI, kind: str, gas: int, gas_used: int, to_hex: Callable[[bytes], str]
) -> dict[str, Any]:
    msg = comp.msg
    is_create = kind in ("CREATE", "CREATE2")
    target = bytes(msg.storage_address) if is_create else bytes(msg.to)
    frame: dict[str, Any] = {
        "type": kind,
        "from": to_hex(bytes(msg.sender)),
        "gas": hex(gas),
        "gasUsed": hex(gas_used),
        "to": to_hex(target),
        "input": "0x" + (bytes(msg.code) if is_create else bytes(msg.data_as_bytes)).hex(),
    }
    output = bytes(comp.output)
    err = error_text(comp)
    if err is None:
        if output:
            frame["output"] = "0x" + output.hex()
    else:
        # As geth: a failed create has no address, and only a revert keeps its output.
        frame["error"] = err
        if is_create:
            del frame["to"]
        if is_revert(comp) and output:
            frame["output"] = "0x" + output.hex()
            reason = revert_reason(output)
            if reason is not None:
                frame["revertReason"] = reason
    children = [
        _frame(
            child, getattr(child, "frame_kind", "CALL"), child.msg.gas, child.get_gas_used(), to_hex
        )
        for child in comp.children
    ]
    if children:
        frame["calls"] = children
    if kind not in ("STATICCALL", "DELEGATECALL"):
        frame["value"] = hex(msg.value)
    return frame
