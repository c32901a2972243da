"""Executing transactions against the state trie: block building, reads, calls and proofs."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import rlp
from eth.abc import ComputationAPI
from eth.db.account import AccountDB
from eth.db.atomic import AtomicDB
from eth.vm.execution_context import ExecutionContext
from eth.vm.forks.prague import PragueVM
from eth.vm.forks.prague.state import PragueState
from trie import HexaryTrie

from snowfield.chains.evm.execution.accounts import (
    EMPTY_ACCOUNT,
    AccountFields,
    FastAccountDB,
    read_account,
)
from snowfield.chains.evm.execution.accounts import (
    EMPTY_CODE_HASH as EMPTY_CODE_HASH,
)
from snowfield.chains.evm.execution.accounts import State as FastState
from snowfield.chains.evm.execution.db import RecordingDB, ScratchDB
from snowfield.chains.evm.execution.fasttrie import FastTrie
from snowfield.chains.evm.execution.precompiled import AvalancheContext, CreateCheck
from snowfield.chains.evm.model import Log, Receipt, Tx
from snowfield.chains.evm.precompiles.base import StatefulPrecompile
from snowfield.chains.evm.warp import WarpBlock
from snowfield.crypto.hashing import keccak

BLANK_ROOT = bytes.fromhex("56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421")
TX_GAS = 21_000
StateClass = type[PragueState]  # lets callers outside execution name a state flavour


@dataclass(frozen=True, slots=True)
class BlockEnv:
    """What a block tells the EVM about itself (BLOCKHASH, TIMESTAMP, BASEFEE, ...)."""

    number: int
    timestamp: int
    coinbase: bytes
    gas_limit: int
    base_fee: int
    chain_id: int
    prev_hashes: Callable[[], Iterator[bytes]]
    mix_hash: bytes = b"\x00" * 32
    difficulty: int = 1
    # The chain's rule set's stateful precompiles active in this block, and its check on
    # contract creation (the deployer allow list); none on the C-Chain.
    stateful: Mapping[bytes, StatefulPrecompile] = field(default_factory=dict)
    create_check: CreateCheck | None = None
    # The chain's Warp context when it runs the Warp precompile (None: no Warp).
    warp: WarpBlock | None = None


@dataclass(frozen=True, slots=True)
class Account:
    nonce: int
    balance: int
    storage_root: bytes
    code_hash: bytes


class _Ancestors:
    """Lazy ancestor hashes, newest first, so BLOCKHASH does not cost a copy per block."""

    def __init__(self, source: Callable[[], Iterator[bytes]]) -> None:
        self._source = source

    def __iter__(self) -> Iterator[bytes]:
        return self._source()


def _context(env: BlockEnv) -> ExecutionContext:
    if env.stateful or env.create_check is not None or env.warp is not None:
        return AvalancheContext(
            coinbase=env.coinbase,
            timestamp=env.timestamp,
            block_number=env.number,
            difficulty=env.difficulty,
            mix_hash=env.mix_hash,
            gas_limit=env.gas_limit,
            prev_hashes=_Ancestors(env.prev_hashes),
            chain_id=env.chain_id,
            base_fee_per_gas=env.base_fee,
            excess_blob_gas=0,
            stateful=env.stateful,
            create_check=env.create_check,
            warp=env.warp,
        )
    return ExecutionContext(
        coinbase=env.coinbase,
        timestamp=env.timestamp,
        block_number=env.number,
        difficulty=env.difficulty,
        mix_hash=env.mix_hash,
        gas_limit=env.gas_limit,
        prev_hashes=_Ancestors(env.prev_hashes),
        chain_id=env.chain_id,
        base_fee_per_gas=env.base_fee,
        excess_blob_gas=0,
    )


class StateStore:
    """The node's state database: trie nodes and code by hash, append-only."""

    def __init__(self, data: MutableMapping[bytes, bytes] | None = None) -> None:
        self.recording = RecordingDB(data if data is not None else {})
        self.atomic = AtomicDB(self.recording)

    def drain(self) -> dict[bytes, bytes]:
        return self.recording.drain()

    def load(self, writes: dict[bytes, bytes]) -> None:
        """Restores writes replayed from the journal (no re-recording)."""
        self.recording.data.update(writes)

    def scratch(self) -> StateStore:
        """A store over this one whose writes are discarded (for replays and traces)."""
        return StateStore(ScratchDB(self.recording.data))

    def reader(
        self, root: bytes, known: dict[bytes, AccountFields | None] | None = None
    ) -> StateReader:
        return StateReader(self, root, known)


class StateReader:
    """Read-only view of the state at one root.

    Accounts are read straight from the account trie and remembered (a root's state never
    changes): pool admission reads the head's accounts on every transaction, and py-evm's
    account database costs several times the trie lookup. Storage and code go through it.
    `known` holds accounts at this root already known to the caller (None: no account)."""

    def __init__(
        self,
        store: StateStore,
        root: bytes,
        known: dict[bytes, AccountFields | None] | None = None,
    ) -> None:
        self._store = store
        self.root = root
        self._trie = FastTrie(store.recording.data, root)
        self._seen: dict[bytes, AccountFields | None] = dict(known) if known else {}
        self._db: AccountDB | None = None

    @property
    def _accounts(self) -> AccountDB:
        if self._db is None:
            self._db = FastAccountDB(self._store.atomic, self.root)
        return self._db

    def account_fields(self, address: bytes) -> AccountFields | None:
        """(nonce, balance, storage root, code hash); None when there is no account."""
        try:
            return self._seen[address]
        except KeyError:
            found = self._seen[address] = read_account(self._trie, address)
            return found

    def fields(self, address: bytes) -> AccountFields:
        """As `account_fields`, with an empty account when there is none."""
        return self.account_fields(address) or EMPTY_ACCOUNT

    def balance(self, address: bytes) -> int:
        return self.fields(address)[1]

    def nonce(self, address: bytes) -> int:
        return self.fields(address)[0]

    def has_code(self, address: bytes) -> bool:
        return self.fields(address)[3] != EMPTY_CODE_HASH

    def code(self, address: bytes) -> bytes:
        if not self.has_code(address):
            return b""
        return bytes(self._accounts.get_code(address))

    def storage(self, address: bytes, slot: int) -> int:
        return int(self._accounts.get_storage(address, slot))

    def account(self, address: bytes) -> Account | None:
        raw = HexaryTrie(self._store.recording.data, self.root).get(keccak(address))
        if not raw:
            return None
        nonce, balance, storage_root, code_hash = rlp.decode(raw)
        return Account(
            int.from_bytes(nonce, "big"),
            int.from_bytes(balance, "big"),
            bytes(storage_root),
            bytes(code_hash),
        )

    def account_proof(self, address: bytes) -> list[bytes]:
        trie = HexaryTrie(self._store.recording.data, self.root)
        return [rlp.encode(node) for node in trie.get_proof(keccak(address))]

    def storage_proof(self, storage_root: bytes, slot: int) -> list[bytes]:
        trie = HexaryTrie(self._store.recording.data, storage_root)
        key = keccak(slot.to_bytes(32, "big"))
        return [rlp.encode(node) for node in trie.get_proof(key)]


def apply_genesis(
    store: StateStore, alloc: Sequence[tuple[bytes, int, bytes, dict[int, int]]]
) -> bytes:
    """Writes the genesis allocation (address, balance, code, storage); returns the state root."""
    accounts = AccountDB(store.atomic, BLANK_ROOT)
    for address, balance, code, storage in alloc:
        accounts.set_balance(address, balance)
        if code:
            accounts.set_code(address, code)
        for slot, value in storage.items():
            accounts.set_storage(address, slot, value)
    accounts.persist()
    return bytes(accounts.state_root)


class StateWriter:
    """Writes to a py-evm state or account database (a precompile's activation)."""

    def __init__(self, target: Any) -> None:
        self._t = target

    def get_state(self, address: bytes, slot: int) -> int:
        return int(self._t.get_storage(address, slot))

    def set_state(self, address: bytes, slot: int, value: int) -> None:
        self._t.set_storage(address, slot, value)

    def set_nonce(self, address: bytes, nonce: int) -> None:
        self._t.set_nonce(address, nonce)

    def set_code(self, address: bytes, code: bytes) -> None:
        self._t.set_code(address, code)

    def add_balance(self, address: bytes, amount: int) -> None:
        self._t.delta_balance(address, amount)

    def delete_account(self, address: bytes) -> None:
        self._t.delete_account(address)

    def storage(self, address: bytes, slot: int) -> int:
        return self.get_state(address, slot)


def write_state(store: StateStore, root: bytes, writes: Callable[[StateWriter], None]) -> bytes:
    """Applies `writes` on the state at `root`; returns the new root (genesis activations)."""
    accounts = AccountDB(store.atomic, root)
    writes(StateWriter(accounts))
    accounts.persist()
    return bytes(accounts.state_root)


@dataclass(frozen=True, slots=True)
class Applied:
    """A transaction executed in a block: its receipt and the computation tree."""

    receipt: Receipt
    computation: ComputationAPI | None  # None when no EVM frame ran (plain transfer)


class BlockBuilder:
    """Executes transactions on a parent state one by one and persists once at the end.

    Post-Byzantium receipts carry no intermediate state roots, so the trie is hashed
    once per block rather than once per transaction.
    """

    def __init__(
        self,
        store: StateStore,
        parent_root: bytes,
        env: BlockEnv,
        state_class: type[PragueState] = FastState,
        *,
        fast_transfers: bool = True,
        prepare: Callable[[StateWriter], None] | None = None,
    ) -> None:
        self.env = env
        self.state = state_class(store.atomic, _context(env), parent_root)
        self.gas_used = 0
        self.fast_transfers = fast_transfers
        if prepare is not None:  # the rule set's writes before the first transaction
            prepare(StateWriter(self.state))
            self.state.lock_changes()

    def storage(self, address: bytes, slot: int) -> int:
        """A storage slot as the block has left it so far."""
        return int(self.state.get_storage(address, slot))

    def apply(self, tx: Tx) -> Applied:
        """Executes `tx`; raises InvalidTx when it cannot be included (nonce, funds, gas)."""
        check_block_limits(tx, self.gas_used, self.env)
        self.state.lock_changes()
        if self.fast_transfers and tx.is_plain_transfer and self._has_no_code(tx.to):
            return self._transfer(tx)
        snapshot = self.state.snapshot()
        warp = self.env.warp
        try:
            computation = self.state.apply_transaction(tx.evm)
        except Exception as exc:  # one transaction that cannot run must never fail the block
            self.state.revert(snapshot)
            if warp is not None:
                warp.drop(tx.hash)
            raise InvalidTx(str(exc) or type(exc).__name__) from exc
        gas = int(PragueVM.finalize_gas_used(tx.evm, computation))
        self.gas_used += gas
        return Applied(
            _receipt(tx, computation, gas, self.gas_used, self.env.base_fee), computation
        )

    def _has_no_code(self, address: bytes | None) -> bool:
        return address is not None and self.state.get_code_hash(address) == EMPTY_CODE_HASH

    def _transfer(self, tx: Tx) -> Applied:
        """A value transfer to an account without code. As geth, no interpreter is started
        when there is no code to run; the state changes are exactly the EVM's (a test
        checks them against full execution)."""
        state, base = self.state, self.env.base_fee
        price = tx.effective_gas_price(base)
        if tx.max_fee < base:
            raise InvalidTx(f"max fee per gas less than block base fee: {tx.max_fee} < {base}")
        if tx.gas < TX_GAS:
            raise InvalidTx(f"intrinsic gas too low: gas {tx.gas}, minimum needed {TX_GAS}")
        balance = state.get_balance(tx.sender)
        if balance < tx.gas * price + tx.value:
            raise InvalidTx(f"insufficient funds: {balance} < {tx.gas * price + tx.value}")
        nonce = state.get_nonce(tx.sender)
        if nonce != tx.nonce:
            raise InvalidTx(f"Invalid transaction nonce: Expected {nonce}, but got {tx.nonce}")
        state.delta_balance(tx.sender, -(TX_GAS * price + tx.value))
        state.increment_nonce(tx.sender)
        _credit(state, tx.to, tx.value)
        _credit(state, self.env.coinbase, TX_GAS * (price - base))
        self.gas_used += TX_GAS
        receipt = Receipt(
            type=tx.type,
            status=1,
            cumulative_gas=self.gas_used,
            gas_used=TX_GAS,
            logs=(),
            bloom=bytes(256),
            contract_address=None,
            effective_gas_price=price,
        )
        return Applied(receipt, None)

    def finish(self) -> bytes:
        """Persists the block's state changes; returns the new state root."""
        self.state.persist()
        return bytes(self.state.state_root)


def check_block_limits(tx: Tx, gas_used: int, env: BlockEnv) -> None:
    """What the block allows before a transaction runs: room for its gas, the base fee."""
    if gas_used + tx.gas > env.gas_limit:
        raise InvalidTx("exceeds block gas limit")
    if tx.type >= 2 and tx.max_fee < env.base_fee:
        raise InvalidTx(
            f"max fee per gas less than block base fee: address 0x{tx.sender.hex()}, "
            f"maxFeePerGas: {tx.max_fee}, baseFee: {env.base_fee}"
        )


def _credit(state: PragueState, address: bytes | None, amount: int) -> None:
    """Adds `amount`, touching the account as the EVM does: EIP-161 removes a touched
    account that is left empty, and never creates one for a zero amount."""
    if amount:
        state.delta_balance(address, amount)
    elif state.account_exists(address) and state.account_is_empty(address):
        state.delete_account(address)


class InvalidTx(Exception):
    """Raised when a transaction cannot be executed in the block being built."""


def _receipt(
    tx: Tx, computation: ComputationAPI, gas: int, cumulative: int, base_fee: int
) -> Receipt:
    status = 0 if computation.is_error else 1
    evm_receipt = tx.evm.make_receipt(status, cumulative, computation.get_log_entries())
    logs = tuple(
        Log(bytes(address), tuple(t.to_bytes(32, "big") for t in topics), bytes(data))
        for address, topics, data in computation.get_log_entries()
    )
    created = None
    if tx.to is None and status == 1:
        created = bytes(computation.msg.storage_address)
    return Receipt(
        type=tx.type,
        status=status,
        cumulative_gas=cumulative,
        gas_used=gas,
        logs=logs,
        bloom=int(evm_receipt.bloom).to_bytes(256, "big"),
        contract_address=created,
        effective_gas_price=tx.effective_gas_price(base_fee),
    )


def scratch_state(
    store: StateStore, root: bytes, env: BlockEnv, state_class: type[PragueState] = PragueState
) -> PragueState:
    """A state whose writes are thrown away: for calls, estimates and traces."""
    return state_class(AtomicDB(ScratchDB(store.recording.data)), _context(env), root)


def output_of(computation: ComputationAPI) -> bytes:
    return bytes(computation.output)


def is_revert(computation: ComputationAPI) -> bool:
    from eth.exceptions import Revert

    return isinstance(getattr(computation, "_error", None), Revert)


def revert_reason(output: bytes) -> str | None:
    """The message of a revert with Solidity's Error(string), as geth shows it."""
    if len(output) >= 68 and output[:4] == bytes.fromhex("08c379a0"):
        length = int.from_bytes(output[36:68], "big")
        return output[68 : 68 + length].decode("utf-8", "replace")
    return None


def error_text(computation: ComputationAPI) -> str | None:
    err = getattr(computation, "_error", None)
    return None if err is None else _describe(err)


def _describe(err: Any) -> str:
    from eth import exceptions as ex

    table: list[tuple[type[BaseException], str]] = [
        (ex.Revert, "execution reverted"),
        (ex.OutOfGas, "out of gas"),
        (ex.InsufficientStack, "stack underflow"),
        (ex.FullStack, "stack limit reached 1024"),
        (ex.InvalidJumpDestination, "invalid jump destination"),
        (ex.InvalidInstruction, "invalid opcode"),
        (ex.StackDepthLimit, "max call depth exceeded"),
        (ex.WriteProtection, "write protection"),
        (ex.ContractCreationCollision, "contract address collision"),
        (ex.InsufficientFunds, "insufficient balance for transfer"),
        (ex.OutOfBoundsRead, "return data out of bounds"),
        (ex.ReservedBytesInCode, "invalid code: must not begin with 0xef"),
    ]
    for kind, text in table:
        if isinstance(err, kind):
            return text
    return str(err) or type(err).__name__
