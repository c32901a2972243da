"""Dynamic fees: the next block's base fee, the suggested priority fee, where burned fees go."""

from __future__ import annotations

GWEI = 10**9
# The C-Chain sends fees to this "blackhole" address: they are burned, not paid to a miner.
BLACKHOLE = bytes.fromhex("0100000000000000000000000000000000000000")
# The C-Chain's post-Etna floor is 1 nAVAX (1 gwei); the devnet keeps it.
MIN_BASE_FEE = 1 * GWEI
SUGGESTED_TIP = 1 * GWEI
ELASTICITY = 2
CHANGE_DENOMINATOR = 8


def next_base_fee(gas_used: int, gas_limit: int, base_fee: int, floor: int = MIN_BASE_FEE) -> int:
    """EIP-1559 update rule with a floor: full blocks raise the fee by 1/8, empty ones lower it."""
    target = max(gas_limit // ELASTICITY, 1)
    if gas_used == target:
        fee = base_fee
    elif gas_used > target:
        fee = base_fee + max(base_fee * (gas_used - target) // target // CHANGE_DENOMINATOR, 1)
    else:
        fee = base_fee - base_fee * (target - gas_used) // target // CHANGE_DENOMINATOR
    return max(fee, floor)
