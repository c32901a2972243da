"""The web3_ and net_ namespaces."""

from __future__ import annotations

from snowfield.crypto.hashing import keccak
from snowfield.node.vms.evm import params as p
from snowfield.node.vms.evm.render import hb
from snowfield.rpc.dispatch import Method, Param


def web3_net_methods(client_version: str, network_id: int) -> list[Method]:
    def sha3(data: bytes) -> str:
        return hb(keccak(data))

    return [
        Method("web3_clientVersion", lambda: client_version),
        Method("web3_sha3", sha3, (Param("data", p.data),)),
        Method("net_version", lambda: str(network_id)),
        Method("net_listening", lambda: True),
        Method("net_peerCount", lambda: "0x0"),
    ]
