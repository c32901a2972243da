"""py-evm's account database on our account trie (FastTrie).

py-trie re-decodes and re-encodes every node on each update of the account trie; that was
most of a transaction's cost. Only the trie under the accounts changes here: storage tries,
code and the journaling stay py-evm's."""

from __future__ import annotations

from typing import Any

from eth.db.accesslog import KeyAccessLoggerDB
from eth.db.account import AccountDB
from eth.db.cache import CacheDB
from eth.db.hash_trie import HashTrie
from eth.db.journal import JournalDB
from eth.vm.forks.prague.state import PragueState

from snowfield.chains.evm.execution.fasttrie import FastTrie


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
