"""State and block overrides of eth_call and eth_estimateGas, applied to a scratch state."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TypeVar

from eth.vm.forks.prague.state import PragueState
from eth_utils import to_checksum_address

from snowfield.chains.evm.execution.state import BlockEnv
from snowfield.errors import InvalidParams

T = TypeVar("T")
Slots = tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class AccountOverride:
    """What a call pretends about one account (geth's OverrideAccount); None = as it is."""

    balance: int | None = None
    nonce: int | None = None
    code: bytes | None = None
    state: Slots | None = None  # replaces the whole storage
    state_diff: Slots | None = None  # replaces the named slots only

    def apply(self, state: PragueState, address: bytes) -> None:
        if self.state is not None and self.state_diff is not None:
            raise InvalidParams(
                f"account {to_checksum_address(address)} has both 'state' and 'stateDiff'"
            )
        if self.nonce is not None:
            state.set_nonce(address, self.nonce)
        if self.code is not None:
            state.set_code(address, self.code)
        if self.balance is not None:
            state.set_balance(address, self.balance)
        if self.state is not None:
            state.delete_storage(address)
        for slot, value in self.state or self.state_diff or ():
            state.set_storage(address, slot, value)


@dataclass(frozen=True, slots=True)
class BlockOverrides:
    """What a call pretends about its block (geth's BlockOverrides); None = as it is."""

    number: int | None = None
    time: int | None = None
    gas_limit: int | None = None
    coinbase: bytes | None = None
    prev_randao: bytes | None = None
    base_fee: int | None = None

    def apply(self, env: BlockEnv) -> BlockEnv:
        return dataclasses.replace(
            env,
            number=_or(self.number, env.number),
            timestamp=_or(self.time, env.timestamp),
            gas_limit=_or(self.gas_limit, env.gas_limit),
            coinbase=_or(self.coinbase, env.coinbase),
            mix_hash=_or(self.prev_randao, env.mix_hash),
            base_fee=_or(self.base_fee, env.base_fee),
        )


def _or(value: T | None, default: T) -> T:
    return default if value is None else value


@dataclass(frozen=True, slots=True)
class CallOverrides:
    """Both kinds of override one call carries."""

    accounts: tuple[tuple[bytes, AccountOverride], ...] = ()
    block: BlockOverrides = BlockOverrides()

    def apply_state(self, state: PragueState) -> None:
        for address, account in self.accounts:
            account.apply(state, address)


NO_OVERRIDES = CallOverrides()
