"""Staking rewards as platformvm computes them (facts of `vms/platformvm/reward/calculator.go`).

reward = (supplyCap - supply) · stake · duration · rate / supply / mintingPeriod, with the rate
growing linearly from the min to the max consumption rate over the minting period; capped at
the remaining supply. `split` divides a delegator's reward by the validator's delegation fee.
"""

from __future__ import annotations

from snowfield.chains.platform.config import PERCENT_DENOMINATOR, RewardConfig

_NANOS = 1_000_000_000


def calculate(config: RewardConfig, duration: int, stake: int, supply: int) -> int:
    """The reward of staking `stake` for `duration` seconds at `supply` (nAVAX)."""
    # avalanchego computes with time.Duration, i.e. nanoseconds; the truncations depend on it.
    duration, period = duration * _NANOS, config.minting_period * _NANOS
    rate_spread = config.max_consumption_rate - config.min_consumption_rate
    numerator = rate_spread * duration + config.min_consumption_rate * period
    remaining = config.supply_cap - supply
    reward = remaining * numerator * stake * duration // (period * PERCENT_DENOMINATOR) // supply
    return min(remaining, reward // period)


def split(total: int, shares: int) -> tuple[int, int]:
    """(the validator's cut at `shares` millionths, the delegator's remainder)."""
    remainder = (PERCENT_DENOMINATOR - shares) * total // PERCENT_DENOMINATOR
    return total - remainder, remainder
