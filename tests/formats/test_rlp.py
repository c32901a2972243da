"""Our RLP encoder agrees with the rlp package on every shape it accepts."""

from __future__ import annotations

import rlp
from hypothesis import given
from hypothesis import strategies as st

from snowfield.formats.rlp import encode

items = st.recursive(
    st.binary(max_size=80) | st.integers(min_value=0, max_value=2**260),
    lambda children: st.lists(children, max_size=6),
    max_leaves=20,
)


@given(items)
def test_matches_reference_encoder(item: object) -> None:
    assert encode(item) == rlp.encode(item)  # type: ignore[arg-type]


def test_long_list_and_string_prefixes() -> None:
    assert encode(b"x" * 60)[:2] == b"\xb8\x3c"
    assert encode([b"x" * 30, b"y" * 30])[:2] == b"\xf8\x3e"
    assert encode(0) == b"\x80" and encode(127) == b"\x7f" and encode(128) == b"\x81\x80"
