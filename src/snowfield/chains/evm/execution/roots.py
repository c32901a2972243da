"""Merkle-Patricia roots of ordered lists (transactions, receipts) and of the empty trie."""

from __future__ import annotations

from collections.abc import Sequence

import rlp
from trie import HexaryTrie

EMPTY_ROOT = bytes.fromhex("56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421")


def ordered_root(items: Sequence[bytes]) -> bytes:
    """Root of the trie mapping rlp(index) to each item, as block headers commit to."""
    if not items:
        return EMPTY_ROOT
    trie = HexaryTrie({})
    with trie.squash_changes() as batch:
        for index, item in enumerate(items):
            batch[rlp.encode(index)] = item
    return bytes(trie.root_hash)
