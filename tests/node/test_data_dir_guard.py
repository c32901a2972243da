"""A data dir belongs to one network: started again with another network id, mnemonic or
C-Chain id it is refused with a clear error before any journal is read; the CLI says so."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from snowfield.cli.compose import build_node
from snowfield.config import NetworkSettings
from snowfield.errors import InvalidParams

OTHER_MNEMONIC = "legal winner thank year wave sausage worth useful legal winner thank yellow"


def test_a_data_dir_refuses_other_settings(tmp_path: Path) -> None:
    settings = NetworkSettings(data_dir=tmp_path, validators=1)
    build_node(settings)
    build_node(settings)  # the same settings: fine
    for change in (
        {"network_id": 1337},
        {"mnemonic": OTHER_MNEMONIC},
        {"chain_id": 43113},
    ):
        with pytest.raises(InvalidParams, match="was made for another network"):
            build_node(dataclasses.replace(settings, **change))  # type: ignore[arg-type]
    assert (tmp_path / "network.json").exists()


def test_the_cli_says_why(tmp_path: Path) -> None:
    build_node(NetworkSettings(data_dir=tmp_path, validators=1))
    done = subprocess.run(
        [sys.executable, "-m", "snowfield", "devnet", "--data-dir", str(tmp_path),
         "--validators", "1", "--network-id", "1337", "--port", "0"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1
    said = " ".join((done.stdout + done.stderr).split())  # the console wraps its lines
    assert "was made for another network (networkId 12345)" in said
