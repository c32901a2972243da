"""Opcode-level hooks on py-evm's interpreter: a computation that reports every step.

py-evm has no tracing interface (geth's OnOpcode), so the fork's opcode table is wrapped:
each opcode tells the trace's hooks before and after it runs, and the gas meter counts what
the step charged (memory expansion is charged on the meter directly, not the computation)."""

from __future__ import annotations

from typing import Any

from eth.abc import ComputationAPI, MessageAPI
from eth.vm.forks.prague.computation import PragueComputation
from eth.vm.gas_meter import GasMeter, allow_negative_refund_strategy
from eth.vm.logic.invalid import InvalidOpcode

from snowfield.chains.evm.execution.accounts import State as FastState
from snowfield.chains.evm.execution.deadline import interruptible
from snowfield.chains.evm.execution.precompiled import Computation

CREATES = (0xF0, 0xF5)


class OpcodeHooks:
    """What a step-level tracer is told; the defaults do nothing."""

    def before(self, computation: Any, op: int) -> Any:
        """Called before opcode `op` runs; the value returned is passed to `after`."""

    def after(self, computation: Any, op: int, token: Any, error: BaseException | None) -> None:
        """Called when the opcode finished, `error` being what it raised (Halt for STOP)."""


class CountingMeter(GasMeter):
    """A gas meter that also adds up what was asked of it, including a charge it refused."""

    charged = 0

    def consume_gas(self, amount: int, reason: str) -> None:
        self.charged += amount
        super().consume_gas(amount, reason)


class _Step:
    """An opcode wrapped so that the trace's hooks see it run."""

    def __init__(self, inner: Any, op: int) -> None:
        self.inner = inner
        self.op = op
        self.mnemonic = getattr(inner, "mnemonic", "")

    def __call__(self, computation: Any) -> None:
        hooks: OpcodeHooks = computation.state.hooks
        token = hooks.before(computation, self.op)
        try:
            self.inner(computation)
        except BaseException as exc:  # Halt (STOP, RETURN) and VM errors alike
            hooks.after(computation, self.op, token, exc)
            raise
        hooks.after(computation, self.op, token, None)


class _Opcodes(dict[int, Any]):
    """The opcode table; an undefined opcode is also a step (geth logs it before failing)."""

    def __missing__(self, op: int) -> _Step:
        return _Step(InvalidOpcode(op), op)


class HookedComputation(Computation):
    """A computation whose every opcode reports to `state.hooks`."""

    opcodes = _Opcodes(
        {op: _Step(fn, op) for op, fn in interruptible(PragueComputation.opcodes).items()}
    )
    child_gas = 0  # gas given to the last child frame, for CREATE's geth-style cost

    def _configure_gas_meter(self) -> GasMeter:
        return CountingMeter(self.msg.gas, allow_negative_refund_strategy)

    def apply_child_computation(self, child_msg: MessageAPI) -> ComputationAPI:
        self.child_gas = child_msg.gas
        return super().apply_child_computation(child_msg)


class HookedState(FastState):
    """The fork's state running HookedComputation; set `hooks` before applying a transaction."""

    computation_class = HookedComputation
    hooks: OpcodeHooks = OpcodeHooks()


def silence(state: Any) -> None:
    """Runs the next transactions on `state` untraced."""
    state.hooks = OpcodeHooks()


def charged(computation: Any) -> int:
    """Gas the current step has asked for so far (reset by `reset_charged`)."""
    return int(computation._gas_meter.charged)


def reset_charged(computation: Any) -> None:
    computation._gas_meter.charged = 0
    computation.child_gas = 0


def stack_ints(computation: Any) -> list[int]:
    """The stack, bottom first, as integers (py-evm keeps ints and bytes side by side)."""
    return [
        v if isinstance(v, int) else int.from_bytes(v, "big") for v in computation._stack.values
    ]


def memory_bytes(computation: Any) -> bytes:
    return bytes(computation._memory._bytes)
