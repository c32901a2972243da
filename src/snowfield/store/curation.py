"""Operator-curated contract metadata (operation 4): validated on load, one JSON object each."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from snowfield.errors import InvalidParams
from snowfield.store.database import Database

# Closed set of the real clients; any other value fails their whole response.
RESOURCE_LINK_TYPES = frozenset(
    {
        "Blog", "CoinGecko", "CoinMarketCap", "Discord", "Documentation", "Facebook", "Github",
        "Instagram", "LinkedIn", "Medium", "Reddit", "Support", "Telegram", "TikTok", "Twitter",
        "Website", "Whitepaper", "Youtube",
    }
)  # fmt: skip
STRING_FIELDS = ("name", "description", "officialSite", "email", "color", "symbol")
ASSET_FIELDS = ("logoAsset", "bannerAsset")


@dataclass(frozen=True, slots=True)
class CuratedContract:
    chain_id: int
    address: str
    data: Mapping[str, Any]


def _fail(where: str, what: str) -> InvalidParams:
    return InvalidParams(f"{where}: {what}")


def _address(value: object, where: str) -> str:
    text = str(value).lower()
    if not (len(text) == 42 and text.startswith("0x")):
        raise _fail(where, "address must be 0x followed by 40 hex digits")
    try:
        int(text[2:], 16)
    except ValueError:
        raise _fail(where, "address must be 0x followed by 40 hex digits") from None
    return text


def _asset(value: object, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not set(value) <= {"assetId", "imageUri"}:
        raise _fail(where, "must be an object with assetId and/or imageUri")
    if not all(isinstance(v, str) for v in value.values()):
        raise _fail(where, "assetId and imageUri must be strings")
    return dict(value)


def _links(value: object, where: str) -> list[dict[str, str]]:
    if not isinstance(value, list):
        raise _fail(where, "must be an array")
    links = []
    for i, link in enumerate(value):
        if not isinstance(link, dict) or not isinstance(link.get("url"), str):
            raise _fail(f"{where}[{i}]", "must be an object with a string url")
        if link.get("type") not in RESOURCE_LINK_TYPES:
            raise _fail(f"{where}[{i}].type", f"must be one of {sorted(RESOURCE_LINK_TYPES)}")
        links.append({"type": link["type"], "url": link["url"]})
    return links


def parse_curated(entry: object, where: str = "entry") -> CuratedContract:
    """One entry of a curation file: {chainId, address, and the spec's metadata fields}."""
    if not isinstance(entry, dict):
        raise _fail(where, "must be an object")
    chain = entry.get("chainId")
    # isascii: str.isdigit() also takes Unicode digits ("²") that int() refuses.
    if not (
        isinstance(chain, int)
        or (isinstance(chain, str) and chain.isascii() and chain.isdigit() and len(chain) <= 20)
    ):
        raise _fail(f"{where}.chainId", "must be an EVM chain id")
    data: dict[str, Any] = {}
    for name in STRING_FIELDS:
        if name in entry:
            if not isinstance(entry[name], str):
                raise _fail(f"{where}.{name}", "must be a string")
            data[name] = entry[name]
    for name in ASSET_FIELDS:
        if name in entry:
            data[name] = _asset(entry[name], f"{where}.{name}")
    if "resourceLinks" in entry:
        data["resourceLinks"] = _links(entry["resourceLinks"], f"{where}.resourceLinks")
    if "tags" in entry:
        tags = entry["tags"]
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise _fail(f"{where}.tags", "must be an array of strings")
        data["tags"] = list(tags)
    return CuratedContract(int(chain), _address(entry.get("address"), f"{where}.address"), data)


def save_curated(db: Database, entries: Sequence[CuratedContract]) -> None:
    """Stores entries, replacing what was curated before for the same contract."""
    with db.transaction() as w:
        w.executemany(
            "INSERT INTO contract_metadata (chain_id, address, data) VALUES (?, ?, ?)"
            " ON CONFLICT (chain_id, address) DO UPDATE SET data = excluded.data",
            [(e.chain_id, e.address, json.dumps(dict(e.data), sort_keys=True)) for e in entries],
        )


def curated(db: Database, chain_id: int, addresses: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Curated metadata of those `addresses` that have some."""
    unique = sorted(set(addresses))
    if not unique:
        return {}
    marks = ", ".join("?" for _ in unique)
    rows = db.query(
        f"SELECT address, data FROM contract_metadata WHERE chain_id = ? AND address IN ({marks})",
        [chain_id, *unique],
    )
    return {str(r[0]): dict(json.loads(r[1])) for r in rows}
