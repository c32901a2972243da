"""Blocks of plain value transfers, built on the account trie without py-evm's state layers.

A block whose every transaction moves value to a code-less account changes only balances and
nonces. Building it through py-evm's state (journals, caches, account objects, one state per
block) cost most of an automined transfer; here the changed accounts are kept in a dict and
written to the trie once. The outcome is the EVM's, byte for byte: the same receipts, root and
stored trie nodes (a test builds blocks both ways and compares them, journal writes included).
"""

from __future__ import annotations

from snowfield.chains.evm.execution.accounts import (
    EMPTY_ACCOUNT,
    EMPTY_CODE_HASH,
    AccountFields,
    encode_account,
)
from snowfield.chains.evm.execution.fasttrie import FastTrie
from snowfield.chains.evm.execution.state import (
    TX_GAS,
    Applied,
    BlockEnv,
    InvalidTx,
    StateReader,
    StateStore,
    check_block_limits,
)
from snowfield.chains.evm.model import Receipt, Tx
from snowfield.crypto.hashing import keccak

_UINT256_LIMIT = 2**256
_NO_BLOOM = bytes(256)


class NeedsEvm(Exception):
    """Raised when a transaction of the block needs the full state machinery: it runs code,
    or it would delete an empty account (EIP-161), which py-evm does with storage bookkeeping
    this builder does not reproduce."""


class TransferBuilder:
    """BlockBuilder's interface for blocks of plain transfers; raises NeedsEvm otherwise.

    Nothing is written until `finish`, so a caller can drop it and build the block again."""

    def __init__(self, store: StateStore, parent: StateReader, env: BlockEnv) -> None:
        self.env = env
        self.gas_used = 0
        self._parent = parent
        self.reader = parent  # the state the block's checks read (allow lists)
        self._trie = FastTrie(store.recording, parent.root)
        # Accounts this block changed; never a deletion (those go to py-evm).
        self._changed: dict[bytes, AccountFields] = {}
        self._touched: set[bytes] = set()

    def _get(self, address: bytes) -> AccountFields | None:
        found = self._changed.get(address)
        if found is None:
            self._touched.add(address)
            found = self._parent.account_fields(address)
        return found

    def accounts_after(self) -> dict[bytes, AccountFields | None]:
        """Every account the block read or changed, as it is after the block."""
        return {a: self._changed.get(a, self._parent.account_fields(a)) for a in self._touched}

    def _set(self, address: bytes, account: AccountFields) -> None:
        if account[1] >= _UINT256_LIMIT:
            raise NeedsEvm("balance overflow")  # py-evm's validation reports it
        self._changed[address] = account

    def apply(self, tx: Tx) -> Applied:
        """Executes `tx` exactly as BlockBuilder's transfer path does."""
        check_block_limits(tx, self.gas_used, self.env)
        to = tx.to
        if to is None or not tx.is_plain_transfer:
            raise NeedsEvm("not a plain transfer")
        recipient = self._get(to)
        if recipient is not None and recipient[3] != EMPTY_CODE_HASH:
            raise NeedsEvm("the recipient has code")
        base = self.env.base_fee
        price = tx.effective_gas_price(base)
        if tx.max_fee < base:
            raise InvalidTx(f"max fee per gas less than block base fee: {tx.max_fee} < {base}")
        if tx.gas < TX_GAS:
            raise InvalidTx(f"intrinsic gas too low: gas {tx.gas}, minimum needed {TX_GAS}")
        nonce, balance, storage_root, code_hash = self._get(tx.sender) or EMPTY_ACCOUNT
        if balance < tx.gas * price + tx.value:
            raise InvalidTx(f"insufficient funds: {balance} < {tx.gas * price + tx.value}")
        if nonce != tx.nonce:
            raise InvalidTx(f"Invalid transaction nonce: Expected {nonce}, but got {tx.nonce}")
        # A zero credit can only find an empty account that this transaction left as it was.
        self._check_credit(to, tx.value)
        self._check_credit(self.env.coinbase, TX_GAS * (price - base))
        paid = balance - (TX_GAS * price + tx.value)
        self._set(tx.sender, (nonce + 1, paid, storage_root, code_hash))
        self._credit(to, tx.value)
        self._credit(self.env.coinbase, TX_GAS * (price - base))
        self.gas_used += TX_GAS
        receipt = Receipt(
            type=tx.type,
            status=1,
            cumulative_gas=self.gas_used,
            gas_used=TX_GAS,
            logs=(),
            bloom=_NO_BLOOM,
            contract_address=None,
            effective_gas_price=price,
        )
        return Applied(receipt, None)

    def _check_credit(self, address: bytes, amount: int) -> None:
        """A zero credit to an existing empty account deletes it (EIP-161): left to py-evm."""
        if not amount:
            account = self._get(address)
            if account is not None and account[:2] == (0, 0) and account[3] == EMPTY_CODE_HASH:
                raise NeedsEvm("would delete an empty account")

    def _credit(self, address: bytes, amount: int) -> None:
        if amount:
            nonce, balance, storage_root, code_hash = self._get(address) or EMPTY_ACCOUNT
            self._set(address, (nonce, balance + amount, storage_root, code_hash))

    def finish(self) -> bytes:
        """Writes the changed accounts to the trie; returns the new state root."""
        trie = self._trie
        for address, account in self._changed.items():
            trie.set(keccak(address), encode_account(account))
        return trie.root_hash
