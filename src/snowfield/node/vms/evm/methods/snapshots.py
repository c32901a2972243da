"""Restore points and saved states: evm_snapshot/evm_revert, anvil_dumpState/loadState, reset."""

from __future__ import annotations

import gzip
import zlib
from typing import Any

import orjson

from snowfield.chains.evm.chain import EvmChain
from snowfield.chains.evm.execution.edits import AccountEdit
from snowfield.chains.evm.mempool import Mempool
from snowfield.chains.evm.snapshots import Snapshots
from snowfield.chains.evm.state_dump import reachable
from snowfield.errors import InvalidParams
from snowfield.node.vms.evm import params as p
from snowfield.node.vms.evm.render import hb, hx
from snowfield.node.vms.evm.runtime import EvmRuntime
from snowfield.rpc.dispatch import Method, Param

DUMP_FORMAT = "snowfield-state/1"


def snapshot_methods(rt: EvmRuntime) -> list[Method]:
    chain = rt.chain
    snapshots = Snapshots(chain)

    async def snapshot() -> str:
        return hx(await rt.write(snapshots.take))

    async def revert(ident: int) -> bool:
        return await rt.write(snapshots.revert, ident)

    async def dump_state() -> str:
        return hb(gzip.compress(await rt.write(dump_state_json, chain), mtime=0))

    async def load_state(blob: bytes) -> bool:
        await rt.write(load_state_blob, chain, blob)
        return True

    async def reset(options: dict[str, Any] | None = None) -> None:
        forking = (options or {}).get("forking")
        if isinstance(forking, dict) and forking.get("jsonRpcUrl"):
            raise InvalidParams("forking is not supported by the devnet")
        await rt.write(_reset, rt, snapshots)

    return [
        Method("evm_snapshot", snapshot),
        Method("evm_revert", revert, (Param("id", p.uint64),)),
        Method("anvil_dumpState", dump_state),
        Method("hardhat_dumpState", dump_state),
        Method("anvil_loadState", load_state, (Param("state", p.data),)),
        Method("hardhat_loadState", load_state, (Param("state", p.data),)),
        Method("anvil_reset", reset, (Param("options", p.obj, None),)),
        Method("hardhat_reset", reset, (Param("options", p.obj, None),)),
    ]


def dump_state_json(chain: EvmChain) -> bytes:
    """The state of `latest` as our dump's JSON (anvil_dumpState gzips it)."""
    root = chain.root_of(chain.head)
    nodes = reachable(chain.store.recording.data, root)
    body = {
        "format": DUMP_FORMAT,
        "root": hb(root),
        "nodes": {hb(k): hb(v) for k, v in nodes.items()},
    }
    return orjson.dumps(body)


def load_state_blob(chain: EvmChain, blob: bytes) -> None:
    """Makes a dump (ours or anvil's, gzipped or not) the state of `latest`."""
    loaded = _parse_dump(blob)
    if isinstance(loaded, list):
        chain.edit_state(loaded)
    else:
        chain.load_nodes(*loaded)


def _parse_dump(blob: bytes) -> list[AccountEdit] | tuple[bytes, dict[bytes, bytes]]:
    """Our dump (trie nodes), or anvil's (an account list) as edits of the head state."""
    try:
        text = gzip.decompress(blob) if blob[:2] == b"\x1f\x8b" else blob
        body = orjson.loads(text)
    except (OSError, EOFError, zlib.error, orjson.JSONDecodeError):
        raise InvalidParams("failed to decode state: not a gzipped JSON state dump") from None
    if not isinstance(body, dict):
        raise InvalidParams("failed to decode state: expected an object")
    if body.get("format") == DUMP_FORMAT:
        nodes = p.obj(body.get("nodes"))
        return p.hash32(body.get("root")), {p.hash32(k): p.data(v) for k, v in nodes.items()}
    if isinstance(body.get("accounts"), dict):
        return [_account_edit(a, fields) for a, fields in body["accounts"].items()]
    raise InvalidParams("failed to decode state: neither a snowfield nor an anvil state dump")


def _account_edit(address: str, fields: Any) -> AccountEdit:
    fields = p.obj(fields)
    storage = p.obj(fields.get("storage") or {})
    return AccountEdit(
        p.address(address),
        balance=_number(fields.get("balance", "0x0")),
        nonce=_number(fields.get("nonce", 0)),
        code=p.data(fields.get("code") or "0x"),
        storage={p.storage_key(k): p.storage_key(v) for k, v in storage.items()},
    )


def _number(value: Any) -> int:
    """anvil writes nonces as JSON numbers and balances as hex."""
    return p.quantity(value) if isinstance(value, str) else p.number_or_hex(value)


def _reset(rt: EvmRuntime, snapshots: Snapshots) -> None:
    chain = rt.chain
    with chain.quiesced():
        chain.rewind(0)
        chain.mempool.restore(Mempool())
        chain.reset_block_params()
    snapshots.clear()
    rt.impersonation.clear()
