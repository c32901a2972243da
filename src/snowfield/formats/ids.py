"""32-byte IDs, 20-byte short ids and node ids, private-key strings, and the well-known ids."""

from __future__ import annotations

from dataclasses import dataclass

from snowfield.errors import InvalidParams
from snowfield.formats.cb58 import decode_cb58, encode_cb58
from snowfield.formats.ripemd160 import hash160

ID_LEN = 32
SHORT_ID_LEN = 20
NODE_ID_PREFIX = "NodeID-"


# The text of recent ids. A P-Chain block names the same ids again and again (its asset in
# every output, its parent, each tx's id for its UTXOs): 43% of the ids the primary indexer
# formats over a devnet's chain repeat one it formatted shortly before, and each cb58 costs
# ~5 us. Ids, short ids and node ids share it (the same bytes, the same text). Bounded: cleared
# when full.
_TEXT: dict[bytes, str] = {}
_TEXT_LIMIT = 4096


def _cb58(raw: bytes) -> str:
    text = _TEXT.get(raw)
    if text is None:
        if len(_TEXT) >= _TEXT_LIMIT:
            _TEXT.clear()
        text = _TEXT[raw] = encode_cb58(raw)
    return text


def _require_len(raw: bytes, length: int) -> bytes:
    if not isinstance(raw, bytes):
        raise TypeError(f"expected bytes, got {type(raw).__name__}")
    if len(raw) != length:
        raise InvalidParams(f"invalid hash length: expected {length} bytes but got {len(raw)}")
    return raw


@dataclass(frozen=True, slots=True, order=True, repr=False)
class ID:
    """A 32-byte identifier (tx, block, chain, subnet, asset); its text form is cb58."""

    raw: bytes

    def __post_init__(self) -> None:
        _require_len(self.raw, ID_LEN)

    @classmethod
    def from_string(cls, text: str) -> ID:
        return cls(_require_len(decode_cb58(text), ID_LEN))

    def hex(self) -> str:
        return self.raw.hex()

    def __str__(self) -> str:
        return _cb58(self.raw)

    def __repr__(self) -> str:
        return f"ID({str(self)!r})"


@dataclass(frozen=True, slots=True, order=True, repr=False)
class ShortID:
    """A 20-byte identifier (an address's payload); its text form is cb58."""

    raw: bytes

    def __post_init__(self) -> None:
        _require_len(self.raw, SHORT_ID_LEN)

    @classmethod
    def from_string(cls, text: str) -> ShortID:
        return cls(_require_len(decode_cb58(text), SHORT_ID_LEN))

    @classmethod
    def from_public_key(cls, compressed_public_key: bytes) -> ShortID:
        """The secp256k1 address: ripemd160(sha256(33-byte compressed public key))."""
        if len(compressed_public_key) != 33:
            raise InvalidParams("public key must be 33 bytes (compressed secp256k1)")
        return cls(hash160(compressed_public_key))

    def hex(self) -> str:
        return self.raw.hex()

    def __str__(self) -> str:
        return _cb58(self.raw)

    def __repr__(self) -> str:
        return f"ShortID({str(self)!r})"


@dataclass(frozen=True, slots=True, order=True, repr=False)
class NodeID:
    """A validator's 20-byte id; text form `NodeID-<cb58>`."""

    raw: bytes

    def __post_init__(self) -> None:
        _require_len(self.raw, SHORT_ID_LEN)

    @classmethod
    def from_string(cls, text: str) -> NodeID:
        if not text.startswith(NODE_ID_PREFIX):
            raise InvalidParams(f"ID: {text} is missing the prefix: {NODE_ID_PREFIX}")
        return cls(_require_len(decode_cb58(text[len(NODE_ID_PREFIX) :]), SHORT_ID_LEN))

    @classmethod
    def from_certificate(cls, certificate_der: bytes) -> NodeID:
        """The node id of a TLS staking certificate: ripemd160(sha256(DER bytes))."""
        return cls(hash160(certificate_der))

    def __str__(self) -> str:
        return NODE_ID_PREFIX + _cb58(self.raw)

    def __repr__(self) -> str:
        return f"NodeID({str(self)!r})"


# Network ids (§3.2).
MAINNET_NETWORK_ID = 1
FUJI_NETWORK_ID = 5
UNIT_TEST_NETWORK_ID = 10
LOCAL_NETWORK_ID = 12345

EMPTY_ID = ID(bytes(ID_LEN))
EMPTY_SHORT_ID = ShortID(bytes(SHORT_ID_LEN))
EMPTY_NODE_ID = NodeID(bytes(SHORT_ID_LEN))
# The P-Chain id and the Primary Network's subnet id are both the all-zero id, on every network.
PRIMARY_NETWORK_ID = EMPTY_ID
P_CHAIN_ID = EMPTY_ID
SECP256K1FX_ID = ID.from_string("spdxUxVJQbX85MGxMHbKw1sHxMnSqJ3QBzDyDYEP3h6TLuxqQ")

MAINNET_X_CHAIN_ID = ID.from_string("2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM")
MAINNET_C_CHAIN_ID = ID.from_string("2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5")
MAINNET_AVAX_ASSET_ID = ID.from_string("FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z")
FUJI_X_CHAIN_ID = ID.from_string("2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm")
FUJI_C_CHAIN_ID = ID.from_string("yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp")
FUJI_AVAX_ASSET_ID = ID.from_string("U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK")
# Local values are the ids of avalanchego's current built-in local genesis; any network started
# from a different genesis (a snowfield devnet, for one) derives its own.
LOCAL_X_CHAIN_ID = ID.from_string("2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed")
LOCAL_C_CHAIN_ID = ID.from_string("2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC")
LOCAL_AVAX_ASSET_ID = ID.from_string("2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe")
