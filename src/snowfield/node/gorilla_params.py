"""Reading gorilla-style params as avalanchego's Go structs do: names match case-insensitively,
u64s come as decimal strings (or numbers), ids in cb58, addresses as `P-<hrp>1…`."""

from __future__ import annotations

from typing import Any

from snowfield.errors import InvalidParams
from snowfield.formats.bech32 import parse_address
from snowfield.formats.ids import ID, ShortID
from snowfield.rpc.service import param

MAX_UINT64 = 2**64 - 1


class Params:
    """One request's params object, read by case-insensitive field name (encoding/json's rule)."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self._raw = raw

    def get(self, name: str) -> Any:
        return param(self._raw, name)

    def string(self, name: str, default: str = "") -> str:
        value = self.get(name)
        if value is None:
            return default
        if not isinstance(value, str):
            raise InvalidParams(f"{name} must be a string")
        return value

    def strings(self, name: str) -> list[str]:
        value = self.get(name)
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InvalidParams(f"{name} must be an array of strings")
        return value

    def uint(self, name: str, default: int = 0) -> int:
        value = self.get(name)
        if value is None or value == "":
            return default
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise InvalidParams(f"{name} must be an unsigned integer")
        try:
            number = int(value)
        except ValueError:
            raise InvalidParams(f"{name} must be an unsigned integer") from None
        if not 0 <= number <= MAX_UINT64:
            raise InvalidParams(f"{name} is out of range")
        return number

    def id(self, name: str) -> ID:
        text = self.string(name)
        if not text:
            raise InvalidParams(f"{name} is required")
        return ID.from_string(text)

    def nested(self, name: str) -> Params | None:
        value = self.get(name)
        if value is None:
            return None
        if not isinstance(value, dict):
            raise InvalidParams(f"{name} must be an object")
        return Params(value)


def chain_address(text: str, aliases: tuple[str, ...], hrp: str) -> ShortID:
    """The short id of `<alias>-<hrp>1…`, refusing another chain's or network's address."""
    parsed = parse_address(text)
    if parsed.chain_alias not in aliases:
        raise InvalidParams(f"couldn't parse address {text!r}: wrong chain alias")
    if parsed.hrp != hrp:
        raise InvalidParams(f"couldn't parse address {text!r}: expected hrp {hrp!r}")
    return parsed.short_id
