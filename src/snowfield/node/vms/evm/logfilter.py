"""Log criteria (addresses and topic positions) and matching against blocks."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from snowfield.chains.evm.model import Block, Log
from snowfield.crypto.hashing import keccak
from snowfield.errors import InvalidParams
from snowfield.node.vms.evm import params as p

MAX_TOPICS = 4


@dataclass(frozen=True, slots=True)
class LogCriteria:
    from_block: p.BlockRef
    to_block: p.BlockRef
    block_hash: bytes | None
    addresses: frozenset[bytes]
    topics: tuple[frozenset[bytes] | None, ...]

    def matches(self, log: Log) -> bool:
        if self.addresses and log.address not in self.addresses:
            return False
        if len(self.topics) > len(log.topics):
            return False
        return all(want is None or log.topics[i] in want for i, want in enumerate(self.topics))

    def may_match(self, block: Block) -> bool:
        """Bloom test: False means the block surely has no matching log."""
        bloom = int.from_bytes(block.header.bloom, "big")
        if self.addresses and not any(_in_bloom(bloom, a) for a in self.addresses):
            return False
        for want in self.topics:
            if want is not None and not any(_in_bloom(bloom, t) for t in want):
                return False
        return True


def parse_criteria(value: Any) -> LogCriteria:
    crit = p.obj(value)
    block_hash = p.hash32(crit["blockHash"]) if crit.get("blockHash") is not None else None
    if block_hash is not None and (
        crit.get("fromBlock") is not None or crit.get("toBlock") is not None
    ):
        raise InvalidParams(
            "cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other"
        )
    from_block = (
        p.block_number(crit["fromBlock"]) if crit.get("fromBlock") is not None else p.LATEST
    )
    to_block = p.block_number(crit["toBlock"]) if crit.get("toBlock") is not None else p.LATEST
    raw_addr = crit.get("address")
    if raw_addr is None:
        addresses: frozenset[bytes] = frozenset()
    elif isinstance(raw_addr, list):
        addresses = frozenset(p.address(a) for a in raw_addr)
    else:
        addresses = frozenset({p.address(raw_addr)})
    raw_topics = crit.get("topics") or []
    if not isinstance(raw_topics, list):
        raise InvalidParams("invalid topics: expected an array")
    if len(raw_topics) > MAX_TOPICS:
        raise InvalidParams("exceed max topics")
    topics = tuple(_topic_position(t) for t in raw_topics)
    return LogCriteria(from_block, to_block, block_hash, addresses, topics)


def _topic_position(value: Any) -> frozenset[bytes] | None:
    if value is None:
        return None
    if isinstance(value, list):
        if not value or any(v is None for v in value):
            return None
        return frozenset(p.hash32(v) for v in value)
    return frozenset({p.hash32(value)})


def matching_logs(block: Block, criteria: LogCriteria) -> Iterator[tuple[Log, int, int]]:
    """(log, tx index, block-wide log index) of the block's logs that match."""
    if not criteria.may_match(block):
        return
    log_index = 0
    for tx_index, receipt in enumerate(block.receipts):
        for log in receipt.logs:
            if criteria.matches(log):
                yield log, tx_index, log_index
            log_index += 1


def _in_bloom(bloom: int, item: bytes) -> bool:
    digest = keccak(item)
    for i in (0, 2, 4):
        bit = int.from_bytes(digest[i : i + 2], "big") & 2047
        if not bloom >> bit & 1:
            return False
    return True
