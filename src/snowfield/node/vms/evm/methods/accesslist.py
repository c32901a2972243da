"""eth_createAccessList: the access list a transaction object needs, with its gas and error."""

from __future__ import annotations

from typing import Any

from snowfield.chains.evm.execution.call import CallArgs
from snowfield.node.vms.evm import params as p
from snowfield.node.vms.evm.methods.txargs import call_args
from snowfield.node.vms.evm.render import hb, hx
from snowfield.node.vms.evm.runtime import EvmRuntime
from snowfield.rpc.dispatch import Method, Param

PENDING = p.BlockRef(tag="pending")


def access_list_methods(rt: EvmRuntime) -> list[Method]:
    async def create(args: CallArgs, ref: p.BlockRef) -> dict[str, Any]:
        block = rt.resolve(ref)
        found = await rt.compute(rt.chain.create_access_list, args, block)
        out: dict[str, Any] = {
            "accessList": [
                {"address": hb(t.address), "storageKeys": [hb(k) for k in t.storage_keys]}
                for t in found.access_list
            ]
        }
        if found.error is not None:
            out["error"] = found.error
        out["gasUsed"] = hx(found.gas_used)
        return out

    return [
        Method(
            "eth_createAccessList",
            create,
            (Param("args", call_args), Param("block", p.block_number_or_hash, PENDING)),
        )
    ]
