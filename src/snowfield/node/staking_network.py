"""The devnet's validators on the peer-to-peer network: each listens on its staking port
(127.0.0.1), gossips the others' signed addresses, and answers ACP-118 signature requests on
every chain the node hosts; per-validator faults can be set at run time.

Faults: `silent` (requests are never answered), `slow` (answered after `delay_ms`), `lying`
(a valid-looking signature over other bytes), `disconnected` (the staking port is closed).

Public API: `Fault`, `StakingNetwork` (`start`, `stop`, `address_of`, `set_fault`, `faults`),
`staking_network_service`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from snowfield.errors import InvalidParams
from snowfield.node.validators import Validator, ValidatorSet
from snowfield.node.warp_signing import (
    UNREGISTERED_HANDLER,
    Verifier,
    sign_request,
)
from snowfield.p2p import messages
from snowfield.p2p.peer import AppError, Identity, Peer, claimed_ip
from snowfield.p2p.proto import p2p_pb2
from snowfield.p2p.server import PeerServer
from snowfield.rpc.service import ServiceHandler, param

log = logging.getLogger(__name__)
FAULTS = ("none", "silent", "slow", "lying", "disconnected")
SILENT_SECONDS = 3600.0
MAX_DELAY_MS = 60_000


@dataclass(frozen=True, slots=True)
class Fault:
    kind: str = "none"
    delay_ms: int = 0


VerifierOf = Callable[[bytes], Verifier | None]  # chain id → what may be signed on it


class StakingNetwork:
    """One PeerServer per validator; the first takes `base_port`, the next ones follow."""

    def __init__(
        self,
        validators: ValidatorSet,
        network_id: int,
        verifier_of: VerifierOf,
        host: str = "127.0.0.1",
        base_port: int = 9651,
    ) -> None:
        self.validators = validators
        self.network_id = network_id
        self._verifier_of = verifier_of
        self._host = host
        self._base_port = base_port
        self._servers: dict[str, PeerServer] = {}
        self._faults: dict[str, Fault] = {}
        self._started = time.time()

    # --- lifecycle ---------------------------------------------------------------------

    async def start(self) -> None:
        for index, validator in enumerate(self.validators):
            await self._start_one(validator, self._base_port + index if self._base_port else 0)

    async def _start_one(self, validator: Validator, port: int) -> None:
        identity = Identity(
            validator.staking, self.network_id, self._host, port, bls=validator.signer
        )
        server = PeerServer(identity, self._handler(validator), self._gossip)
        try:
            await server.start()
        except OSError:  # the port is taken (another devnet): any free port will do
            server = PeerServer(
                Identity(validator.staking, self.network_id, self._host, 0, bls=validator.signer),
                self._handler(validator),
                self._gossip,
            )
            await server.start()
        self._servers[str(validator.node_id)] = server

    async def stop(self) -> None:
        for server in self._servers.values():
            await server.stop()

    # --- what peers see ----------------------------------------------------------------

    def address_of(self, validator: Validator) -> str:
        server = self._servers.get(str(validator.node_id))
        return f"{self._host}:{server.port if server else 0}"

    def _gossip(self) -> Sequence[p2p_pb2.ClaimedIpPort]:
        now = int(self._started)
        return [
            claimed_ip(server.identity, now) for server in self._servers.values() if server.running
        ]

    def _handler(self, validator: Validator) -> Callable[[Peer, bytes, bytes], Any]:
        async def answer(_peer: Peer, chain_id: bytes, app_bytes: bytes) -> bytes:
            fault = self._faults.get(str(validator.node_id), Fault())
            if fault.kind == "silent":
                await asyncio.sleep(SILENT_SECONDS)
            if fault.kind == "slow":
                await asyncio.sleep(fault.delay_ms / 1000)
            handler_id, body = messages.split_prefix(app_bytes)
            if handler_id != messages.SIGNATURE_HANDLER_ID:
                raise AppError(UNREGISTERED_HANDLER, "unregistered handler")
            response = sign_request(
                body, chain_id, self.network_id, self._verifier_of(chain_id), validator.signer
            )
            if fault.kind == "lying":
                lie = validator.signer.sign(b"not the message: " + chain_id)
                return messages.signature_response(lie.to_bytes())
            return response

        return answer

    # --- faults ------------------------------------------------------------------------

    def faults(self) -> dict[str, Fault]:
        return dict(self._faults)

    async def set_fault(self, node_id: str, fault: Fault) -> None:
        validator = self.validators.find(node_id)
        server = self._servers[str(validator.node_id)]
        self._faults[node_id] = fault
        if fault.kind == "disconnected" and server.running:
            await server.stop()
        elif fault.kind != "disconnected" and not server.running:
            with contextlib.suppress(OSError):
                await server.start()


def staking_network_service(network: StakingNetwork) -> dict[str, ServiceHandler]:
    """devnet.setFault / devnet.faults at /ext/devnet (beside the validators' stop/start)."""

    async def set_fault(params: dict[str, Any]) -> dict[str, Any]:
        node_id, kind = param(params, "nodeID"), param(params, "fault")
        delay = param(params, "delayMs") or 0
        if not isinstance(node_id, str):
            raise InvalidParams("nodeID must be a string")
        if kind not in FAULTS:
            raise InvalidParams(f"fault must be one of {', '.join(FAULTS)}")
        if not isinstance(delay, int) or isinstance(delay, bool) or not 0 <= delay <= MAX_DELAY_MS:
            raise InvalidParams(f"delayMs must be an integer in [0, {MAX_DELAY_MS}]")
        await network.set_fault(node_id, Fault(str(kind), delay))
        return {"success": True}

    def faults(_: dict[str, Any]) -> dict[str, Any]:
        return {
            "faults": {
                node: {"fault": f.kind, "delayMs": f.delay_ms}
                for node, f in network.faults().items()
                if f.kind != "none"
            }
        }

    return {"devnet.setFault": set_fault, "devnet.faults": faults}
