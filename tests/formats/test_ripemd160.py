"""RIPEMD-160 (pycryptodome): the paper's vectors, and hash160 = ripemd160 of sha256."""

from __future__ import annotations

import hashlib

import pytest

from snowfield.formats.ripemd160 import hash160, ripemd160

# From "RIPEMD-160: A Strengthened Version of RIPEMD" (Dobbertin, Bosselaers, Preneel), appendix.
VECTORS = [
    (b"", "9c1185a5c5e9fc54612808977ee8f548b2258d31"),
    (b"a", "0bdc9d2d256b3ee9daae347be6f4dc835a467ffe"),
    (b"abc", "8eb208f7e05d987a9b044a8e98c6b087f15a0bfc"),
    (b"message digest", "5d0689ef49d2fae572b881b123a85ffa21595f36"),
    (b"abcdefghijklmnopqrstuvwxyz", "f71c27109c692c1b56bbdceb5b9d2865b3708dbc"),
    (
        b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
        "12a053384a9c0c88e405a06c27dcf49ada62eb2b",
    ),
    (
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
        "b0e20b6e3116640286ed3a87a5713079b21f5189",
    ),
    (b"1234567890" * 8, "9b752e45573d4b39f4dbd3323cab82bf63326bfb"),
]


@pytest.mark.parametrize(("message", "digest"), VECTORS)
def test_matches_paper_vectors(message: bytes, digest: str) -> None:
    assert ripemd160(message).hex() == digest


def test_million_a() -> None:
    assert ripemd160(b"a" * 1_000_000).hex() == "52783243c1697bdbe16d37f97f68f08325dc1528"


def test_hash160_is_ripemd160_of_sha256() -> None:
    assert hash160(b"") == bytes.fromhex("b472a266d0bd89c13706a4132ccfb16f7c3b9fcb")
    assert hash160(b"snowfield") == ripemd160(hashlib.sha256(b"snowfield").digest())
