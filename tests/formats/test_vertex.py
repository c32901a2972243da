"""Legacy DAG vertices: a mainnet vertex (avalanchejs's test data, hex with its checksum)
round-trips byte-exact; malformed vertices are refused as avalanchego's parser refuses them."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from snowfield.errors import InvalidParams
from snowfield.formats.hexcheck import decode_hex
from snowfield.formats.ids import ID
from snowfield.formats.vertex import Vertex, decode_vertex

VECTOR = Path(__file__).parent / "vectors" / "vertex_mainnet_avalanchejs.hex"
MAINNET_X = "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM"


def test_mainnet_vertex_round_trips() -> None:
    data = decode_hex("0x" + VECTOR.read_text().strip())  # checksum verified
    vertex = decode_vertex(data)
    assert str(vertex.chain_id) == MAINNET_X
    assert vertex.height == 2_121_958 and len(vertex.parent_ids) == 1 and len(vertex.txs) == 1
    assert vertex.encode() == data
    assert vertex.id == ID(hashlib.sha256(data).digest())
    assert vertex.tx_ids == (ID(hashlib.sha256(vertex.txs[0]).digest()),)


def _sorted_txs(txs: list[bytes]) -> tuple[bytes, ...]:
    unique = {hashlib.sha256(t).digest(): t for t in txs}
    return tuple(unique[h] for h in sorted(unique))


@given(
    st.integers(0, 2**64 - 1),
    st.sets(st.binary(min_size=32, max_size=32), max_size=5),
    st.lists(st.binary(min_size=1, max_size=40), min_size=1, max_size=5),
)
def test_vertices_round_trip(height: int, parents: set[bytes], txs: list[bytes]) -> None:
    vertex = Vertex(ID(b"\x01" * 32), height, tuple(ID(p) for p in sorted(parents)),
                    _sorted_txs(txs))  # fmt: skip
    assert decode_vertex(vertex.encode()) == vertex
    stop = Vertex(vertex.chain_id, height, vertex.parent_ids, (), stop=True)
    assert decode_vertex(stop.encode()) == stop


def _bad(vertex: Vertex) -> bytes:
    # Encoding does not check the rules decoding enforces.
    return vertex.encode()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "couldn't unpack codec version"),
        (b"\x00\x07" + bytes(60), "unknown codec version"),
        (_bad(Vertex(ID(bytes(32)), 1, (), (b"a",)))[:-1], "insufficient"),
        (_bad(Vertex(ID(bytes(32)), 1, (), (b"a",))) + b"\x00", "trailing buffer space"),
        (_bad(Vertex(ID(bytes(32)), 1, (ID(b"\x02" * 32), ID(b"\x01" * 32)), (b"a",))), "parents"),
        (_bad(Vertex(ID(bytes(32)), 1, (ID(b"\x01" * 32),) * 2, (b"a",))), "parents"),
        (_bad(Vertex(ID(bytes(32)), 1, (), ())), "no transactions"),
        (_bad(Vertex(ID(bytes(32)), 1, (), (b"a", b"a"))), "transactions"),
        (_bad(Vertex(ID(bytes(32)), 1, (), (b"a",), epoch=1)), "epoch"),
    ],
)
def test_malformed_vertices_are_refused(data: bytes, message: str) -> None:
    with pytest.raises(InvalidParams, match=message):
        decode_vertex(data)
