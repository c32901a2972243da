"""The P-Chain's network parameters: dynamic tx fees, L1 validator fees, staking and rewards.

`LOCAL_PARAMS` holds avalanchego's local-network values (genesis/genesis_local.go); mainnet and
Fuji use the same fee values.
"""

from __future__ import annotations

from dataclasses import dataclass

NANO_AVAX = 1
AVAX = 1_000_000_000
PERCENT_DENOMINATOR = 1_000_000  # delegation fees, consumption rates, uptime: in millionths
DAY = 24 * 3600
YEAR = 365 * DAY


@dataclass(frozen=True, slots=True)
class FeeConfig:
    """Etna dynamic tx fees (gas.Config)."""

    weights: tuple[int, int, int, int] = (1, 1000, 1000, 4)
    max_capacity: int = 1_000_000
    max_per_second: int = 100_000
    target_per_second: int = 50_000
    min_price: int = 1
    excess_conversion_constant: int = 2_164_043


@dataclass(frozen=True, slots=True)
class ValidatorFeeConfig:
    """Continuous L1 validator fees (validators/fee.Config)."""

    capacity: int = 20_000
    target: int = 10_000
    min_price: int = 1 * NANO_AVAX
    excess_conversion_constant: int = 865_617


@dataclass(frozen=True, slots=True)
class RewardConfig:
    """reward.Config: consumption rates in millionths, minting period in seconds."""

    max_consumption_rate: int = 120_000
    min_consumption_rate: int = 100_000
    minting_period: int = YEAR
    supply_cap: int = 720_000_000 * AVAX


@dataclass(frozen=True, slots=True)
class StakingConfig:
    """Primary-network staking rules (durations in seconds, amounts in nAVAX)."""

    uptime_requirement: int = 800_000
    min_validator_stake: int = 2_000 * AVAX
    max_validator_stake: int = 3_000_000 * AVAX
    min_delegator_stake: int = 25 * AVAX
    min_delegation_fee: int = 20_000
    min_stake_duration: int = DAY
    max_stake_duration: int = YEAR
    max_validator_weight_factor: int = 5
    rewards: RewardConfig = RewardConfig()


@dataclass(frozen=True, slots=True)
class Params:
    """Everything the state machine's rules depend on besides the state."""

    fees: FeeConfig = FeeConfig()
    validator_fees: ValidatorFeeConfig = ValidatorFeeConfig()
    staking: StakingConfig = StakingConfig()


LOCAL_PARAMS = Params()
