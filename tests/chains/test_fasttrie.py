"""Our account trie against py-trie's HexaryTrie: same roots, readable by each other."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from trie import HexaryTrie

from snowfield.chains.evm.execution.fasttrie import BLANK_ROOT, FastTrie

small_keys = st.binary(min_size=1, max_size=3)
ops = st.lists(st.tuples(small_keys, st.binary(max_size=40)), max_size=60)


def _apply(trie: object, ops_list: list[tuple[bytes, bytes]]) -> None:
    for key, value in ops_list:
        if value:
            trie[key] = value  # type: ignore[index]
        else:
            del trie[key]  # type: ignore[attr-defined]


@settings(max_examples=200, deadline=None)
@given(ops)
def test_same_root_as_hexary_trie(ops_list: list[tuple[bytes, bytes]]) -> None:
    ours_db: dict[bytes, bytes] = {}
    ours = FastTrie(ours_db)
    ref = HexaryTrie({})
    _apply(ours, ops_list)
    _apply(ref, ops_list)
    assert ours.root_hash == ref.root_hash
    # py-trie reads every key back from what we stored, and so do we from a fresh start.
    reader = HexaryTrie(ours_db, ours.root_hash)
    fresh = FastTrie(ours_db, ours.root_hash)
    for key, _ in ops_list:
        assert reader.get(key) == ref.get(key) == fresh.get(key)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.binary(min_size=32, max_size=32), st.binary(min_size=1, max_size=80)),
        max_size=40,
    ),
    ops,
)
def test_incremental_updates_over_stored_nodes(
    base: list[tuple[bytes, bytes]], more: list[tuple[bytes, bytes]]
) -> None:
    db: dict[bytes, bytes] = {}
    first = FastTrie(db)
    ref = HexaryTrie({})
    _apply(first, base)
    _apply(ref, base)
    root = first.root_hash
    second = FastTrie(db, root)  # continues from stored nodes, as the next block does
    _apply(second, more)
    _apply(ref, more)
    assert second.root_hash == ref.root_hash
    assert HexaryTrie(db, root).root_hash == root  # the old root stays readable


def test_empty_and_delete_everything() -> None:
    trie = FastTrie({})
    assert trie.root_hash == BLANK_ROOT
    trie[b"a"] = b"1"
    trie[b"ab"] = b"2"
    del trie[b"a"]
    del trie[b"ab"]
    assert trie.root_hash == BLANK_ROOT and trie.get(b"a") == b""
