"""P-Chain blocks a real platform chain accepted → extracted rows → SQLite → the reads of
operations 11-13: stakers, UTXOs, rewards, subnets and chains."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from snowfield.chains.platform import rewards
from snowfield.chains.platform.blocks import AcceptedBlock
from snowfield.chains.platform.chain import PlatformChain
from snowfield.crypto.keys import EWOQ_KEY
from snowfield.formats.bech32 import format_bech32
from snowfield.formats.ids import ID, P_CHAIN_ID
from snowfield.formats.platform.components import BaseTxFields
from snowfield.formats.platform.subnet_txs import CreateChainTx, CreateSubnetTx
from snowfield.formats.proposervm import StatelessBlock
from snowfield.indexer.extract.platform import Addresses, extract, reward_utxo
from snowfield.store import primary, primary_queries
from snowfield.store.database import Database
from snowfield.store.pagination import Page
from snowfield.store.primary_queries import StakingEntry
from snowfield.store.primary_rows import BlockRows
from tests.chains.platform.test_staking import (
    DELEGATOR_STAKE,
    NODE,
    VALIDATOR_STAKE,
    _delegator_tx,
    _validator_tx,
)
from tests.chains.platform.wallet import KEY2, START, Wallet, address, new_chain, owner

DAY = 86_400
PCHAIN = str(P_CHAIN_ID)
HRP = "local"
ADDR = Addresses(HRP)


def _container(block: AcceptedBlock) -> bytes:
    wrapper = StatelessBlock(
        parent_id=ID(bytes(32)), inner_block=block.data, timestamp=block.time, p_chain_height=0
    )
    return wrapper.encode()


def _rows(chain: PlatformChain, blocks: list[AcceptedBlock]) -> list[BlockRows]:
    return [extract(b.height, str(b.id), _container(b), b.time * 10**9, ADDR) for b in blocks]


def _bech(secret: bytes) -> str:
    return format_bech32(HRP, address(secret).raw)


@pytest.fixture()
def db(tmp_path: Path) -> Database:
    database = Database(str(tmp_path / "p.db"))
    database.migrate()
    primary.record_network(database, primary.PrimaryNetwork(PCHAIN, 12345, HRP, None, None, "AVAX"))
    return database


def _active(
    db: Database,
    *,
    addresses: list[str] | None = None,
    tx_types: list[str] | None = None,
    desc: bool = False,
) -> Page[StakingEntry]:
    """The first page (10) of operation 11's listing."""
    return primary_queries.active_staking(
        db, PCHAIN, addresses=addresses, tx_types=tx_types, start=None, end=None, desc=desc,
        after=None, limit=10,
    )  # fmt: skip


def test_stakers_rewards_and_utxos_round_trip(db: Database) -> None:
    chain = new_chain()
    supply0 = chain.current_supply
    config = chain.state.params.staking.rewards
    validator_end, delegator_end = START + 10 + 3 * DAY, START + 10 + 2 * DAY
    add = _validator_tx(chain, validator_end)
    chain.issue(add.encode())
    first = chain.build_block(START + 10)
    delegate = _delegator_tx(chain, delegator_end)
    chain.issue(delegate.encode())
    second = chain.build_block(START + 10)
    rows = _rows(chain, first + second)
    validator_reward = rewards.calculate(config, 3 * DAY, VALIDATOR_STAKE, supply0)
    primary.write_blocks(db, PCHAIN, rows, 2, potential={str(add.id): validator_reward})

    page = _active(db)
    assert [t.tx_id for t in page.items] == [str(add.id), str(delegate.id)]
    assert page.items[0].potential_reward == str(validator_reward)
    (validator,) = primary_queries.tx_rows(db, PCHAIN, [str(add.id)])
    assert validator.tx_type == "AddPermissionlessValidatorTx"
    assert validator.details["nodeId"] == str(NODE)
    assert validator.details["delegationFeePercent"] == "10"
    assert validator.details["rewardAddresses"] == [_bech(EWOQ_KEY)]
    emitted, consumed = primary_queries.utxos_of(db, PCHAIN, [str(add.id)])
    stake = [u for u in emitted[str(add.id)] if u.staked]
    assert [int(u.amount) for u in stake] == [VALIDATOR_STAKE]
    assert stake[0].utxo_start == START + 10 and stake[0].utxo_end == validator_end
    # Genesis UTXOs are consumed with what the input says of them.
    assert sum(int(u.amount) for u in consumed[str(add.id)]) > VALIDATOR_STAKE

    # By address: the delegator's reward owner (KEY2) is named only by the delegation... and the
    # validator's delegation-reward owner, which is KEY2 too.
    by_key2 = _active(
        db, addresses=[_bech(KEY2)], tx_types=["AddPermissionlessDelegatorTx"], desc=True
    )
    assert [t.tx_id for t in by_key2.items] == [str(delegate.id)]
    # Several addresses: each tx once, in order (DISTINCT over the address rows).
    by_both = _active(db, addresses=[_bech(KEY2), _bech(EWOQ_KEY)], desc=True)
    assert [t.tx_id for t in by_both.items] == [str(delegate.id), str(add.id)]

    now, stakers = primary_queries.current_stakers(
        db, PCHAIN, addresses=None, node_ids=[str(NODE)], desc=False, after=None, limit=10
    )
    assert now == START + 10
    kinds = {s.tx_id: (s.kind, s.fee_addresses, s.delegation_fee) for s in stakers}
    assert kinds[str(delegate.id)] == ("DELEGATOR", (_bech(KEY2),), 100_000)

    # Past both ends: the chain rewards both; their reward UTXOs land with their types.
    ending = chain.build_block(validator_end + 100)
    ended = _rows(chain, ending)
    staker = primary_queries.staker(db, PCHAIN, str(add.id))
    assert staker is not None
    paid = [
        reward_utxo(u.encode(), ADDR, "VALIDATOR" if i == 0 else "VALIDATOR_FEE", staker)
        for i, u in enumerate(chain.reward_utxos(add.id))
    ]
    # The commit block after the proposal that ended the validator pays it.
    paid_at = next(b.height + 1 for b in ended if str(add.id) in [t for t, _ in b.ended])
    assert paid_at in [b.height for b in ended]
    primary.write_blocks(db, PCHAIN, ended, 2 + len(ended), rewards=[(paid_at, u) for u in paid])
    paid_rows = "SELECT block_height, block_timestamp FROM p_utxos WHERE reward_type IS NOT NULL"
    commit = next(b for b in ended if b.height == paid_at)
    assert set(db.query(paid_rows)) == {(paid_at, commit.timestamp)}
    # A store from before schema 10 had the batch's last block there; the upgrade mends it.
    with db.transaction() as w:
        w.execute("UPDATE p_utxos SET block_height = 99, block_timestamp = 1 WHERE reward_type"
                  " IS NOT NULL")  # fmt: skip
        w.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")
    db.migrate()
    assert set(db.query(paid_rows)) == {(paid_at, commit.timestamp)}
    after = _active(db)
    assert after.items == []
    fee = [u for u in paid if u.reward_type == "VALIDATOR_FEE"]
    delegator_total = rewards.calculate(
        config, 2 * DAY, DELEGATOR_STAKE, supply0 + validator_reward
    )
    assert [u.amount for u in fee] == [rewards.split(delegator_total, 100_000)[0]]
    assert db.query_one("SELECT COUNT(*) FROM p_utxos WHERE reward_type = 'VALIDATOR_FEE'") == (1,)


def test_subnets_and_their_chains(db: Database) -> None:
    chain = new_chain()
    wallet = Wallet(chain)
    create = wallet.build(lambda base: CreateSubnetTx(base, owner(EWOQ_KEY)))
    chain.issue(create.encode())
    blocks = chain.build_block(START + 10)
    genesis = {
        "config": {"chainId": 99999, "feeConfig": {"gasLimit": 8_000_000}},
        "alloc": {},
        "baseFeePerGas": "0x5d21dba00",
    }

    def make_chain(base: BaseTxFields) -> CreateChainTx:
        from snowfield.formats.platform.secp256k1fx import Input

        return CreateChainTx(
            base,
            create.id,
            "demo",
            ID(bytes(range(32))),
            (),
            json.dumps(genesis).encode(),
            Input((0,)),
        )

    made = wallet.build(make_chain, auth=[[EWOQ_KEY]])
    chain.issue(made.encode())
    blocks += chain.build_block(START + 20)
    primary.write_blocks(db, PCHAIN, _rows(chain, blocks), len(blocks))
    page = primary_queries.subnets(db, PCHAIN, desc=False, after=None, limit=10)
    (subnet,) = page.items
    assert subnet.subnet_id == str(create.id)
    assert subnet.owner_addresses == (_bech(EWOQ_KEY),) and subnet.threshold == 1
    (info,) = primary_queries.blockchains_of(db, PCHAIN, [subnet.subnet_id])[subnet.subnet_id]
    assert info.blockchain_id == str(made.id) and info.evm_chain_id == 99999
    assert json.loads(info.genesis or "")["baseFeePerGas"] == 0x5D21DBA00
