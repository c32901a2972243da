"""Execution deadlines: RPC calls that stop when their time is up and share the GIL meanwhile.

py-evm has no cancellation hook, so the opcodes every long run must execute (jumps for loops,
calls and creates for recursion) are wrapped with a check of the running thread's deadline.
The deadline is thread-local because py-evm builds computations from classes, with no place
to hand one a per-call value; a thread with no deadline (block building) runs unchecked."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from eth.vm.forks.prague.computation import PragueComputation
from eth.vm.forks.prague.state import PragueState

from snowfield.chains.evm.execution.precompiled import Computation, PredicateExecutor

# Opcodes without which no execution can run long: JUMP, JUMPI, CREATE, CALL, CALLCODE,
# DELEGATECALL, CREATE2, STATICCALL.
LOOPING = frozenset((0x56, 0x57, 0xF0, 0xF1, 0xF2, 0xF4, 0xF5, 0xFA))
# A busy EVM thread hands the GIL over this often, so the event loop (eth_blockNumber and
# friends) waits well under CPython's 5 ms switch interval for it.
YIELD_EVERY = 0.001
YIELD_FOR = 0.00005

_local = threading.local()


class CallTimeout(Exception):
    """Raised inside the EVM when a call runs past its deadline; never a VMError, so py-evm
    lets it through every frame."""


@contextmanager
def deadline(seconds: float | None) -> Iterator[None]:
    """Runs the body with a deadline `seconds` from now (None or 0: none)."""
    previous = getattr(_local, "deadline", None)
    _local.deadline = time.monotonic() + seconds if seconds else None
    _local.yielded = time.monotonic()
    try:
        yield
    finally:
        _local.deadline = previous


def check() -> None:
    """Raises CallTimeout past the thread's deadline; lets other threads run now and then."""
    until = getattr(_local, "deadline", None)
    if until is None:
        return
    now = time.monotonic()
    if now > until:
        raise CallTimeout
    if now - _local.yielded > YIELD_EVERY:
        _local.yielded = now
        time.sleep(YIELD_FOR)


class _Checked:
    """Wraps an opcode with the deadline check."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.mnemonic = getattr(inner, "mnemonic", "")

    def __call__(self, computation: Any) -> None:
        check()
        self.inner(computation)


def interruptible(opcodes: dict[int, Any]) -> dict[int, Any]:
    """The opcode table with the looping opcodes checking the deadline."""
    return {code: (_Checked(fn) if code in LOOPING else fn) for code, fn in opcodes.items()}


class InterruptibleComputation(Computation):
    """Prague's computation whose looping opcodes honour the thread's deadline."""

    opcodes = interruptible(PragueComputation.opcodes)


class CallState(PragueState):
    """The state eth_call and gas estimation run on."""

    computation_class = InterruptibleComputation
    transaction_executor_class = PredicateExecutor


def go_duration(seconds: float) -> str:
    """A duration as Go's time.Duration prints it (5s, 1.5s, 500ms, 1m30s)."""
    if seconds < 1:
        return f"{seconds * 1000:g}ms"
    minutes, rest = divmod(seconds, 60)
    text = f"{rest:g}s"
    return f"{int(minutes)}m{text}" if minutes else text
