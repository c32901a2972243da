"""Validator sets over a node's public JSON-RPC (platform.*): what the aggregator signs with.

Public API: `PlatformReader(base_url)` (`height`, `validators_at`, `validated_by`,
`l1_balances`, `close`), `AggregationError`.
"""

from __future__ import annotations

from typing import Any

from snowfield.crypto.warp import ValidatorEntry
from snowfield.formats.hexcheck import decode_hex, decode_hexnc
from snowfield.formats.ids import ID, NodeID
from snowfield.rpc.client import RpcClient

PRIMARY_NETWORK = "11111111111111111111111111111111LpoYY"


class AggregationError(Exception):
    """Raised with the real aggregator's text when a signed message cannot be made."""


class PlatformReader:
    """platform.* at `<base>/ext/bc/P`."""

    def __init__(self, base_url: str) -> None:
        self._p = RpcClient(f"{base_url.rstrip('/')}/ext/bc/P")
        self._validated_by: dict[str, str] = {}

    async def close(self) -> None:
        await self._p.aclose()

    async def _call(self, method: str, params: dict[str, Any]) -> Any:
        try:
            return await self._p.call_object(method, params)
        except Exception as exc:  # the node's error, wrapped as the real aggregator does
            raise AggregationError(f"{method} failed: {exc}") from None

    async def height(self) -> int:
        return int((await self._call("platform.getHeight", {}))["height"])

    async def validators_at(self, height: int, subnet_id: str) -> list[ValidatorEntry]:
        found = await self._call(
            "platform.getValidatorsAt", {"height": str(height), "subnetID": subnet_id}
        )
        validators = found.get("validators", found)  # a bare map, or wrapped by some nodes
        entries = []
        for node_id, item in validators.items():
            key = item.get("publicKey")
            public_key = decode_hexnc(key) if key else None
            entries.append(
                ValidatorEntry(NodeID.from_string(node_id), public_key, int(item["weight"]))
            )
        if not entries:
            raise AggregationError(
                f"no validators for subnet {subnet_id} at P-Chain height {height}"
            )
        return entries

    async def validated_by(self, blockchain_id: ID) -> str:
        """The subnet that validates a chain (the P-Chain: the primary network), cached."""
        key = str(blockchain_id)
        if blockchain_id == ID(bytes(32)):
            return PRIMARY_NETWORK
        if key not in self._validated_by:
            try:
                reply = await self._p.call_object("platform.validatedBy", {"blockchainID": key})
            except Exception:
                raise AggregationError(f"source blockchain not found for chain ID {key}") from None
            self._validated_by[key] = str(reply["subnetID"])
        return self._validated_by[key]

    async def tx(self, tx_id: str) -> bytes | None:
        """A P-Chain tx's signed bytes, None if the node does not know it."""
        try:
            reply = await self._p.call_object("platform.getTx", {"txID": tx_id, "encoding": "hex"})
        except Exception:
            return None
        return decode_hex(reply["tx"])
