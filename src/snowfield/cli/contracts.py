"""`snowfield contracts`: curated contract metadata (names, logos, links, tags) for the data API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from snowfield.cli.options import DB_OPTION, DEFAULT_DB
from snowfield.cli.service import console, fail, migrated_now
from snowfield.errors import SnowfieldError

contracts = typer.Typer(
    no_args_is_help=True,
    help="Curated contract metadata.\n\nThe names, logos, links and tags the data API and the "
    "explorer show for contracts.",
)


@contracts.command("load")
def contracts_load(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="JSON file.")],
    db: Annotated[str, DB_OPTION] = DEFAULT_DB,
) -> None:
    """Load curated contract metadata: a JSON list of {chainId, address, name, ...} objects."""
    from snowfield.store.curation import parse_curated, save_curated

    try:
        entries = json.loads(file.read_text())
        if not isinstance(entries, list):
            raise SnowfieldError("the file must hold a JSON list of objects")
        parsed = [parse_curated(e, f"entry {i}") for i, e in enumerate(entries)]
    except (ValueError, SnowfieldError) as exc:
        fail(getattr(exc, "message", str(exc)))
    save_curated(migrated_now(db), parsed)
    console.print(f"Loaded metadata of {len(parsed)} contracts")
