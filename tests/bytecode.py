"""Tiny hand-assembled contracts for node tests (no compiler needed)."""

from __future__ import annotations

STORE_TOPIC = bytes.fromhex("aa" * 32)


def deploy_code(runtime: bytes) -> bytes:
    """Init code that returns `runtime` as the contract's code."""
    size = len(runtime).to_bytes(2, "big")
    prefix = b"\x61" + size + bytes.fromhex("80600c6000396000f3")
    assert len(prefix) == 12
    return prefix + runtime


# sstore(0, calldata[0]); log1(topic, calldata[0]); return calldata[0]
STORE = (
    bytes.fromhex("600035806000556000527f") + STORE_TOPIC + bytes.fromhex("60206000a160206000f3")
)

_ERROR = (
    bytes.fromhex("08c379a0")
    + (32).to_bytes(32, "big")
    + (4).to_bytes(32, "big")
    + b"boom".ljust(32, b"\x00")
)
# revert(Error("boom"))
REVERTER = bytes.fromhex("6064600c60003960646000fd") + _ERROR

# call(gas, address(calldata[0]), callvalue, 0, 0, 0, 0); return success flag
CALLER = bytes.fromhex("6000600060006000346000355af160005260206000f3")


def word(value: int | bytes) -> bytes:
    if isinstance(value, bytes):
        return value.rjust(32, b"\x00")
    return value.to_bytes(32, "big")
