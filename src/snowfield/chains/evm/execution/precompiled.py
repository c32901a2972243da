"""Stateful precompiles on py-evm: the chain's active ones are called from the block's
execution context, and contract creation asks the chain's rules first."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

from eth.abc import (
    ComputationAPI,
    MessageAPI,
    SignedTransactionAPI,
    StateAPI,
    TransactionContextAPI,
)
from eth.exceptions import Revert, VMError
from eth.vm.execution_context import ExecutionContext
from eth.vm.forks.prague.computation import PragueComputation
from eth.vm.forks.prague.state import PragueTransactionExecutor
from eth_utils import ValidationError

from snowfield.chains.evm.precompiles.base import (
    PrecompileError,
    PrecompileOutOfGas,
    PrecompileRevert,
    StatefulPrecompile,
)
from snowfield.chains.evm.warp import WARP_ADDRESS, extra_intrinsic_gas
from snowfield.errors import InvalidParams

if TYPE_CHECKING:
    from snowfield.chains.evm.warp import WarpBlock

# Why the transaction's origin may not create a contract (None: it may), read on the state.
CreateCheck = Callable[[Any, bytes], str | None]


class PrecompileFailed(VMError):
    """A stateful precompile's error: the remaining gas is burned, the text is the VM's."""


class CreateRefused(VMError):
    """Contract creation refused by the deployer allow list (all gas consumed)."""


class AvalancheContext(ExecutionContext):
    """The block's context plus the chain's active stateful precompiles, create check and
    Warp context."""

    def __init__(
        self,
        *args: Any,
        stateful: Mapping[bytes, StatefulPrecompile] | None = None,
        create_check: CreateCheck | None = None,
        warp: WarpBlock | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.create_check = create_check
        self.warp = warp
        self.precompiles: dict[Any, Any] = dict(PragueComputation.get_precompiles())
        for address, contract in (stateful or {}).items():
            self.precompiles[address] = _adapter(contract)


class _Env:
    """PrecompileEnv over a py-evm computation."""

    def __init__(self, computation: Any) -> None:
        self._c = computation
        msg = computation.msg
        self.caller = bytes(msg.sender)
        self.origin = bytes(computation.transaction_context.origin)
        self.value = msg.value
        self.input = bytes(msg.data)
        self.read_only = msg.is_static
        self.timestamp = computation.state.timestamp
        self.number = computation.state.block_number
        self.warp: WarpBlock | None = getattr(computation.state.execution_context, "warp", None)

    def use_gas(self, amount: int) -> None:
        if amount > self._c.get_gas_remaining():
            raise PrecompileOutOfGas()
        self._c.consume_gas(amount, "stateful precompile")

    def get_state(self, address: bytes, slot: int) -> int:
        return int(self._c.state.get_storage(address, slot))

    def set_state(self, address: bytes, slot: int, value: int) -> None:
        self._c.state.set_storage(address, slot, value)

    def get_balance(self, address: bytes) -> int:
        return int(self._c.state.get_balance(address))

    def add_balance(self, address: bytes, amount: int) -> None:
        self._c.state.delta_balance(address, amount)

    def add_log(self, address: bytes, topics: tuple[bytes, ...], data: bytes) -> None:
        self._c.add_log_entry(address, tuple(int.from_bytes(t, "big") for t in topics), data)


def _adapter(contract: StatefulPrecompile) -> Callable[[ComputationAPI], ComputationAPI]:
    def run(computation: ComputationAPI) -> ComputationAPI:
        try:
            computation.output = contract.run(_Env(computation))
        except PrecompileRevert as exc:
            computation.output = exc.data
            raise Revert(exc.data) from None
        except PrecompileOutOfGas:
            from eth.exceptions import OutOfGas

            raise OutOfGas("out of gas") from None
        except PrecompileError as exc:
            raise PrecompileFailed(str(exc)) from None
        return computation

    return run


class Computation(PragueComputation):
    """Prague's computation with the chain's stateful precompiles and create check."""

    @property
    def precompiles(self) -> dict[Any, Any]:
        context = self.state.execution_context
        if isinstance(context, AvalancheContext):
            return context.precompiles
        return cast(dict[Any, Any], super().precompiles)

    @classmethod
    def apply_create_message(
        cls,
        state: StateAPI,
        message: MessageAPI,
        transaction_context: TransactionContextAPI,
        parent_computation: ComputationAPI | None = None,
    ) -> ComputationAPI:
        context = state.execution_context
        check = context.create_check if isinstance(context, AvalancheContext) else None
        refused = check(state, bytes(transaction_context.origin)) if check else None
        if refused is None:
            return super().apply_create_message(
                state, message, transaction_context, parent_computation
            )
        computation = cls(state, message, transaction_context)
        with computation:
            raise CreateRefused(refused)
        return computation


class PredicateExecutor(PragueTransactionExecutor):
    """Prague's executor charging Warp predicates their PredicateGas in place of access-list
    gas (subnet-evm's and coreth's IntrinsicGas), when the chain runs Warp."""

    def build_evm_message(self, transaction: SignedTransactionAPI) -> MessageAPI:
        message = super().build_evm_message(transaction)
        warp: WarpBlock | None = getattr(self.vm_state.execution_context, "warp", None)
        if warp is None:
            return message
        access_list = [
            (bytes(address), tuple(keys))
            for address, keys in getattr(transaction, "access_list", None) or ()
        ]
        tx_hash: bytes | None = None  # a call's (no signed transaction) or one without predicates
        if any(address == WARP_ADDRESS for address, _ in access_list):
            with contextlib.suppress(AttributeError, TypeError, ValueError):
                tx_hash = bytes(transaction.hash)
        warp.begin(tx_hash, access_list)
        try:
            extra = extra_intrinsic_gas(access_list)
        except InvalidParams as exc:
            raise ValidationError(str(exc)) from None
        if extra > message.gas:
            raise ValidationError(
                f"intrinsic gas too low: gas {transaction.gas}, minimum needed "
                f"{transaction.gas - message.gas + extra}"
            )
        message.gas -= extra
        return message
