"""Time and mining control for tests (evm_*), named as anvil and hardhat name them."""

from __future__ import annotations

from snowfield.node.vms.evm import params as p
from snowfield.node.vms.evm.runtime import EvmRuntime
from snowfield.rpc.dispatch import Method, Param


def evm_methods(rt: EvmRuntime) -> list[Method]:
    chain = rt.chain

    def set_next_timestamp(timestamp: int) -> None:
        chain.set_next_timestamp(timestamp)

    def increase_time(seconds: int) -> str:
        return hex(chain.increase_time(seconds))

    async def mine(timestamp: int | None = None) -> str:
        await rt.mine(timestamp)
        return "0x0"

    return [
        Method(
            "evm_setNextBlockTimestamp", set_next_timestamp, (Param("timestamp", p.number_or_hex),)
        ),
        Method("evm_increaseTime", increase_time, (Param("seconds", p.number_or_hex),)),
        Method("evm_mine", mine, (Param("timestamp", p.number_or_hex, None),)),
    ]
