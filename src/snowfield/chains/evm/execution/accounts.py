"""py-evm's account database with a cache of decoded trie nodes.

Trie nodes are content-addressed, so a node decoded once is the same forever; py-trie decodes
the same few nodes near the root for every account it touches. Callers mutate the lists they
get, hence each lookup returns a fresh copy of the cached structure."""

from __future__ import annotations

from typing import Any

from eth.db.accesslog import KeyAccessLoggerDB
from eth.db.account import AccountDB
from eth.db.cache import CacheDB
from eth.db.hash_trie import HashTrie
from eth.db.journal import JournalDB
from eth.vm.forks.prague.state import PragueState
from lru import LRU
from trie import HexaryTrie
from trie.constants import BLANK_NODE

from snowfield.crypto.hashing import keccak
from snowfield.formats.rlp import encode as rlp_encode

_NODES: Any = LRU(200_000)


def _copy(node: Any) -> Any:
    if isinstance(node, list):
        return [_copy(item) for item in node]
    return node


class CachedHexaryTrie(HexaryTrie):
    def _create_node_to_db_mapping(self, node: Any) -> Any:
        # Same as HexaryTrie's, with the direct RLP encoder (the generic one dominated).
        if node == BLANK_NODE:
            return BLANK_NODE, None
        encoded = rlp_encode(node)
        if len(encoded) < 32:
            return node, None
        return keccak(encoded), encoded

    def get_node(self, node_hash: Any) -> Any:
        if not isinstance(node_hash, bytes) or len(node_hash) != 32:
            return super().get_node(node_hash)
        cached = _NODES.get(node_hash)
        if cached is None:
            cached = super().get_node(node_hash)
            _NODES[node_hash] = _copy(cached)
        return _copy(cached)


class CachedAccountDB(AccountDB):
    """AccountDB whose account trie reads through the node cache."""

    def __init__(self, db: Any, state_root: Any = None) -> None:
        if state_root is None:
            super().__init__(db)
        else:
            super().__init__(db, state_root)
        # Invariant: mirrors AccountDB.__init__ (py-evm pinned), swapping only the trie class.
        self._trie = HashTrie(
            CachedHexaryTrie(self._batchtrie, self._root_hash_at_last_persist, prune=True)
        )
        self._trie_logger = KeyAccessLoggerDB(self._trie, log_missing_keys=False)
        self._trie_cache = CacheDB(self._trie_logger)
        self._journaltrie = JournalDB(self._trie_cache)


class State(PragueState):
    """The fork's state with the cached account database."""

    account_db_class = CachedAccountDB
