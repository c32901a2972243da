"""Owner lists (comma-separated addresses) matched by sql.listed: a genesis allocation is an
address's only when the address is one of its owners whole, not a part of another; as the
LIKE it replaced, on SQLite and PostgreSQL."""

from __future__ import annotations

from snowfield.store import p_genesis
from snowfield.store.database import Database
from snowfield.store.primary_rows import UtxoRow

ASSET = "asset"


def _allocation(n: int, owners: tuple[str, ...]) -> UtxoRow:
    return UtxoRow(f"utxo{n}", "", n, ASSET, 10 + n, owners, 1, 0, None, False, "P", "P", "0x")


def test_an_owner_matches_whole_entries_only(db: Database) -> None:
    p_genesis.write_probed(
        db,
        "P",
        [
            _allocation(0, ("local1a",)),
            _allocation(1, ("local1ab", "local1c")),
            _allocation(2, ("local1c", "local1a")),
            _allocation(3, ("xlocal1a",)),
        ],
        ["local1a"],
        None,
    )

    def owned(*addresses: str) -> list[str]:
        return sorted(u.utxo_id for u in p_genesis.owned(db, "P", list(addresses)))

    assert owned("local1a") == ["utxo0", "utxo2"]  # not local1ab's, nor xlocal1a's
    assert owned("local1c") == ["utxo1", "utxo2"]
    assert owned("local1ab", "xlocal1a") == ["utxo1", "utxo3"]
    assert owned("local1") == [] and owned("a") == []
    assert owned("LOCAL1A") == []  # addresses arrive checked and lower-case (addressing.py)
