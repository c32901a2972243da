"""RIPEMD-160 and hash160 (ripemd160 of sha256), the digest behind Avalanche short ids."""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable

DIGEST_SIZE = 20

_MASK = 0xFFFFFFFF
_INITIAL = (0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0)
_K_LEFT = (0x00000000, 0x5A827999, 0x6ED9EBA1, 0x8F1BBCDC, 0xA953FD4E)
_K_RIGHT = (0x50A28BE6, 0x5C4DD124, 0x6D703EF3, 0x7A6D76E9, 0x00000000)
# Message-word order and rotation amounts per step, from the RIPEMD-160 paper (Dobbertin et al.).
# fmt: off
_R_LEFT = (
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    7, 4, 13, 1, 10, 6, 15, 3, 12, 0, 9, 5, 2, 14, 11, 8,
    3, 10, 14, 4, 9, 15, 8, 1, 2, 7, 0, 6, 13, 11, 5, 12,
    1, 9, 11, 10, 0, 8, 12, 4, 13, 3, 7, 15, 14, 5, 6, 2,
    4, 0, 5, 9, 7, 12, 2, 10, 14, 1, 3, 8, 11, 6, 15, 13,
)
_R_RIGHT = (
    5, 14, 7, 0, 9, 2, 11, 4, 13, 6, 15, 8, 1, 10, 3, 12,
    6, 11, 3, 7, 0, 13, 5, 10, 14, 15, 8, 12, 4, 9, 1, 2,
    15, 5, 1, 3, 7, 14, 6, 9, 11, 8, 12, 2, 10, 0, 4, 13,
    8, 6, 4, 1, 3, 11, 15, 0, 5, 12, 2, 13, 9, 7, 10, 14,
    12, 15, 10, 4, 1, 5, 8, 7, 6, 2, 13, 14, 0, 3, 9, 11,
)
_S_LEFT = (
    11, 14, 15, 12, 5, 8, 7, 9, 11, 13, 14, 15, 6, 7, 9, 8,
    7, 6, 8, 13, 11, 9, 7, 15, 7, 12, 15, 9, 11, 7, 13, 12,
    11, 13, 6, 7, 14, 9, 13, 15, 14, 8, 13, 6, 5, 12, 7, 5,
    11, 12, 14, 15, 14, 15, 9, 8, 9, 14, 5, 6, 8, 6, 5, 12,
    9, 15, 5, 11, 6, 8, 13, 12, 5, 12, 13, 14, 11, 8, 5, 6,
)
_S_RIGHT = (
    8, 9, 9, 11, 13, 15, 15, 5, 7, 7, 8, 11, 14, 14, 12, 6,
    9, 13, 15, 7, 12, 8, 9, 11, 7, 7, 12, 7, 6, 15, 13, 11,
    9, 7, 15, 11, 8, 6, 6, 14, 12, 13, 5, 14, 13, 13, 7, 5,
    15, 5, 8, 11, 14, 14, 6, 14, 6, 9, 12, 9, 12, 5, 15, 8,
    8, 5, 12, 9, 12, 5, 14, 6, 8, 13, 6, 5, 15, 13, 11, 11,
)
# fmt: on


def _f(round_: int, x: int, y: int, z: int) -> int:
    if round_ == 0:
        return x ^ y ^ z
    if round_ == 1:
        return (x & y) | (~x & z)
    if round_ == 2:
        return (x | ~y) ^ z
    if round_ == 3:
        return (x & z) | (y & ~z)
    return x ^ (y | ~z)


def _rol(value: int, bits: int) -> int:
    value &= _MASK
    return ((value << bits) | (value >> (32 - bits))) & _MASK


def _line(state: tuple[int, ...], words: tuple[int, ...], *, right: bool) -> tuple[int, ...]:
    """Run one of the two parallel 80-step lines over a block; returns (a, b, c, d, e)."""
    a, b, c, d, e = state
    r, s, k = (_R_RIGHT, _S_RIGHT, _K_RIGHT) if right else (_R_LEFT, _S_LEFT, _K_LEFT)
    for j in range(80):
        round_ = j // 16
        f = _f(4 - round_ if right else round_, b, c, d)
        t = (_rol(a + f + words[r[j]] + k[round_], s[j]) + e) & _MASK
        a, e, d, c, b = e, d, _rol(c, 10), b, t
    return a, b, c, d, e


def _compress(h: tuple[int, ...], block: bytes) -> tuple[int, ...]:
    words = struct.unpack("<16I", block)
    al, bl, cl, dl, el = _line(h, words, right=False)
    ar, br, cr, dr, er = _line(h, words, right=True)
    return (
        (h[1] + cl + dr) & _MASK,
        (h[2] + dl + er) & _MASK,
        (h[3] + el + ar) & _MASK,
        (h[4] + al + br) & _MASK,
        (h[0] + bl + cr) & _MASK,
    )


def pure_ripemd160(data: bytes) -> bytes:
    """RIPEMD-160 in pure Python, for OpenSSL 3 builds without the legacy provider."""
    # MD4-style padding: 0x80, zeros to 56 mod 64, then the bit length as a little-endian u64.
    padded = data + b"\x80" + b"\x00" * ((55 - len(data)) % 64) + struct.pack("<Q", 8 * len(data))
    h: tuple[int, ...] = _INITIAL
    for offset in range(0, len(padded), 64):
        h = _compress(h, padded[offset : offset + 64])
    return struct.pack("<5I", *h)


def _openssl_ripemd160(data: bytes) -> bytes:
    return hashlib.new("ripemd160", data).digest()


def _pick() -> Callable[[bytes], bytes]:
    try:
        hashlib.new("ripemd160")
    except ValueError:
        return pure_ripemd160
    return _openssl_ripemd160


_ripemd160 = _pick()


def ripemd160(data: bytes) -> bytes:
    """RIPEMD-160 digest (20 bytes); OpenSSL's when available, else the pure implementation."""
    return _ripemd160(data)


def hash160(data: bytes) -> bytes:
    """ripemd160(sha256(data)): secp256k1 addresses and node ids (from a staking cert) use it."""
    return _ripemd160(hashlib.sha256(data).digest())
