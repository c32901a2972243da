"""The custom EVM's fee config and its fee algorithm: the 10-second gas window, base fee and
block gas cost (subnet-evm's plugin/evm/customheader, before Granite)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from snowfield.errors import InvalidParams

WINDOW_LEN = 10  # seconds of gas consumption the window tracks
WINDOW_SIZE = 8 * WINDOW_LEN  # bytes: ten big-endian uint64s at the start of header.Extra
MAX_U64 = 2**64 - 1
MAX_U256 = 2**256 - 1
GWEI = 10**9


@dataclass(frozen=True, slots=True)
class FeeConfig:
    """commontype.FeeConfig; the defaults are subnet-evm's DefaultFeeConfig."""

    gas_limit: int = 8_000_000
    target_block_rate: int = 2
    min_base_fee: int = 25 * GWEI
    target_gas: int = 15_000_000
    base_fee_change_denominator: int = 36
    min_block_gas_cost: int = 0
    max_block_gas_cost: int = 1_000_000
    block_gas_cost_step: int = 200_000

    def as_json(self) -> dict[str, int]:
        return {_JSON_NAMES[k]: v for k, v in asdict(self).items()}

    @classmethod
    def from_json(cls, data: Any) -> FeeConfig:
        """A fee config from its JSON object; every field is required, as subnet-evm's Verify."""
        if not isinstance(data, dict):
            raise InvalidParams("invalid fee config: not an object")
        values: dict[str, int] = {}
        for field_name, json_name in _JSON_NAMES.items():
            value = data.get(json_name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidParams(f"invalid fee config: {json_name} is not a number")
            values[field_name] = value
        config = cls(**values)
        config.verify()
        return config

    def verify(self) -> None:
        """commontype.FeeConfig.Verify, with its texts."""
        positive = ("gas_limit", "target_block_rate", "target_gas", "base_fee_change_denominator")
        for name in positive:
            if getattr(self, name) <= 0:
                self._fail(
                    f"{_JSON_NAMES[name]} = {getattr(self, name)} cannot be less than or equal to 0"
                )
        for name in ("min_base_fee", "min_block_gas_cost", "block_gas_cost_step"):
            if getattr(self, name) < 0:
                self._fail(f"{_JSON_NAMES[name]} = {getattr(self, name)} cannot be less than 0")
        low, high = self.min_block_gas_cost, self.max_block_gas_cost
        if low > high:
            self._fail(f"minBlockGasCost = {low} cannot be greater than maxBlockGasCost = {high}")
        if high > MAX_U64:
            self._fail(f"maxBlockGasCost = {high} is not a valid uint64")

    @staticmethod
    def _fail(text: str) -> None:
        raise InvalidParams(f"invalid fee config: {text}")


_JSON_NAMES = {
    "gas_limit": "gasLimit",
    "target_block_rate": "targetBlockRate",
    "min_base_fee": "minBaseFee",
    "target_gas": "targetGas",
    "base_fee_change_denominator": "baseFeeChangeDenominator",
    "min_block_gas_cost": "minBlockGasCost",
    "max_block_gas_cost": "maxBlockGasCost",
    "block_gas_cost_step": "blockGasCostStep",
}


def parse_window(extra: bytes) -> list[int]:
    if len(extra) < WINDOW_SIZE:
        raise InvalidParams(
            f"insufficient length for window: expected at least {WINDOW_SIZE} bytes "
            f"but got {len(extra)} bytes"
        )
    return [int.from_bytes(extra[i * 8 : i * 8 + 8], "big") for i in range(WINDOW_LEN)]


def window_bytes(window: Sequence[int]) -> bytes:
    return b"".join(v.to_bytes(8, "big") for v in window)


def next_window(
    parent_number: int, parent_extra: bytes, parent_gas_used: int, elapsed: int
) -> list[int]:
    """The child's window: the parent's gas added in the last second, shifted by `elapsed`."""
    if parent_number == 0:
        return [0] * WINDOW_LEN
    window = parse_window(parent_extra)
    window[-1] = min(window[-1] + parent_gas_used, MAX_U64)
    if elapsed >= WINDOW_LEN:
        return [0] * WINDOW_LEN
    return window[elapsed:] + [0] * elapsed


def base_fee(
    fee: FeeConfig,
    parent_number: int,
    parent_base_fee: int,
    parent_extra: bytes,
    parent_gas_used: int,
    elapsed: int,
) -> int:
    """baseFeeFromWindow: the child block's base fee, `elapsed` seconds after its parent."""
    if parent_number == 0:
        return fee.min_base_fee
    total = min(sum(next_window(parent_number, parent_extra, parent_gas_used, elapsed)), MAX_U64)
    target = fee.target_gas
    if total == target:
        return parent_base_fee  # even outside the bounds, for legacy reasons (as subnet-evm)
    delta = max(
        abs(total - target) * parent_base_fee // target // fee.base_fee_change_denominator, 1
    )
    if total > target:
        result = parent_base_fee + delta
    else:
        windows = elapsed // WINDOW_LEN
        result = parent_base_fee - delta * (windows if windows > 1 else 1)
    return min(max(result, fee.min_base_fee), MAX_U256)


def block_gas_cost(fee: FeeConfig, parent_cost: int | None, elapsed: int) -> int:
    """BlockGasCostWithStep: the parent's cost moved by step per second off the target rate."""
    if parent_cost is None:
        return fee.min_block_gas_cost
    change = min(fee.block_gas_cost_step * abs(fee.target_block_rate - elapsed), MAX_U64)
    if elapsed > fee.target_block_rate:
        cost = parent_cost - change if change <= parent_cost else fee.min_block_gas_cost
    else:
        cost = parent_cost + change if parent_cost + change <= MAX_U64 else fee.max_block_gas_cost
    return min(max(cost, fee.min_block_gas_cost), fee.max_block_gas_cost)


def block_fee_shortfall(base_fee: int, required: int, tips_paid: int) -> int | None:
    """VerifyBlockFee: None when the tips (effective tip x gas used, summed) buy at least
    `required` gas at `base_fee`, else the gas they buy."""
    if required == 0:
        return None
    bought = tips_paid // base_fee
    return bought if bought < required else None
