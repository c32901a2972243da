"""`python -m snowfield` runs the CLI."""

from snowfield.cli import main

main()
