"""The eth_ namespace: chain, state, blocks, transactions, calls, fees and proofs."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from snowfield.chains.evm.chain import CallPrelude
from snowfield.chains.evm.execution.call import CallArgs
from snowfield.chains.evm.execution.overrides import (
    NO_BLOCK_OVERRIDES,
    BlockOverrides,
    StateOverrides,
)
from snowfield.chains.evm.model import Block
from snowfield.errors import InvalidParams, NotFound
from snowfield.node.vms.evm import params as p
from snowfield.node.vms.evm.methods.overrides import block_overrides, state_overrides
from snowfield.node.vms.evm.methods.txargs import call_args
from snowfield.node.vms.evm.render import (
    block_json,
    hb,
    hx,
    receipt_json,
    tx_json,
)
from snowfield.node.vms.evm.runtime import EvmRuntime
from snowfield.rpc.dispatch import Method, Param

LATEST = p.LATEST
PRUNING_WINDOW = 32


@dataclass(frozen=True, slots=True)
class ProofPolicy:
    """coreth's rule for how far back eth_getProof may look."""

    pruning: bool = False
    window: int = 43_200  # 24 h of 2 s blocks, coreth's default

    def check(self, number: int, last_accepted: int) -> None:
        window = PRUNING_WINDOW if self.pruning else self.window
        if not self.pruning and window == 0:
            return
        oldest = last_accepted - window if last_accepted > window else 0
        if number < oldest:
            raise InvalidParams(
                f"block number {number} is before the oldest allowed block number {oldest} "
                f"(window of {window} blocks)"
            )


def eth_methods(rt: EvmRuntime, proofs: ProofPolicy, accounts: list[bytes]) -> list[Method]:
    chain = rt.chain

    def chain_id() -> str:
        return hx(chain.config.chain_id)

    def block_number() -> str:
        return hx(chain.head.number)

    def syncing() -> bool:
        return False

    def list_accounts() -> list[str]:
        return [hb(a) for a in accounts]

    def gas_price() -> str:
        return hx(chain.next_base_fee() + chain.suggested_tip())

    def base_fee() -> str:
        return hx(chain.next_base_fee())

    def max_priority_fee() -> str:
        return hx(chain.suggested_tip())

    def chain_config() -> dict[str, Any]:
        return chain.config.as_json()

    def get_balance(address: bytes, ref: p.BlockRef) -> str:
        return hx(chain.state_at(rt.resolve(ref)).balance(address))

    def get_code(address: bytes, ref: p.BlockRef) -> str:
        return hb(chain.state_at(rt.resolve(ref)).code(address))

    def get_storage_at(address: bytes, slot: int, ref: p.BlockRef) -> str:
        value = chain.state_at(rt.resolve(ref)).storage(address, slot)
        return "0x" + value.to_bytes(32, "big").hex()

    def get_transaction_count(address: bytes, ref: p.BlockRef) -> str:
        if ref.tag == "pending":
            return hx(chain.pending_nonce(address))
        return hx(chain.state_at(rt.resolve(ref)).nonce(address))

    def get_block_by_number(ref: p.BlockRef, full: bool) -> dict[str, Any] | None:
        block = rt.find(ref)
        return None if block is None else block_json(block, full)

    def get_block_by_hash(block_hash: bytes, full: bool) -> dict[str, Any] | None:
        block = chain.block_by_hash(block_hash)
        return None if block is None else block_json(block, full)

    def get_header_by_number(ref: p.BlockRef) -> dict[str, Any] | None:
        block = rt.find(ref)
        return None if block is None else _header_only(block)

    def get_header_by_hash(block_hash: bytes) -> dict[str, Any] | None:
        block = chain.block_by_hash(block_hash)
        return None if block is None else _header_only(block)

    def tx_count_by_number(ref: p.BlockRef) -> str | None:
        block = rt.find(ref)
        return None if block is None else hx(len(block.txs))

    def tx_count_by_hash(block_hash: bytes) -> str | None:
        block = chain.block_by_hash(block_hash)
        return None if block is None else hx(len(block.txs))

    def uncle_count_by_number(ref: p.BlockRef) -> str | None:
        return None if rt.find(ref) is None else "0x0"

    def uncle_count_by_hash(block_hash: bytes) -> str | None:
        return None if chain.block_by_hash(block_hash) is None else "0x0"

    def tx_by_hash(tx_hash: bytes) -> dict[str, Any] | None:
        loc = chain.locate(tx_hash)
        if loc is not None:
            return tx_json(loc.tx, loc.block, loc.index)
        pending = chain.mempool.by_hash.get(tx_hash)
        return None if pending is None else tx_json(pending)

    def _tx_at(block: Block | None, index: int) -> dict[str, Any] | None:
        if block is None or index >= len(block.txs):
            return None
        return tx_json(block.txs[index], block, index)

    def tx_by_block_hash_and_index(block_hash: bytes, index: int) -> dict[str, Any] | None:
        return _tx_at(chain.block_by_hash(block_hash), index)

    def tx_by_block_number_and_index(ref: p.BlockRef, index: int) -> dict[str, Any] | None:
        return _tx_at(rt.find(ref), index)

    def raw_tx_by_hash(tx_hash: bytes) -> str | None:
        loc = chain.locate(tx_hash)
        tx = loc.tx if loc is not None else chain.mempool.by_hash.get(tx_hash)
        return None if tx is None else hb(tx.raw)

    def raw_tx_by_block_number_and_index(ref: p.BlockRef, index: int) -> str | None:
        block = rt.find(ref)
        if block is None or index >= len(block.txs):
            return None
        return hb(block.txs[index].raw)

    def receipt(tx_hash: bytes) -> dict[str, Any] | None:
        loc = chain.locate(tx_hash)
        return None if loc is None else receipt_json(loc.block, loc.index)

    def block_receipts(ref: p.BlockRef) -> list[dict[str, Any]] | None:
        block = rt.find(ref)
        if block is None:
            return None
        return [receipt_json(block, i) for i in range(len(block.txs))]

    async def call(
        args: CallArgs, ref: p.BlockRef, state: StateOverrides, block_over: BlockOverrides
    ) -> str:
        block = rt.resolve(ref)
        prelude = CallPrelude(state, block_over)
        return hb(await rt.compute(partial(chain.call, prelude=prelude), args, block))

    async def estimate_gas(
        args: CallArgs, ref: p.BlockRef, state: StateOverrides, block_over: BlockOverrides
    ) -> str:
        block = rt.resolve(ref)
        prelude = CallPrelude(state, block_over)
        return hx(await rt.compute(chain.estimate_gas, args, block, prelude))

    async def send_raw(raw: bytes) -> str:
        tx = await rt.send_raw(raw)
        return hb(tx.hash)

    def fee_history(
        count: int, newest: p.BlockRef, percentiles: list[float] | None
    ) -> dict[str, Any]:
        return _fee_history(rt, count, newest, percentiles)

    def get_proof(address: bytes, keys: list[str], ref: p.BlockRef) -> dict[str, Any]:
        block = rt.resolve(ref)
        proofs.check(block.number, chain.head.number)
        slots = [p.storage_key(k) for k in keys]
        return _proof(chain.state_at(block), address, keys, slots)

    block_ref = Param("block", p.block_number_or_hash)
    opt_block = Param("block", p.block_number_or_hash, LATEST)
    return [
        Method("eth_chainId", chain_id),
        Method("eth_blockNumber", block_number),
        Method("eth_syncing", syncing),
        Method("eth_accounts", list_accounts),
        Method("eth_gasPrice", gas_price),
        Method("eth_baseFee", base_fee),
        Method("eth_maxPriorityFeePerGas", max_priority_fee),
        Method("eth_getChainConfig", chain_config),
        Method(
            "eth_feeHistory",
            fee_history,
            (
                Param("blockCount", p.number_or_hex),
                Param("newestBlock", p.block_number),
                Param("rewardPercentiles", p.float_list, None),
            ),
        ),
        Method("eth_getBalance", get_balance, (Param("address", p.address), opt_block)),
        Method("eth_getCode", get_code, (Param("address", p.address), opt_block)),
        Method(
            "eth_getStorageAt",
            get_storage_at,
            (
                Param("address", p.address),
                Param("slot", p.storage_key),
                opt_block,
            ),
        ),
        Method(
            "eth_getTransactionCount",
            get_transaction_count,
            (
                Param("address", p.address),
                opt_block,
            ),
        ),
        Method(
            "eth_getBlockByNumber",
            get_block_by_number,
            (
                Param("block", p.block_number),
                Param("full", p.boolean, False),
            ),
        ),
        Method(
            "eth_getBlockByHash",
            get_block_by_hash,
            (
                Param("hash", p.hash32),
                Param("full", p.boolean, False),
            ),
        ),
        Method("eth_getHeaderByNumber", get_header_by_number, (Param("block", p.block_number),)),
        Method("eth_getHeaderByHash", get_header_by_hash, (Param("hash", p.hash32),)),
        Method(
            "eth_getBlockTransactionCountByNumber",
            tx_count_by_number,
            (Param("block", p.block_number),),
        ),
        Method("eth_getBlockTransactionCountByHash", tx_count_by_hash, (Param("hash", p.hash32),)),
        Method(
            "eth_getUncleCountByBlockNumber",
            uncle_count_by_number,
            (Param("block", p.block_number),),
        ),
        Method("eth_getUncleCountByBlockHash", uncle_count_by_hash, (Param("hash", p.hash32),)),
        Method("eth_getTransactionByHash", tx_by_hash, (Param("hash", p.hash32),)),
        Method(
            "eth_getTransactionByBlockHashAndIndex",
            tx_by_block_hash_and_index,
            (
                Param("hash", p.hash32),
                Param("index", p.uint64),
            ),
        ),
        Method(
            "eth_getTransactionByBlockNumberAndIndex",
            tx_by_block_number_and_index,
            (
                Param("block", p.block_number),
                Param("index", p.uint64),
            ),
        ),
        Method("eth_getTransactionReceipt", receipt, (Param("hash", p.hash32),)),
        Method("eth_getRawTransactionByHash", raw_tx_by_hash, (Param("hash", p.hash32),)),
        Method(
            "eth_getRawTransactionByBlockNumberAndIndex",
            raw_tx_by_block_number_and_index,
            (
                Param("block", p.block_number),
                Param("index", p.uint64),
            ),
        ),
        Method("eth_getBlockReceipts", block_receipts, (block_ref,)),
        Method(
            "eth_call",
            call,
            (
                Param("args", call_args),
                opt_block,
                Param("stateOverrides", state_overrides, {}),
                Param("blockOverrides", block_overrides, NO_BLOCK_OVERRIDES),
            ),
        ),
        Method(
            "eth_estimateGas",
            estimate_gas,
            (
                Param("args", call_args),
                opt_block,
                Param("stateOverrides", state_overrides, {}),
                Param("blockOverrides", block_overrides, NO_BLOCK_OVERRIDES),
            ),
        ),
        Method("eth_sendRawTransaction", send_raw, (Param("tx", p.data),)),
        Method(
            "eth_getProof",
            get_proof,
            (
                Param("address", p.address),
                Param("keys", p.string_list),
                block_ref,
            ),
        ),
    ]


def _header_only(block: Block) -> dict[str, Any]:
    out = block_json(block, False)
    out.pop("transactions")
    out.pop("uncles")
    return out


def _proof(state: Any, address: bytes, keys: list[str], slots: list[int]) -> dict[str, Any]:
    account = state.account(address)
    from snowfield.chains.evm.execution.state import BLANK_ROOT, EMPTY_CODE_HASH

    storage_root = account.storage_root if account else BLANK_ROOT
    return {
        "address": hb(address),
        "accountProof": [hb(node) for node in state.account_proof(address)],
        "balance": hx(account.balance if account else 0),
        "codeHash": hb(account.code_hash if account else EMPTY_CODE_HASH),
        "nonce": hx(account.nonce if account else 0),
        "storageHash": hb(storage_root),
        "storageProof": [
            {
                "key": key,
                "value": hx(state.storage(address, slot)),
                "proof": [hb(node) for node in state.storage_proof(storage_root, slot)],
            }
            for key, slot in zip(keys, slots, strict=True)
        ],
    }


MAX_FEE_HISTORY = 1024


def _fee_history(
    rt: EvmRuntime, count: int, newest_ref: p.BlockRef, percentiles: list[float] | None
) -> dict[str, Any]:
    chain = rt.chain
    newest = rt.find(newest_ref)
    if newest is None:
        raise NotFound(f"requested block number {newest_ref.number} is beyond the head block")
    count = min(count, MAX_FEE_HISTORY, newest.number + 1)
    if count == 0:
        return {"oldestBlock": "0x0", "baseFeePerGas": [], "gasUsedRatio": []}
    blocks = [chain.block(n) for n in range(newest.number - count + 1, newest.number + 1)]
    fees = [hx(b.header.base_fee) for b in blocks if b]
    last = blocks[-1]
    assert last is not None
    h = last.header
    fees.append(hx(chain.rules.next_base_fee(h, h.timestamp, chain.state_at(last))))
    out: dict[str, Any] = {
        "oldestBlock": hx(newest.number - count + 1),
        "baseFeePerGas": fees,
        "gasUsedRatio": [b.header.gas_used / b.header.gas_limit for b in blocks if b],
    }
    if percentiles is not None:
        out["reward"] = [[hx(r) for r in _rewards(b, percentiles)] for b in blocks if b]
    return out


def _rewards(block: Block, percentiles: list[float]) -> list[int]:
    """Tips at the given gas-weighted percentiles of the block, as geth computes them."""
    if not block.txs:
        return [0] * len(percentiles)
    tips = sorted(
        (tx.tip(block.header.base_fee), r.gas_used)
        for tx, r in zip(block.txs, block.receipts, strict=True)
    )
    rewards = []
    total = block.header.gas_used
    for pct in percentiles:
        threshold = total * pct / 100
        cumulative = 0
        chosen = tips[-1][0]
        for tip, gas in tips:
            cumulative += gas
            if cumulative >= threshold:
                chosen = tip
                break
        rewards.append(chosen)
    return rewards
