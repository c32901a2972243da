"""geth's struct (opcode) logger: one entry per executed opcode, as debug_trace* returns it.

Steps follow geth's execution-apis shape: `gas` is what was left before the opcode, `gasCost`
what it charged (a CALL's includes the gas it forwards, a CREATE's does not), `depth` starts
at 1, the stack is bottom first, memory and storage words are 0x-prefixed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from eth.abc import ComputationAPI
from eth.exceptions import FullStack, InsufficientStack, OutOfGas
from eth.vm.forks.prague.state import PragueState

from snowfield.chains.evm.execution.hooks import (
    CREATES,
    HookedState,
    OpcodeHooks,
    charged,
    memory_bytes,
    reset_charged,
    stack_ints,
)
from snowfield.chains.evm.execution.opnames import op_name
from snowfield.chains.evm.execution.state import is_revert
from snowfield.chains.evm.execution.tracing import TxStart

_SLOAD, _SSTORE = 0x54, 0x55
# Failures geth reports on the step itself: found before the opcode runs (stack, gas).
_STEP_ERRORS: tuple[tuple[type[BaseException], str], ...] = (
    (OutOfGas, "out of gas"),
    (InsufficientStack, "stack underflow"),
    (FullStack, "stack limit reached 1024"),
)


@dataclass(frozen=True, slots=True)
class StructLogOptions:
    """geth's logger.Config: what each step carries, and how many steps at most (0: all)."""

    enable_memory: bool = False
    disable_stack: bool = False
    disable_storage: bool = False
    enable_return_data: bool = False
    limit: int = 0
    state_class: ClassVar[type[PragueState]] = HookedState

    def start(self, state: PragueState, tx: TxStart) -> StructLogger:
        logger = StructLogger(self)
        state.hooks = logger
        return logger


class StructLogger(OpcodeHooks):
    """Records every step of one transaction or call."""

    def __init__(self, options: StructLogOptions) -> None:
        self.options = options
        self.steps: list[dict[str, Any]] = []
        self._frames: list[Any] = []
        self._storage: dict[bytes, dict[str, str]] = {}
        self._refund_known: int | None = None

    def before(self, computation: Any, op: int) -> Any:
        reset_charged(computation)
        if len(computation.code) == 0:
            return None  # geth runs no interpreter for an account without code
        pc = self._pc(computation)
        if self.options.limit and len(self.steps) >= self.options.limit:
            return None
        step = {
            "pc": pc,
            "op": op_name(op),
            "gas": computation.get_gas_remaining(),
            "gasCost": 0,
            "depth": computation.msg.depth + 1,
        }
        self._fill(step, computation, op)
        self.steps.append(step)
        return step

    def after(self, computation: Any, op: int, token: Any, error: BaseException | None) -> None:
        computation.trace_next_pc = computation.code.program_counter
        if op == _SSTORE:
            self._refund_known = None
        if token is None:
            return
        cost = charged(computation)
        if op in CREATES:
            cost -= computation.child_gas
        token["gasCost"] = cost
        for kind, text in _STEP_ERRORS:
            if isinstance(error, kind):
                token["error"] = text

    def _pc(self, computation: Any) -> int:
        counter = int(computation.code.program_counter)
        # The implicit STOP past the end of the code is yielded without advancing the pc.
        if counter == getattr(computation, "trace_next_pc", -1):
            return counter
        return counter - 1

    def _fill(self, step: dict[str, Any], computation: Any, op: int) -> None:
        options = self.options
        stack = stack_ints(computation)
        if not options.disable_stack:
            step["stack"] = [hex(v) for v in stack]
        if options.enable_memory:
            step["memory"] = _words(memory_bytes(computation))
        if options.enable_return_data and computation.return_data:
            step["returnData"] = "0x" + bytes(computation.return_data).hex()
        refund = self._refund(computation)
        if refund:
            step["refund"] = refund
        if not options.disable_storage and op in (_SLOAD, _SSTORE):
            self._storage_step(step, computation, op, stack)

    def _refund(self, computation: Any) -> int:
        """The transaction's refund counter so far: every open frame's own and its finished
        children's (py-evm keeps refunds per frame, geth one counter). It changes only at an
        SSTORE or when a frame starts or ends, so it is summed again only then."""
        frames = self._frames
        if frames and frames[-1] is computation and self._refund_known is not None:
            return self._refund_known
        for depth, frame in enumerate(frames):
            if frame is computation:
                del frames[depth + 1 :]
                break
        else:
            frames.append(computation)
        self._refund_known = max(0, sum(int(frame.get_gas_refund()) for frame in frames))
        return self._refund_known

    def _storage_step(
        self, step: dict[str, Any], computation: Any, op: int, stack: list[int]
    ) -> None:
        address = bytes(computation.msg.storage_address)
        if op == _SLOAD and stack:
            value = int(computation.state.get_storage(address, stack[-1]))
        elif op == _SSTORE and len(stack) >= 2:
            value = stack[-2]
        else:
            return
        seen = self._storage.setdefault(address, {})
        seen[_word(stack[-1])] = _word(value)
        step["storage"] = dict(seen)

    def result(
        self, state: PragueState, computation: ComputationAPI, gas_used: int
    ) -> dict[str, Any]:
        """geth's ExecutionResult for the traced transaction."""
        failed = computation.is_error
        output = bytes(computation.output) if not failed or is_revert(computation) else b""
        return {
            "gas": gas_used,
            "failed": failed,
            "returnValue": "0x" + output.hex(),
            "structLogs": self.steps,
        }


def _word(value: int) -> str:
    return "0x" + value.to_bytes(32, "big").hex()


def _words(memory: bytes) -> list[str]:
    return ["0x" + memory[i : i + 32].ljust(32, b"\x00").hex() for i in range(0, len(memory), 32)]
