"""eth_simulateV1's execution: calls run one after another on a state carried across
simulated blocks, as unsigned transactions, optionally with ether transfers shown as logs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eth.abc import ComputationAPI, MessageAPI, StateAPI, TransactionContextAPI
from eth.vm.forks.prague.state import PragueState
from eth.vm.forks.prague.transactions import PragueTransactionBuilder
from eth.vm.spoof import SpoofTransaction
from eth_bloom.bloom import BloomFilter
from eth_utils import ValidationError as UtilsValidationError

from snowfield.chains.evm.execution.accounts import State as FastState
from snowfield.chains.evm.execution.call import CallArgs, gas_used, intrinsic_shortfall
from snowfield.chains.evm.execution.deadline import InterruptibleComputation
from snowfield.chains.evm.execution.state import error_text, is_revert
from snowfield.chains.evm.model import Log
from snowfield.errors import SimulationError

# ERC-7528's address for the native currency, and ERC-20's Transfer topic (geth's choice).
TRANSFER_ADDRESS = bytes.fromhex("eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee")
TRANSFER_TOPIC = int("ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef", 16)


class _TransferLogging(InterruptibleComputation):
    """A computation that records each ether transfer as a Transfer log of TRANSFER_ADDRESS,
    ordered before the logs of the frame it starts and dropped with them if it fails."""

    @classmethod
    def apply_message(
        cls,
        state: StateAPI,
        message: MessageAPI,
        transaction_context: TransactionContextAPI,
        parent_computation: ComputationAPI | None = None,
    ) -> ComputationAPI:
        # DELEGATECALL and CALLCODE run other code on the caller's own account.
        moves = message.should_transfer_value and message.value
        own_code = message.code_address in (message.storage_address, None, b"")
        sequence = transaction_context.get_next_log_counter() if moves and own_code else None
        computation = super().apply_message(state, message, transaction_context, parent_computation)
        if sequence is not None:
            topics = (
                TRANSFER_TOPIC,
                int.from_bytes(bytes(message.sender), "big"),
                int.from_bytes(bytes(message.storage_address), "big"),
            )
            entry = (sequence, TRANSFER_ADDRESS, topics, message.value.to_bytes(32, "big"))
            computation._log_entries.insert(0, entry)
        return computation


class TransferLoggingState(FastState):
    computation_class = _TransferLogging


class SimulationState(FastState):
    computation_class = InterruptibleComputation


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """One simulated call: what a receipt and eth_call would say of it."""

    sender: bytes
    nonce: int
    gas: int
    gas_used: int
    max_used_gas: int
    status: int
    output: bytes
    logs: tuple[Log, ...]
    bloom: bytes
    created: bytes | None
    error: str | None  # the VM error, None on success
    reverted: bool

    @property
    def receipt_logs(self) -> tuple[Log, ...]:
        """The logs the receipt holds: not the transfers traceTransfers shows as logs."""
        return tuple(log for log in self.logs if log.address != TRANSFER_ADDRESS)


@dataclass(frozen=True, slots=True)
class CallRules:
    """How the simulated block treats its calls: geth's `validation` and the block's fee."""

    validate: bool
    base_fee: int


def run_call(state: PragueState, args: CallArgs, gas: int, rules: CallRules) -> CallOutcome:
    """Runs one call on `state` (kept for the next call); raises SimulationError when the
    call cannot be a transaction of the block (funds, nonce, fee, intrinsic gas)."""
    sender = args.sender
    nonce = state.get_nonce(sender)
    if rules.validate:
        _validate(args, nonce, rules.base_fee)
    state.lock_changes()
    price = args.effective_gas_price(rules.base_fee)
    unsigned = PragueTransactionBuilder.create_unsigned_transaction(
        nonce=nonce, gas_price=price, gas=gas, to=args.to or b"", value=args.value, data=args.data
    )
    try:
        computation = state.apply_transaction(SpoofTransaction(unsigned, from_=sender))
    except UtilsValidationError as exc:
        raise _rejection(str(exc), args, state, gas * price + args.value, gas) from exc
    return _outcome(sender, nonce, gas, computation)


def _outcome(sender: bytes, nonce: int, gas: int, computation: ComputationAPI) -> CallOutcome:
    logs = tuple(
        Log(bytes(address), tuple(t.to_bytes(32, "big") for t in topics), bytes(data))
        for address, topics, data in computation.get_log_entries()
    )
    failed = computation.is_error
    reverted = failed and is_revert(computation)
    created = None
    if computation.msg.is_create and not failed:
        created = bytes(computation.msg.storage_address)
    return CallOutcome(
        sender=sender,
        nonce=nonce,
        gas=gas,
        gas_used=gas_used(gas, computation),
        max_used_gas=gas - computation.get_gas_remaining(),
        status=0 if failed else 1,
        output=bytes(computation.output) if not failed or reverted else b"",
        logs=logs,
        bloom=_bloom(logs),
        created=created,
        error=error_text(computation),
        reverted=reverted,
    )


def _bloom(logs: tuple[Log, ...]) -> bytes:
    """The receipt's bloom: its logs, without the transfers shown as logs."""
    bloom = BloomFilter()
    for log in logs:
        if log.address == TRANSFER_ADDRESS:
            continue
        bloom.add(log.address)
        for topic in log.topics:
            bloom.add(topic)
    return int(bloom).to_bytes(256, "big")


def _validate(args: CallArgs, nonce: int, base_fee: int) -> None:
    sender = "0x" + args.sender.hex()
    if args.nonce is not None and args.nonce != nonce:
        kind = "nonce too low" if args.nonce < nonce else "nonce too high"
        raise SimulationError(
            f"{kind}: address {sender}, tx: {args.nonce} state: {nonce}", reason=kind
        )
    fee_cap = args.gas_price if args.gas_price is not None else args.max_fee or 0
    if fee_cap < base_fee:
        raise SimulationError(
            f"max fee per gas less than block base fee: address {sender}, "
            f"maxFeePerGas: {fee_cap}, baseFee: {base_fee}",
            reason="fee cap too low",
        )


def _rejection(text: str, args: CallArgs, state: Any, cost: int, gas: int) -> SimulationError:
    lowered, sender = text.lower(), "0x" + args.sender.hex()
    shortfall = intrinsic_shortfall(text, gas)
    if shortfall is not None:
        return SimulationError(shortfall, reason="intrinsic gas")
    if "intrinsic" in lowered:
        return SimulationError(f"intrinsic gas too low: {text}", reason="intrinsic gas")
    if "balance" in lowered or "funds" in lowered:
        have = state.get_balance(args.sender)
        return SimulationError(
            f"insufficient funds for gas * price + value: address {sender} have {have} want {cost}",
            reason="insufficient funds",
        )
    return SimulationError(text, reason="invalid transaction")
