"""Message calls that change nothing: eth_call, gas estimation."""

from __future__ import annotations

from dataclasses import dataclass

from eth.abc import ComputationAPI
from eth.vm.forks.prague.state import PragueState
from eth.vm.forks.prague.transactions import PragueTransactionBuilder
from eth.vm.spoof import SpoofTransaction
from eth_utils import ValidationError as UtilsValidationError

from snowfield.chains.evm.execution.state import BlockEnv, StateStore, scratch_state
from snowfield.errors import InvalidParams

TX_GAS = 21_000


@dataclass(frozen=True, slots=True)
class CallArgs:
    """The transaction-like object of eth_call / eth_estimateGas, already parsed."""

    sender: bytes
    to: bytes | None
    gas: int | None
    gas_price: int
    value: int
    data: bytes


def execute_call(
    store: StateStore,
    root: bytes,
    env: BlockEnv,
    args: CallArgs,
    gas: int,
    state_class: type[PragueState] = PragueState,
) -> ComputationAPI:
    """Runs the call on a scratch copy of the state at `root`; raises InvalidParams if it
    could not start (funds, intrinsic gas)."""
    state = scratch_state(store, root, env, state_class)
    nonce = state.get_nonce(args.sender)
    unsigned = PragueTransactionBuilder.create_unsigned_transaction(
        nonce=nonce,
        gas_price=args.gas_price,
        gas=gas,
        to=args.to or b"",
        value=args.value,
        data=args.data,
    )
    spoofed = SpoofTransaction(unsigned, from_=args.sender)
    try:
        return state.apply_transaction(spoofed)
    except UtilsValidationError as exc:
        raise InvalidParams(_validation_text(str(exc), args)) from exc


def _validation_text(text: str, args: CallArgs) -> str:
    lowered = text.lower()
    if "intrinsic" in lowered:
        return f"intrinsic gas too low: {text}"
    if "balance" in lowered or "funds" in lowered:
        return f"insufficient funds for gas * price + value: address 0x{args.sender.hex()}"
    return text
