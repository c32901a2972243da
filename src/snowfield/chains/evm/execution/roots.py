"""Merkle-Patricia roots of ordered lists (transactions, receipts), built in one pass.

A block commits to its transactions and receipts through tries keyed by rlp(index); building
them node by node from the sorted keys avoids a general trie's per-insert rewrites."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from snowfield.chains.evm.execution.fasttrie import hex_prefix, nibbles
from snowfield.crypto.hashing import keccak
from snowfield.formats.rlp import encode, encode_bytes, encode_int, encode_list_of_encoded

EMPTY_ROOT = bytes.fromhex("56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421")
_FIRST_LEAF_PATH = encode_bytes(hex_prefix(nibbles(encode_int(0)), leaf=True))


def ordered_root(items: Sequence[bytes]) -> bytes:
    """Root of the trie mapping rlp(index) to each item, as block headers commit to."""
    if not items:
        return EMPTY_ROOT
    if len(items) == 1:  # an automined block: one leaf holding the whole key rlp(0)
        return keccak(encode_list_of_encoded([_FIRST_LEAF_PATH, encode_bytes(items[0])]))
    pairs = sorted((nibbles(encode_int(i)), item) for i, item in enumerate(items))
    return keccak(encode(_node(pairs, 0)))


def _ref(node: Any) -> Any:
    """A child as its parent holds it: inline when its encoding is under 32 bytes."""
    encoded = encode(node)
    return node if len(encoded) < 32 else keccak(encoded)


def _node(pairs: list[tuple[tuple[int, ...], bytes]], depth: int) -> Any:
    if len(pairs) == 1:
        key, value = pairs[0]
        return [hex_prefix(key[depth:], leaf=True), value]
    first, last = pairs[0][0], pairs[-1][0]
    shared = 0
    while (
        depth + shared < len(first)
        and depth + shared < len(last)
        and first[depth + shared] == last[depth + shared]
    ):
        shared += 1
    if shared:
        child = _node(pairs, depth + shared)
        return [hex_prefix(first[depth : depth + shared], leaf=False), _ref(child)]
    branch: list[Any] = [b""] * 17
    groups: dict[int, list[tuple[tuple[int, ...], bytes]]] = {}
    for key, value in pairs:
        if len(key) == depth:
            branch[16] = value
        else:
            groups.setdefault(key[depth], []).append((key, value))
    for nibble, group in groups.items():
        branch[nibble] = _ref(_node(group, depth + 1))
    return branch
