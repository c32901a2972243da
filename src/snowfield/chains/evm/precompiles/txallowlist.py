"""Transaction allow list (0x0200…0002): only enabled senders may issue transactions."""

from __future__ import annotations

from snowfield.chains.evm.precompiles import allowlist
from snowfield.chains.evm.precompiles.base import FunctionTable
from snowfield.chains.evm.precompiles.module import PrecompileModule

TX_ALLOW_LIST = bytes.fromhex("0200000000000000000000000000000000000002")

MODULE = PrecompileModule(
    key="txAllowListConfig",
    address=TX_ALLOW_LIST,
    contract=FunctionTable(TX_ALLOW_LIST, allowlist.functions(TX_ALLOW_LIST)),
    configure=lambda c, s, ctx: allowlist.configure(TX_ALLOW_LIST, c, s, ctx),
    verify=allowlist.verify,
)
