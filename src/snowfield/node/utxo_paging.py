"""getUTXOs pages as platformvm and avm answer them: at most MAX_UTXOS addresses and UTXOs per
call, the UTXOs encoded, and the `endIndex` cursor (address and UTXO id) to resume after."""

from __future__ import annotations

from typing import Any

from snowfield.errors import InvalidParams
from snowfield.formats.hexcheck import Encoding, encode

MAX_UTXOS = 1024  # addresses per request, and UTXOs per page


def checked_count(addresses: list[str]) -> list[str]:
    """The addresses of a request, refused when there are none or too many."""
    if not addresses:
        raise InvalidParams("no addresses provided")
    if len(addresses) > MAX_UTXOS:
        raise InvalidParams(f"number of addresses given, {len(addresses)}, exceeds maximum, 1024")
    return addresses


def page_limit(asked: int) -> int:
    """The page size for an asked `limit` (0: the maximum)."""
    return min(asked or MAX_UTXOS, MAX_UTXOS)


def empty_end() -> dict[str, str]:
    """The end cursor of an empty page."""
    return {"address": "", "utxo": ""}


def utxo_page(utxos: list[bytes], end: dict[str, str], encoding: Encoding) -> dict[str, Any]:
    """One page: the UTXOs' bytes in `encoding`, and the cursor after the last."""
    return {
        "numFetched": str(len(utxos)),
        "utxos": [encode(u, encoding) for u in utxos],
        "endIndex": end,
        "encoding": str(encoding),
    }
