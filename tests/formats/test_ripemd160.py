"""RIPEMD-160: the paper's vectors for both implementations, and pure == OpenSSL when present."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from snowfield.formats.ripemd160 import hash160, pure_ripemd160, ripemd160

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


def _has_openssl_ripemd160() -> bool:
    try:
        hashlib.new("ripemd160")
    except ValueError:
        return False
    return True


@pytest.mark.parametrize(("message", "digest"), VECTORS)
def test_pure_matches_paper_vectors(message: bytes, digest: str) -> None:
    assert pure_ripemd160(message).hex() == digest


@pytest.mark.parametrize(("message", "digest"), VECTORS)
def test_public_function_matches_paper_vectors(message: bytes, digest: str) -> None:
    assert ripemd160(message).hex() == digest


def test_million_a() -> None:
    assert pure_ripemd160(b"a" * 1_000_000).hex() == "52783243c1697bdbe16d37f97f68f08325dc1528"


@pytest.mark.parametrize("length", [54, 55, 56, 57, 63, 64, 65, 119, 120, 128])
def test_padding_boundaries_agree_with_openssl(length: int) -> None:
    if not _has_openssl_ripemd160():
        pytest.skip("OpenSSL has no ripemd160 here")
    message = bytes(range(256))[:length] if length <= 256 else b"x" * length
    assert pure_ripemd160(message) == hashlib.new("ripemd160", message).digest()


@given(st.binary(max_size=300))
def test_pure_agrees_with_openssl(message: bytes) -> None:
    if not _has_openssl_ripemd160():
        pytest.skip("OpenSSL has no ripemd160 here")
    assert pure_ripemd160(message) == hashlib.new("ripemd160", message).digest()


def test_hash160_is_ripemd160_of_sha256() -> None:
    data = b"snowfield"
    assert hash160(data) == pure_ripemd160(hashlib.sha256(data).digest())


def test_falls_back_to_pure_python_without_openssl(monkeypatch: pytest.MonkeyPatch) -> None:
    from snowfield.formats import ripemd160 as module

    def no_ripemd160(name: str, *args: object) -> object:
        raise ValueError(f"unsupported hash type {name}")

    monkeypatch.setattr(hashlib, "new", no_ripemd160)
    assert module._pick() is pure_ripemd160
