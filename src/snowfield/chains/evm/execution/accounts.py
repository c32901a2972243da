"""Accounts on our account trie (FastTrie): py-evm's account database, and direct reads.

py-trie re-decodes and re-encodes every node on each update of the account trie; that was
most of a transaction's cost. Only the trie under the accounts changes here: storage tries,
code and the journaling stay py-evm's."""

from __future__ import annotations

from typing import Any

import rlp
from eth.db.accesslog import KeyAccessLoggerDB
from eth.db.account import AccountDB
from eth.db.cache import CacheDB
from eth.db.hash_trie import HashTrie
from eth.db.journal import JournalDB
from eth.vm.forks.prague.state import PragueState

from snowfield.chains.evm.execution.fasttrie import FastTrie
from snowfield.chains.evm.execution.precompiled import Computation, PredicateExecutor
from snowfield.crypto.hashing import keccak
from snowfield.formats.rlp import encode_bytes, encode_int, encode_list_of_encoded


class FastAccountDB(AccountDB):
    """AccountDB whose account trie is a FastTrie."""

    def __init__(self, db: Any, state_root: Any = None) -> None:
        if state_root is None:
            super().__init__(db)
        else:
            super().__init__(db, state_root)
        # Invariant: mirrors AccountDB.__init__ (py-evm is pinned), swapping only the trie.
        self._trie = HashTrie(FastTrie(self._batchtrie, self._root_hash_at_last_persist))
        self._trie_logger = KeyAccessLoggerDB(self._trie, log_missing_keys=False)
        self._trie_cache = CacheDB(self._trie_logger)
        self._journaltrie = JournalDB(self._trie_cache)


class State(PragueState):
    """The fork's state with the faster account database."""

    account_db_class = FastAccountDB
    computation_class = Computation
    transaction_executor_class = PredicateExecutor


# (nonce, balance, storage root, code hash): an account as the state trie holds it.
AccountFields = tuple[int, int, bytes, bytes]
BLANK_STORAGE_ROOT = keccak(b"\x80")
EMPTY_CODE_HASH = keccak(b"")
EMPTY_ACCOUNT: AccountFields = (0, 0, BLANK_STORAGE_ROOT, EMPTY_CODE_HASH)


def read_account(trie: FastTrie, address: bytes) -> AccountFields | None:
    """The account at `address`, None when there is none (as AccountDB, a missing node reads
    as a missing account)."""
    try:
        encoded = trie.get(keccak(address))
    except KeyError:
        return None
    if not encoded:
        return None
    nonce, balance, storage_root, code_hash = rlp.decode(encoded)
    return (
        int.from_bytes(nonce, "big"),
        int.from_bytes(balance, "big"),
        bytes(storage_root),
        bytes(code_hash),
    )


def encode_account(account: AccountFields) -> bytes:
    """The account's RLP, byte for byte py-evm's `rlp.encode(account, sedes=Account)`."""
    nonce, balance, storage_root, code_hash = account
    return encode_list_of_encoded(
        [
            encode_int(nonce),
            encode_int(balance),
            encode_bytes(storage_root),
            encode_bytes(code_hash),
        ]
    )
