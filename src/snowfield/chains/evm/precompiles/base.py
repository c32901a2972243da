"""What a stateful precompile sees of the EVM, and how it answers (subnet-evm's contract pkg)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from snowfield.chains.evm.warp import WarpBlock

# Gas costs of subnet-evm's precompile/contract: a storage slot read or written, a log.
READ_GAS_PER_SLOT = 5_000
WRITE_GAS_PER_SLOT = 20_000
LOG_GAS = 375
LOG_TOPIC_GAS = 375
LOG_DATA_GAS = 8


class PrecompileError(Exception):
    """Raised by a precompile to fail the call with the VM's error text: all the remaining
    gas is consumed (subnet-evm's precompile errors are not reverts)."""


class PrecompileOutOfGas(PrecompileError):
    """Raised when the supplied gas does not cover the call: "out of gas"."""

    def __init__(self) -> None:
        super().__init__("out of gas")


class PrecompileRevert(Exception):
    """Raised to revert with return data, keeping the gas left (ErrExecutionReverted)."""

    def __init__(self, data: bytes = b"") -> None:
        super().__init__("execution reverted")
        self.data = data


class PrecompileEnv(Protocol):
    """The EVM as a stateful precompile reaches it (contract.AccessibleState)."""

    caller: bytes
    origin: bytes
    value: int
    input: bytes
    read_only: bool
    timestamp: int
    number: int
    # The chain's ids and the running transaction's Warp predicates (None: no Warp context).
    warp: WarpBlock | None

    def use_gas(self, amount: int) -> None:
        """Charges gas; raises PrecompileOutOfGas when there is not enough."""

    def get_state(self, address: bytes, slot: int) -> int: ...

    def set_state(self, address: bytes, slot: int, value: int) -> None: ...

    def get_balance(self, address: bytes) -> int: ...

    def add_balance(self, address: bytes, amount: int) -> None: ...

    def add_log(self, address: bytes, topics: tuple[bytes, ...], data: bytes) -> None: ...


class StatefulPrecompile(Protocol):
    """A precompile: `run` returns the call's output or raises PrecompileError /
    PrecompileRevert."""

    def run(self, env: PrecompileEnv) -> bytes: ...


@dataclass(frozen=True, slots=True)
class FunctionTable:
    """contract.StatefulPrecompiledContract: dispatch on the 4-byte selector."""

    address: bytes
    functions: Mapping[bytes, Callable[[PrecompileEnv], bytes]]
    fallback: Callable[[PrecompileEnv], bytes] | None = None

    def run(self, env: PrecompileEnv) -> bytes:
        if not env.input and self.fallback is not None:
            return self.fallback(env)
        if len(env.input) < 4:
            raise PrecompileError(
                f"missing function selector to precompile - input length ({len(env.input)})"
            )
        handler = self.functions.get(env.input[:4])
        if handler is None:
            raise PrecompileError(f"invalid function selector: 0x{env.input[:4].hex()}")
        return handler(env)


def charge_log(env: PrecompileEnv, topics: int, data_len: int) -> None:
    env.use_gas(LOG_GAS + LOG_TOPIC_GAS * topics + LOG_DATA_GAS * data_len)
