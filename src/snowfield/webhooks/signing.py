"""What a delivery is signed with: `x-signature` = base64(HMAC-SHA256(the API key's shared
secret as UTF-8, the raw request body)), the scheme chainkit's `validateWebhook` verifies."""

from __future__ import annotations

import base64
import hashlib
import hmac

HEADER = "x-signature"


def sign(secret: str, body: bytes) -> str:
    digest = hmac.new(secret.encode(), body, hashlib.sha256).digest()
    return base64.b64encode(digest).decode()


def verify(secret: str, body: bytes, signature: str) -> bool:
    """A receiver's check, in constant time."""
    return hmac.compare_digest(sign(secret, body), signature)
