"""The P-Chain's UTXO set, and the ownership views of its outputs.

Public API: `utxo_set()` (an empty `chains.utxoset.UTXOSet` of P-Chain UTXOs),
`owners_of(output)` and `locktime_of(output)` (the stakeable lock's locktime, 0 when unlocked).
"""

from __future__ import annotations

from snowfield.chains.utxoset import UTXOSet
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ShortID
from snowfield.formats.platform.components import UTXO
from snowfield.formats.platform.secp256k1fx import OutputOwners, TransferOutput
from snowfield.formats.platform.stakeable import LockOut
from snowfield.formats.platform.types import TransferableOut


def inner_output(output: TransferableOut) -> TransferOutput:
    """The secp256k1fx output inside an optional stakeable lock."""
    inner = output.output if isinstance(output, LockOut) else output
    if not isinstance(inner, TransferOutput):
        raise InvalidParams("unsupported output type")
    return inner


def owners_of(output: TransferableOut) -> OutputOwners:
    return inner_output(output).owners


def locktime_of(output: TransferableOut) -> int:
    """The stakeable lock's locktime (0 for an output that was never stake-locked)."""
    return output.locktime if isinstance(output, LockOut) else 0


def _addresses(utxo: UTXO) -> tuple[ShortID, ...]:
    return owners_of(utxo.output).addresses


def utxo_set() -> UTXOSet[UTXO]:
    """An empty P-Chain UTXO set."""
    return UTXOSet(_addresses)
