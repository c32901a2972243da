"""The JSON-RPC method groups an EVM chain serves at /ext/bc/{chain}/rpc and /ws, with the
node's dev accounts and keystore."""

from __future__ import annotations

from snowfield.config import EvmChainSettings
from snowfield.node.hosting import NodeContext
from snowfield.node.vms.evm.methods.accesslist import access_list_methods
from snowfield.node.vms.evm.methods.cheats import cheat_methods
from snowfield.node.vms.evm.methods.customevm import custom_evm_methods
from snowfield.node.vms.evm.methods.debug import debug_methods
from snowfield.node.vms.evm.methods.eth import ProofPolicy, eth_methods
from snowfield.node.vms.evm.methods.evm import evm_methods
from snowfield.node.vms.evm.methods.logs import log_methods
from snowfield.node.vms.evm.methods.personal import personal_methods
from snowfield.node.vms.evm.methods.signing import signing_methods
from snowfield.node.vms.evm.methods.simulate import simulate_methods
from snowfield.node.vms.evm.methods.txpool import txpool_methods
from snowfield.node.vms.evm.methods.web3net import web3_net_methods
from snowfield.node.vms.evm.runtime import EvmRuntime
from snowfield.rpc.dispatch import Method


def evm_rpc_methods(rt: EvmRuntime, chain: EvmChainSettings, node: NodeContext) -> list[Method]:
    """Every method group of the chain `rt` runs under `chain`'s settings."""
    proofs = ProofPolicy(chain.pruning_enabled, chain.historical_proof_query_window)
    network_id = evm_network_id(node.settings.network_id, chain.chain_id)
    keystore = node.keystore
    return [
        *web3_net_methods(node.version, network_id),
        *eth_methods(rt, proofs, [k.address for k in node.dev_keys]),
        *log_methods(rt),
        *personal_methods(rt, keystore),
        *signing_methods(rt, keystore),
        *access_list_methods(rt),
        *txpool_methods(rt),
        *debug_methods(rt),
        *simulate_methods(rt),
        *evm_methods(rt),
        *custom_evm_methods(rt),
        *cheat_methods(rt),
    ]


def evm_network_id(network_id: int, chain_id: int) -> int:
    """net_version: 1 on mainnet and the test network (as the spec says), else the chain id."""
    return 1 if network_id in (1, 5) else chain_id
