"""Accounts eth_sendTransaction may send from without their key (anvil_impersonateAccount)."""

from __future__ import annotations

from snowfield.crypto.hashing import keccak
from snowfield.crypto.secp256k1 import N


class Impersonation:
    """The impersonated addresses, or every address once auto-impersonation is on."""

    def __init__(self) -> None:
        self.addresses: set[bytes] = set()
        self.everyone = False

    def covers(self, address: bytes) -> bool:
        return self.everyone or address in self.addresses

    def clear(self) -> None:
        self.addresses.clear()
        self.everyone = False


def stand_in_key(address: bytes) -> bytes:
    """The key that signs an impersonated account's transactions: one per account, so two
    accounts' otherwise equal transactions keep distinct hashes (the node records the
    sender itself; the signature only has to be well formed)."""
    seed = keccak(b"snowfield impersonation" + address)
    return (int.from_bytes(seed, "big") % (N - 1) + 1).to_bytes(32, "big")
