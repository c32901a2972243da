"""Development methods under anvil's and hardhat's names: accounts, impersonation, mining."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from snowfield.chains.evm.execution.call import CallArgs
from snowfield.chains.evm.execution.edits import AccountEdit
from snowfield.errors import InvalidParams
from snowfield.node.vms.evm import params as p
from snowfield.node.vms.evm.methods.personal import send_impersonated
from snowfield.node.vms.evm.methods.snapshots import snapshot_methods
from snowfield.node.vms.evm.methods.txargs import call_args
from snowfield.node.vms.evm.render import hb, hx
from snowfield.node.vms.evm.runtime import EvmRuntime
from snowfield.rpc.dispatch import Method, Param
from snowfield.rpc.errors import ParamError

MAX_MINED_PER_CALL = 10_000


def cheat_methods(rt: EvmRuntime) -> list[Method]:
    """Every development method; anvil's and hardhat's names of one method share a handler."""
    return [
        *_account_methods(rt),
        *_pool_methods(rt),
        *_mining_methods(rt),
        *_info_methods(rt),
        *snapshot_methods(rt),
    ]


def _both(name: str, handler: Callable[..., Any], params: tuple[Param, ...] = ()) -> list[Method]:
    return [Method(f"anvil_{name}", handler, params), Method(f"hardhat_{name}", handler, params)]


def _account_methods(rt: EvmRuntime) -> list[Method]:
    chain = rt.chain

    async def edit(change: AccountEdit) -> None:
        await rt.write(chain.edit_state, [change])

    async def set_balance(address: bytes, balance: int) -> None:
        await edit(AccountEdit(address, balance=balance))

    async def set_code(address: bytes, code: bytes) -> None:
        await edit(AccountEdit(address, code=code))

    async def set_nonce(address: bytes, nonce: int) -> None:
        await edit(AccountEdit(address, nonce=nonce))

    async def set_storage(address: bytes, slot: int, value: bytes) -> bool:
        await edit(AccountEdit(address, storage={slot: int.from_bytes(value, "big")}))
        return True

    def impersonate(address: bytes) -> None:
        rt.impersonation.addresses.add(address)

    def stop_impersonating(address: bytes) -> None:
        rt.impersonation.addresses.discard(address)

    def auto_impersonate(enabled: bool) -> None:
        rt.impersonation.everyone = enabled

    async def send_unsigned(args: CallArgs) -> str:
        return await send_impersonated(rt, args)

    address = Param("address", p.address)
    return [
        *_both("setBalance", set_balance, (address, Param("balance", p.quantity))),
        *_both("setCode", set_code, (address, Param("code", p.data))),
        *_both("setNonce", set_nonce, (address, Param("nonce", p.uint64))),
        *_both(
            "setStorageAt",
            set_storage,
            (address, Param("slot", p.storage_key), Param("value", p.hash32)),
        ),
        *_both("impersonateAccount", impersonate, (address,)),
        *_both("stopImpersonatingAccount", stop_impersonating, (address,)),
        Method("anvil_autoImpersonateAccount", auto_impersonate, (Param("enabled", p.boolean),)),
        Method("eth_sendUnsignedTransaction", send_unsigned, (Param("args", call_args),)),
    ]


def _pool_methods(rt: EvmRuntime) -> list[Method]:
    chain = rt.chain

    def drop(tx_hash: bytes) -> str | None:
        return hb(tx_hash) if chain.drop_pending(tx_hash) else None

    def drop_all() -> None:
        for tx_hash in list(chain.mempool.by_hash):
            chain.drop_pending(tx_hash)

    def set_min_gas_price(_price: int) -> None:
        # As anvil: a minimum gas price only exists before EIP-1559, and the C-Chain has it.
        raise ParamError("anvil_setMinGasPrice is not supported when EIP-1559 is active")

    return [
        *_both("dropTransaction", drop, (Param("hash", p.hash32),)),
        Method("anvil_dropAllTransactions", drop_all),
        *_both("setMinGasPrice", set_min_gas_price, (Param("price", p.quantity),)),
    ]


def _mining_methods(rt: EvmRuntime) -> list[Method]:
    chain = rt.chain

    def set_coinbase(address: bytes) -> None:
        chain.params = replace(chain.params, coinbase=address)

    def set_gas_limit(limit: int) -> bool:
        if limit == 0:
            raise InvalidParams("block gas limit must be greater than 0")
        chain.params = replace(chain.params, gas_limit=limit)
        return True

    def set_next_base_fee(fee: int) -> None:
        chain.params = replace(chain.params, base_fee=fee)

    def set_automine(enabled: bool) -> None:
        # As anvil: turning automine on replaces an interval; turning it off leaves one.
        if enabled and not rt.automine:
            rt.set_interval(None)
            rt.automine = True
        elif not enabled and rt.automine:
            rt.automine = False

    def get_automine() -> bool:
        return rt.automine

    def set_interval(seconds: int) -> None:
        rt.automine = False
        rt.set_interval(float(seconds) if seconds else None)

    async def mine(blocks: int | None = None, interval: int | None = None) -> None:
        count = 1 if blocks is None else blocks
        if count > MAX_MINED_PER_CALL:
            raise InvalidParams(f"at most {MAX_MINED_PER_CALL} blocks can be mined per call")
        await rt.write(_mine_blocks, rt, count, interval)

    return [
        *_both("setCoinbase", set_coinbase, (Param("address", p.address),)),
        Method("evm_setBlockGasLimit", set_gas_limit, (Param("gasLimit", p.uint64),)),
        Method("anvil_setBlockGasLimit", set_gas_limit, (Param("gasLimit", p.uint64),)),
        *_both("setNextBlockBaseFeePerGas", set_next_base_fee, (Param("baseFee", p.quantity),)),
        Method("evm_setAutomine", set_automine, (Param("enabled", p.boolean),)),
        Method("anvil_setAutomine", set_automine, (Param("enabled", p.boolean),)),
        *_both("getAutomine", get_automine),
        Method("evm_setIntervalMining", set_interval, (Param("seconds", p.number_or_hex),)),
        Method("anvil_setIntervalMining", set_interval, (Param("seconds", p.number_or_hex),)),
        *_both(
            "mine",
            mine,
            (Param("blocks", p.number_or_hex, None), Param("interval", p.number_or_hex, None)),
        ),
    ]


def _mine_blocks(rt: EvmRuntime, count: int, interval: int | None) -> None:
    """Mines `count` blocks (empty ones too); as anvil, `interval` seconds pass before each."""
    for _ in range(count):
        if interval:
            rt.chain.increase_time(interval)
        rt.chain.mine(allow_empty=True)


def _info_methods(rt: EvmRuntime) -> list[Method]:
    chain = rt.chain

    def node_info() -> dict[str, Any]:
        head = chain.head
        return {
            "currentBlockNumber": hx(head.number),
            "currentBlockTimestamp": head.header.timestamp,
            "currentBlockHash": hb(head.hash),
            "hardFork": "prague",
            "transactionOrder": "fees",
            "environment": {
                "baseFee": hx(chain.next_base_fee()),
                "chainId": chain.config.chain_id,
                "gasLimit": hx(chain.params.gas_limit),
                "gasPrice": hx(chain.next_base_fee() + chain.suggested_tip()),
            },
            "forkConfig": {},
        }

    def metadata() -> dict[str, Any]:
        head = chain.head
        return {
            "clientVersion": chain.config.client_version,
            "chainId": chain.config.chain_id,
            "instanceId": hb(chain.blocks[0].hash),
            "latestBlockNumber": head.number,
            "latestBlockHash": hb(head.hash),
        }

    def set_logging(_enabled: bool) -> None:
        """Accepted for test suites that turn the node's logging off; the devnet's log
        level is a setting."""

    return [
        *_both("setLoggingEnabled", set_logging, (Param("enabled", p.boolean),)),
        Method("anvil_nodeInfo", node_info),
        Method("anvil_metadata", metadata),
        Method("hardhat_metadata", metadata),
    ]
