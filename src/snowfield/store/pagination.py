"""Keyset positions ⇄ opaque page tokens, signed so that clients can neither forge nor move them."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import orjson

from snowfield.errors import InvalidParams

T = TypeVar("T")
Key = tuple[int | str, ...]
Scope = Mapping[str, object]

TOKEN_VERSION = 2  # 2: the scope is in the MAC only (1 also carried its digest)
_MAC_BYTES = 16  # 128-bit tag: forging needs 2^128 tries; halves the token length
_BLOCK = 64  # SHA-256's block size in bytes


@dataclass(slots=True)
class Page(Generic[T]):
    """One page of a keyset listing; `next_key` is the last item's key when more items exist.
    Not frozen: one is made for every page served, and a frozen dataclass's __init__ sets each
    field through object.__setattr__."""

    items: list[T]
    next_key: Key | None


def page_of(rows: Sequence[T], limit: int, key: Callable[[T], Key]) -> Page[T]:
    """Cuts a `limit + 1` fetch into a page: the extra row only proves that more data exists."""
    items = rows[:limit]
    if not isinstance(items, list):  # a list's slice is already a list of its own
        items = list(items)
    if len(rows) <= limit or not items:
        return Page(items, None)
    return Page(items, key(items[-1]))


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    """Only the canonical spelling `_b64` writes: Python's decoder would also take `+`/`/`,
    padding, stray characters and a last character with other unused bits, so that another
    string would name the same page ("change one character, get a 400" must always hold)."""
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if _b64(data) != text:
        raise ValueError("not the canonical encoding")
    return data


def _hmac_states(secret: bytes) -> tuple[Any, Any]:
    """SHA-256 after the inner and the outer padded key of HMAC-SHA256 (RFC 2104)."""
    key = hashlib.sha256(secret).digest() if len(secret) > _BLOCK else secret
    key = key.ljust(_BLOCK, b"\0")
    return (
        hashlib.sha256(bytes(b ^ 0x36 for b in key)),
        hashlib.sha256(bytes(b ^ 0x5C for b in key)),
    )


class PageTokens:
    """Signs keyset positions together with the query they belong to (HMAC-SHA256).

    Invariant: a token decodes only under the same `scope` (operation plus every parameter that
    shapes the list), so a token replayed on another address, range or order is refused.
    """

    def __init__(self, secret: str | bytes) -> None:
        self._secret = secret.encode() if isinstance(secret, str) else secret
        self._inner, self._outer = _hmac_states(self._secret)
        # Tokens made and read, by (canonical scope, body or token): a token is a pure
        # function of those and the secret, and signing one cost about 5 µs of a warm page
        # of operation 5 (issue 34), a dictionary look-up a small fraction of that. Only valid
        # readings are kept; both bounded like the endpoints' argument cache.
        self._made: dict[tuple[bytes, bytes], str] = {}
        self._read: dict[tuple[bytes, str], Key] = {}

    @staticmethod
    def canonical(scope: Scope) -> bytes:
        """The bytes a scope is signed as: the same for every spelling of the same scope."""
        plain = scope if isinstance(scope, dict) else dict(scope)
        return orjson.dumps(plain, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)

    def _mac(self, canonical: bytes, body: bytes) -> bytes:
        # The query's scope is signed with the position but not carried: a token presented
        # with any other scope fails like an altered one.
        # HMAC-SHA256 (RFC 2104) from the key's two padded states, hashed once here: about a
        # third of hmac.digest's time, which hashes both pads again for every token (operation
        # 5 signs one per page and checks one per later page).
        inner = self._inner.copy()
        inner.update(canonical + b"\n" + body)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return bytes(outer.digest()[:_MAC_BYTES])

    def encode(self, scope: Scope, key: Key) -> str:
        return self.encode_in(self.canonical(scope), key)

    def encode_in(self, canonical: bytes, key: Key) -> str:
        """`encode` for a scope already made `canonical` (a caller that keeps it)."""
        body = orjson.dumps([TOKEN_VERSION, *key])
        seen = (canonical, body)
        token = self._made.get(seen)
        if token is None:
            token = f"{_b64(body)}.{_b64(self._mac(seen[0], body))}"
            _remember(self._made, seen, token)
        return token

    def decode(self, token: str, scope: Scope) -> Key:
        """The keyset position inside `token`; InvalidParams naming `pageToken` otherwise."""
        return self.decode_in(self.canonical(scope), token)

    def decode_in(self, canonical: bytes, token: str) -> Key:
        """`decode` for a scope already made `canonical`."""
        seen = (canonical, token)
        key = self._read.get(seen)
        if key is None:
            key = self._check(token, seen[0])
            _remember(self._read, seen, key)
        return key

    def _check(self, token: str, canonical: bytes) -> Key:
        body_text, _, mac_text = token.partition(".")
        try:
            body, mac = _unb64(body_text), _unb64(mac_text)
        except (binascii.Error, ValueError):
            raise InvalidParams("pageToken is malformed") from None
        if not hmac.compare_digest(mac, self._mac(canonical, body)):
            raise InvalidParams("pageToken is invalid: altered, or from another query")
        version, *key = orjson.loads(body)
        if version != TOKEN_VERSION:
            raise InvalidParams("pageToken is of an older version; start from the first page")
        return tuple(key)


_MEMO = 4096  # tokens each cache keeps before it starts over


def _remember(memo: dict[Any, Any], seen: Any, value: Any) -> None:
    if len(memo) >= _MEMO:
        memo.clear()
    memo[seen] = value
