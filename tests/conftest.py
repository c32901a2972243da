"""Shared fixtures: a real devnet on 127.0.0.1 and web3.py clients on it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from web3 import Web3

from snowfield.testing import RunningNode, serve_devnet


@pytest.fixture(scope="module")
def devnet() -> Iterator[RunningNode]:
    with serve_devnet() as running:
        yield running


@pytest.fixture(scope="module")
def w3(devnet: RunningNode) -> Web3:
    return Web3(Web3.HTTPProvider(devnet.rpc, request_kwargs={"timeout": 30}))
