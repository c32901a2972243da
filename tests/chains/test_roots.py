"""Ordered-list trie roots agree with py-trie's HexaryTrie."""

from __future__ import annotations

import rlp
from hypothesis import given, settings
from hypothesis import strategies as st
from trie import HexaryTrie

from snowfield.chains.evm.execution.roots import EMPTY_ROOT, ordered_root


def reference(mapping: dict[bytes, bytes]) -> bytes:
    trie = HexaryTrie({})
    for key, value in mapping.items():
        trie[key] = value
    return bytes(trie.root_hash)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.binary(min_size=1, max_size=120), max_size=300))
def test_ordered_root(items: list[bytes]) -> None:
    assert ordered_root(items) == reference({rlp.encode(i): v for i, v in enumerate(items)})


def test_empty() -> None:
    assert ordered_root([]) == EMPTY_ROOT == reference({})


@settings(max_examples=60, deadline=None)
@given(st.binary(min_size=1, max_size=200))
def test_single_item(item: bytes) -> None:
    assert ordered_root([item]) == reference({rlp.encode(0): item})
