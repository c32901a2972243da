"""The callTracer: re-executes transactions with the call/create and log opcodes tagged, then
walks the computation tree into geth's callTracer frames."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from eth.abc import ComputationAPI, MessageAPI
from eth.vm.forks.prague.computation import PragueComputation
from eth.vm.forks.prague.state import PragueState

from snowfield.chains.evm.execution.accounts import State as FastState
from snowfield.chains.evm.execution.deadline import interruptible
from snowfield.chains.evm.execution.precompiled import Computation
from snowfield.chains.evm.execution.state import error_text, is_revert, revert_reason
from snowfield.chains.evm.execution.tracing import TxStart

_TAGGED = {
    0xF0: "CREATE",
    0xF1: "CALL",
    0xF2: "CALLCODE",
    0xF4: "DELEGATECALL",
    0xF5: "CREATE2",
    0xFA: "STATICCALL",
}
_LOGS = range(0xA0, 0xA5)


class _Tag:
    """Wraps an opcode so the computation knows which opcode spawned its next child."""

    def __init__(self, inner: Any, kind: str) -> None:
        self.inner = inner
        self.kind = kind
        self.mnemonic = getattr(inner, "mnemonic", kind)

    def __call__(self, computation: Any) -> None:
        computation.trace_kind = self.kind
        self.inner(computation)


class _LogPosition:
    """Wraps a LOG opcode to remember how many calls the frame had made before the log
    (geth's `position`); py-evm keeps a frame's logs apart from its children's."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.mnemonic = inner.mnemonic

    def __call__(self, computation: Any) -> None:
        self.inner(computation)
        if computation.log_positions is None:
            computation.log_positions = []
        computation.log_positions.append(len(computation.children))


def _wrap(code: int, fn: Any) -> Any:
    if code in _TAGGED:
        return _Tag(fn, _TAGGED[code])
    return _LogPosition(fn) if code in _LOGS else fn


class TracingComputation(Computation):
    """A computation that records the opcode that created each child frame."""

    trace_kind: str = "CALL"
    frame_kind: str = "CALL"
    log_positions: list[int] | None = None
    opcodes = {
        code: _wrap(code, fn) for code, fn in interruptible(PragueComputation.opcodes).items()
    }

    def apply_child_computation(self, child_msg: MessageAPI) -> ComputationAPI:
        kind = self.trace_kind
        child = self.generate_child_computation(child_msg)
        child.frame_kind = kind
        self.add_child_computation(child)
        return child


class TracingState(FastState):
    computation_class = TracingComputation


@dataclass(frozen=True, slots=True)
class CallTracer:
    """geth's callTracer and its tracerConfig."""

    only_top_call: bool = False
    with_log: bool = False
    state_class: ClassVar[type[PragueState]] = TracingState

    def start(self, state: PragueState, tx: TxStart) -> _CallTrace:
        return _CallTrace(self, tx)


@dataclass(frozen=True, slots=True)
class _CallTrace:
    options: CallTracer
    tx: TxStart

    def result(
        self, state: PragueState, computation: ComputationAPI, gas_used: int
    ) -> dict[str, Any]:
        top = "CREATE" if self.tx.to is None else "CALL"
        frame = _frame(computation, top, self.tx.gas, gas_used, self.options)
        if self.options.with_log:
            _index_logs(frame, self.tx.log_index)
        return frame


def _hex(data: bytes) -> str:
    return "0x" + data.hex()


def _frame(
    comp: ComputationAPI, kind: str, gas: int, gas_used: int, options: CallTracer
) -> dict[str, Any]:
    msg = comp.msg
    is_create = kind in ("CREATE", "CREATE2")
    target = bytes(msg.storage_address) if is_create else bytes(msg.to)
    frame: dict[str, Any] = {
        "type": kind,
        "from": _hex(bytes(msg.sender)),
        "gas": hex(gas),
        "gasUsed": hex(gas_used),
        "to": _hex(target),
        "input": _hex(bytes(msg.code) if is_create else bytes(msg.data_as_bytes)),
    }
    _outcome(frame, comp, is_create)
    if not options.only_top_call:
        children = [
            _frame(
                child,
                getattr(child, "frame_kind", "CALL"),
                child.msg.gas,
                child.get_gas_used(),
                options,
            )
            for child in comp.children
        ]
        if children:
            frame["calls"] = children
    if options.with_log and not comp.is_error:
        logs = _own_logs(comp)
        if logs:
            frame["logs"] = logs
    if kind not in ("STATICCALL", "DELEGATECALL"):
        frame["value"] = hex(msg.value)
    return frame


def _outcome(frame: dict[str, Any], comp: ComputationAPI, is_create: bool) -> None:
    output = bytes(comp.output)
    err = error_text(comp)
    if err is None:
        if output:
            frame["output"] = _hex(output)
        return
    # As geth: a failed create has no address, and only a revert keeps its output.
    frame["error"] = err
    if is_create:
        del frame["to"]
    if is_revert(comp) and output:
        frame["output"] = _hex(output)
        reason = revert_reason(output)
        if reason is not None:
            frame["revertReason"] = reason


def _own_logs(comp: Any) -> list[dict[str, Any]]:
    """The frame's own logs with their position among its calls; `index` is filled later."""
    positions = comp.log_positions or []
    return [
        {
            "address": _hex(bytes(address)),
            "topics": [_hex(t.to_bytes(32, "big")) for t in topics],
            "data": _hex(bytes(data)),
            "index": sequence,  # py-evm's log counter, replaced by the index in the block
            "position": hex(position),
        }
        for (sequence, address, topics, data), position in zip(
            comp._log_entries, positions, strict=True
        )
    ]


def _index_logs(frame: dict[str, Any], first: int) -> None:
    """Numbers the logs kept (those of frames that did not fail, nor any ancestor) in the
    order they were emitted, from the transaction's first index in the block."""
    kept = sorted(_kept_logs(frame), key=lambda log: int(log["index"]))
    for offset, log in enumerate(kept):
        log["index"] = hex(first + offset)


def _kept_logs(frame: dict[str, Any]) -> list[dict[str, Any]]:
    if "error" in frame:
        frame.pop("logs", None)
        for child in frame.get("calls", ()):
            _drop_logs(child)
        return []
    found = list(frame.get("logs", ()))
    for child in frame.get("calls", ()):
        found += _kept_logs(child)
    return found


def _drop_logs(frame: dict[str, Any]) -> None:
    frame.pop("logs", None)
    for child in frame.get("calls", ()):
        _drop_logs(child)
