"""The devnet's validators: staking certificates, BLS keys, and whether each one is running."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from snowfield.crypto.bls import SecretKey
from snowfield.crypto.staking import StakingIdentity
from snowfield.errors import InvalidParams, NotFound
from snowfield.formats.ids import NodeID
from snowfield.rpc.service import param

Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class Validator:
    """One validator's keys: the TLS staking identity (its NodeID) and its BLS signer key."""

    index: int
    staking: StakingIdentity
    signer: SecretKey

    @property
    def node_id(self) -> NodeID:
        return self.staking.node_id

    def proof_of_possession(self) -> dict[str, str]:
        """`{publicKey, proofOfPossession}` as 0x hex, as info.getNodeID's nodePOP has it."""
        public = self.signer.public_key().to_bytes()
        proof = self.signer.prove_possession().to_bytes()
        return {"publicKey": "0x" + public.hex(), "proofOfPossession": "0x" + proof.hex()}


def load_validators(data_dir: Path | None, count: int) -> tuple[Validator, ...]:
    """`count` validators; with a data dir each one's keys live in `staking/<i>/` (avalanchego's
    file names staker.crt, staker.key, signer.key), generated on first start, reloaded after."""
    return tuple(_load_or_create(data_dir, i) for i in range(count))


def _load_or_create(data_dir: Path | None, index: int) -> Validator:
    if data_dir is None:
        return Validator(index, StakingIdentity.generate(), SecretKey.generate())
    folder = data_dir / "staking" / str(index)
    cert, key, signer = folder / "staker.crt", folder / "staker.key", folder / "signer.key"
    if cert.exists() and key.exists() and signer.exists():
        return Validator(
            index, StakingIdentity.load(cert, key), SecretKey.from_bytes(signer.read_bytes())
        )
    folder.mkdir(parents=True, exist_ok=True)
    validator = Validator(index, StakingIdentity.generate(), SecretKey.generate())
    validator.staking.save(cert, key)
    fd = os.open(signer, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(validator.signer.to_bytes())
    return validator


@dataclass(slots=True)
class _Downtime:
    """When a validator was stopped (None while it runs) and its earlier stopped seconds."""

    since: float | None = None
    seconds: float = 0.0


@dataclass(slots=True)
class ValidatorSet:
    """The validators and their status; uptime is the share of time since start not stopped."""

    validators: tuple[Validator, ...]
    clock: Clock = time.time
    started: float = field(default=0.0)
    _down: dict[str, _Downtime] = field(default_factory=dict)
    # Each validator's NodeID text, formatted once: the P-Chain asks who is running on every
    # block it builds (cb58 per validator per block was a tenth of issueTx, bench/pchain.py).
    _names: dict[int, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.started = self.clock()
        self._names = {v.index: str(v.node_id) for v in self.validators}
        self._down = {name: _Downtime() for name in self._names.values()}

    def __iter__(self) -> Iterator[Validator]:
        return iter(self.validators)

    @property
    def own(self) -> Validator:
        """Node 0: the validator whose APIs the user talks to."""
        return self.validators[0]

    def find(self, node_id: str) -> Validator:
        for validator in self.validators:
            if str(validator.node_id) == node_id:
                return validator
        raise NotFound(f"validator {node_id} not found")

    def stop(self, node_id: str) -> None:
        validator = self._checked(node_id)
        if validator is self.own:
            raise InvalidParams("node 0 serves the APIs and cannot be stopped")
        down = self._down[node_id]
        if down.since is None:
            down.since = self.clock()

    def start(self, node_id: str) -> None:
        self._checked(node_id)
        down = self._down[node_id]
        if down.since is not None:
            down.seconds += self.clock() - down.since
            down.since = None

    def running(self, validator: Validator) -> bool:
        return self._down[self._names[validator.index]].since is None

    def uptime(self, validator: Validator) -> float:
        """Percentage of the time since start that the validator was running (100 at start)."""
        now = self.clock()
        elapsed = now - self.started
        down = self._down[self._names[validator.index]]
        stopped = down.seconds + (now - down.since if down.since is not None else 0.0)
        return 100.0 if elapsed <= 0 else max(0.0, 100.0 * (elapsed - stopped) / elapsed)

    def proposer(self, height: int) -> StakingIdentity:
        """Who proposes the block at `height`: the running validators in turn."""
        running = [v for v in self.validators if self.running(v)]
        return running[height % len(running)].staking if running else self.own.staking

    def observed_uptime(self, node_id: NodeID) -> tuple[float, bool]:
        """A validator's measured uptime and whether it runs; a node the devnet does not run
        counts as up."""
        for validator in self.validators:
            if validator.node_id == node_id:
                return self.uptime(validator), self.running(validator)
        return 100.0, True

    def _checked(self, node_id: str) -> Validator:
        NodeID.from_string(node_id)  # a malformed id gets the parser's error, not "not found"
        return self.find(node_id)


def devnet_validator_service(
    validators: ValidatorSet,
) -> dict[str, Callable[[dict[str, Any]], Any]]:
    """devnet.* at /ext/devnet: stop or start a validator (its uptime and peer status follow)."""

    def node_id(params: dict[str, Any]) -> str:
        value = param(params, "nodeID")
        if not isinstance(value, str):
            raise InvalidParams("nodeID must be a string")
        return value

    def listing(_: dict[str, Any]) -> dict[str, Any]:
        return {
            "validators": [
                {
                    "nodeID": str(v.node_id),
                    "running": validators.running(v),
                    "uptime": f"{validators.uptime(v):.4f}",
                }
                for v in validators
            ]
        }

    def stop(params: dict[str, Any]) -> dict[str, bool]:
        validators.stop(node_id(params))
        return {"success": True}

    def start(params: dict[str, Any]) -> dict[str, bool]:
        validators.start(node_id(params))
        return {"success": True}

    return {
        "devnet.getValidators": listing,
        "devnet.stopValidator": stop,
        "devnet.startValidator": start,
    }
