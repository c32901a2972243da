"""The aggregation itself, as the real signature aggregator does it (icm-services v0.5): the
canonical validator set of the signing subnet at a P-Chain height, ACP-118 requests to every
validator still missing a signature, weight counted only for signatures that verify, quorum
plus buffer sought and quorum accepted once every validator has answered, retries with
back-off until the deadline, then the bitset and the aggregate signature.

Verification: signatures are checked together (one pairing check of the aggregate against the
aggregate key) and one by one only when that fails, so a lying validator never enters the
result but honest rounds cost one check.

Public API: `AggregationRequest`, `Aggregator` (`aggregate`), `DEFAULT_QUORUM`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from snowfield.aggregator.network import PeerNetwork
from snowfield.aggregator.validators import AggregationError, PlatformReader
from snowfield.crypto import bls
from snowfield.crypto.warp import CanonicalValidatorSet, WarpValidator, canonical_validator_set
from snowfield.errors import InvalidParams
from snowfield.formats.warp.message import BitSetSignature, Message, UnsignedMessage
from snowfield.p2p.peer import AppError

DEFAULT_QUORUM = 67
REQUEST_TIMEOUT = 5.0  # per round of requests
CONNECT_WINDOW = 5.0  # the real aggregator's window to reach a threshold of connected stake
DEADLINE = 20.0  # collection window (twice its app-request timeout)
FIRST_BACKOFF = 0.1
MAX_CACHED_SETS = 750  # the real aggregator's cache of heights


@dataclass(frozen=True, slots=True)
class AggregationRequest:
    message: UnsignedMessage
    justification: bytes = b""
    signing_subnet: str | None = None  # cb58; None: the subnet validating the source chain
    quorum: int = DEFAULT_QUORUM
    buffer: int = 0
    p_chain_height: int = 0  # 0: the current (proposed) height
    deadline: float = DEADLINE


@dataclass(slots=True)
class _Round:
    """Signatures collected so far, by canonical index."""

    validators: CanonicalValidatorSet
    verified: dict[int, bls.Signature] = field(default_factory=dict)

    @property
    def weight(self) -> int:
        return sum(self.validators.validators[i].weight for i in self.verified)

    def reaches(self, percent: int) -> bool:
        return percent * self.validators.total_weight <= 100 * self.weight


class Aggregator:
    """Aggregates over `network` with validator sets read from `platform`."""

    def __init__(self, platform: PlatformReader, network: PeerNetwork) -> None:
        self.platform = platform
        self.network = network
        self.requests_sent = 0
        self.invalid_signatures = 0
        self._sets: dict[tuple[int, str], CanonicalValidatorSet] = {}

    async def aggregate(self, request: AggregationRequest) -> Message:
        quorum = request.quorum or DEFAULT_QUORUM
        if quorum > 100 or quorum + request.buffer > 100:
            raise AggregationError("invalid total quorum percentage")
        unsigned = request.message
        subnet = request.signing_subnet or await self.platform.validated_by(
            unsigned.source_chain_id
        )
        height = request.p_chain_height or await self.platform.height()
        validators = await self._validators(height, subnet)
        deadline = time.monotonic() + request.deadline
        await self._connect(validators, quorum, min(deadline, time.monotonic() + CONNECT_WINDOW))
        found = _Round(validators)
        backoff = FIRST_BACKOFF
        while True:
            await self._collect(found, request, quorum + request.buffer, deadline)
            if found.reaches(quorum + request.buffer) or found.reaches(quorum):
                break
            if time.monotonic() + backoff >= deadline:
                raise AggregationError("failed to collect a threshold of signatures")
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 2.0)
        return _signed(unsigned, found)

    async def _validators(self, height: int, subnet: str) -> CanonicalValidatorSet:
        """The canonical set at a height, kept (a set at a height never changes, and parsing
        its BLS keys is most of the cost of an aggregation over many validators)."""
        key = (height, subnet)
        found = self._sets.get(key)
        if found is None:
            found = canonical_validator_set(await self.platform.validators_at(height, subnet))
            if len(self._sets) >= MAX_CACHED_SETS:
                self._sets.pop(next(iter(self._sets)))
            self._sets[key] = found
        return found

    async def _connect(self, validators: CanonicalValidatorSet, quorum: int, until: float) -> None:
        wanted = [n for v in validators.validators for n in v.node_ids]
        backoff = FIRST_BACKOFF
        while True:
            await self.network.connect(wanted)
            connected = self.network.connected()
            weight = sum(
                v.weight for v in validators.validators if connected.intersection(v.node_ids)
            )
            if quorum * validators.total_weight <= 100 * weight:
                return
            if time.monotonic() + backoff >= until:
                raise AggregationError("failed to connect to a threshold of stake")
            await asyncio.sleep(backoff)
            backoff *= 2

    async def _collect(
        self, found: _Round, request: AggregationRequest, target: int, deadline: float
    ) -> None:
        """One round: every validator lacking a signature is asked; answers are verified as
        they come (in batches); the round ends at the target or when all have answered."""
        missing = [i for i in range(len(found.validators.validators)) if i not in found.verified]
        connected = self.network.connected()
        timeout = max(min(REQUEST_TIMEOUT, deadline - time.monotonic()), 0.01)
        raw = request.message.encode()
        tasks: dict[asyncio.Task[bytes], int] = {}
        for index in missing:
            node = next(
                (n for n in found.validators.validators[index].node_ids if n in connected), None
            )
            if node is None:
                continue
            chain = request.message.source_chain_id.raw
            task = asyncio.create_task(
                self.network.request_signature(node, chain, raw, request.justification, timeout)
            )
            tasks[task] = index
            self.requests_sent += 1
        pending: set[asyncio.Task[bytes]] = set(tasks)
        unverified: dict[int, bls.Signature] = {}
        try:
            while pending and not found.reaches(target):
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    signature = _signature(task)
                    if signature is not None:
                        unverified[tasks[task]] = signature
                if (
                    _weight(found, unverified) * 100 >= target * found.validators.total_weight
                    or not pending
                ):
                    found.verified.update(self._verify(found.validators, raw, unverified))
                    unverified = {}
        finally:
            for task in pending:
                task.cancel()
            with contextlib.suppress(Exception):
                await asyncio.gather(*pending, return_exceptions=True)

    def _verify(
        self,
        validators: CanonicalValidatorSet,
        message: bytes,
        candidates: dict[int, bls.Signature],
    ) -> dict[int, bls.Signature]:
        """The candidates whose signatures verify: all at once, else one by one."""
        if not candidates:
            return {}
        members = [validators.validators[i] for i in candidates]
        if _verify_together(members, list(candidates.values()), message):
            return candidates
        good = {
            i: s
            for i, s in candidates.items()
            if bls.verify(validators.validators[i].public_key, s, message)
        }
        self.invalid_signatures += len(candidates) - len(good)
        return good


def _weight(found: _Round, unverified: dict[int, bls.Signature]) -> int:
    return found.weight + sum(found.validators.validators[i].weight for i in unverified)


def _signature(task: asyncio.Task[bytes]) -> bls.Signature | None:
    """The signature a node answered with; None for an error, a timeout or no signature."""
    if task.cancelled() or task.exception() is not None:
        return None
    data = task.result()
    if not data or data == bytes(len(data)):  # the node has not seen the message
        return None
    try:
        return bls.Signature.from_bytes(data)
    except InvalidParams:
        return None


def _verify_together(
    validators: Sequence[WarpValidator], signatures: Sequence[bls.Signature], message: bytes
) -> bool:
    key = bls.aggregate_public_keys([v.public_key for v in validators])
    return bls.verify(key, bls.aggregate_signatures(signatures), message)


def _signed(unsigned: UnsignedMessage, found: _Round) -> Message:
    indices = sorted(found.verified)
    signature = bls.aggregate_signatures([found.verified[i] for i in indices]).to_bytes()
    return Message(unsigned, BitSetSignature.from_indices(indices, signature))


__all__ = ["AggregationError", "AggregationRequest", "Aggregator", "AppError"]
