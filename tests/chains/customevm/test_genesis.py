"""Custom EVM genesis JSON: what it builds, what it refuses (with the reason), and a chain
rebuilt from its journal being the same chain."""

from __future__ import annotations

import json
from typing import Any

import pytest

from snowfield.chains.evm.customgenesis import genesis_json, parse_genesis
from snowfield.chains.evm.model import SubnetEvmHeader
from snowfield.chains.evm.rules.subnetevm import SubnetEvmRules
from snowfield.chains.journal import MemoryJournal
from snowfield.errors import InvalidParams
from snowfield.testing import custom_evm_chain
from tests.chains.customevm.driver import ADDRS, Driver, hexaddr

BASE = json.loads(genesis_json(321, {ADDRS[0]: 10**20}))


def _with(**config: Any) -> bytes:
    body = json.loads(json.dumps(BASE))
    for key, value in config.items():
        if key.startswith("top_"):
            body[key[4:]] = value
        else:
            body["config"][key] = value
    return json.dumps(body).encode()


def test_the_genesis_builds_the_chain_it_describes() -> None:
    genesis = parse_genesis(
        _with(
            allowFeeRecipients=True,
            feeManagerConfig={"blockTimestamp": 0, "adminAddresses": [hexaddr(ADDRS[1])]},
        )
    )
    rules = genesis.config.rules
    assert isinstance(rules, SubnetEvmRules) and rules.allow_fee_recipients
    assert genesis.config.chain_id == 321 and genesis.config.gas_limit == 8_000_000
    assert [(a.address, a.balance) for a in genesis.config.alloc] == [(ADDRS[0], 10**20)]
    assert [c.key for c in rules.precompile_configs] == ["feeManagerConfig"]


@pytest.mark.parametrize(
    ("genesis", "reason"),
    [
        (b"{", "invalid genesis JSON"),
        (b"[]", "missing config"),
        (_with(chainId="321"), "config.chainId must be a positive integer"),
        (_with(feeConfig={"gasLimit": 1}), "targetBlockRate is not a number"),
        (_with(top_gasLimit="0x10"), "does not match fee config gasLimit"),
        (_with(fooConfig={"blockTimestamp": 0}), None),  # unknown keys are not precompiles
        (
            _with(txAllowListConfig={"adminAddresses": ["0x12"]}),
            "invalid allow list config: adminAddresses",
        ),
        (
            _with(
                txAllowListConfig={
                    "adminAddresses": [hexaddr(ADDRS[0])],
                    "enabledAddresses": [hexaddr(ADDRS[0])],
                }
            ),
            "duplicate address in allow list config",
        ),
        (
            _with(
                upgrades={
                    "precompileUpgrades": [
                        {"feeManagerConfig": {"blockTimestamp": 9}},
                        {"feeManagerConfig": {"blockTimestamp": 5, "disable": True}},
                    ]
                }
            ),
            "config block timestamp (5) < previous timestamp (9)",
        ),
        (
            _with(upgrades={"precompileUpgrades": [{"nopeConfig": {"blockTimestamp": 1}}]}),
            "unknown precompile config: nopeConfig",
        ),
        (_with(top_alloc={"0x12": {"balance": "0x1"}}), "invalid genesis alloc entry"),
    ],
)
def test_a_bad_genesis_is_refused_with_its_reason(genesis: bytes, reason: str | None) -> None:
    if reason is None:
        assert parse_genesis(genesis).config.rules.precompiles(0) == {}
        return
    with pytest.raises(InvalidParams, match=reason.replace("(", r"\(").replace(")", r"\)")):
        parse_genesis(genesis)


def test_a_chain_replayed_from_its_journal_is_the_same_chain() -> None:
    driver = Driver(
        precompiles={
            "contractNativeMinterConfig": {
                "blockTimestamp": 0,
                "adminAddresses": [hexaddr(ADDRS[0])],
            }
        }
    )
    for i in range(3):
        driver.send(0, ADDRS[i + 1], value=i + 1)
    journal = MemoryJournal()
    for record in driver.chain.journal.records():
        journal.append(record)
    data = genesis_json(
        77_777,
        dict.fromkeys(ADDRS, 10**24),
        fee=driver.chain.rules.fee_config,
        precompiles={
            "contractNativeMinterConfig": {
                "blockTimestamp": 0,
                "adminAddresses": [hexaddr(ADDRS[0])],
            }
        },
        timestamp=1_700_000_000,
    )
    again = custom_evm_chain(data, journal=journal)
    assert again.head.hash == driver.chain.head.hash and again.head.number == 3
    assert isinstance(again.head.header, SubnetEvmHeader)
