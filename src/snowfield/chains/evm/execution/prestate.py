"""geth's prestateTracer: the accounts and storage slots a transaction touched, as they were
before it ran, and with `diffMode` what it changed ({pre, post})."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from eth._utils.address import generate_contract_address, generate_safe_contract_address
from eth.abc import ComputationAPI
from eth.vm.forks.prague.state import PragueState

from snowfield.chains.evm.execution.accounts import EMPTY_CODE_HASH
from snowfield.chains.evm.execution.hooks import HookedState, OpcodeHooks, memory_bytes, stack_ints
from snowfield.chains.evm.execution.tracing import TxStart

_SLOAD, _SSTORE, _SELFDESTRUCT, _CREATE, _CREATE2 = 0x54, 0x55, 0xFF, 0xF0, 0xF5
_ACCOUNT_OPS = (0x31, 0x3B, 0x3C, 0x3F, _SELFDESTRUCT)  # BALANCE, EXTCODE*, SELFDESTRUCT
_CALL_OPS = (0xF1, 0xF2, 0xF4, 0xFA)
_DELEGATION = bytes.fromhex("ef0100")
_WATCHED = frozenset((_SLOAD, _SSTORE, _CREATE, _CREATE2, *_ACCOUNT_OPS, *_CALL_OPS))


@dataclass(frozen=True, slots=True)
class PrestateTracer:
    """geth's prestateTracer and its tracerConfig."""

    diff_mode: bool = False
    disable_code: bool = False
    disable_storage: bool = False
    include_empty: bool = False
    state_class: ClassVar[type[PragueState]] = HookedState

    def start(self, state: PragueState, tx: TxStart) -> _PrestateTrace:
        trace = _PrestateTrace(self, state)
        state.hooks = trace
        trace.begin(tx)
        return trace


@dataclass(slots=True)
class _Account:
    balance: int
    nonce: int
    code: bytes
    code_hash: bytes
    storage: dict[int, int]
    empty: bool  # no nonce, code nor balance before the transaction


class _PrestateTrace(OpcodeHooks):
    def __init__(self, options: PrestateTracer, state: PragueState) -> None:
        self.options = options
        self.state = state
        self.pre: dict[bytes, _Account] = {}
        self.created: set[bytes] = set()
        self.deleted: set[bytes] = set()

    def begin(self, tx: TxStart) -> None:
        to = tx.to
        if to is None:
            to = generate_contract_address(tx.sender, self.state.get_nonce(tx.sender))
            self.created.add(to)
        else:
            self._delegation_target(to)
        for address in (tx.sender, to, tx.coinbase):
            self._account(address)

    def before(self, computation: Any, op: int) -> Any:
        if op not in _WATCHED:
            return None
        stack = stack_ints(computation)
        own = bytes(computation.msg.storage_address)
        if op in (_SLOAD, _SSTORE) and stack:
            self._slot(own, stack[-1])
        elif op in _ACCOUNT_OPS and stack:
            self._account(_address(stack[-1]))
            if op == _SELFDESTRUCT and own in self.created:
                self.deleted.add(own)  # EIP-6780: only an account created in this transaction
        elif op in _CALL_OPS and len(stack) >= 5:
            self._account(_address(stack[-2]))
            self._delegation_target(_address(stack[-2]))
        elif op == _CREATE:
            self._created(generate_contract_address(own, self.state.get_nonce(own)))
        elif op == _CREATE2 and len(stack) >= 4:
            offset, size, salt = stack[-2], stack[-3], stack[-4]
            init = memory_bytes(computation)[offset : offset + size].ljust(size, b"\x00")
            self._created(generate_safe_contract_address(own, salt, init))
        return None

    def _created(self, address: bytes) -> None:
        self._account(address)
        self.created.add(address)

    def _delegation_target(self, address: bytes) -> None:
        code = bytes(self.state.get_code(address))
        if len(code) == 23 and code[:3] == _DELEGATION:
            self._account(code[3:])

    def _account(self, address: bytes) -> None:
        if address in self.pre:
            return
        state = self.state
        balance, nonce = state.get_balance(address), state.get_nonce(address)
        code = bytes(state.get_code(address))
        self.pre[address] = _Account(
            balance=balance,
            nonce=nonce,
            code=code,
            code_hash=bytes(state.get_code_hash(address)),
            storage={},
            empty=not (balance or nonce or code),
        )

    def _slot(self, address: bytes, slot: int) -> None:
        self._account(address)
        self.pre[address].storage.setdefault(slot, self.state.get_storage(address, slot))

    def result(self, state: PragueState, computation: ComputationAPI, gas_used: int) -> Any:
        post = self._diff() if self.options.diff_mode else {}
        if not self.options.include_empty:
            self.pre = {a: acc for a, acc in self.pre.items() if not acc.empty}
        pre = {_hex(a): self._json(acc) for a, acc in self.pre.items()}
        return {"post": post, "pre": pre} if self.options.diff_mode else pre

    def _diff(self) -> dict[str, Any]:
        """Keeps in `pre` only what changed, and returns the new values (geth's diff mode)."""
        post: dict[str, Any] = {}
        for address, before in list(self.pre.items()):
            if address in self.deleted:
                continue  # kept in `pre`, pruned from `post`
            after = self._changes(address, before)
            if after:
                post[_hex(address)] = after
            else:
                del self.pre[address]
        return post

    def _changes(self, address: bytes, before: _Account) -> dict[str, Any]:
        """What `address` holds now where it differs from `before`; drops from `before` the
        slots that did not change (or were empty)."""
        state, out = self.state, dict[str, Any]()
        balance, nonce = state.get_balance(address), state.get_nonce(address)
        code, code_hash = bytes(state.get_code(address)), bytes(state.get_code_hash(address))
        if balance != before.balance:
            out["balance"] = hex(balance)
        if nonce != before.nonce:
            out["nonce"] = nonce
        if code_hash != before.code_hash:
            out["codeHash"] = _hex(code_hash)
        if not self.options.disable_code and code != before.code:
            out["code"] = _hex(code)
        storage: dict[str, str] = {}
        changed = False
        for slot, value in list(before.storage.items()):
            new = state.get_storage(address, slot)
            if new == value or not value:
                del before.storage[slot]
            changed = changed or new != value
            if new != value and new:
                storage[_word(slot)] = _word(new)
        if storage:
            out["storage"] = storage
        return out if out or changed else {}

    def _json(self, acc: _Account) -> dict[str, Any]:
        out: dict[str, Any] = {"balance": hex(acc.balance)}
        if acc.code and not self.options.disable_code:
            out["code"] = _hex(acc.code)
        if acc.code_hash != EMPTY_CODE_HASH:
            out["codeHash"] = _hex(acc.code_hash)
        if acc.nonce:
            out["nonce"] = acc.nonce
        if acc.storage and not self.options.disable_storage:
            out["storage"] = {_word(k): _word(v) for k, v in acc.storage.items()}
        return out


def _hex(data: bytes) -> str:
    return "0x" + data.hex()


def _address(value: int) -> bytes:
    return (value % 2**160).to_bytes(20, "big")


def _word(value: int) -> str:
    return "0x" + value.to_bytes(32, "big").hex()
