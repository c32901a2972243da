"""Demo traffic to the custom EVM's precompiles: each round calls every precompile the chain
has active (as eth_getActiveRulesAt lists them), as their admin (the first demo key)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from snowfield.workload.contracts import call_data

# subnet-evm's precompile addresses, by the config key that activates each.
ADDRESSES = {
    "contractDeployerAllowListConfig": "0x0200000000000000000000000000000000000000",
    "contractNativeMinterConfig": "0x0200000000000000000000000000000000000001",
    "txAllowListConfig": "0x0200000000000000000000000000000000000002",
    "feeManagerConfig": "0x0200000000000000000000000000000000000003",
    "rewardManagerConfig": "0x0200000000000000000000000000000000000004",
}
FEE_FIELDS = (
    "gasLimit",
    "targetBlockRate",
    "minBaseFee",
    "targetGas",
    "baseFeeChangeDenominator",
    "minBlockGasCost",
    "maxBlockGasCost",
    "blockGasCostStep",
)
MINTED = 10**15  # wei minted per round

# (kind, to, data): one transaction of the admin.
Send = Callable[[str, str, bytes], Awaitable[Any]]
Call = Callable[..., Awaitable[Any]]


async def active_precompiles(call: Call) -> list[str]:
    """The config keys of the precompiles the chain has active now; [] on other chains."""
    try:
        rules = await call("eth_getActiveRulesAt")
    except Exception:  # a chain without the custom EVM's methods
        return []
    active = rules.get("precompiles") if isinstance(rules, dict) else None
    return sorted(k for k in active or {} if k in ADDRESSES)


async def precompile_round(
    call: Call, send: Send, active: list[str], admin: str, others: list[str], n: int
) -> None:
    """One call to each active precompile; allow-list changes are undone in the same round,
    so the demo's own accounts keep their roles."""
    fresh = "0x" + (0xD0 + n % 16).to_bytes(1, "big").hex() * 20  # an outsider, by round
    for key in active:
        to = ADDRESSES[key]
        if key.endswith("AllowListConfig"):
            await send("allowlist", to, call_data("setEnabled(address)", fresh))
            await send("allowlist", to, call_data("setNone(address)", fresh))
        elif key == "contractNativeMinterConfig":
            target = others[n % len(others)] if others else admin
            await send("mint", to, call_data("mintNativeCoin(address,uint256)", target, MINTED))
        elif key == "feeManagerConfig":
            # Writes back the config in force: lastChangedAt moves, the fees do not.
            config = (await call("eth_feeConfig"))["feeConfig"]
            values = [int(config[f]) for f in FEE_FIELDS]
            signature = "setFeeConfig(" + ",".join(["uint256"] * len(FEE_FIELDS)) + ")"
            await send("feeconfig", to, call_data(signature, *values))
        elif key == "rewardManagerConfig":
            await send("reward", to, call_data("setRewardAddress(address)", admin))
