"""Native minter, fee manager and reward manager per role; activation from precompileUpgrades
at a timestamp and `disable`."""

from __future__ import annotations

import dataclasses

import pytest

from snowfield.chains.evm.feeconfig import FeeConfig
from snowfield.chains.evm.precompiles.abi import checksummed
from snowfield.errors import InvalidParams
from tests.chains.customevm.driver import ADDRS, FREE, GENESIS_TIME, Driver, hexaddr, sel, word

MINTER = bytes.fromhex("0200000000000000000000000000000000000001")
FEES = bytes.fromhex("0200000000000000000000000000000000000003")
REWARDS = bytes.fromhex("0200000000000000000000000000000000000004")
BLACKHOLE = bytes.fromhex("0100000000000000000000000000000000000000")
ROLES = {"adminAddresses": [hexaddr(ADDRS[0])], "enabledAddresses": [hexaddr(ADDRS[1])]}
NEW_FEES = dataclasses.replace(FREE, gas_limit=12_000_000, min_base_fee=30 * 10**9)


@pytest.fixture(scope="module")
def managed() -> Driver:
    return Driver(
        precompiles={
            "contractNativeMinterConfig": {"blockTimestamp": 0, **ROLES},
            "feeManagerConfig": {"blockTimestamp": 0, **ROLES},
            "rewardManagerConfig": {"blockTimestamp": 0, **ROLES},
        }
    )


def test_enabled_mints_with_an_event_and_others_are_refused(managed: Driver) -> None:
    target = b"\x42" * 20
    receipt = managed.send(
        1, MINTER, sel("mintNativeCoin(address,uint256)") + word(target) + word(7 * 10**18)
    )
    assert receipt.status == 1 and managed.balance(target) == 7 * 10**18
    (log,) = receipt.logs
    assert log.topics[1:] == (word(ADDRS[1]), word(target)) and log.data == word(7 * 10**18)
    with pytest.raises(InvalidParams) as refused:
        managed.call(3, MINTER, sel("mintNativeCoin(address,uint256)") + word(target) + word(1))
    assert str(refused.value) == f"non-enabled cannot mint: {checksummed(ADDRS[3])}"


def _fee_words(fee: FeeConfig) -> bytes:
    return b"".join(word(v) for v in dataclasses.astuple(fee))


def test_fee_manager_changes_the_fee_config_from_the_next_block(managed: Driver) -> None:
    assert managed.call(3, FEES, sel("getFeeConfig()")) == _fee_words(FREE)
    set_fee = sel("setFeeConfig(" + ",".join(["uint256"] * 8) + ")") + _fee_words(NEW_FEES)
    with pytest.raises(InvalidParams, match="non-enabled cannot change fee config"):
        managed.call(3, FEES, set_fee)
    receipt = managed.send(1, FEES, set_fee)
    assert receipt.status == 1 and len(receipt.logs) == 1
    changed_in = managed.chain.head
    assert changed_in.header.gas_limit == FREE.gas_limit  # that block ran on the old config
    assert managed.call(3, FEES, sel("getFeeConfig()")) == _fee_words(NEW_FEES)
    last = managed.call(3, FEES, sel("getFeeConfigLastChangedAt()"))
    assert int.from_bytes(last, "big") == changed_in.number
    nxt = managed.send(0, ADDRS[4], value=1)
    assert nxt.status == 1
    assert managed.chain.head.header.gas_limit == NEW_FEES.gas_limit
    assert managed.chain.head.header.base_fee >= NEW_FEES.min_base_fee
    bad = dataclasses.replace(NEW_FEES, min_block_gas_cost=10, max_block_gas_cost=1)
    with pytest.raises(InvalidParams, match="cannot verify fee config: minBlockGasCost = 10"):
        managed.call(0, FEES, set_fee[:4] + _fee_words(bad))


def test_reward_manager_routes_fees(managed: Driver) -> None:
    assert managed.chain.head.header.coinbase == BLACKHOLE  # allowFeeRecipients is off
    reward = b"\x77" * 20
    with pytest.raises(InvalidParams, match="non-enabled cannot call setRewardAddress"):
        managed.call(3, REWARDS, sel("setRewardAddress(address)") + word(reward))
    with pytest.raises(InvalidParams, match="reward address cannot be empty"):
        managed.call(1, REWARDS, sel("setRewardAddress(address)") + word(0))
    assert managed.send(1, REWARDS, sel("setRewardAddress(address)") + word(reward)).status == 1
    assert managed.call(3, REWARDS, sel("currentRewardAddress()")) == word(reward)
    before = managed.balance(reward)
    assert managed.send(0, ADDRS[4], value=1).status == 1
    assert managed.chain.head.header.coinbase == reward and managed.balance(reward) > before
    assert managed.send(0, REWARDS, sel("allowFeeRecipients()")).status == 1
    assert managed.call(3, REWARDS, sel("areFeeRecipientsAllowed()")) == word(1)
    managed.send(0, ADDRS[4], value=1)
    assert managed.chain.head.header.coinbase == managed.chain.params.coinbase
    assert managed.send(0, REWARDS, sel("disableRewards()")).status == 1
    managed.send(0, ADDRS[4], value=1)
    assert managed.chain.head.header.coinbase == BLACKHOLE


def test_upgrades_activate_and_disable_at_their_timestamps() -> None:
    on, off = GENESIS_TIME + 3, GENESIS_TIME + 6
    d = Driver(
        upgrades=[
            {"contractNativeMinterConfig": {"blockTimestamp": on, **ROLES}},
            {"contractNativeMinterConfig": {"blockTimestamp": off, "disable": True}},
        ]
    )
    mint = sel("mintNativeCoin(address,uint256)") + word(ADDRS[4]) + word(5)
    assert d.call(0, MINTER, mint) == b""  # nothing at the address yet: a plain call
    rules = d.chain.rules
    assert rules.active_rules_json(on - 1)["precompiles"] == {}
    assert rules.active_rules_json(on)["precompiles"] == {
        "contractNativeMinterConfig": {"timestamp": on}
    }
    assert rules.active_precompiles_json(off) == {}
    while d.now < on:
        d.send(0, ADDRS[3], value=1)
    state = d.chain.state_at(d.chain.head)
    assert state.code(MINTER) == b"\x01"
    start = d.balance(ADDRS[4])
    assert d.send(1, MINTER, mint).status == 1 and d.balance(ADDRS[4]) == start + 5
    while d.now < off:
        d.send(0, ADDRS[3], value=1)
    state = d.chain.state_at(d.chain.head)
    assert state.code(MINTER) == b"" and state.storage(MINTER, int.from_bytes(ADDRS[1], "big")) == 0
    assert d.send(1, MINTER, mint).status == 1 and d.balance(ADDRS[4]) == start + 5
    config = d.chain.config.as_json()
    assert config["upgrades"]["precompileUpgrades"][1] == {
        "contractNativeMinterConfig": {"blockTimestamp": off, "disable": True}
    }


def test_allow_fee_recipients_pays_the_producers_coinbase() -> None:
    d = Driver(allow_fee_recipients=True)
    producer = b"\x99" * 20
    d.chain.params = dataclasses.replace(d.chain.params, coinbase=producer)
    assert d.send(0, ADDRS[3], value=1).status == 1
    assert d.chain.head.header.coinbase == producer and d.balance(producer) == 21_000 * 10**9
    plain = Driver()
    plain.chain.params = dataclasses.replace(plain.chain.params, coinbase=producer)
    plain.send(0, ADDRS[3], value=1)
    assert plain.chain.head.header.coinbase == BLACKHOLE and plain.balance(producer) == 0
