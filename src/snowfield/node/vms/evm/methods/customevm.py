"""The custom EVM's own eth_ methods: eth_feeConfig, eth_getActiveRulesAt and the deprecated
eth_getActivePrecompilesAt (eth_getChainConfig is eth.py's, shaped by the rule set)."""

from __future__ import annotations

from typing import Any

from snowfield.chains.evm.rules.subnetevm import SubnetEvmRules
from snowfield.errors import InvalidParams
from snowfield.node.vms.evm import params as p
from snowfield.node.vms.evm.runtime import EvmRuntime
from snowfield.rpc.dispatch import Method, Param

LATEST = p.LATEST


def json_uint64(value: Any) -> int:
    """A Go *uint64 argument: a JSON number in range (a hex string is refused, as Go does)."""
    if isinstance(value, bool) or not isinstance(value, int):
        kind = "string" if isinstance(value, str) else type(value).__name__
        raise InvalidParams(f"json: cannot unmarshal {kind} into Go value of type uint64")
    if not 0 <= value < 2**64:
        raise InvalidParams(f"json: cannot unmarshal number {value} into Go value of type uint64")
    return value


def custom_evm_methods(rt: EvmRuntime) -> list[Method]:
    """The methods of a chain run by SubnetEvmRules; none on other chains."""
    chain = rt.chain
    rules = chain.rules
    if not isinstance(rules, SubnetEvmRules):
        return []

    def fee_config(ref: p.BlockRef) -> dict[str, Any]:
        block = rt.resolve(ref)
        fee, changed = rules.fee_config_at(chain.state_at(block), block.header.timestamp)
        return {"feeConfig": fee.as_json(), "lastChangedAt": changed}

    def at(timestamp: int | None) -> int:
        return chain.head.header.timestamp if timestamp is None else timestamp

    def active_rules(timestamp: int | None) -> dict[str, Any]:
        return rules.active_rules_json(at(timestamp))

    def active_precompiles(timestamp: int | None) -> dict[str, Any]:
        return rules.active_precompiles_json(at(timestamp))

    stamp = Param("timestamp", json_uint64, None)
    return [
        Method("eth_feeConfig", fee_config, (Param("block", p.block_number_or_hash, LATEST),)),
        Method("eth_getActiveRulesAt", active_rules, (stamp,)),
        Method("eth_getActivePrecompilesAt", active_precompiles, (stamp,)),
    ]
