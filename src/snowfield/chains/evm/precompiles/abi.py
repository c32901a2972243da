"""The few ABI pieces precompiles need: selectors, 32-byte words, EIP-55 addresses."""

from __future__ import annotations

from snowfield.chains.evm.precompiles.base import PrecompileError
from snowfield.crypto.hashing import keccak


def selector(signature: str) -> bytes:
    return keccak(signature.encode())[:4]


def topic(signature: str) -> bytes:
    return keccak(signature.encode())


def word(value: int | bytes) -> bytes:
    if isinstance(value, bytes):
        return value.rjust(32, b"\x00")
    return value.to_bytes(32, "big")


def words(args: bytes, count: int, *, strict: bool = False) -> list[int]:
    """The first `count` 32-byte arguments as integers (Go's abi unpacking: extra bytes
    are ignored unless strict)."""
    need = 32 * count
    if len(args) < need or (strict and len(args) != need):
        raise PrecompileError(
            f"abi: cannot marshal in to go type: length insufficient {len(args)} require {need}"
        )
    return [int.from_bytes(args[i * 32 : i * 32 + 32], "big") for i in range(count)]


def address_arg(value: int) -> bytes:
    """An address argument: the word's low 20 bytes (Go's abi does not check the padding)."""
    return (value & (2**160 - 1)).to_bytes(20, "big")


def checksummed(address: bytes) -> str:
    """EIP-55, as Go prints a common.Address."""
    plain = address.hex()
    digest = keccak(plain.encode()).hex()
    return "0x" + "".join(
        c.upper() if int(d, 16) >= 8 else c for c, d in zip(plain, digest[:40], strict=True)
    )
