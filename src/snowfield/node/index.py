"""The index API of the C-Chain: every accepted block as a ProposerVM container, by index and id."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from snowfield.chains.evm.chain import EvmChain
from snowfield.chains.evm.model import Block
from snowfield.errors import Conflict, InvalidParams, NotFound
from snowfield.formats.cb58 import decode_cb58, encode_cb58
from snowfield.formats.hexcheck import Encoding, encode, parse_encoding
from snowfield.formats.ids import ID
from snowfield.formats.proposervm import StatelessBlock
from snowfield.formats.timefmt import format_rfc3339
from snowfield.rpc.service import ServiceDispatcher

MAX_FETCH = 1024


@dataclass(frozen=True, slots=True)
class IndexState:
    """Whether this node indexes, and the first height it indexed (1 on a complete index)."""

    enabled: bool
    first_height: int

    @classmethod
    def resolve(
        cls, path: Path | None, *, enabled: bool, allow_incomplete: bool, head: int
    ) -> IndexState:
        """Applies avalanchego's rules for turning indexing on or off on an existing node."""
        previous = _load(path)
        if enabled:
            if previous is not None and previous.enabled:
                return previous
            if head > 0 and not allow_incomplete:
                raise Conflict(
                    "the index would be incomplete: blocks were accepted while indexing was "
                    "disabled; start with --index-allow-incomplete to index from now on"
                )
            state = cls(True, head + 1 if head > 0 else 1)
        else:
            if previous is not None and previous.enabled and not allow_incomplete:
                raise Conflict(
                    "indexing was enabled on this node: disabling it would leave the index "
                    "incomplete; start with --index-allow-incomplete to allow it"
                )
            state = cls(False, 0)
        _save(path, state)
        return state


def _load(path: Path | None) -> IndexState | None:
    if path is None or not path.exists():
        return None
    data = json.loads(path.read_text())
    return IndexState(bool(data["enabled"]), int(data["first_height"]))


def _save(path: Path | None, state: IndexState) -> None:
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"enabled": state.enabled, "first_height": state.first_height}))
    tmp.replace(path)


class BlockIndex:
    """Containers for blocks from `first_height` on; ids are ProposerVM block ids."""

    def __init__(self, chain: EvmChain, state: IndexState, chain_id: str) -> None:
        self.chain = chain
        self.first = max(state.first_height, 1)
        self._ids: list[bytes] = []
        self._by_id: dict[bytes, int] = {}
        self._lock = threading.Lock()
        chain.on_rewind(self._rewind)
        self.service = ServiceDispatcher(
            {
                "index.getContainerByID": self.get_by_id,
                "index.getContainerByIndex": self.get_by_index,
                "index.getContainerRange": self.get_range,
                "index.getIndex": self.get_index,
                "index.getLastAccepted": self.get_last_accepted,
                "index.isAccepted": self.is_accepted,
            }
        )

    def last_index(self) -> int:
        return self.chain.head.number - self.first

    def _extend(self) -> None:
        with self._lock:
            while len(self._ids) <= self.last_index():
                block = self.chain.blocks[self.first + len(self._ids)]
                container_id = self._wrap(block, self._ids[-1] if self._ids else None).id.raw
                self._by_id[container_id] = len(self._ids)
                self._ids.append(container_id)

    def _rewind(self, height: int, _cut: tuple[Block, ...]) -> None:
        with self._lock:
            for container_id in self._ids[max(height - self.first + 1, 0) :]:
                del self._by_id[container_id]
            del self._ids[max(height - self.first + 1, 0) :]

    def _wrap(self, block: Block, parent_id: bytes | None) -> StatelessBlock:
        parent = parent_id if parent_id is not None else block.header.parent_hash
        # Unsigned post-fork blocks: what a single-validator network's proposer builds.
        return StatelessBlock(
            parent_id=ID(parent),
            inner_block=block.body,
            timestamp=block.header.timestamp,
            p_chain_height=0,
        )

    def container_id_of(self, block: Block) -> str:
        if block.number < self.first:
            return encode_cb58(block.hash)
        self._extend()
        return encode_cb58(self._ids[block.number - self.first])

    def _container(self, index: int, encoding: Encoding) -> dict[str, Any]:
        self._extend()
        block = self.chain.blocks[self.first + index]
        parent = self._ids[index - 1] if index > 0 else None
        raw = self._wrap(block, parent).encode()
        shown = encode(raw, encoding)
        return {
            "id": encode_cb58(self._ids[index]),
            "bytes": shown,
            "timestamp": format_rfc3339(block.accepted_ns),
            "encoding": encoding.value,
            "index": str(index),
        }

    def _require_any(self) -> None:
        if self.last_index() < 0:
            raise NotFound("no containers have been accepted")

    def _lookup(self, params: dict[str, Any]) -> int:
        raw_id = params.get("id")
        if not isinstance(raw_id, str):
            raise InvalidParams("not found")
        try:
            container_id = decode_cb58(raw_id)
        except InvalidParams:
            raise NotFound("not found") from None
        self._extend()
        index = self._by_id.get(container_id)
        if index is None:
            raise NotFound("not found")
        return index

    def get_by_id(self, params: dict[str, Any]) -> dict[str, Any]:
        encoding = parse_encoding(params.get("encoding"))
        return self._container(self._lookup(params), encoding)

    def get_by_index(self, params: dict[str, Any]) -> dict[str, Any]:
        encoding = parse_encoding(params.get("encoding"))
        index = _uint(params.get("index"), "index")
        if index > self.last_index():
            raise NotFound(f"no container at index {index}")
        return self._container(index, encoding)

    def get_range(self, params: dict[str, Any]) -> list[dict[str, Any]] | None:
        encoding = parse_encoding(params.get("encoding"))
        start = _uint(params.get("startIndex"), "startIndex")
        count = _uint(params.get("numToFetch"), "numToFetch")
        if count > MAX_FETCH:
            raise InvalidParams(f"numToFetch must be in [0,{MAX_FETCH}] but is {count}")
        if count == 0:
            return None
        self._require_any()
        last = self.last_index()
        if start > last:
            raise InvalidParams(f"start index ({start}) > last accepted index ({last})")
        end = min(start + count, last + 1)
        return [self._container(i, encoding) for i in range(start, end)]

    def get_index(self, params: dict[str, Any]) -> dict[str, str]:
        return {"index": str(self._lookup(params))}

    def get_last_accepted(self, params: dict[str, Any]) -> dict[str, Any]:
        encoding = parse_encoding(params.get("encoding"))
        self._require_any()
        return self._container(self.last_index(), encoding)

    def is_accepted(self, params: dict[str, Any]) -> dict[str, bool]:
        try:
            self._lookup(params)
        except (NotFound, InvalidParams):
            return {"isAccepted": False}
        return {"isAccepted": True}


def _uint(value: Any, name: str) -> int:
    """gorilla's json.Uint64: a JSON number or a decimal string."""
    if isinstance(value, bool) or value is None:
        raise InvalidParams(f"missing or invalid {name}")
    if isinstance(value, int) and value >= 0:
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    raise InvalidParams(
        "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. "
        "See documentation for example calls"
    )
