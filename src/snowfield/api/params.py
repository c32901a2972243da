"""Request parameters: one definition per parameter drives parsing, errors and the OpenAPI text."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from snowfield.errors import InvalidParams

MAX_BLOCK = 2**63 - 1  # the store's BIGINT bound
MAX_DIGITS = len(str(MAX_BLOCK))
_DIGITS = re.compile(r"[0-9]+")
_ADDRESS = re.compile(r"0[xX][0-9a-fA-F]{40}")
_HASH = re.compile(r"0[xX][0-9a-fA-F]{64}")


@dataclass(frozen=True, slots=True)
class Param:
    """One path or query parameter: its wire name, JSON-schema facts and how to read it."""

    name: str
    where: Literal["path", "query"]
    description: str
    type: Literal["integer", "string", "boolean"] = "string"
    required: bool = False
    default: int | str | None = None
    minimum: int | None = None
    maximum: int | None = None
    enum: tuple[str, ...] | None = None
    pattern: str | None = None
    read: Callable[[Param, str], Any] | None = field(default=None, compare=False)
    # A list given by repeating the parameter (`txTypes=A&txTypes=B`, as the official client
    # sends arrays); the repeats reach `read` joined by commas.
    repeated: bool = False

    def parse(self, raw: str | None) -> Any:
        if raw is None:
            if self.required:
                raise InvalidParams(f"{self.name} is required")
            return self.default
        if self.read is not None:
            return self.read(self, raw)
        if self.type == "integer":
            return _integer(self, raw)
        if self.enum is not None and raw not in self.enum:
            raise InvalidParams(f"{self.name} must be one of {', '.join(self.enum)}")
        return raw

    def schema(self) -> dict[str, Any]:
        if self.repeated:
            items = {"type": self.type, **({"enum": list(self.enum)} if self.enum else {})}
            return {"type": "array", "items": items}
        out: dict[str, Any] = {"type": self.type}
        for key in ("default", "minimum", "maximum", "pattern"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.enum is not None:
            out["enum"] = list(self.enum)
        return out

    def bounded(self, minimum: int, maximum: int, default: int) -> Param:
        return replace(self, minimum=minimum, maximum=maximum, default=default)


def decimal(raw: str) -> int | None:
    """The value of a string of ASCII digits, None for anything else. Digits beyond what a
    BIGINT holds are never converted (Python refuses int() of 4,301 digits and more): such a
    value comes back as MAX_BLOCK + 1, out of every range."""
    if not _DIGITS.fullmatch(raw):
        return None
    significant = raw.lstrip("0")
    return MAX_BLOCK + 1 if len(significant) > MAX_DIGITS else int(significant or "0")


def _integer(param: Param, raw: str) -> int:
    value = decimal(raw)
    if value is None:
        raise InvalidParams(f"{param.name} must be a non-negative integer")
    low = param.minimum if param.minimum is not None else 0
    high = param.maximum if param.maximum is not None else MAX_BLOCK
    if not low <= value <= high:
        raise InvalidParams(f"{param.name} must be between {low} and {high}")
    return value


def single_values(
    pairs: Iterable[tuple[str, str]], repeated: frozenset[str] = frozenset()
) -> dict[str, str]:
    """Query parameters by name; a name given twice is ambiguous, so refused, except for the
    `repeated` (list) parameters, whose values are joined by commas."""
    out: dict[str, str] = {}
    for name, value in pairs:
        if not name:  # `?=x&&` names nothing: ignored, as unknown parameters are
            continue
        if name in out:
            if name not in repeated:
                raise InvalidParams(f"{name} is given more than once")
            value = f"{out[name]},{value}"
        out[name] = value
    return out


def _address(param: Param, raw: str) -> str:
    if not _ADDRESS.fullmatch(raw):
        raise InvalidParams(f"{param.name} must be 0x followed by 40 hex digits")
    return raw.lower()


def _block_id(param: Param, raw: str) -> int | str:
    if _DIGITS.fullmatch(raw):
        return _integer(param, raw)
    if _HASH.fullmatch(raw):
        return raw.lower()
    raise InvalidParams(f"{param.name} must be a block number or a 0x block hash of 32 bytes")


def parse_all(
    params: tuple[Param, ...], path: Mapping[str, str], query: Mapping[str, str]
) -> dict[str, Any]:
    """Every parameter of an operation, read from the path and the query string."""
    return {p.name: p.parse((path if p.where == "path" else query).get(p.name)) for p in params}


CHAIN_ID = Param(
    "chainId",
    "path",
    "A supported EVM chain id or the chain's blockchain id, as listed by GET /v1/chains.",
    required=True,
)
ADDRESS_PATTERN = "^0[xX][0-9a-fA-F]{40}$"
ADDRESS = Param(
    "address",
    "path",
    "An EVM address: 0x followed by 40 hex digits (any case).",
    required=True,
    pattern=ADDRESS_PATTERN,
    read=_address,
)
CONTRACT_ADDRESS = Param(
    "contractAddress",
    "query",
    "Only tokens of this ERC-721 contract.",
    pattern=ADDRESS_PATTERN,
    read=_address,
)
BLOCK_ID = Param(
    "blockId",
    "path",
    "A block number (decimal) or a block hash (0x followed by 64 hex digits).",
    required=True,
    pattern="^([0-9]+|0[xX][0-9a-fA-F]{64})$",
    read=_block_id,
)
PAGE_TOKEN = Param(
    "pageToken",
    "query",
    "The nextPageToken of the previous page; every other parameter must be repeated unchanged.",
)
PAGE_SIZE = Param("pageSize", "query", "Most items on one page.", type="integer")
START_BLOCK = Param(
    "startBlock",
    "query",
    "First block of the range (inclusive); without it the range starts at genesis.",
    type="integer",
    minimum=0,
    maximum=MAX_BLOCK,
)
END_BLOCK = Param(
    "endBlock",
    "query",
    "Block after the range (exclusive); without it the range ends at the latest block.",
    type="integer",
    minimum=0,
    maximum=MAX_BLOCK,
)
SORT_ORDER = Param(
    "sortOrder",
    "query",
    "asc: oldest first; desc: newest first.",
    default="desc",
    enum=("asc", "desc"),
)
NETWORK = Param(
    "network",
    "query",
    "Only chains of this network; fuji and testnet both name the test networks.",
    enum=("mainnet", "fuji", "testnet"),
)
FEATURE = Param(
    "feature",
    "query",
    "Only chains with this feature enabled.",
    enum=("nftIndexing", "webhooks", "teleporter"),
)
