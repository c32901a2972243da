"""Contract deployer allow list (0x0200…0000): only enabled tx.origins may create contracts."""

from __future__ import annotations

from snowfield.chains.evm.precompiles import allowlist
from snowfield.chains.evm.precompiles.base import FunctionTable
from snowfield.chains.evm.precompiles.module import PrecompileModule

DEPLOYER_ALLOW_LIST = bytes.fromhex("0200000000000000000000000000000000000000")

MODULE = PrecompileModule(
    key="contractDeployerAllowListConfig",
    address=DEPLOYER_ALLOW_LIST,
    contract=FunctionTable(DEPLOYER_ALLOW_LIST, allowlist.functions(DEPLOYER_ALLOW_LIST)),
    configure=lambda c, s, ctx: allowlist.configure(DEPLOYER_ALLOW_LIST, c, s, ctx),
    verify=allowlist.verify,
)
