"""The CSV of an EVM transaction export: one line per item operation 5 lists for an address,
and the way back (`read_rows`), so that a file re-reads to exactly those items.

Columns: the exported `address`, then `nativeTransaction` flattened (`from.address`,
`method.callType`, …) in the order of its schema, then the four sub-lists as compact JSON. An
empty cell is an absent optional field; numbers that the API sends as JSON integers are
written in decimal and read back as integers."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

Item = dict[str, Any]

_PARTY = ("address", "name", "symbol", "decimals", "logoUri")
# (column, path in nativeTransaction, whether JSON sends it as an integer)
NATIVE: tuple[tuple[str, tuple[str, ...], bool], ...] = (
    *(
        (name, (name,), name in ("blockTimestamp", "blockIndex", "txType"))
        for name in (
            "blockNumber",
            "blockTimestamp",
            "blockHash",
            "chainId",
            "blockIndex",
            "txHash",
            "txStatus",
            "txType",
            "gasLimit",
            "gasUsed",
            "gasPrice",
            "nonce",
        )
    ),
    *((f"from.{k}", ("from", k), k == "decimals") for k in _PARTY),
    *((f"to.{k}", ("to", k), k == "decimals") for k in _PARTY),
    ("value", ("value",), False),
    ("method.callType", ("method", "callType"), False),
    ("method.methodHash", ("method", "methodHash"), False),
    ("method.methodName", ("method", "methodName"), False),
)
SUBLISTS = ("erc20Transfers", "erc721Transfers", "erc1155Transfers", "internalTransactions")
HEADER = ("address", *(c for c, _, _ in NATIVE), *SUBLISTS)
# Nested objects: the key whose cell says the object is there, and the keys it always has
# (its other keys are optional, absent when their cell is empty).
_NESTED = {
    "from": ("address", {"address"}),
    "to": ("address", {"address"}),
    "method": ("callType", {"callType", "methodHash"}),
}


_TOP = tuple(path[0] for _, path, _ in NATIVE if len(path) == 1)
_PARTY_KEYS = _PARTY
_METHOD_KEYS = ("callType", "methodHash", "methodName")
_NOTHING: Item = {}


def csv_line(address: str, item: Item) -> list[Any]:
    """The cells of one exported item (in HEADER's order; csv writes integers in decimal).
    Written out rather than walked from NATIVE: this runs once per exported transaction."""
    native = item["nativeTransaction"]
    sender = native.get("from") or _NOTHING
    receiver = native.get("to") or _NOTHING
    method = native.get("method") or _NOTHING
    cells: list[Any] = [address]
    cells += [native[k] for k in _TOP[:12]]
    cells += [sender.get(k, "") for k in _PARTY_KEYS]
    cells += [receiver.get(k, "") for k in _PARTY_KEYS]
    cells.append(native["value"])
    cells += [method.get(k, "") for k in _METHOD_KEYS]
    for name in SUBLISTS:
        found = item.get(name)
        cells.append("" if found is None else "[]" if not found else orjson.dumps(found).decode())
    return cells


def write_lines(lines: Iterable[list[Any]], *, header: bool) -> str:
    """CSV text (RFC 4180 line ends) of `lines`, after the header when asked."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    if header:
        writer.writerow(HEADER)
    writer.writerows(lines)
    return out.getvalue()


def read_rows(text: str) -> Iterator[tuple[str, Item]]:
    """(address, item) of every line of an export's CSV: the inverse of `csv_line`."""
    reader = csv.reader(io.StringIO(text, newline=""))
    if next(reader, None) != list(HEADER):
        raise ValueError("not a transaction export (header differs)")
    width = len(NATIVE)
    for cells in reader:
        row = dict(zip((c for c, _, _ in NATIVE), cells[1 : 1 + width], strict=True))
        native: Item = {}
        for column, path, integer in NATIVE:
            cell = row[column]
            if len(path) == 1:  # every top-level field is required
                native[path[0]] = int(cell) if integer else cell
                continue
            parent, key = path
            anchor, required = _NESTED[parent]
            if row[f"{parent}.{anchor}"] == "" or (cell == "" and key not in required):
                continue
            native.setdefault(parent, {})[key] = int(cell) if integer else cell
        item: Item = {"nativeTransaction": native}
        for name, cell in zip(SUBLISTS, cells[1 + width :], strict=True):
            if cell:
                item[name] = orjson.loads(cell)
        yield cells[0], item
