"""validators.getCurrentValidators at /ext/bc/<blockchainID>/validators: the validators of the
chain's subnet as the custom EVM reports them (its L1 validators, or its subnet validators)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from snowfield.chains.platform.chain import PlatformChain
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID, NodeID
from snowfield.node.gorilla_params import Params
from snowfield.node.validators import ValidatorSet
from snowfield.rpc.service import ServiceHandler

# Bounds one request's filter (the Go service takes any number; each costs a lookup).
MAX_NODE_IDS = 1024


@dataclass(frozen=True, slots=True)
class _Validation:
    validation_id: ID
    node_id: NodeID
    weight: int
    start: int
    active: bool
    l1: bool


class ChainValidators:
    """The current validators of one subnet, with this devnet's uptime and connection view."""

    def __init__(
        self,
        platform: Callable[[], PlatformChain],
        subnet_id: ID,
        devnet: ValidatorSet,
        now: Callable[[], float],
    ) -> None:
        self._platform = platform
        self._subnet_id = subnet_id
        self._devnet = devnet
        self._now = now

    def get_current_validators(self, raw: dict[str, Any]) -> dict[str, Any]:
        texts = Params(raw).strings("nodeIDs")
        if len(texts) > MAX_NODE_IDS:
            raise InvalidParams(f"at most {MAX_NODE_IDS} nodeIDs")
        wanted = {NodeID.from_string(t) for t in texts}
        current = {v.node_id: v for v in self._validations()}
        for node_id in sorted(wanted, key=str):
            if node_id not in current:
                raise InvalidParams(f"couldn't find validator with node ID {node_id}")
        chosen = [v for k, v in sorted(current.items()) if not wanted or k in wanted]
        return {"validators": [self._render(v) for v in chosen]}

    def _validations(self) -> list[_Validation]:
        chain = self._platform()
        subnet = chain.state.subnets.get(self._subnet_id)
        if subnet is not None and not subnet.is_permissioned:
            return [
                _Validation(
                    v.validation_id, NodeID(v.node_id), v.weight, v.start_time, v.active, True
                )
                for v in chain.l1_validators(self._subnet_id)
                if v.weight > 0
            ]
        return [
            _Validation(
                i.staker.tx_id, i.staker.node_id, i.staker.weight, i.staker.start, True, False
            )
            for i in chain.current_validators(self._subnet_id)
        ]

    def _render(self, validation: _Validation) -> dict[str, Any]:
        connected, percent = self._uptime(validation.node_id)
        elapsed = max(0, int(self._now()) - validation.start)
        return {
            "validationID": str(validation.validation_id),
            "nodeID": str(validation.node_id),
            "weight": validation.weight,
            "startTimestamp": validation.start,
            "isActive": validation.active,
            "isL1Validator": validation.l1,
            "isConnected": connected,
            "uptimePercentage": round(percent, 4),
            "uptimeSeconds": int(elapsed * percent / 100),
        }

    def _uptime(self, node_id: NodeID) -> tuple[bool, float]:
        """A devnet validator is connected while it runs; any other node never connected."""
        for validator in self._devnet:
            if validator.node_id == node_id:
                return self._devnet.running(validator), self._devnet.uptime(validator)
        return False, 0.0


def chain_validator_methods(service: ChainValidators) -> dict[str, ServiceHandler]:
    """validators.* by wire name."""
    return {"validators.getCurrentValidators": service.get_current_validators}
