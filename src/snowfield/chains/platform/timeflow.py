"""Advancing the P-Chain's time: fee capacity refills, L1 validator fees burn, permissioned
subnet validators leave at their end; and when the next such change is due."""

from __future__ import annotations

from dataclasses import replace

from snowfield.chains.platform.executor.l1 import set_l1_validator
from snowfield.chains.platform.gas import calculate_price
from snowfield.chains.platform.state import PlatformState


def advance_time(state: PlatformState, to: int) -> None:
    """Moves chain time forward to `to` (a no-op when it is not later)."""
    seconds = to - state.timestamp
    if seconds <= 0:
        return
    state.fee_state = state.fee_state.advance(state.params.fees, seconds)
    _burn_l1_fees(state, seconds)
    for staker in list(state.stakers.by_tx.values()):
        if not staker.kind.rewarded and staker.end <= to:
            state.stakers.remove(staker)
    state.timestamp = to


def _burn_l1_fees(state: PlatformState, seconds: int) -> None:
    config = state.params.validator_fees
    cost = state.validator_fee_state.cost_of(config, seconds)
    state.validator_fee_state = state.validator_fee_state.advance(config.target, seconds)
    for record in list(state.l1_validators.values()):
        if record.active:
            set_l1_validator(state, replace(record, balance=max(record.balance - cost, 0)))


def next_change_time(state: PlatformState) -> int | None:
    """The earliest future time a staker ends or an L1 validator's balance runs out."""
    times = [staker.end for staker in state.stakers.by_tx.values()]
    config, fee_state = state.params.validator_fees, state.validator_fee_state
    price = calculate_price(config.min_price, fee_state.excess, config.excess_conversion_constant)
    if price:
        times += [
            state.timestamp + max(record.balance // price, 1)
            for record in state.l1_validators.values()
            if record.active
        ]
    return min(times, default=None)
