"""The trie nodes and code under one state root: what anvil_dumpState saves and loadState restores.

Tries are keyed by hashes of addresses and slots, whose preimages the node does not keep, so
a dump carries the state's nodes rather than an account list; they are content-addressed, so
loading them anywhere makes the same root readable."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import rlp

from snowfield.chains.evm.execution.accounts import BLANK_STORAGE_ROOT, EMPTY_CODE_HASH
from snowfield.crypto.hashing import keccak
from snowfield.errors import InvalidParams


def reachable(data: Mapping[bytes, bytes], root: bytes) -> dict[bytes, bytes]:
    """Every node of the account trie at `root`, of its storage tries, and its code."""
    out: dict[bytes, bytes] = {}
    _walk(data, root, out, accounts=True)
    return out


def check_state(data: Mapping[bytes, bytes], root: bytes) -> None:
    """Raises InvalidParams unless every node and code under `root` is present, well formed
    and stored under its own hash: a loaded state must never fail a later read."""
    try:
        nodes = reachable(data, root)
    except (KeyError, IndexError, TypeError, ValueError, rlp.DecodingError):
        raise InvalidParams("state dump is incomplete or malformed") from None
    for key, value in nodes.items():
        if keccak(value) != key:
            raise InvalidParams(f"state dump node 0x{key.hex()} is not stored under its hash")


def _walk(data: Mapping[bytes, bytes], ref: Any, out: dict[bytes, bytes], accounts: bool) -> None:
    if isinstance(ref, bytes):
        if not ref or ref == BLANK_STORAGE_ROOT or ref in out:
            return
        out[ref] = data[ref]
        node = rlp.decode(out[ref])
    else:
        node = ref  # a node under 32 bytes, embedded in its parent
    if len(node) == 17:
        for child in node[:16]:
            _walk(data, child, out, accounts)
        value = node[16]
    elif node[0][0] >> 4 >= 2:  # hex-prefix flag: a leaf
        value = node[1]
    else:
        _walk(data, node[1], out, accounts)
        return
    if accounts and value:
        _account(data, value, out)


def _account(data: Mapping[bytes, bytes], encoded: bytes, out: dict[bytes, bytes]) -> None:
    _nonce, _balance, storage_root, code_hash = rlp.decode(encoded)
    _walk(data, bytes(storage_root), out, accounts=False)
    if bytes(code_hash) != EMPTY_CODE_HASH:
        out[bytes(code_hash)] = data[bytes(code_hash)]
