"""A Merkle-Patricia trie for the account state, with immutable nodes that cache their
encoding.

Updating a few accounts per block re-encodes and re-hashes only the changed path; untouched
subtrees keep their encodings, and decoded nodes are shared through a content-addressed cache
(a node's hash names it forever). It stores the same nodes as any Ethereum trie, so py-trie
reads what it writes (proofs, old roots) and a test checks both agree on every root."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, MutableMapping
from typing import Any

import rlp
from lru import LRU

from snowfield.crypto.hashing import keccak
from snowfield.formats.rlp import encode_bytes, encode_list_of_encoded

BLANK_ROOT = keccak(b"\x80")
_HASH_ITEM = b"\xa0"  # RLP prefix of a 32-byte string

Path = tuple[int, ...]


class MissingNode(KeyError):
    """Raised when a node the trie refers to is not in its database."""


class _Node:
    __slots__ = ("_enc", "_hash", "stored")

    def __init__(self) -> None:
        self._enc: bytes | None = None
        self._hash: bytes | None = None
        self.stored = False


class _Leaf(_Node):
    __slots__ = ("path", "value")

    def __init__(self, path: Path, value: bytes) -> None:
        super().__init__()
        self.path = path
        self.value = value


class _Ext(_Node):
    __slots__ = ("child", "path")

    def __init__(self, path: Path, child: Ref) -> None:
        super().__init__()
        self.path = path
        self.child = child


class _Branch(_Node):
    __slots__ = ("children", "value")

    def __init__(self, children: tuple[Ref, ...], value: bytes) -> None:
        super().__init__()
        self.children = children
        self.value = value


Node = _Leaf | _Ext | _Branch
Ref = Node | bytes | None  # a node, the hash of a stored node, or nothing

_CACHE: Any = LRU(300_000)  # hash -> decoded _Node, shared: nodes never change


# Nibbles go through hex text: bytes.hex and bytes.translate are C loops (3x faster).
_FROM_HEX = bytes.maketrans(b"0123456789abcdef", bytes(range(16)))
_TO_HEX = bytes.maketrans(bytes(range(16)), b"0123456789abcdef")


def nibbles(key: bytes) -> Path:
    return tuple(key.hex().encode().translate(_FROM_HEX))


def hex_prefix(path: Path, leaf: bool) -> bytes:
    flag = 2 if leaf else 0
    digits = bytes((flag + 1, *path)) if len(path) % 2 else bytes((flag, 0, *path))
    return bytes.fromhex(digits.translate(_TO_HEX).decode())


def _unprefix(data: bytes) -> tuple[Path, bool]:
    digits = nibbles(data)
    flag = digits[0]
    path = digits[1:] if flag & 1 else digits[2:]
    return path, flag >= 2


def _common(a: Path, b: Path) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _from_raw(item: Any) -> Node:
    """A node from its decoded RLP structure."""
    if len(item) == 17:
        children = tuple(_ref_from_raw(c) for c in item[:16])
        return _Branch(children, bytes(item[16]))
    path, leaf = _unprefix(bytes(item[0]))
    if leaf:
        return _Leaf(path, bytes(item[1]))
    return _Ext(path, _ref_from_raw(item[1]))


def _ref_from_raw(item: Any) -> Ref:
    if isinstance(item, list):
        return _from_raw(item)
    if not item:
        return None
    return bytes(item)


class FastTrie:
    """The subset of py-trie's HexaryTrie that py-evm's AccountDB uses."""

    def __init__(
        self, db: MutableMapping[bytes, bytes], root_hash: bytes = BLANK_ROOT, prune: bool = False
    ) -> None:
        # Invariant: nothing is ever deleted; old roots stay readable (prune is ignored).
        self.db = db
        self._root: Ref = None if root_hash == BLANK_ROOT else root_hash
        self._root_hash: bytes | None = root_hash

    # -- loading -------------------------------------------------------------------------

    def _load(self, ref: Ref) -> Node | None:
        if ref is None or isinstance(ref, _Node):
            return ref
        node: Node | None = _CACHE.get(ref)
        if node is None:
            try:
                encoded = self.db[ref]
            except KeyError:
                raise MissingNode(f"trie node 0x{ref.hex()} is missing") from None
            node = _from_raw(rlp.decode(encoded))
            node._enc, node._hash, node.stored = encoded, ref, True
            _CACHE[ref] = node
        return node

    # -- reads ---------------------------------------------------------------------------

    def get(self, key: bytes) -> bytes:
        path = nibbles(key)
        node = self._load(self._root)
        while node is not None:
            if isinstance(node, _Leaf):
                return node.value if node.path == path else b""
            if isinstance(node, _Ext):
                size = len(node.path)
                if path[:size] != node.path:
                    return b""
                path = path[size:]
                node = self._load(node.child)
            else:
                if not path:
                    return node.value
                node = self._load(node.children[path[0]])
                path = path[1:]
        return b""

    __getitem__ = get

    def __contains__(self, key: bytes) -> bool:
        return self.get(key) != b""

    # -- writes --------------------------------------------------------------------------

    def set(self, key: bytes, value: bytes) -> None:
        if not value:
            self.delete(key)
            return
        self._root = self._put(self._load(self._root), nibbles(key), value)
        self._root_hash = None

    __setitem__ = set

    def delete(self, key: bytes) -> None:
        root = self._load(self._root)
        new = self._remove(root, nibbles(key))
        if new is not root:
            self._root = new
            self._root_hash = None

    __delitem__ = delete

    def _put(self, node: Node | None, path: Path, value: bytes) -> Node:
        if node is None:
            return _Leaf(path, value)
        if isinstance(node, _Leaf):
            if node.path == path:
                return _Leaf(path, value)
            return self._split(node.path, node.value, None, path, value)
        if isinstance(node, _Ext):
            shared = _common(node.path, path)
            if shared == len(node.path):
                child = self._put(self._load(node.child), path[shared:], value)
                return _Ext(node.path, child)
            return self._split(node.path, None, node.child, path, value)
        if not path:
            return _Branch(node.children, value)
        index = path[0]
        children = list(node.children)
        children[index] = self._put(self._load(children[index]), path[1:], value)
        return _Branch(tuple(children), node.value)

    def _split(
        self, old_path: Path, old_value: bytes | None, old_child: Ref, path: Path, value: bytes
    ) -> Node:
        """A branch where an old leaf (value) or extension (child) and a new leaf part ways."""
        shared = _common(old_path, path)
        children: list[Ref] = [None] * 16
        branch_value = b""
        rest = old_path[shared:]
        if old_child is not None:  # the old node is an extension
            children[rest[0]] = old_child if len(rest) == 1 else _Ext(rest[1:], old_child)
        elif not rest:
            branch_value = old_value or b""
        else:
            children[rest[0]] = _Leaf(rest[1:], old_value or b"")
        new_rest = path[shared:]
        if not new_rest:
            branch_value = value
        else:
            children[new_rest[0]] = _Leaf(new_rest[1:], value)
        branch = _Branch(tuple(children), branch_value)
        return _Ext(path[:shared], branch) if shared else branch

    def _remove(self, node: Node | None, path: Path) -> Node | None:
        if node is None:
            return None
        if isinstance(node, _Leaf):
            return None if node.path == path else node
        if isinstance(node, _Ext):
            size = len(node.path)
            if path[:size] != node.path:
                return node
            child = self._load(node.child)
            new = self._remove(child, path[size:])
            if new is child:
                return node
            return self._prepend(node.path, new)
        if not path:
            if not node.value:
                return node
            return self._normalize(node.children, b"")
        index = path[0]
        child = self._load(node.children[index])
        new = self._remove(child, path[1:])
        if new is child:
            return node
        children = list(node.children)
        children[index] = new
        return self._normalize(tuple(children), node.value)

    def _prepend(self, prefix: Path, node: Node | None) -> Node | None:
        if node is None:
            return None
        if isinstance(node, _Leaf):
            return _Leaf(prefix + node.path, node.value)
        if isinstance(node, _Ext):
            return _Ext(prefix + node.path, node.child)
        return _Ext(prefix, node)

    def _normalize(self, children: tuple[Ref, ...], value: bytes) -> Node | None:
        used = [i for i, c in enumerate(children) if c is not None]
        if len(used) + (1 if value else 0) >= 2:
            return _Branch(children, value)
        if value:
            return _Leaf((), value)
        if not used:
            return None
        index = used[0]
        return self._prepend((index,), self._load(children[index]))

    # -- hashing and storage -------------------------------------------------------------

    def _encode(self, node: Node) -> bytes:
        if node._enc is not None:
            return node._enc
        if isinstance(node, _Leaf):
            items = [encode_bytes(hex_prefix(node.path, True)), encode_bytes(node.value)]
        elif isinstance(node, _Ext):
            items = [encode_bytes(hex_prefix(node.path, False)), self._item(node.child)]
        else:
            items = []
            for c in node.children:
                # Inlined _item for what a branch mostly holds: nothing, or a hashed child.
                if c is None:
                    items.append(b"\x80")
                elif c.__class__ is bytes:
                    items.append(_HASH_ITEM + c)
                else:
                    items.append(self._item(c))
            items.append(encode_bytes(node.value))
        node._enc = encode_list_of_encoded(items)
        return node._enc

    def _item(self, ref: Ref) -> bytes:
        """A child as its parent's RLP holds it: inline below 32 bytes, else by hash."""
        if ref is None:
            return b"\x80"
        if isinstance(ref, bytes):
            return _HASH_ITEM + ref
        encoded = self._encode(ref)
        if len(encoded) < 32:
            return encoded
        return _HASH_ITEM + self._store(ref, encoded)

    def _store(self, node: Node, encoded: bytes) -> bytes:
        if node._hash is None:
            node._hash = keccak(encoded)
        if not node.stored:
            self.db[node._hash] = encoded
            node.stored = True
            _CACHE[node._hash] = node
        return node._hash

    @property
    def root_hash(self) -> bytes:
        if self._root_hash is None:
            root = self._load(self._root)
            if root is None:
                self._root_hash = BLANK_ROOT
            else:
                # The root is stored by hash even when its encoding is short.
                self._root_hash = self._store(root, self._encode(root))
        return self._root_hash

    @root_hash.setter
    def root_hash(self, value: bytes) -> None:
        self._root = None if value == BLANK_ROOT else value
        self._root_hash = value

    @contextlib.contextmanager
    def squash_changes(self) -> Iterator[FastTrie]:
        """Writes are batched already: nodes reach the database only when hashed."""
        yield self
        _ = self.root_hash
