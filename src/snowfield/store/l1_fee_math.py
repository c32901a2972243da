"""ACP-77's continuous L1 validator fee as avalanchego computes it (vms/platformvm/validators/
fee): every second each active L1 validator pays minPrice·e^(excess/K); the excess grows while
more validators are active than the target and shrinks while fewer are. Exact integer math, so
that the index charges to the nAVAX what the node charged.

It lives in the store (not beside the devnet's copy in chains/platform) because the store
replays it when it rebuilds the fee ledger, and the store imports nothing of ours."""

from __future__ import annotations

from dataclasses import dataclass

MAX_UINT64 = 2**64 - 1


@dataclass(frozen=True, slots=True)
class FeeConfig:
    """platform.getValidatorFeeConfig's answer (validators/fee.Config)."""

    capacity: int
    target: int
    min_price: int
    excess_conversion_constant: int


# avalanchego's mainnet and Fuji configuration: used when a node does not answer
# platform.getValidatorFeeConfig (a node older than the method).
MAINNET = FeeConfig(20_000, 10_000, 512, 1_246_488_515)


def price(config: FeeConfig, excess: int) -> int:
    """minPrice·e^(excess/K) by EIP-4844's fake exponential, saturating at MaxUint64."""
    k = config.excess_conversion_constant
    if k == 0:
        return MAX_UINT64 if config.min_price else 0
    output, accum, i = 0, config.min_price * k, 1
    while accum > 0:
        output += accum
        if output >= k * MAX_UINT64:
            return MAX_UINT64
        accum = accum * excess // k // i
        i += 1
    return output // k


def advance(config: FeeConfig, current: int, excess: int, seconds: int) -> int:
    """The excess after `seconds` with `current` validators active (one gas a second each)."""
    if current < config.target:
        return max(excess - (config.target - current) * seconds, 0)
    return min(excess + (current - config.target) * seconds, MAX_UINT64)


def cost_of(config: FeeConfig, current: int, excess: int, seconds: int) -> int:
    """What one active validator pays over the next `seconds` (State.CostOf): the price is
    taken after each second's advance; once the excess is 0 it stays 0."""
    if current == config.target:
        return min(seconds * price(config, excess), MAX_UINT64)
    cost = 0
    for elapsed in range(seconds):
        excess = advance(config, current, excess, 1)
        if excess == 0:
            return min(cost + config.min_price * (seconds - elapsed), MAX_UINT64)
        cost += price(config, excess)
    return min(cost, MAX_UINT64)
