"""The index API of a chain: each accepted block as a ProposerVM container, by index or id."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from snowfield.errors import Conflict, InvalidParams, NotFound
from snowfield.formats.cb58 import decode_cb58, encode_cb58
from snowfield.formats.hexcheck import Encoding, encode, parse_encoding
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


class ContainerSource(Protocol):
    """A chain's accepted blocks as containers, by height (0 = genesis, never indexed)."""

    def last_height(self) -> int: ...

    def id_of(self, height: int) -> bytes: ...

    def container(self, height: int) -> bytes: ...

    def accepted_ns(self, height: int) -> int: ...

    def container_height(self, container_id: bytes) -> int | None: ...


class BlockIndex:
    """Containers for blocks from `first_height` on; ids are the chain's container ids."""

    def __init__(self, ids: ContainerSource, state: IndexState) -> None:
        self.ids = ids
        self.first = max(state.first_height, 1)
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
        return self.ids.last_height() - self.first

    def _container(self, index: int, encoding: Encoding) -> dict[str, Any]:
        height = self.first + index
        return {
            "id": encode_cb58(self.ids.id_of(height)),
            "bytes": encode(self.ids.container(height), encoding),
            "timestamp": format_rfc3339(self.ids.accepted_ns(height)),
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
        height = self.ids.container_height(container_id)
        if height is None or height < self.first:
            raise NotFound("not found")
        return height - self.first

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


MAX_UINT64 = 2**64 - 1


def _uint(value: Any, name: str) -> int:
    """gorilla's json.Uint64: a JSON number or a decimal string."""
    if isinstance(value, bool) or value is None:
        raise InvalidParams(f"missing or invalid {name}")
    if isinstance(value, int) and 0 <= value <= MAX_UINT64:
        return value
    # str.isdigit() also takes Unicode digits ("²") that int() refuses; Go takes ASCII only.
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 20:
        number = int(value)
        if number <= MAX_UINT64:
            return number
    raise InvalidParams(
        "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. "
        "See documentation for example calls"
    )
