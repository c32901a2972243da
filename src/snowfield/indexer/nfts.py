"""Token URIs of ERC-721/1155 ids and their metadata documents (data: and http(s) URIs),
normalised to the data service's metadata fields, with an index status for every outcome; and
the reindex requests the data service records, carried out the same way."""

from __future__ import annotations

import asyncio
import base64
import binascii
import urllib.parse
from collections.abc import Sequence
from typing import Any

import orjson

from snowfield.errors import SnowfieldError
from snowfield.indexer.abi import as_string, call_data
from snowfield.indexer.calls import Calls
from snowfield.rpc.client import DocumentFetcher, TooLarge
from snowfield.store import nft_reindex
from snowfield.store.database import Database
from snowfield.store.rows import NftRow

TOKEN_URI = "0xc87b56dd"  # ERC-721 tokenURI(uint256)
URI = "0x0e89341c"  # ERC-1155 uri(uint256)

# Field of the metadata document → field of the service's metadata object.
STRING_FIELDS = {
    "name": "name",
    "symbol": "symbol",
    "image": "imageUri",
    "image_url": "imageUri",
    "description": "description",
    "animation_url": "animationUri",
    "external_url": "externalUrl",
    "background_color": "background",
}


class Outcome(SnowfieldError):
    """Raised inside metadata fetching with the index status that describes the failure."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status


async def nft_rows(
    calls: Calls,
    fetcher: DocumentFetcher,
    chain_id: int,
    seen: Sequence[tuple[str, int, str, int, int]],
) -> list[NftRow]:
    """`seen` = (token, token id, ERC type, first block, that block's timestamp)."""
    uris = await calls.eth_calls(
        [
            (token, call_data(TOKEN_URI if kind == "ERC-721" else URI, token_id), block)
            for token, token_id, kind, block, _ in seen
        ]
    )
    gate = asyncio.Semaphore(8)

    async def one(item: tuple[str, int, str, int, int], raw: bytes | None) -> NftRow:
        token, token_id, kind, block, timestamp = item
        uri = (as_string(raw) or "") if raw is not None else ""
        if kind == "ERC-1155":
            uri = uri.replace("{id}", f"{token_id:064x}")
        async with gate:
            status, metadata = await _metadata(fetcher, raw, uri)
        return NftRow(
            chain_id=chain_id,
            token=token,
            token_id=token_id,
            erc_type=kind,
            token_uri=uri,
            index_status=status,
            metadata=metadata,
            metadata_updated=timestamp if status == "indexed" else None,
            first_block=block,
        )

    return list(
        await asyncio.gather(*(one(item, raw) for item, raw in zip(seen, uris, strict=True)))
    )


async def _metadata(
    fetcher: DocumentFetcher, raw: bytes | None, uri: str
) -> tuple[str, dict[str, Any]]:
    if raw is None:
        return "missing_token", {}
    if not uri:
        return "invalid_token_uri", {}
    try:
        document = await _load(fetcher, uri)
        return "indexed", normalise(document)
    except Outcome as exc:
        return exc.status, {}


async def _load(fetcher: DocumentFetcher, uri: str) -> dict[str, Any]:
    scheme = uri.split(":", 1)[0].lower() if ":" in uri else ""
    if scheme == "data":
        body = _data_uri(uri)
    elif scheme in ("http", "https"):
        try:
            body = await fetcher.get(uri)
        except TooLarge as exc:
            raise Outcome("metadata_content_too_large", exc.message) from exc
        except SnowfieldError as exc:
            raise Outcome("unreachable_token_uri", exc.message) from exc
    else:
        raise Outcome("invalid_token_uri_scheme", f"unsupported scheme in {uri[:80]!r}")
    try:
        document = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise Outcome("invalid_metadata_json", str(exc)) from exc
    if not isinstance(document, dict):
        raise Outcome("invalid_metadata", "metadata is not a JSON object")
    return document


def _data_uri(uri: str) -> bytes:
    header, sep, payload = uri[5:].partition(",")
    if not sep:
        raise Outcome("invalid_token_uri", "data: URI without a comma")
    if header.endswith(";base64"):
        try:
            return base64.b64decode(payload, validate=False)
        except binascii.Error as exc:
            raise Outcome("invalid_token_uri", "bad base64 in data: URI") from exc
    return urllib.parse.unquote_to_bytes(payload)


def normalise(document: dict[str, Any]) -> dict[str, Any]:
    """The service's metadata fields present in the document; attributes/properties as JSON."""
    out: dict[str, Any] = {}
    for source, target in STRING_FIELDS.items():
        value = document.get(source)
        if isinstance(value, str) and target not in out:
            out[target] = value
    for key in ("attributes", "properties"):
        if key in document and document[key] is not None:
            value = document[key]
            out[key] = value if isinstance(value, str) else orjson.dumps(value).decode()
    decimals = document.get("decimals")
    if isinstance(decimals, int) and not isinstance(decimals, bool):
        out["decimals"] = decimals
    return out


async def reindex(
    db: Database,
    calls: Calls,
    fetcher: DocumentFetcher,
    chain_id: int,
    height: int,
    *,
    now: int,
    limit: int = 16,
) -> int:
    """Carries out up to `limit` of the chain's pending reindex requests (the data service's
    POST …:reindex): the token URI read again at `height` (the indexed head), its metadata
    fetched again, both stored with the request marked done. Returns how many were done."""
    wanted = await asyncio.to_thread(nft_reindex.pending, db, chain_id, limit)
    if not wanted or height < 0:
        return 0
    rows = await nft_rows(
        calls, fetcher, chain_id, [(r.token, r.token_id, r.erc_type, height, now) for r in wanted]
    )
    for request, row in zip(wanted, rows, strict=True):
        await asyncio.to_thread(nft_reindex.finish, db, row, request.requested, now)
    return len(rows)
