"""What a sync asks the node of its validators beyond the blocks: current stakers' uptime
and connection (platform.getCurrentValidators), their nodes' versions (info.peers), each L1
validator (platform.getL1Validator for every validation its L1 lists) and the current supply
(platform.getCurrentSupply). Stored as the latest observation (store/validator_state.py)."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from snowfield.errors import Unavailable
from snowfield.rpc.client import RpcClient, RpcError
from snowfield.store import validator_documents, validator_state
from snowfield.store.database import Database
from snowfield.store.validator_state import L1Validator, Observation

log = logging.getLogger("snowfield.indexer.validators")
IN_FLIGHT = 8  # getL1Validator questions at once


class ValidatorObserver:
    """Observes at most once every `interval` seconds (0: at every sync): the whole validator
    set is megabytes on mainnet, more than a sync a second should ask for."""

    def __init__(self, platform: RpcClient, info: RpcClient, *, interval: float = 30.0) -> None:
        self.platform = platform
        self.info = info
        self.interval = interval
        self._last: float | None = None
        self._gate = asyncio.Semaphore(IN_FLIGHT)

    async def maybe_observe(self, db: Database, pchain: str) -> None:
        now = time.monotonic()
        if self._last is not None and now - self._last < self.interval:
            return
        try:
            await self.observe(db, pchain)
        except (RpcError, Unavailable, OSError) as err:
            log.warning("validator observation failed: %s", err)
            return
        self._last = now

    async def observe(self, db: Database, pchain: str) -> None:
        subnets = await asyncio.to_thread(validator_state.l1_subnets, db, pchain)
        current, versions, supply, *l1 = await asyncio.gather(
            self.platform.call_object("platform.getCurrentValidators", {}),
            self._versions(),
            self.platform.call_object("platform.getCurrentSupply", {}),
            *(self._l1(subnet) for subnet in subnets),
        )
        stakers = [
            Observation(
                str(v["txID"]),
                str(v["nodeID"]),
                str(v.get("uptime", "0")),
                bool(v.get("connected", False)),
                versions.get(str(v["nodeID"])),
            )
            for v in current.get("validators") or ()
            if "txID" in v and "uptime" in v
        ]
        validators = [v for found in l1 for v in found]
        stake = sum(
            int(v.get("weight", 0)) + int(v.get("delegatorWeight", 0))
            for v in current.get("validators") or ()
        )
        amount = (int(supply["supply"]), stake, int(supply["height"]))
        await asyncio.to_thread(validator_state.record, db, pchain, stakers, validators, amount)
        # The validators list's active entries, which the observation left to render again.
        await asyncio.to_thread(validator_documents.refresh_store, db, pchain)

    async def _versions(self) -> dict[str, str]:
        """Each peer's version, and this node's own."""
        peers, me, version = await asyncio.gather(
            self.info.call_object("info.peers", {}),
            self.info.call_object("info.getNodeID", {}),
            self.info.call_object("info.getNodeVersion", {}),
        )
        out = {str(p["nodeID"]): str(p.get("version", "")) for p in peers.get("peers") or ()}
        out[str(me["nodeID"])] = str(version.get("version", ""))
        return {k: v for k, v in out.items() if v}

    async def _l1(self, subnet: str) -> list[L1Validator]:
        listed = await self.platform.call_object(
            "platform.getCurrentValidators", {"subnetID": subnet}
        )
        ids = [
            str(v["validationID"]) for v in listed.get("validators") or () if "validationID" in v
        ]
        return list(await asyncio.gather(*(self._one(i) for i in ids)))

    async def _one(self, validation_id: str) -> L1Validator:
        async with self._gate:
            v = await self.platform.call_object(
                "platform.getL1Validator", {"validationID": validation_id}
            )
        return L1Validator(
            validation_id,
            str(v["subnetID"]),
            str(v["nodeID"]),
            int(v["weight"]),
            int(v.get("balance", 0)),
            int(v.get("startTime", 0)),
            str(v.get("publicKey", "")),
            _owner(v.get("remainingBalanceOwner")),
            _owner(v.get("deactivationOwner")),
            int(v["height"]),
        )


def _owner(owner: Any) -> dict[str, Any]:
    owner = owner or {}
    return {
        "addresses": [str(a) for a in owner.get("addresses") or ()],
        "threshold": int(owner.get("threshold", 0)),
    }
