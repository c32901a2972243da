"""The `snowfield` command: one module per subcommand, `service` runs each service alike, and
`compose` builds the parts (the one composition root; the test builders use it too).

Nothing else imports this package; the console script and `python -m snowfield` call `main`."""

from __future__ import annotations


def main() -> None:
    """Runs the command line (`snowfield …`)."""
    # Imported here: `snowfield.cli.compose`, which the test builders import, then does not
    # load every command and the CLI library with it.
    from snowfield.cli.main import app

    app()
