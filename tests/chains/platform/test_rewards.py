"""The reward calculator against avalanchego's own vectors (reward/calculator_test.go)."""

from __future__ import annotations

from snowfield.chains.platform import rewards
from snowfield.chains.platform.config import AVAX, YEAR, RewardConfig

MEGA, KILO = 1_000_000 * AVAX, 1_000 * AVAX


def test_rewards_match_avalanchego_vectors() -> None:
    config = RewardConfig()
    assert rewards.calculate(config, YEAR, MEGA, 360 * MEGA) == 120 * KILO
    assert rewards.calculate(config, YEAR, MEGA, 400 * MEGA) == 96 * KILO
    assert rewards.calculate(config, YEAR, 2 * MEGA, 400 * MEGA) == 192 * KILO
    assert rewards.calculate(config, YEAR, MEGA, config.supply_cap) == 0


def test_split_gives_the_validator_its_delegation_fee() -> None:
    assert rewards.split(1_000_000, 20_000) == (20_000, 980_000)
    assert rewards.split(10, 1_000_000) == (10, 0)
    assert rewards.split(7, 0) == (0, 7)
