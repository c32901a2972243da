"""eth_createAccessList: re-runs a call with the opcodes that touch other accounts or storage
watched, until the access list it needs stops growing (geth's AccessListTracer).

Our own tracer because the execution library keeps only the warm set, which forgets what a
reverted frame touched; geth lists those too."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from eth.abc import ComputationAPI
from eth.vm.forks.prague.computation import PragueComputation

from snowfield.chains.evm.execution.accounts import State as FastState
from snowfield.chains.evm.execution.call import AccessTuple, CallArgs, gas_used
from snowfield.chains.evm.execution.deadline import InterruptibleComputation
from snowfield.chains.evm.execution.state import error_text
from snowfield.crypto.hashing import keccak
from snowfield.formats.rlp import encode as rlp_encode

# Opcode → how deep in the stack the address it touches sits (1 = top).
_ADDRESS_DEPTH = {
    0x31: 1,  # BALANCE
    0x3B: 1,  # EXTCODESIZE
    0x3C: 1,  # EXTCODECOPY
    0x3F: 1,  # EXTCODEHASH
    0xFF: 1,  # SELFDESTRUCT
    0xF1: 2,  # CALL
    0xF2: 2,  # CALLCODE
    0xF4: 2,  # DELEGATECALL
    0xFA: 2,  # STATICCALL
}
_SLOT_OPS = (0x54, 0x55)  # SLOAD, SSTORE
MAX_ROUNDS = 16
Touched = dict[bytes, set[bytes]]


def _word(value: int | bytes) -> bytes:
    return value.to_bytes(32, "big") if isinstance(value, int) else bytes(value).rjust(32, b"\0")


class _Watch:
    """Wraps an opcode: records what it is about to touch, then runs it."""

    def __init__(self, inner: Any, code: int) -> None:
        self.inner = inner
        self.code = code
        self.mnemonic = getattr(inner, "mnemonic", hex(code))

    def __call__(self, computation: Any) -> None:
        values = computation._stack.values
        touched: Touched = computation.state.touched
        if self.code in _SLOT_OPS and values:
            owner = bytes(computation.msg.storage_address)
            touched.setdefault(owner, set()).add(_word(values[-1]))
        depth = _ADDRESS_DEPTH.get(self.code)
        if depth is not None and len(values) >= depth:
            touched.setdefault(_word(values[-depth])[-20:], set())
        self.inner(computation)


class AccessListComputation(InterruptibleComputation):
    opcodes = {
        code: (_Watch(fn, code) if code in _ADDRESS_DEPTH or code in _SLOT_OPS else fn)
        for code, fn in InterruptibleComputation.opcodes.items()
    }


class AccessListState(FastState):
    """A state whose computations record every account and slot they touch in `touched`."""

    computation_class = AccessListComputation

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.touched: Touched = {}


@dataclass(frozen=True, slots=True)
class AccessListResult:
    """What eth_createAccessList answers: the list, the gas the call used with it, and the
    call's error (None when it succeeded)."""

    access_list: tuple[AccessTuple, ...]
    gas_used: int
    error: str | None


def create_access_list(
    run: Callable[[CallArgs, int], ComputationAPI], args: CallArgs, gas: int, nonce: int
) -> AccessListResult:
    """Runs `args` (with `run`, on an AccessListState) until its access list is stable."""
    excluded = _excluded(args, nonce)
    current = _initial(args.access_list or (), excluded)
    for _ in range(MAX_ROUNDS):
        computation = run(dataclasses.replace(args, access_list=_tuples(current)), gas)
        found = _initial(_tuples(current), excluded)
        for address, slots in computation.state.touched.items():
            if address not in excluded or slots:
                found.setdefault(address, set()).update(slots)
        if found == current:
            break
        current = found
    used = gas_used(gas, computation)
    return AccessListResult(_tuples(current), used, error_text(computation))


def _excluded(args: CallArgs, nonce: int) -> set[bytes]:
    to = args.to if args.to is not None else keccak(rlp_encode([args.sender, nonce]))[12:]
    return {args.sender, to, *(bytes(a) for a in PragueComputation._precompiles)}


def _initial(entries: tuple[AccessTuple, ...], excluded: set[bytes]) -> Touched:
    out: Touched = {}
    for entry in entries:
        if entry.address not in excluded or entry.storage_keys:
            out.setdefault(entry.address, set()).update(entry.storage_keys)
    return out


def _tuples(touched: Touched) -> tuple[AccessTuple, ...]:
    return tuple(AccessTuple(a, tuple(sorted(slots))) for a, slots in touched.items())
