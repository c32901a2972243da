"""The rows the indexer hands to the store: one frozen dataclass per table, plain Python values.

Conventions: addresses and hashes are lower-case `0x` hex strings; quantities that can exceed
64 bits (values, balances, token ids, prices) are Python ints here and decimal TEXT in the database.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class ChainRow:
    """One indexed EVM chain and what operation 3 says of it (operator configuration)."""

    chain_id: int
    name: str
    network: str  # mainnet | testnet (fuji is the test network) | local
    rpc_url: str
    ws_url: str | None = None
    blockchain_id: str | None = None
    subnet_id: str | None = None
    vm_id: str | None = None
    description: str = ""
    explorer_url: str | None = None
    token_name: str = "Avalanche"
    token_symbol: str = "AVAX"
    token_decimals: int = 18
    token_logo: str | None = None
    chain_logo: str | None = None
    features: tuple[str, ...] = ()
    private: bool = False
    multicall: str | None = None


@dataclass(frozen=True, slots=True)
class BlockRow:
    chain_id: int
    number: int
    hash: str
    parent_hash: str
    timestamp: int
    gas_used: int
    gas_limit: int
    base_fee: int | None
    tx_count: int
    miner: str
    fees_spent: int = 0  # sum of gas_used * effective gas price over the block's transactions
    gas_cost: int = 0  # Avalanche's blockGasCost header field (0 where the header has none)
    timestamp_ms: int | None = None  # Granite's timestampMilliseconds, where the header has it
    min_delay_excess: int | None = None  # Granite's minDelayExcess, where the header has it
    # Transactions of the chain up to and including this block: the store computes it as it
    # writes the block (None until then).
    cumulative_txs: int | None = None


@dataclass(frozen=True, slots=True)
class TxRow:
    chain_id: int
    block_number: int
    tx_index: int
    hash: str
    block_hash: str
    block_timestamp: int
    from_addr: str
    to_addr: str | None  # None for a contract creation
    value: int
    nonce: int
    gas_limit: int
    gas_used: int
    gas_price: int  # effective gas price from the receipt
    tx_type: int
    status: int
    selector: str  # "0x" + first 4 bytes of input, or "" for empty input
    created: str | None  # contract address created by a creation transaction
    max_fee_per_gas: int | None = None  # EIP-1559 transactions (type 2 and later) only
    max_priority_fee_per_gas: int | None = None
    input: str | None = None  # the call data, lower-case hex; None where not read (listings)


@dataclass(frozen=True, slots=True)
class TransferRow:
    """One ERC-20/721/1155 transfer; a TransferBatch log gives one row per id (batch_index)."""

    chain_id: int
    block_number: int
    tx_index: int
    log_index: int
    batch_index: int
    tx_hash: str
    block_timestamp: int
    token: str
    erc_type: str  # ERC-20 | ERC-721 | ERC-1155
    from_addr: str
    to_addr: str
    token_id: int | None  # None for ERC-20
    value: int  # 1 for ERC-721


@dataclass(frozen=True, slots=True)
class InternalTxRow:
    """A nested call frame (depth >= 1) of a transaction's callTracer trace."""

    chain_id: int
    block_number: int
    tx_index: int
    trace_index: int  # pre-order position among the transaction's nested frames
    tx_hash: str
    from_addr: str
    to_addr: str
    call_type: str  # CALL | CREATE | CREATE2 | DELEGATECALL | STATICCALL | CALLCODE | UNKNOWN
    value: int
    gas_limit: int
    gas_used: int
    reverted: bool


@dataclass(frozen=True, slots=True)
class ContractRow:
    """A contract created by a transaction (top level or by a factory inside it)."""

    chain_id: int
    address: str
    block_number: int
    tx_index: int
    tx_hash: str
    deployer: str  # the transaction's sender
    factory: str | None  # the creating contract, when created by CREATE/CREATE2 inside a call
    creation: str  # CREATE | CREATE2 (top-level creations are CREATE)


@dataclass(frozen=True, slots=True)
class TokenRow:
    """What on-chain calls tell of a contract: its ERC type and token metadata."""

    chain_id: int
    address: str
    erc_type: str  # ERC-20 | ERC-721 | ERC-1155 | UNKNOWN
    name: str | None
    symbol: str | None
    decimals: int | None
    first_block: int


@dataclass(frozen=True, slots=True)
class NftRow:
    """One ERC-721 or ERC-1155 token id: its URI, fetched metadata and (ERC-721) owner."""

    chain_id: int
    token: str
    token_id: int
    erc_type: str
    token_uri: str
    index_status: str  # indexed | unindexed | invalid_token_uri | ... (lower case)
    metadata: dict[str, Any] = field(default_factory=dict)
    metadata_updated: int | None = None
    first_block: int = 0


@dataclass(frozen=True, slots=True)
class BalanceRow:
    """The native balance of an address after a block that touched it."""

    chain_id: int
    address: str
    block_number: int
    balance: int


@dataclass(frozen=True, slots=True)
class LogRow:
    """One log of a transaction's receipt, as the node gave it."""

    chain_id: int
    block_number: int
    tx_index: int
    log_index: int  # position in the block
    tx_hash: str
    address: str  # the emitting contract
    topics: tuple[str, ...]  # 0 to 4 topics, lower-case 0x hex
    data: str  # lower-case 0x hex


# Token kinds of the token balance tables: numbers whose order keeps the collectibles (721 and
# 1155) one range of a holder's rows.
ERC20, ERC721, ERC1155 = 20, 721, 1155
TOKEN_KINDS = {"ERC-20": ERC20, "ERC-721": ERC721, "ERC-1155": ERC1155}


@dataclass(frozen=True, slots=True)
class TokenBalanceRow:
    """A holder's balance of one token (an ERC-20, or one id of an ERC-721 or ERC-1155
    contract) after a block whose transfers changed it; an ERC-721 balance is 1 or 0."""

    chain_id: int
    holder: str
    kind: int  # ERC20 | ERC721 | ERC1155
    token: str
    token_id: int | None  # None for ERC-20
    block_number: int
    balance: int


@dataclass(frozen=True, slots=True)
class IcmEventRow:
    """One ICM messenger event (formats/icm.py names the kinds). Message fields are set on
    send, receive and failed rows; fee fields on send, receipt and fee rows."""

    chain_id: int
    block_number: int
    tx_index: int
    log_index: int
    tx_hash: str
    block_timestamp: int
    gas_spent: int  # the transaction's gas used
    contract: str  # the messenger that emitted it
    kind: str  # send | receive | executed | failed | receipt | fee
    message_id: str  # 64 hex digits, no 0x
    peer_chain: str | None  # cb58 blockchain id of the other side
    nonce: int | None = None
    origin: str | None = None
    destination_chain: str | None = None
    destination: str | None = None
    payload: bytes | None = None
    receipts: tuple[tuple[int, str], ...] = ()
    fee_token: str | None = None
    fee_amount: int | None = None
    deliverer: str | None = None
    reward_redeemer: str | None = None


@dataclass(frozen=True, slots=True)
class BlockBundle:
    """Everything extracted from one block, written in one transaction with its checkpoint."""

    block: BlockRow
    txs: tuple[TxRow, ...] = ()
    transfers: tuple[TransferRow, ...] = ()
    internal_txs: tuple[InternalTxRow, ...] = ()
    contracts: tuple[ContractRow, ...] = ()
    balances: tuple[BalanceRow, ...] = ()
    # (address, tx_index) pairs: every address a transaction involves as sender or receiver of
    # the transaction, a token transfer or an internal transaction.
    activity: tuple[tuple[str, int], ...] = ()
    icm: tuple[IcmEventRow, ...] = ()
    logs: tuple[LogRow, ...] = ()
    token_balances: tuple[TokenBalanceRow, ...] = ()
