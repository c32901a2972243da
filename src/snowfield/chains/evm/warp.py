"""Warp in an EVM chain: the chain's network ids, the validators it verifies against, predicates
in access lists (their gas and verification) and the messages its blocks sent."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from snowfield.crypto.warp import ValidatorEntry, canonical_validator_set, verify_signature
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID, P_CHAIN_ID, PRIMARY_NETWORK_ID
from snowfield.formats.warp.message import Message, UnsignedMessage
from snowfield.formats.warp.payload import decode_payload
from snowfield.formats.warp.predicate import unpack_predicate

NO_CHAIN = ID(bytes(32))
WARP_ADDRESS = bytes.fromhex("0200000000000000000000000000000000000005")
QUORUM_DENOMINATOR = 100
DEFAULT_QUORUM = 67
# subnet-evm's pre-Granite gas config (both rule sets run before Granite).
VERIFY_PREDICATE_BASE_GAS = 200_000
PER_WARP_SIGNER_GAS = 500
PER_WARP_MESSAGE_CHUNK_GAS = 3_200
# What the access-list tuple would cost were the address not a predicater (EIP-2930).
ACCESS_LIST_ADDRESS_GAS = 2_400
ACCESS_LIST_KEY_GAS = 1_900

AccessList = Sequence[tuple[bytes, Sequence[int | bytes]]]


class WarpValidators(Protocol):
    """The P-Chain as Warp verification reads it (the node wires it; chains never see it)."""

    def p_chain_height(self) -> int:
        """The height blocks built now verify at (the proposer's P-Chain height)."""

    def subnet_of(self, chain_id: ID) -> ID:
        """The subnet validating `chain_id`; InvalidParams when the chain is unknown."""

    def validators_at(self, height: int, subnet_id: ID) -> Iterable[ValidatorEntry]: ...


@dataclass(frozen=True, slots=True)
class SnowContext:
    """Who the chain is on the network (avalanchego's snow.Context): its network, its id, its
    subnet, and the validator state it verifies Warp messages against (None: none known)."""

    network_id: int = 12345
    blockchain_id: ID = NO_CHAIN
    subnet_id: ID = PRIMARY_NETWORK_ID
    validators: WarpValidators | None = None


@dataclass(frozen=True, slots=True)
class WarpConfig:
    """warpConfig: the quorum numerator (of 100) and whether primary-network messages must be
    signed by the primary network's validators rather than the receiving subnet's."""

    quorum_numerator: int = DEFAULT_QUORUM
    require_primary_network_signers: bool = False


def _key_bytes(key: int | bytes) -> bytes:
    return key if isinstance(key, bytes) else key.to_bytes(32, "big")


def warp_predicates(access_list: AccessList) -> list[list[bytes]]:
    """The access-list tuples addressed to the Warp precompile, in order, as 32-byte chunks."""
    return [
        [_key_bytes(k) for k in keys] for address, keys in access_list if address == WARP_ADDRESS
    ]


def parse_predicate(chunks: Sequence[bytes]) -> Message:
    """The signed message a predicate carries; InvalidParams with subnet-evm's wording."""
    try:
        data = unpack_predicate(chunks)
    except InvalidParams as exc:
        raise InvalidParams(f"cannot unpack predicate bytes: {exc}") from None
    try:
        message = Message.decode(data)
    except InvalidParams as exc:
        raise InvalidParams(f"cannot unpack warp message: {exc}") from None
    try:
        decode_payload(message.unsigned.payload)
    except InvalidParams as exc:
        raise InvalidParams(f"cannot unpack warp message payload: {exc}") from None
    return message


def predicate_gas(chunks: Sequence[bytes]) -> int:
    """PredicateGas: the base, each 32-byte chunk and each signer."""
    message = parse_predicate(chunks)
    signers = len(message.signature.signer_indices())
    return (
        VERIFY_PREDICATE_BASE_GAS
        + PER_WARP_MESSAGE_CHUNK_GAS * len(chunks)
        + PER_WARP_SIGNER_GAS * signers
    )


def extra_intrinsic_gas(access_list: AccessList) -> int:
    """What Warp predicates add to a transaction's intrinsic gas over plain access-list gas
    (their tuples are charged PredicateGas instead); InvalidParams for a malformed one."""
    extra = 0
    for chunks in warp_predicates(access_list):
        plain = ACCESS_LIST_ADDRESS_GAS + ACCESS_LIST_KEY_GAS * len(chunks)
        extra += predicate_gas(chunks) - plain
    return extra


def verify_message(
    message: Message, snow: SnowContext, config: WarpConfig, height: int
) -> str | None:
    """VerifyPredicate: why `message` does not verify at P-Chain `height` (None: it does)."""
    validators = snow.validators
    if validators is None:
        return "cannot retrieve validator set: no validator state"
    try:
        source_subnet = validators.subnet_of(message.unsigned.source_chain_id)
        if source_subnet == PRIMARY_NETWORK_ID and (
            not config.require_primary_network_signers
            or message.unsigned.source_chain_id == P_CHAIN_ID
        ):
            source_subnet = snow.subnet_id
        canonical = canonical_validator_set(validators.validators_at(height, source_subnet))
    except InvalidParams as exc:
        return f"cannot retrieve validator set: {exc}"
    try:
        verify_signature(
            message, snow.network_id, canonical, config.quorum_numerator, QUORUM_DENOMINATOR
        )
    except InvalidParams as exc:
        return f"cannot verify warp signature: {exc}"
    return None


@dataclass(slots=True)
class WarpBlock:
    """What the Warp precompile sees in one block: the chain's ids and the current transaction's
    predicates with their results. While a block is built `verify` decides each predicate and
    `results` fills in; a replay is given `results` (from the header) and no `verify`; a call
    has neither, so its predicates count as verified (as a call on the real chains)."""

    snow: SnowContext
    verify: Callable[[Message], bool] | None = None
    # tx hash → indices of its Warp predicates that failed (only transactions that have some).
    results: dict[bytes, frozenset[int]] = field(default_factory=dict)
    _current: list[list[bytes]] = field(default_factory=list)
    _failed: frozenset[int] = frozenset()

    def begin(self, tx_hash: bytes | None, access_list: AccessList) -> None:
        """Called before a transaction runs: its predicates become the precompile's."""
        self._current = warp_predicates(access_list)
        self._failed = frozenset()
        if not self._current or tx_hash is None:
            return  # a call: its predicates count as verified
        if self.verify is not None and tx_hash not in self.results:
            self.results[tx_hash] = frozenset(
                i for i, chunks in enumerate(self._current) if not self._verified(chunks)
            )
        self._failed = self.results.get(tx_hash, frozenset())

    def drop(self, tx_hash: bytes) -> None:
        """Forgets a transaction that was not included."""
        if self.verify is not None:
            self.results.pop(tx_hash, None)

    def _verified(self, chunks: list[bytes]) -> bool:
        assert self.verify is not None
        try:
            return self.verify(parse_predicate(chunks))
        except InvalidParams:
            return False

    def predicate(self, index: int) -> list[bytes] | None:
        """The current transaction's `index`-th Warp predicate when it exists and verified."""
        if index >= len(self._current) or index in self._failed:
            return None
        return self._current[index]

    def header_results(self) -> dict[bytes, dict[bytes, frozenset[int]]]:
        return {tx: {WARP_ADDRESS: failed} for tx, failed in self.results.items()}


def sent_message(data: bytes) -> UnsignedMessage | None:
    """The unsigned message a SendWarpMessage log's data holds (ABI `bytes`), None if malformed."""
    if len(data) < 64:
        return None
    offset = int.from_bytes(data[:32], "big")
    if offset + 32 > len(data):
        return None
    length = int.from_bytes(data[offset : offset + 32], "big")
    body = data[offset + 32 : offset + 32 + length]
    if len(body) != length:
        return None
    try:
        return UnsignedMessage.decode(body)
    except InvalidParams:
        return None
