"""The custom EVM's built-in precompiles; importing this registers them."""

from __future__ import annotations

from snowfield.chains.evm.precompiles import (  # noqa: F401
    deployerallowlist,
    feemanager,
    nativeminter,
    rewardmanager,
    txallowlist,
    warp,
)
