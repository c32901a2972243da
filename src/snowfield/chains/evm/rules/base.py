"""The rule set interface: header layout, fees, block gas cost, precompiles and chain config."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from snowfield.chains.evm.model import Header, Receipt, Tx

if TYPE_CHECKING:
    from snowfield.chains.evm.precompiles.base import StatefulPrecompile
    from snowfield.chains.evm.warp import WarpConfig


class StorageView(Protocol):
    """The part of a state a rule set reads (precompile storage)."""

    def storage(self, address: bytes, slot: int) -> int: ...


@dataclass(frozen=True, slots=True)
class HeaderFields:
    """What every header layout holds, as the block builder knows it."""

    parent_hash: bytes
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
    base_fee: int
    mix_hash: bytes = b"\x00" * 32
    # The block's Warp predicate results, encoded (None: the block verified none).
    predicate_results: bytes | None = None


class EvmRules:
    """A chain's rule set, chosen per chain as py-evm chooses a fork's VM class; the
    defaults are those both rule sets share."""

    name = "evm"
    header_type: type[Header] = Header
    # True when a block must pay a block gas cost through its tips (`block_fee_error`).
    block_fee_applies = False

    def genesis_header(self, fields: HeaderFields) -> Header:
        raise NotImplementedError

    def build_header(self, parent: Header, fields: HeaderFields) -> Header:
        """The header of a block built on `parent`."""
        raise NotImplementedError

    def next_base_fee(self, parent: Header, timestamp: int, state: StorageView) -> int:
        """The base fee of the block after `parent` at `timestamp` (state: `parent`'s)."""
        raise NotImplementedError

    def gas_limit(self, requested: int, state: StorageView, parent_timestamp: int) -> int:
        """The next block's gas limit; `requested` is the producer's (cheat codes)."""
        return requested

    def coinbase(self, requested: bytes, state: StorageView, timestamp: int) -> bytes:
        """Where the block's fees go; `requested` is the producer's choice."""
        return requested

    def block_fee_error(
        self, header: Header, txs: Sequence[Tx], receipts: Sequence[Receipt]
    ) -> str | None:
        """Why the block's tips do not pay its block gas cost; None when they do."""
        return None

    def precompiles(self, timestamp: int) -> Mapping[bytes, StatefulPrecompile]:
        """The stateful precompiles active at `timestamp`, by address."""
        return {}

    def warp_config(self, timestamp: int) -> WarpConfig | None:
        """How Warp predicates verify at `timestamp`; None when Warp is not active."""
        return None

    def predicate_results(self, header: Header) -> bytes:
        """The encoded predicate results a header carries (b"": none)."""
        return b""

    def create_check(self, timestamp: int) -> Callable[[Any, bytes], str | None] | None:
        """Why a transaction's origin may not create a contract, read on the EVM's state
        (the deployer allow list); None when every origin may."""
        return None

    def on_block_start(
        self, state: Any, parent_timestamp: int | None, number: int, timestamp: int
    ) -> None:
        """Writes the block makes before its first transaction (precompile activations);
        `parent_timestamp` is None for the genesis."""

    def activations_between(self, parent_timestamp: int, timestamp: int) -> bool:
        """True when `on_block_start` writes anything in a block at `timestamp`."""
        return False

    def tx_error(self, state: StorageView, sender: bytes, timestamp: int) -> str | None:
        """Why `sender` may not issue a transaction (allow lists); None when it may."""
        return None

    def chain_config_json(self, chain_id: int) -> dict[str, Any]:
        """eth_getChainConfig of a chain with `chain_id` under these rules."""
        raise NotImplementedError
