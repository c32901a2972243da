"""What a contract is (ERC-20, ERC-721, ERC-1155 or unknown) and its token metadata, from
ERC-165 and name/symbol/decimals calls at the block where the indexer first saw it."""

from __future__ import annotations

from collections.abc import Sequence

from snowfield.indexer.abi import as_bool, as_string, as_uint, call_data
from snowfield.indexer.calls import Calls
from snowfield.store.rows import TokenRow

SUPPORTS_INTERFACE = "0x01ffc9a7"
ERC721_ID = 0x80AC58CD << 224
ERC1155_ID = 0xD9B67A26 << 224
NAME, SYMBOL, DECIMALS, TOTAL_SUPPLY = "0x06fdde03", "0x95d89b41", "0x313ce567", "0x18160ddd"
PROBES = (
    call_data(SUPPORTS_INTERFACE, ERC721_ID),
    call_data(SUPPORTS_INTERFACE, ERC1155_ID),
    NAME,
    SYMBOL,
    DECIMALS,
    TOTAL_SUPPLY,
)


async def detect(
    calls: Calls, chain_id: int, seen: Sequence[tuple[str, int, str | None]]
) -> list[TokenRow]:
    """`seen` = (address, first block, ERC type its transfer events suggest or None)."""
    results = await calls.eth_calls([(a, p, b) for a, b, _ in seen for p in PROBES])
    rows = []
    for n, (address, block, hint) in enumerate(seen):
        r721, r1155, name, symbol, decimals, supply = results[n * 6 : n * 6 + 6]
        kind = _kind(r721, r1155, decimals, supply, hint)
        dec = as_uint(decimals) if decimals is not None else None
        rows.append(
            TokenRow(
                chain_id=chain_id,
                address=address,
                erc_type=kind,
                name=as_string(name) if name is not None else None,
                symbol=as_string(symbol) if symbol is not None else None,
                decimals=dec if dec is not None and dec < 256 else None,
                first_block=block,
            )
        )
    return rows


def _kind(
    r721: bytes | None,
    r1155: bytes | None,
    decimals: bytes | None,
    supply: bytes | None,
    hint: str | None,
) -> str:
    if r721 is not None and as_bool(r721):
        return "ERC-721"
    if r1155 is not None and as_bool(r1155):
        return "ERC-1155"
    if hint is not None:
        return hint
    if decimals is not None and supply is not None and len(decimals) == 32:
        return "ERC-20"
    return "UNKNOWN"
