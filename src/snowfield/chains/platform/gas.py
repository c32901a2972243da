"""Gas arithmetic of Etna fees: complexity vectors, prices, and the two fee states.

Ports `vms/components/gas` (Dimensions, CalculatePrice, State.AdvanceTime/ConsumeGas) and
`vms/platformvm/validators/fee` (the L1 validator fee state) as facts; exact integer math.
"""

from __future__ import annotations

from dataclasses import dataclass

from snowfield.chains.platform.config import FeeConfig, ValidatorFeeConfig
from snowfield.errors import InvalidParams

MAX_UINT64 = 2**64 - 1
Dimensions = tuple[int, int, int, int]  # bandwidth, db reads, db writes, compute
ZERO: Dimensions = (0, 0, 0, 0)


def add(*parts: Dimensions) -> Dimensions:
    bandwidth = reads = writes = compute = 0  # a plain loop: this runs for every tx verified
    for part in parts:
        bandwidth += part[0]
        reads += part[1]
        writes += part[2]
        compute += part[3]
    return (bandwidth, reads, writes, compute)


def to_gas(complexity: Dimensions, weights: Dimensions) -> int:
    return sum(c * w for c, w in zip(complexity, weights, strict=True))


def calculate_price(min_price: int, excess: int, conversion_constant: int) -> int:
    """minPrice·e^(excess/K) by EIP-4844's fake exponential, saturating at MaxUint64."""
    if conversion_constant == 0:
        return MAX_UINT64 if min_price else 0
    output, accum, i = 0, min_price * conversion_constant, 1
    max_output = conversion_constant * MAX_UINT64
    while accum > 0:
        output += accum
        if output >= max_output:
            return MAX_UINT64
        accum = accum * excess // conversion_constant // i
        i += 1
    return output // conversion_constant


@dataclass(frozen=True, slots=True)
class FeeState:
    """gas.State: capacity left and the excess that sets the price."""

    capacity: int
    excess: int

    def advance(self, config: FeeConfig, seconds: int) -> FeeState:
        capacity = min(self.capacity + config.max_per_second * seconds, config.max_capacity)
        excess = max(self.excess - config.target_per_second * seconds, 0)
        return FeeState(capacity, excess)

    def consume(self, gas: int) -> FeeState:
        if gas > self.capacity:
            raise InvalidParams(f"insufficient capacity: capacity ({self.capacity}) < gas ({gas})")
        return FeeState(self.capacity - gas, min(self.excess + gas, MAX_UINT64))

    def price(self, config: FeeConfig) -> int:
        return calculate_price(config.min_price, self.excess, config.excess_conversion_constant)


@dataclass(frozen=True, slots=True)
class ValidatorFeeState:
    """validators/fee.State: gas in use per second (one per active L1 validator) and excess."""

    current: int = 0
    excess: int = 0

    def advance(self, target: int, seconds: int) -> ValidatorFeeState:
        if self.current < target:
            excess = max(self.excess - (target - self.current) * seconds, 0)
        else:
            excess = min(self.excess + (self.current - target) * seconds, MAX_UINT64)
        return ValidatorFeeState(self.current, excess)

    def cost_of(self, config: ValidatorFeeConfig, seconds: int) -> int:
        """What one validator pays over the next `seconds` (price re-evaluated each second)."""
        price = calculate_price(config.min_price, self.excess, config.excess_conversion_constant)
        if self.current == config.target:
            return min(seconds * price, MAX_UINT64)
        state, cost = self, 0
        for elapsed in range(seconds):
            state = state.advance(config.target, 1)
            if state.excess == 0:
                return min(cost + config.min_price * (seconds - elapsed), MAX_UINT64)
            cost += calculate_price(
                config.min_price, state.excess, config.excess_conversion_constant
            )
        return min(cost, MAX_UINT64)
