"""The custom EVM's built-in precompiles; importing this registers them (the Warp precompile
registers itself the same way)."""

from __future__ import annotations

from snowfield.chains.evm.precompiles import (  # noqa: F401
    deployerallowlist,
    feemanager,
    nativeminter,
    rewardmanager,
    txallowlist,
)
