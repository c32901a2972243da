"""The EVM chain's value objects: transactions, logs, receipts, headers and blocks."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import rlp

from snowfield.crypto.hashing import keccak
from snowfield.errors import InvalidParams
from snowfield.formats.rlp import encode as rlp_encode
from snowfield.formats.rlp import encode_bytes, encode_int, encode_list_of_encoded

EMPTY_UNCLE_HASH = keccak(rlp.encode([]))
EMPTY_EXT_DATA_HASH = keccak(rlp.encode(b""))
ZERO_HASH = b"\x00" * 32


@dataclass(frozen=True, slots=True)
class Authorization:
    """One EIP-7702 set-code authorization (signed by its authority)."""

    chain_id: int
    address: bytes
    nonce: int
    y_parity: int
    r: int
    s: int


@dataclass(frozen=True, slots=True)
class Tx:
    """A signed transaction as accepted by the node; `evm` is the execution library's object."""

    hash: bytes
    raw: bytes
    type: int
    sender: bytes
    nonce: int
    to: bytes | None
    value: int
    gas: int
    max_fee: int
    max_priority_fee: int
    data: bytes
    chain_id: int | None
    access_list: tuple[tuple[bytes, tuple[int, ...]], ...]
    v: int
    r: int
    s: int
    evm_factory: Callable[[], Any] = field(compare=False, repr=False)
    _evm: list[Any] = field(default_factory=list, compare=False, repr=False)
    authorizations: tuple[Authorization, ...] = ()

    @property
    def evm(self) -> Any:
        """The execution library's transaction object, built on first use."""
        if not self._evm:
            self._evm.append(self.evm_factory())
        return self._evm[0]

    @property
    def is_plain_transfer(self) -> bool:
        """A value transfer with no data: the EVM would not run any code for it unless the
        recipient has code."""
        return self.to is not None and not self.data and not self.access_list and self.type < 4

    def effective_gas_price(self, base_fee: int) -> int:
        if self.type in (0, 1):
            return self.max_fee
        return min(self.max_fee, base_fee + self.max_priority_fee)

    def tip(self, base_fee: int) -> int:
        return self.effective_gas_price(base_fee) - base_fee


@dataclass(frozen=True, slots=True)
class Log:
    """One event emitted by a contract."""

    address: bytes
    topics: tuple[bytes, ...]
    data: bytes


@dataclass(frozen=True, slots=True)
class Receipt:
    """The outcome of one transaction in a block."""

    type: int
    status: int
    cumulative_gas: int
    gas_used: int
    logs: tuple[Log, ...]
    bloom: bytes
    contract_address: bytes | None
    effective_gas_price: int

    def encode(self) -> bytes:
        """Consensus encoding, as committed to by the receipts root."""
        logs = [rlp_encode([log.address, list(log.topics), log.data]) for log in self.logs]
        body = encode_list_of_encoded(
            [
                encode_int(self.status),
                encode_int(self.cumulative_gas),
                encode_bytes(self.bloom),
                encode_list_of_encoded(logs),
            ]
        )
        return body if self.type == 0 else bytes([self.type]) + body


@dataclass(frozen=True, slots=True)
class Header:
    """A C-Chain block header: the Ethereum fields plus the Avalanche extras, in RLP order."""

    parent_hash: bytes
    uncle_hash: bytes
    coinbase: bytes
    state_root: bytes
    tx_root: bytes
    receipt_root: bytes
    bloom: bytes
    difficulty: int
    number: int
    gas_limit: int
    gas_used: int
    timestamp: int
    extra_data: bytes
    mix_hash: bytes
    nonce: bytes
    ext_data_hash: bytes
    base_fee: int
    ext_data_gas_used: int
    block_gas_cost: int
    blob_gas_used: int
    excess_blob_gas: int
    parent_beacon_root: bytes
    time_milliseconds: int = 0
    min_delay_excess: int = 0
    # How many fields the encoding carries: coreth's trailing fields are optional and network
    # upgrades added them (16 before ApricotPhase3, 17 with its baseFee, 19 from ApricotPhase4,
    # 22 from Cancun, as the devnet builds, 24 from Granite). Fields past the count are absent,
    # not zero, and the hash depends on it.
    field_count: int = 22

    def fields(self) -> list[object]:
        return [
            self.parent_hash,
            self.uncle_hash,
            self.coinbase,
            self.state_root,
            self.tx_root,
            self.receipt_root,
            self.bloom,
            self.difficulty,
            self.number,
            self.gas_limit,
            self.gas_used,
            self.timestamp,
            self.extra_data,
            self.mix_hash,
            self.nonce,
            self.ext_data_hash,
            self.base_fee,
            self.ext_data_gas_used,
            self.block_gas_cost,
            self.blob_gas_used,
            self.excess_blob_gas,
            self.parent_beacon_root,
            self.time_milliseconds,
            self.min_delay_excess,
        ][: self.field_count]

    def encode(self) -> bytes:
        # Field by field with the right encoder: the generic one costs 2x on 22 fields.
        b, i = encode_bytes, encode_int
        return encode_list_of_encoded(
            [
                b(self.parent_hash),
                b(self.uncle_hash),
                b(self.coinbase),
                b(self.state_root),
                b(self.tx_root),
                b(self.receipt_root),
                b(self.bloom),
                i(self.difficulty),
                i(self.number),
                i(self.gas_limit),
                i(self.gas_used),
                i(self.timestamp),
                b(self.extra_data),
                b(self.mix_hash),
                b(self.nonce),
                b(self.ext_data_hash),
                i(self.base_fee),
                i(self.ext_data_gas_used),
                i(self.block_gas_cost),
                i(self.blob_gas_used),
                i(self.excess_blob_gas),
                b(self.parent_beacon_root),
                i(self.time_milliseconds),
                i(self.min_delay_excess),
            ][: self.field_count]
        )

    def compute_hash(self) -> bytes:
        return keccak(self.encode())

    # The block carries coreth's atomic extension: [header, txs, uncles, version, extData].
    has_ext_data = True

    @classmethod
    def decode(cls, data: bytes) -> Header:
        """A header of any layout the C-Chain has used; InvalidParams if malformed."""
        try:
            items = rlp.decode(data)
        except rlp.DecodingError as exc:
            raise InvalidParams(f"rlp: {exc}") from None
        if not isinstance(items, list) or len(items) not in range(16, len(_HEADER_KINDS) + 1):
            raise InvalidParams(f"rlp: a header has 16 to {len(_HEADER_KINDS)} fields")
        kinds = _HEADER_KINDS[: len(items)]
        values: list[Any] = [_header_field(k, item) for k, item in zip(kinds, items, strict=True)]
        values += [_ABSENT[kind] for kind in _HEADER_KINDS[len(items) :]]
        ms, excess = values[22:]
        header = cls(*values[:22])
        return dataclasses.replace(
            header, time_milliseconds=ms, min_delay_excess=excess, field_count=len(items)
        )


@dataclass(frozen=True, slots=True)
class SubnetEvmHeader(Header):
    """A custom EVM (subnet-evm) header: coreth's without the atomic fields (extDataHash,
    extDataGasUsed); baseFee and blockGasCost follow the nonce, then the Cancun fields."""

    field_count: int = 20
    has_ext_data = False

    def fields(self) -> list[object]:
        return [
            *Header.fields(self)[:15],
            self.base_fee,
            self.block_gas_cost,
            self.blob_gas_used,
            self.excess_blob_gas,
            self.parent_beacon_root,
            self.time_milliseconds,
            self.min_delay_excess,
        ][: self.field_count]

    def encode(self) -> bytes:
        return bytes(rlp_encode(self.fields()))

    @classmethod
    def decode(cls, data: bytes) -> SubnetEvmHeader:
        """A custom EVM header of any layout (15 to 22 fields); InvalidParams if malformed."""
        try:
            items = rlp.decode(data)
        except rlp.DecodingError as exc:
            raise InvalidParams(f"rlp: {exc}") from None
        if not isinstance(items, list) or len(items) not in range(15, len(_SUBNET_KINDS) + 1):
            raise InvalidParams(f"rlp: a header has 15 to {len(_SUBNET_KINDS)} fields")
        kinds = _SUBNET_KINDS[: len(items)]
        values: list[Any] = [_header_field(k, item) for k, item in zip(kinds, items, strict=True)]
        values += [_ABSENT[kind] for kind in _SUBNET_KINDS[len(items) :]]
        head, (base_fee, cost, blob, excess, beacon, ms, delay) = values[:15], values[15:]
        tail = [EMPTY_EXT_DATA_HASH, base_fee, 0, cost, blob, excess, beacon, ms, delay, len(items)]
        return cls(*head, *tail)


# The kinds of the header's fields in RLP order: a byte length for fixed-size fields, "bytes"
# for extraData, "int"/"u64" for numbers.
_HEADER_KINDS: tuple[int | str, ...] = (
    *(32, 32, 20, 32, 32, 32, 256),
    *("int", "int", "u64", "u64", "u64", "bytes", 32, 8, 32),
    *("int", "int", "int", "u64", "u64", 32, "u64", "u64"),
)
_SUBNET_KINDS: tuple[int | str, ...] = (
    *_HEADER_KINDS[:15],
    *("int", "int", "u64", "u64", 32, "u64", "u64"),
)
_ABSENT: dict[int | str, object] = {"int": 0, "u64": 0, 32: ZERO_HASH}


def _header_field(kind: int | str, item: Any) -> object:
    if not isinstance(item, bytes):
        raise InvalidParams("rlp: expected a string for a header field, got a list")
    if kind == "bytes":
        return item
    if isinstance(kind, int):
        if len(item) != kind:
            raise InvalidParams(f"rlp: header field of {len(item)} bytes, want {kind}")
        return item
    if item[:1] == b"\x00":
        raise InvalidParams("rlp: non-canonical integer (leading zero bytes)")
    if kind == "u64" and len(item) > 8:
        raise InvalidParams("rlp: input string too long for uint64")
    return int.from_bytes(item, "big")


def c_chain_header(
    *,
    parent_hash: bytes,
    coinbase: bytes,
    state_root: bytes,
    tx_root: bytes,
    receipt_root: bytes,
    bloom: bytes,
    difficulty: int,
    number: int,
    gas_limit: int,
    gas_used: int,
    timestamp: int,
    base_fee: int,
) -> Header:
    """A header as the devnet builds them: no atomic transactions, blobs or block fee."""
    return Header(
        parent_hash=parent_hash,
        uncle_hash=EMPTY_UNCLE_HASH,
        coinbase=coinbase,
        state_root=state_root,
        tx_root=tx_root,
        receipt_root=receipt_root,
        bloom=bloom,
        difficulty=difficulty,
        number=number,
        gas_limit=gas_limit,
        gas_used=gas_used,
        timestamp=timestamp,
        extra_data=b"",
        mix_hash=ZERO_HASH,
        nonce=bytes(8),
        ext_data_hash=EMPTY_EXT_DATA_HASH,
        base_fee=base_fee,
        ext_data_gas_used=0,
        block_gas_cost=0,
        blob_gas_used=0,
        excess_blob_gas=0,
        parent_beacon_root=ZERO_HASH,
    )


@dataclass(frozen=True, slots=True)
class Block:
    """An accepted block with its receipts; `body` is the coreth block RLP."""

    header: Header
    hash: bytes
    txs: tuple[Tx, ...]
    receipts: tuple[Receipt, ...]
    body: bytes
    accepted_ns: int
    ext_data: bytes = b""
    version: int = 0

    @property
    def number(self) -> int:
        return self.header.number

    @property
    def size(self) -> int:
        return len(self.body)


def encode_block(
    header: Header,
    txs: tuple[Tx, ...],
    ext_data: bytes,
    version: int,
    header_rlp: bytes | None = None,
) -> bytes:
    """The coreth block encoding: RLP [header, txs, uncles, version, extData]; `header_rlp`
    is the header's encoding when the caller has it."""
    # A legacy transaction is an RLP list already; a typed one is an RLP string.
    tx_items = [tx.raw if tx.type == 0 else encode_bytes(tx.raw) for tx in txs]
    items = [
        header.encode() if header_rlp is None else header_rlp,
        encode_list_of_encoded(tx_items),
        b"\xc0",
    ]
    if header.has_ext_data:
        items += [rlp_encode(version), encode_bytes(ext_data)]
    return encode_list_of_encoded(items)
