"""What the X-Chain's ImportTxs took from shared memory, where the X-Chain's own tables do not
hold it: the UTXOs another chain created (store/atomic_utxos.py). An import's document lists
them among its consumed UTXOs and counts them in amountUnlocked; an address's spent UTXOs
(includeSpent) include them, created on the exporting chain and consumed on the X-Chain."""

from __future__ import annotations

from collections.abc import Sequence

from snowfield.api.operation import Context, Json
from snowfield.api.primary import c_documents
from snowfield.api.primary.addressing import Target
from snowfield.api.primary.c_chain import chains_of, select_utxos, utxo_key
from snowfield.store import atomic_utxos, x_address_queries, x_documents
from snowfield.store.atomic_utxos import AtomicUtxo
from snowfield.store.database import Database
from snowfield.store.p_address_queries import UtxoFilter
from snowfield.store.pagination import Page
from snowfield.store.x_address_queries import XUtxo
from snowfield.store.x_documents import Assets


def add_imported(
    db: Database, t: Target, assets: Assets, docs: Sequence[Json], imports: Sequence[str]
) -> None:
    """Adds to the documents of the imports `imports` the shared-memory UTXOs they took
    (blocking: x_chain.documents_of runs in a worker thread)."""
    assert t.net.xchain is not None
    taken = atomic_utxos.taken_by(db, chains_of(t), t.net.xchain, list(imports))
    by_tx: dict[str, list[AtomicUtxo]] = {}
    for u in taken:
        by_tx.setdefault(u.consuming_tx or "", []).append(u)
    missing = [u.asset_id for u in taken if u.asset_id not in assets.known]
    if missing:
        known = x_address_queries.assets(db, t.net.xchain, missing)
        assets = Assets(assets.avax_asset, {**assets.known, **known})
    for doc in docs:
        took = sorted(by_tx.get(doc["txHash"], []), key=lambda u: u.utxo_id)
        if not took:
            continue
        doc["consumedUtxos"] = doc["consumedUtxos"] + [c_documents.utxo(assets, u) for u in took]
        totals: dict[str, int] = {}
        for entry in doc["amountUnlocked"]:
            totals[entry["assetId"]] = int(entry["amount"])
        for u in took:
            totals[u.asset_id] = totals.get(u.asset_id, 0) + int(u.amount)
        doc["amountUnlocked"] = [assets.amount(a, v) for a, v in sorted(totals.items())]


async def utxos_with_imported(
    ctx: Context, t: Target, addresses: list[str], f: UtxoFilter, page: Page[XUtxo]
) -> Json:
    """The page of the X-Chain's own UTXOs merged with the imported ones in the same order:
    both are cut at the same keyset position, so the merged page's last key is a position
    from which both continue."""
    xchain = t.net.xchain
    assert xchain is not None
    shared = await ctx.run(atomic_utxos.destined, ctx.db, chains_of(t), xchain, addresses)
    imported = [u for u in shared if u.consuming_tx is not None]
    limit = ctx.args["pageSize"]
    merged: list[XUtxo | AtomicUtxo] = [*page.items, *select_utxos(f, imported, ctx.after())]
    merged.sort(key=lambda u: utxo_key(f, u), reverse=f.desc)
    more = page.next_key is not None or len(merged) > limit
    items = merged[:limit]
    next_key = utxo_key(f, items[-1]) if more and items else None
    known = await ctx.run(
        x_address_queries.assets, ctx.db, xchain, sorted({u.asset_id for u in items})
    )
    assets = Assets(t.net.avax_asset, known)
    rendered = [
        c_documents.utxo(assets, u)
        if isinstance(u, AtomicUtxo)
        else x_documents.utxo(assets, xchain, u)
        for u in items
    ]
    chain_info = {"chainName": t.name, "network": ctx.args["network"]}
    return {**ctx.next_page(Page(items, next_key)), "utxos": rendered, "chainInfo": chain_info}
