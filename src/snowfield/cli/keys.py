"""`snowfield keys`: the data API's keys, created, listed and revoked in its database."""

from __future__ import annotations

from typing import Annotated

import typer

from snowfield.cli.options import DB_OPTION, DEFAULT_DB
from snowfield.cli.service import console, fail, migrated_now

keys = typer.Typer(
    no_args_is_help=True,
    help="API keys of the data service.\n\nA key (sent in x-service-api-key) gives the keyed "
    "rate limit or one of its own and may be limited to some chains; only its SHA-256 is stored.",
)


@keys.command("create")
def keys_create(
    name: Annotated[str, typer.Option(help="Who or what the key is for.")],
    chains: Annotated[
        str | None, typer.Option(help="Comma-separated EVM chain ids the key may query.")
    ] = None,
    rate_per_minute: Annotated[
        int | None, typer.Option(min=1, help="Compute units per minute for this key.")
    ] = None,
    db: Annotated[str, DB_OPTION] = DEFAULT_DB,
) -> None:
    """Create a key and print it; it is shown only this once (only its SHA-256 is stored)."""
    from snowfield.store.keys import create_key

    try:
        chain_ids = None if chains is None else [int(c) for c in chains.split(",") if c.strip()]
    except ValueError:
        fail("--chains must be comma-separated chain ids", 2)
    key, secret = create_key(
        migrated_now(db), name, chains=chain_ids, rate_per_minute=rate_per_minute
    )
    console.print(f"Created key {key.id} ({key.name}); store it now, it is not shown again:")
    print(secret)


@keys.command("list")
def keys_list(db: Annotated[str, DB_OPTION] = DEFAULT_DB) -> None:
    """List keys (never their secrets)."""
    from snowfield.store.keys import list_keys

    for key in list_keys(migrated_now(db)):
        chains = "all" if key.chains is None else ",".join(map(str, key.chains))
        rate = "default" if key.rate_per_minute is None else str(key.rate_per_minute)
        state = "active" if key.active else f"revoked@{key.revoked}"
        print(f"{key.id}\t{key.name}\tchains={chains}\trate={rate}\t{state}")


@keys.command("revoke")
def keys_revoke(
    key_id: Annotated[str, typer.Argument(help="The key's id, as `keys list` shows it.")],
    db: Annotated[str, DB_OPTION] = DEFAULT_DB,
) -> None:
    """Revoke a key: requests with it answer 401 from then on."""
    from snowfield.store.keys import revoke_key

    if not revoke_key(migrated_now(db), key_id):
        fail(f"no active key {key_id}")
    console.print(f"Revoked key {key_id}")
