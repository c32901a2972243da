"""geth's state and block overrides (eth_call, debug_traceCall, eth_simulateV1), applied to a
scratch state and to the block environment a call runs in."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from eth.vm.forks.prague.state import PragueState
from eth_utils import to_checksum_address

from snowfield.chains.evm.execution.state import BlockEnv
from snowfield.errors import InvalidParams


@dataclass(frozen=True, slots=True)
class AccountOverride:
    """What one account is made to hold before the call; `state` replaces the whole storage,
    `state_diff` only the slots it names."""

    balance: int | None = None
    nonce: int | None = None
    code: bytes | None = None
    state: Mapping[int, int] | None = None
    state_diff: Mapping[int, int] | None = None


StateOverrides = Mapping[bytes, AccountOverride]


def apply_state_overrides(state: PragueState, overrides: StateOverrides) -> None:
    for address, account in overrides.items():
        if account.state is not None and account.state_diff is not None:
            # As geth: found when applied (-32000), with the address in EIP-55 form.
            raise InvalidParams(
                f"account {to_checksum_address(address)} has both 'state' and 'stateDiff'"
            )
        if account.nonce is not None:
            state.set_nonce(address, account.nonce)
        if account.code is not None:
            state.set_code(address, account.code)
        if account.balance is not None:
            state.set_balance(address, account.balance)
        if account.state is not None:
            state.delete_storage(address)
        for slot, value in {**(account.state or {}), **(account.state_diff or {})}.items():
            state.set_storage(address, slot, value)
    # Invariant: the overrides are part of the state the call starts from, not of the call
    # (a reverting call must not undo them).
    state.lock_changes()


@dataclass(frozen=True, slots=True)
class BlockOverrides:
    """The block fields a call may replace (None: the block's own)."""

    number: int | None = None
    time: int | None = None
    gas_limit: int | None = None
    fee_recipient: bytes | None = None
    prev_randao: bytes | None = None
    base_fee: int | None = None

    def apply(self, env: BlockEnv) -> BlockEnv:
        changes: dict[str, Any] = {
            "number": self.number,
            "timestamp": self.time,
            "gas_limit": self.gas_limit,
            "coinbase": self.fee_recipient,
            "mix_hash": self.prev_randao,
            "base_fee": self.base_fee,
        }
        return dataclasses.replace(env, **{k: v for k, v in changes.items() if v is not None})


NO_BLOCK_OVERRIDES = BlockOverrides()
