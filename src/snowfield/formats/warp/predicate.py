"""EVM predicates (avalanchego's vms/evm/predicate): bytes packed into access-list storage keys,
and the block's predicate results as the header's Extra carries them.

Public API: `pack_predicate(data)` → 32-byte chunks (the bytes, a 0xff delimiter, zero padding
to a multiple of 32), `unpack_predicate(chunks)` (InvalidParams with avalanchego's wording),
`warp_access_list(signed)` (the access list that carries a signed Warp message to the Warp
precompile), `encode_results(results)` / `decode_results(data)` for
`{tx hash: {address: failed indices}}`
(codec v0, maps sorted by key, each bitset as big-endian big-integer bytes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set

from snowfield.errors import InvalidParams
from snowfield.formats.codec import Packer, Unpacker

CHUNK = 32
DELIMITER = 0xFF
MAX_RESULTS_SIZE = 1 << 20  # the results codec's limit (1 MiB)

# tx hash → precompile address → indices of the predicates that failed verification.
BlockResults = Mapping[bytes, Mapping[bytes, Set[int]]]


def pack_predicate(data: bytes) -> list[bytes]:
    padded = data + bytes([DELIMITER])
    padded += bytes(-len(padded) % CHUNK)
    return [padded[i : i + CHUNK] for i in range(0, len(padded), CHUNK)]


def unpack_predicate(chunks: Sequence[bytes]) -> bytes:
    """The bytes a predicate carries; InvalidParams when its padding is malformed."""
    trimmed = b"".join(chunks).rstrip(b"\x00")
    if not trimmed:
        raise InvalidParams(f"no delimiter found: length ({len(chunks)})")
    expected = (len(trimmed) + CHUNK - 1) // CHUNK
    if expected != len(chunks):
        raise InvalidParams(
            f"predicate included excess padding: got length ({len(chunks)}), "
            f"expected length ({expected})"
        )
    if trimmed[-1] != DELIMITER:
        raise InvalidParams("wrong delimiter")
    return trimmed[:-1]


def _bits(indices: Set[int]) -> bytes:
    number = sum(1 << i for i in indices)
    return number.to_bytes((number.bit_length() + 7) // 8, "big")


def encode_results(results: BlockResults) -> bytes:
    packer = Packer(max_size=MAX_RESULTS_SIZE)
    packer.u16(0).u32(len(results))
    for tx_hash in sorted(results):
        by_address = results[tx_hash]
        packer.fixed(tx_hash).u32(len(by_address))
        for address in sorted(by_address):
            packer.fixed(address).var_bytes(_bits(by_address[address]))
    return packer.to_bytes()


def decode_results(data: bytes) -> dict[bytes, dict[bytes, frozenset[int]]]:
    reader = Unpacker(data, max_size=MAX_RESULTS_SIZE)
    reader.version()
    out: dict[bytes, dict[bytes, frozenset[int]]] = {}
    for _ in range(reader.u32()):
        tx_hash = reader.fixed(32)
        by_address: dict[bytes, frozenset[int]] = {}
        for _ in range(reader.u32()):
            address = reader.fixed(20)
            number = int.from_bytes(reader.var_bytes(), "big")
            by_address[address] = frozenset(
                i for i in range(number.bit_length()) if number >> i & 1
            )
        out[tx_hash] = by_address
    reader.finish()
    return out


WARP_PRECOMPILE = "0x0200000000000000000000000000000000000005"


def warp_access_list(signed: bytes) -> list[dict[str, object]]:
    """A transaction's access list delivering `signed` (a signed Warp message) as predicate 0."""
    keys = ["0x" + chunk.hex() for chunk in pack_predicate(signed)]
    return [{"address": WARP_PRECOMPILE, "storageKeys": keys}]
