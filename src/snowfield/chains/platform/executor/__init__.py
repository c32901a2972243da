"""Tx executors, one registration per tx type; importing the package registers them all.

Public API: `Env`, `Effect`, `execute(env, tx)` (verify; returns the effect that applies),
`EXECUTORS`.
"""

from snowfield.chains.platform.executor import l1, l1_warp, staking, subnets, transfer
from snowfield.chains.platform.executor.base import EXECUTORS, Effect, Env, execute

REGISTERED = (l1, l1_warp, staking, subnets, transfer)
__all__ = ["EXECUTORS", "Effect", "Env", "execute"]
