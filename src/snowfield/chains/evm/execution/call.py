"""Message calls that change nothing: eth_call, gas estimation."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from eth.abc import ComputationAPI
from eth.exceptions import VMError
from eth.vm.forks.prague import PragueVM
from eth.vm.forks.prague.state import PragueState
from eth.vm.forks.prague.transactions import Authorization as PragueAuthorization
from eth.vm.forks.prague.transactions import PragueTransactionBuilder
from eth.vm.spoof import SpoofTransaction
from eth_utils import ValidationError as UtilsValidationError

from snowfield.chains.evm.execution.deadline import CallState
from snowfield.chains.evm.execution.state import BlockEnv, StateStore, scratch_state
from snowfield.chains.evm.limits import check_initcode
from snowfield.chains.evm.model import Authorization as Authorization
from snowfield.errors import InvalidParams

log = logging.getLogger("snowfield.evm")
_INTRINSIC_SHORT = re.compile(r"gas cannot be negative: Got: (-\d+)")
TX_GAS = 21_000
UNCAPPED_GAS = 2**63 - 1  # geth's MaxUint64 / 2, when no cap is set


@dataclass(frozen=True, slots=True)
class CallLimits:
    """geth's RPCGasCap and RPCEVMTimeout: how much gas and time one eth_call or
    eth_estimateGas may use (0 = no limit)."""

    gas_cap: int = 50_000_000
    timeout: float = 5.0

    def call_gas(self, requested: int | None) -> int:
        """The gas an eth_call runs with: the request's, else the cap, never above it."""
        gas = requested or self.gas_cap or UNCAPPED_GAS
        if self.gas_cap and gas > self.gas_cap:
            log.warning(
                "Caller gas above allowance, capping requested=%d cap=%d", gas, self.gas_cap
            )
            return self.gas_cap
        return gas


@dataclass(frozen=True, slots=True)
class AccessTuple:
    """One entry of an EIP-2930 access list."""

    address: bytes
    storage_keys: tuple[bytes, ...]


@dataclass(frozen=True, slots=True)
class CallArgs:
    """geth's TransactionArgs, already parsed: every field kept, None when absent.

    `data` is the call data ("input" preferred over "data", b"" when neither is given)."""

    from_: bytes | None = None
    to: bytes | None = None
    gas: int | None = None
    gas_price: int | None = None
    max_fee: int | None = None
    max_priority_fee: int | None = None
    value: int = 0
    nonce: int | None = None
    data: bytes = b""
    access_list: tuple[AccessTuple, ...] | None = None
    chain_id: int | None = None
    tx_type: int | None = None
    max_fee_per_blob_gas: int | None = None
    blob_hashes: tuple[bytes, ...] | None = None
    blobs: tuple[bytes, ...] | None = None
    commitments: tuple[bytes, ...] | None = None
    proofs: tuple[bytes, ...] | None = None
    authorization_list: tuple[Authorization, ...] | None = None

    @property
    def sender(self) -> bytes:
        """The caller: the zero address when "from" is absent, as geth."""
        return self.from_ if self.from_ is not None else bytes(20)

    def effective_gas_price(self, base_fee: int) -> int:
        """The price the EVM sees, as geth's ToMessage: gasPrice, else the 1559 fields
        against `base_fee`, else zero."""
        if self.gas_price is not None:
            return self.gas_price
        fee_cap = self.max_fee or 0
        tip = self.max_priority_fee or 0
        if not fee_cap and not tip:
            return 0
        if self.max_fee is None:
            return tip + base_fee
        return min(tip + base_fee, fee_cap)


def execute_call(
    store: StateStore,
    root: bytes,
    env: BlockEnv,
    args: CallArgs,
    gas: int,
    state_class: type[PragueState] = CallState,
    prepare: Callable[[PragueState], None] | None = None,
) -> ComputationAPI:
    """Runs the call on a scratch copy of the state at `root` (given to `prepare` first, for
    overrides and tracers); raises InvalidParams if it could not start (funds, intrinsic gas)."""
    check_initcode(args.to is None, len(args.data))
    state = scratch_state(store, root, env, state_class)
    if prepare is not None:
        prepare(state)
    nonce = state.get_nonce(args.sender)
    unsigned = unsigned_message(args, nonce, gas, args.effective_gas_price(env.base_fee), env)
    spoofed = SpoofTransaction(unsigned, from_=args.sender)
    try:
        return state.apply_transaction(spoofed)
    except UtilsValidationError as exc:
        raise InvalidParams(_validation_text(str(exc), args, gas)) from exc
    except VMError as exc:  # raised before the first frame runs (initcode, intrinsic gas)
        raise InvalidParams(_validation_text(str(exc), args, gas)) from exc


def gas_used(gas: int, computation: ComputationAPI) -> int:
    """What a call given `gas` is charged after refunds and the calldata floor, as the
    receipt of the same transaction would say (py-evm reads only the transaction's gas)."""
    return int(PragueVM.finalize_gas_used(SimpleNamespace(gas=gas), computation))


def unsigned_message(args: CallArgs, nonce: int, gas: int, price: int, env: BlockEnv) -> Any:
    """The execution library's unsigned transaction for a call: set-code when it carries
    authorizations, access-list when it carries an access list (both change the gas)."""
    B = PragueTransactionBuilder
    to = args.to or b""
    access = [
        (a.address, [int.from_bytes(k, "big") for k in a.storage_keys])
        for a in args.access_list or ()
    ]
    if args.authorization_list is not None and args.to is not None:
        auths = [
            PragueAuthorization(a.chain_id, a.address, a.nonce, a.y_parity, a.r, a.s)
            for a in args.authorization_list
        ]
        return B.new_unsigned_set_code_transaction(
            env.chain_id, nonce, price, price, gas, args.to, args.value, args.data, access, auths
        )
    if args.access_list:
        return B.new_unsigned_access_list_transaction(
            env.chain_id, nonce, price, gas, to, args.value, args.data, access
        )
    return B.create_unsigned_transaction(
        nonce=nonce, gas_price=price, gas=gas, to=to, value=args.value, data=args.data
    )


def intrinsic_shortfall(text: str, gas: int) -> str | None:
    """geth's text for a call given less than its intrinsic gas, from py-evm's message
    ("... gas cannot be negative: Got: <gas - intrinsic>"); None for any other failure."""
    short = _INTRINSIC_SHORT.search(text)
    if short is None:
        return None
    return f"intrinsic gas too low: have {gas}, want {gas - int(short.group(1))}"


def _validation_text(text: str, args: CallArgs, gas: int) -> str:
    lowered = text.lower()
    shortfall = intrinsic_shortfall(text, gas)
    if shortfall is not None:
        return shortfall
    if "intrinsic" in lowered:
        return f"intrinsic gas too low: {text}"
    if "balance" in lowered or "funds" in lowered:
        return f"insufficient funds for gas * price + value: address 0x{args.sender.hex()}"
    return text
