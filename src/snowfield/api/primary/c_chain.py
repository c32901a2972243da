"""The C-Chain on the primary network's UTXO and transaction operations: its atomic txs (imports
and exports, from the C-Chain's atomic index) and its UTXOs, which are those the P- and X-Chain
exported to it (store/atomic_utxos.py): unspent until a C-Chain import takes them, as
`avax.getUTXOs` with a sourceChain holds them."""

from __future__ import annotations

from collections.abc import Sequence

from snowfield.api.operation import Context, Json
from snowfield.api.primary import c_documents
from snowfield.api.primary.addressing import Target
from snowfield.errors import NotFound
from snowfield.store import atomic_utxos, c_atomic_queries, x_address_queries
from snowfield.store.atomic_utxos import AtomicUtxo
from snowfield.store.p_address_queries import LastActivity, TxFilter, UtxoFilter
from snowfield.store.pagination import Key, page_of
from snowfield.store.shared_memory import Chains
from snowfield.store.x_address_queries import XUtxo
from snowfield.store.x_documents import Assets


def cchain_of(t: Target) -> str:
    if t.net.cchain is None:
        raise NotFound("the indexed node has no C-Chain")
    return t.net.cchain


def chains_of(t: Target) -> Chains:
    return Chains(t.net.pchain, t.net.xchain, t.net.cchain)


async def _assets(ctx: Context, t: Target, asset_ids: Sequence[str]) -> Assets:
    known = {}
    if t.net.xchain is not None and asset_ids:
        known = await ctx.run(x_address_queries.assets, ctx.db, t.net.xchain, list(asset_ids))
    return Assets(t.net.avax_asset, known)


def _chain_info(ctx: Context, t: Target) -> Json:
    return {"chainName": t.name, "network": ctx.args["network"]}


def utxo_key(f: UtxoFilter, u: AtomicUtxo | XUtxo) -> Key:
    """A UTXO's keyset position, as the P- and X-Chain's pages order them."""
    if f.by_amount:
        return (len(u.amount), u.amount, u.utxo_id)
    return (u.timestamp, u.utxo_id)


def select_utxos(f: UtxoFilter, utxos: Sequence[AtomicUtxo], after: Key | None) -> list[AtomicUtxo]:
    """The filter, order and keyset position of a UTXO page (the same as the P- and X-Chain's
    in SQL); a C-Chain address's shared memory is small, so it is applied here."""
    kept = [
        u
        for u in utxos
        if (f.include_spent or u.consuming_tx is None)
        and (f.asset_id is None or u.asset_id == f.asset_id)
        and (f.min_amount is None or int(u.amount) >= f.min_amount)
    ]
    kept.sort(key=lambda u: utxo_key(f, u), reverse=f.desc)
    if after is not None:
        kept = [u for u in kept if (utxo_key(f, u) < after if f.desc else utxo_key(f, u) > after)]
    return kept


async def utxos(ctx: Context, t: Target, addresses: list[str], f: UtxoFilter) -> Json:
    cchain = cchain_of(t)
    every = await ctx.run(atomic_utxos.destined, ctx.db, chains_of(t), cchain, addresses)
    limit = ctx.args["pageSize"]
    page = page_of(
        select_utxos(f, every, ctx.after())[: limit + 1], limit, lambda u: utxo_key(f, u)
    )
    assets = await _assets(ctx, t, [u.asset_id for u in page.items])
    items = [c_documents.utxo(assets, u) for u in page.items]
    return {**ctx.next_page(page), "utxos": items, "chainInfo": _chain_info(ctx, t)}


async def documents(ctx: Context, t: Target, txs: Sequence[c_atomic_queries.CTx]) -> list[Json]:
    cchain = cchain_of(t)
    decoded = [c_documents.decode(tx) for tx in txs]
    exports = [tx.tx_id for tx in txs if tx.tx_type == "ExportTx"]
    taken = [
        str(i.utxo_id.input_id) for d in decoded for i in getattr(d.unsigned, "imported_inputs", ())
    ]
    chains = chains_of(t)
    emitted = await ctx.run(atomic_utxos.exported, ctx.db, chains, "cchain", exports)
    consumed = await ctx.run(atomic_utxos.imported, ctx.db, chains, cchain, taken)
    by_tx: dict[str, list[AtomicUtxo]] = {}
    for u in emitted:
        by_tx.setdefault(u.tx_id, []).append(u)
    for u in consumed:
        by_tx.setdefault(u.consuming_tx or "", []).append(u)
    assets = await _assets(ctx, t, [u.asset_id for u in emitted + consumed])
    return [
        c_documents.transaction(assets, cchain, tx, d, by_tx.get(tx.tx_id, []))
        for tx, d in zip(txs, decoded, strict=True)
    ]


async def get_tx(ctx: Context, t: Target, tx_hash: str) -> Json:
    found = await ctx.run(c_atomic_queries.tx, ctx.db, cchain_of(t), tx_hash)
    if found is None:
        raise NotFound(f"transaction {tx_hash} not found on the {t.name}")
    return (await documents(ctx, t, [found]))[0]


async def _involving(ctx: Context, t: Target, addresses: Sequence[str]) -> list[str]:
    """The atomic txs naming these addresses: exports to them, imports of their UTXOs."""
    cchain = cchain_of(t)
    exports = await ctx.run(c_atomic_queries.exports_owned, ctx.db, cchain, list(addresses))
    shared = await ctx.run(atomic_utxos.destined, ctx.db, chains_of(t), cchain, list(addresses))
    imports = {u.consuming_tx for u in shared if u.consuming_tx is not None}
    return sorted(exports | imports)


async def tx_list(ctx: Context, t: Target, f: TxFilter) -> Json:
    cchain = cchain_of(t)
    only = None if f.addresses is None else await _involving(ctx, t, f.addresses)
    page = await ctx.run(
        c_atomic_queries.tx_page, ctx.db, cchain, f, only, ctx.after(), ctx.args["pageSize"]
    )
    txs = await documents(ctx, t, page.items)
    return {**ctx.next_page(page), "transactions": txs, "chainInfo": _chain_info(ctx, t)}


async def last_activity(ctx: Context, t: Target, addresses: list[str]) -> LastActivity | None:
    """The latest atomic event of these addresses on the C-Chain: an export to them, or an
    import of a UTXO of theirs (`isConsumed`); its block number is the C-Chain block's."""
    cchain = cchain_of(t)
    events = [
        (when, height, tx, utxo, False)
        for when, height, tx, utxo in await ctx.run(
            c_atomic_queries.export_events, ctx.db, cchain, addresses
        )
    ]
    shared = await ctx.run(atomic_utxos.destined, ctx.db, chains_of(t), cchain, addresses)
    taken = [u for u in shared if u.consuming_tx is not None]
    at = await ctx.run(
        c_atomic_queries.heights, ctx.db, cchain, sorted({u.consuming_tx or "" for u in taken})
    )
    events += [
        (u.consuming_timestamp or 0, at.get(u.consuming_tx or "", 0), u.consuming_tx or "",
         u.utxo_id, True)
        for u in taken
    ]  # fmt: skip
    if not events:
        return None
    when, height, tx, utxo, consumed = max(events, key=lambda e: (e[0], e[1]))
    return LastActivity(when, height, tx, utxo, consumed)


async def has_activity(ctx: Context, t: Target, address: str) -> bool:
    """Whether an indexed atomic tx of the C-Chain names `address`."""
    if t.net.cchain is None:
        return False
    return bool(await _involving(ctx, t, [address]))
