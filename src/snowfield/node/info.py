"""The info API at /ext/info: what the node says about itself and the chains it hosts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from snowfield.errors import InvalidParams, NotFound
from snowfield.formats.timefmt import format_rfc3339
from snowfield.node.registry import ChainRegistry
from snowfield.node.upgrades import FXS, static_fees, upgrade_config
from snowfield.node.validators import Validator, ValidatorSet
from snowfield.rpc.service import ServiceDispatcher, named_handlers, param, wire_name

_NETWORK_NAMES = {1: "mainnet", 5: "fuji", 12345: "local"}


def network_name(network_id: int) -> str:
    """avalanchego's constants.NetworkName: known names, else `network-<id>`."""
    return _NETWORK_NAMES.get(network_id, f"network-{network_id}")


@dataclass(frozen=True, slots=True)
class NodeFacts:
    network_id: int
    version: str
    host: str
    port: int


@dataclass(frozen=True, slots=True)
class InfoService:
    """info.* over the node's facts, its registry of chains and its validators."""

    facts: NodeFacts
    chains: ChainRegistry
    validators: ValidatorSet
    now: Callable[[], float]
    staking_address: Callable[[Validator], str]  # a validator's staking ip:port
    vms: dict[str, list[str]]  # the VMs the node runs: their ids and names

    @wire_name("info.getNetworkID")
    def get_network_id(self, _: dict[str, Any]) -> dict[str, str]:
        return {"networkID": str(self.facts.network_id)}

    @wire_name("info.getNetworkName")
    def get_network_name(self, _: dict[str, Any]) -> dict[str, str]:
        return {"networkName": network_name(self.facts.network_id)}

    @wire_name("info.getBlockchainID")
    def get_blockchain_id(self, params: dict[str, Any]) -> dict[str, str]:
        alias = param(params, "alias")
        if not isinstance(alias, str):
            raise InvalidParams("alias must be a string")
        chain = self.chains.get(alias)
        if chain is None:
            raise NotFound(f"there is no ID with alias: {alias}")
        return {"blockchainID": chain.blockchain_id}

    @wire_name("info.getNodeID")
    def get_node_id(self, _: dict[str, Any]) -> dict[str, Any]:
        own = self.validators.own
        return {"nodeID": str(own.node_id), "nodePOP": own.proof_of_possession()}

    @wire_name("info.getNodeIP")
    def get_node_ip(self, _: dict[str, Any]) -> dict[str, str]:
        return {"ip": self.staking_address(self.validators.own)}

    @wire_name("info.getNodeVersion")
    def get_node_version(self, _: dict[str, Any]) -> dict[str, Any]:
        return {
            "version": self.facts.version,
            "databaseVersion": "v1.4.5",
            "rpcProtocolVersion": "39",
            "gitCommit": "",
            "vmVersions": {},
        }

    @wire_name("info.isBootstrapped")
    def is_bootstrapped(self, params: dict[str, Any]) -> dict[str, bool]:
        chain = param(params, "chain")
        if not isinstance(chain, str):
            raise InvalidParams("chain must be a string")
        if self.chains.get(chain) is None:
            raise NotFound(f"there is no chain with alias/ID '{chain}'")
        return {"isBootstrapped": True}

    @wire_name("info.peers")
    def peers(self, params: dict[str, Any]) -> dict[str, Any]:
        wanted = param(params, "nodeIDs") or []
        if not isinstance(wanted, list) or not all(isinstance(n, str) for n in wanted):
            raise InvalidParams("nodeIDs must be an array of strings")
        peers = [
            self._peer(v)
            for v in self.validators
            if v is not self.validators.own
            and self.validators.running(v)
            and (not wanted or str(v.node_id) in wanted)
        ]
        return {"numPeers": str(len(peers)), "peers": peers}

    def _peer(self, validator: Validator) -> dict[str, Any]:
        ip = self.staking_address(validator)
        return {
            "ip": ip,
            "publicIP": ip,
            "nodeID": str(validator.node_id),
            "version": self.facts.version,
            "lastSent": _rfc3339(self.now()),
            "lastReceived": _rfc3339(self.now()),
            "observedUptime": str(int(self.validators.uptime(validator))),
            "trackedSubnets": [],
            "supportedACPs": [],
            "objectedACPs": [],
        }

    @wire_name("info.uptime")
    def uptime(self, _: dict[str, Any]) -> dict[str, str]:
        """The share of stake that sees this node up: every running validator does."""
        running = [v for v in self.validators if self.validators.running(v)]
        share = 100.0 * len(running) / len(self.validators.validators)
        text = f"{share:.4f}"
        return {"rewardingStakePercentage": text, "weightedAveragePercentage": text}

    @wire_name("info.getVMs")
    def get_vms(self, _: dict[str, Any]) -> dict[str, Any]:
        return {"vms": self.vms, "fxs": FXS}

    @wire_name("info.upgrades")
    def upgrades(self, _: dict[str, Any]) -> dict[str, Any]:
        return upgrade_config()

    @wire_name("info.acps")
    def acps(self, _: dict[str, Any]) -> dict[str, Any]:
        """No validator votes on ACPs on the devnet: an empty map, as a fresh network has."""
        return {"acps": {}}

    @wire_name("info.getTxFee")
    def get_tx_fee(self, _: dict[str, Any]) -> dict[str, str]:
        return static_fees(self.facts.network_id)


def _rfc3339(seconds: float) -> str:
    return format_rfc3339(int(seconds * 1_000_000_000))


def info_service(service: InfoService) -> ServiceDispatcher:
    return ServiceDispatcher(named_handlers(service))
