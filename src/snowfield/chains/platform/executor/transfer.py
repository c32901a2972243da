"""Executors of BaseTx, ImportTx and ExportTx (atomic transfers through shared memory)."""

from __future__ import annotations

from dataclasses import replace

from snowfield.chains.atomic import AtomicElement, AtomicRequests
from snowfield.chains.platform.executor.base import (
    Effect,
    Env,
    SpendRequest,
    base_outputs,
    executes,
    spend,
)
from snowfield.chains.platform.utxos import owners_of
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID, PRIMARY_NETWORK_ID
from snowfield.formats.platform.components import UTXO
from snowfield.formats.platform.transfer_txs import BaseTx, ExportTx, ImportTx
from snowfield.formats.platform.txs import Tx


@executes(BaseTx)
def base_tx(env: Env, tx: Tx) -> Effect:
    assert isinstance(tx.unsigned, BaseTx)
    spent = spend(env, tx, tx.unsigned.base)
    return lambda: spent.apply(env)


def _check_peer(env: Env, chain_id: ID) -> None:
    """Atomic transfers only go between chains of the primary network."""
    chain = env.state.blockchains.get(chain_id)
    if chain is None or chain.subnet_id != PRIMARY_NETWORK_ID or chain_id == env.chain_id:
        raise InvalidParams(f"blockchain {chain_id} is not validated by the primary network")


@executes(ImportTx)
def import_tx(env: Env, tx: Tx) -> Effect:
    unsigned = tx.unsigned
    assert isinstance(unsigned, ImportTx)
    _check_peer(env, unsigned.source_chain)
    if not unsigned.imported_inputs:
        raise InvalidParams("tx has no imported inputs")
    keys = [inp.utxo_id.input_id.raw for inp in unsigned.imported_inputs]
    values = env.shared_memory.get(env.chain_id, unsigned.source_chain, keys)
    utxos = tuple(UTXO.decode(value) for value in values)
    request = SpendRequest(imported=unsigned.imported_inputs, imported_utxos=utxos)
    spent = spend(env, tx, unsigned.base, request)
    atomic = {unsigned.source_chain: AtomicRequests(remove=tuple(keys))}
    return lambda: replace(spent, atomic=atomic).apply(env)


@executes(ExportTx)
def export_tx(env: Env, tx: Tx) -> Effect:
    unsigned = tx.unsigned
    assert isinstance(unsigned, ExportTx)
    _check_peer(env, unsigned.destination_chain)
    request = SpendRequest(extra_outputs=unsigned.exported_outputs)
    spent = spend(env, tx, unsigned.base, request)
    exported = base_outputs(tx.id, unsigned.exported_outputs, len(unsigned.base.outputs))
    elements = tuple(
        AtomicElement(
            utxo.id.raw, utxo.encode(), tuple(a.raw for a in owners_of(utxo.output).addresses)
        )
        for utxo in exported
    )
    atomic = {unsigned.destination_chain: AtomicRequests(put=elements)}
    return lambda: replace(spent, atomic=atomic).apply(env)
