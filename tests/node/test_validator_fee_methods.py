"""platform.getValidatorFeeConfig and getValidatorFeeState: what the P-Chain charges L1
validators, as avalanchego answers them (plain numbers; the state at the last accepted block)."""

from __future__ import annotations

from typing import Any

import httpx

from snowfield.chains.platform.config import ValidatorFeeConfig
from snowfield.formats.timefmt import parse_rfc3339
from snowfield.testing import serve_devnet


def _p(base: str, method: str) -> Any:
    got = httpx.post(
        f"{base}/ext/bc/P", json={"jsonrpc": "2.0", "id": 1, "method": method, "params": {}}
    ).json()
    return got["result"]


def test_the_validator_fee_config_and_state() -> None:
    defaults = ValidatorFeeConfig()
    with serve_devnet(validators=1) as devnet:
        assert _p(devnet.base, "platform.getValidatorFeeConfig") == {
            "capacity": defaults.capacity,
            "target": defaults.target,
            "minPrice": defaults.min_price,
            "excessConversionConstant": defaults.excess_conversion_constant,
        }
        state = _p(devnet.base, "platform.getValidatorFeeState")
        # no L1 validator has pushed the excess up: the price is the minimum
        assert (state["excess"], state["price"]) == (0, defaults.min_price)
        chain_time = _p(devnet.base, "platform.getTimestamp")["timestamp"]
        assert parse_rfc3339(state["timestamp"]) == parse_rfc3339(chain_time)
