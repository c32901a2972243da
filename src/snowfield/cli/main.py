"""The `snowfield` command line: the root command and its subcommands."""

from __future__ import annotations

import typer

from snowfield.cli.aggregator import aggregator
from snowfield.cli.contracts import contracts
from snowfield.cli.devnet import devnet
from snowfield.cli.index import index
from snowfield.cli.index_primary import index_primary
from snowfield.cli.keys import keys
from snowfield.cli.options import reflow
from snowfield.cli.relayer import relayer
from snowfield.cli.serve import serve
from snowfield.cli.up import up
from snowfield.cli.webhooks import webhooks

HELP = """\
snowfield: a self-hosted chain-data platform for Avalanche-style networks.

Run a local devnet (P-Chain, X-Chain, C-Chain and custom EVM L1s, with validators), index any
node's chains into SQLite or PostgreSQL, and serve the data API, the metrics API and a block
explorer over them, with Warp signature aggregation and an ICM relayer. `snowfield up` starts
it all on this machine; each command runs one service alone."""

app = typer.Typer(add_completion=False, no_args_is_help=True, help=reflow(HELP))
app.command()(devnet)
app.command()(index)
app.command("index-primary")(index_primary)
app.command()(serve)
app.command()(aggregator)
app.command()(relayer)
app.command()(webhooks)
app.add_typer(keys, name="keys")
app.add_typer(contracts, name="contracts")
app.command()(up)
