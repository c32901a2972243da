"""Opcode names as geth prints them in traces (py-evm names two of them differently)."""

from __future__ import annotations

from eth.vm.forks.prague.computation import PragueComputation

_RENAMED = {0x20: "KECCAK256", 0x44: "DIFFICULTY", 0xFE: "INVALID", 0xFF: "SELFDESTRUCT"}
_NAMES = {
    op: _RENAMED.get(op, getattr(fn, "mnemonic", ""))
    for op, fn in PragueComputation.opcodes.items()
} | _RENAMED


def op_name(op: int) -> str:
    return _NAMES.get(op) or f"opcode {op:#x} not defined"
