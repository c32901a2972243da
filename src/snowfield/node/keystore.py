"""Accounts the node can sign for: the dev accounts and keys imported with personal_importRawKey."""

from __future__ import annotations

import hashlib
import hmac
import os
import time
from dataclasses import dataclass, field

from snowfield.crypto.keys import DevKey, key_from_bytes
from snowfield.errors import Conflict, Unauthorized


@dataclass(slots=True)
class _Entry:
    key: DevKey
    salt: bytes
    digest: bytes
    unlocked_until: float = 0.0  # 0 = locked; inf = unlocked for good
    dev: bool = field(default=False)


class Keystore:
    """Dev accounts are always unlocked (as anvil's); imported keys need their passphrase."""

    def __init__(self, dev_keys: list[DevKey]) -> None:
        self._entries: dict[bytes, _Entry] = {}
        for key in dev_keys:
            salt = os.urandom(16)
            self._entries[key.address] = _Entry(key, salt, _hash("", salt), float("inf"), True)

    def __contains__(self, address: bytes) -> bool:
        return address in self._entries

    def addresses(self) -> list[bytes]:
        return list(self._entries)

    def import_key(self, private_key: bytes, passphrase: str) -> bytes:
        key = key_from_bytes(private_key)
        if key.address in self._entries:
            raise Conflict("account already exists")
        salt = os.urandom(16)
        self._entries[key.address] = _Entry(key, salt, _hash(passphrase, salt))
        return key.address

    def unlock(self, address: bytes, passphrase: str, duration: int | None) -> bool:
        entry = self._get(address)
        if not hmac.compare_digest(entry.digest, _hash(passphrase, entry.salt)) and not entry.dev:
            raise Unauthorized("could not decrypt key with given password")
        seconds = 300 if duration is None else duration
        entry.unlocked_until = float("inf") if seconds == 0 else time.monotonic() + seconds
        return True

    def signer(self, address: bytes, passphrase: str | None = None) -> DevKey:
        """The key for `address`: the passphrase must match, or the account be unlocked."""
        entry = self._get(address)
        if passphrase is not None:
            if not entry.dev and not hmac.compare_digest(
                entry.digest, _hash(passphrase, entry.salt)
            ):
                raise Unauthorized("could not decrypt key with given password")
            return entry.key
        if entry.unlocked_until < time.monotonic():
            raise Unauthorized("authentication needed: password or unlock")
        return entry.key

    def _get(self, address: bytes) -> _Entry:
        entry = self._entries.get(address)
        if entry is None:
            raise Unauthorized("unknown account")
        return entry


def _hash(passphrase: str, salt: bytes) -> bytes:
    return hashlib.scrypt(passphrase.encode(), salt=salt, n=2**12, r=8, p=1)
