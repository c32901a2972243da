"""The L1 validator fee ledger against the P-Chain state machine that charged the fees.

Blocks a real PlatformChain accepted (three L1 validators converted at a target of one
validator, so the excess grows and the price climbs above its minimum; one balance running out
mid-day; a top-up that reactivates it; a disable) → extracted rows → write_blocks. After every
block the ledger's balances equal the chain's own; every day of every scope equals a second-by-
second brute force over the stored events and block times; writing a batch again changes
nothing; an unwind leaves what a ledger written only up to that height holds."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from snowfield.chains.platform.blocks import AcceptedBlock
from snowfield.chains.platform.chain import PlatformChain
from snowfield.chains.platform.config import AVAX, DAY, ValidatorFeeConfig
from snowfield.crypto.keys import EWOQ_KEY
from snowfield.formats.ids import ID
from snowfield.formats.platform.components import BaseTxFields
from snowfield.formats.platform.l1_txs import (
    ConvertSubnetToL1Tx,
    DisableL1ValidatorTx,
    IncreaseL1ValidatorBalanceTx,
    L1Validator,
    PChainOwner,
    initial_validation_id,
)
from snowfield.formats.platform.secp256k1fx import Input
from snowfield.formats.platform.subnet_txs import CreateSubnetTx
from snowfield.formats.platform.transfer_txs import BaseTx
from snowfield.formats.platform.txs import Tx
from snowfield.indexer.extract.platform import extract
from snowfield.store import l1_fees, primary
from snowfield.store.database import Database
from snowfield.store.l1_fee_math import FeeConfig
from tests.chains.platform.wallet import KEY2, START, Wallet, address, new_chain, owner, pop
from tests.indexer.test_primary_rows import ADDR, HRP, PCHAIN, _container
from tests.metrics import brute_l1_fees

FEES = ValidatorFeeConfig(capacity=20_000, target=1, min_price=1, excess_conversion_constant=40_000)
CONFIG = FeeConfig(FEES.capacity, FEES.target, FEES.min_price, FEES.excess_conversion_constant)


def _db(path: Path) -> Database:
    database = Database(str(path))
    database.migrate()
    primary.record_network(database, primary.PrimaryNetwork(PCHAIN, 12345, HRP, None, None, "AVAX"))
    return database


def _write(db: Database, blocks: list[AcceptedBlock]) -> None:
    rows = [extract(b.height, str(b.id), _container(b), b.time * 10**9, ADDR) for b in blocks]
    primary.write_blocks(db, PCHAIN, rows, rows[-1].height + 1, fees=CONFIG)


def _accept(chain: PlatformChain, tx: Tx | None, now: int) -> list[AcceptedBlock]:
    if tx is not None:
        chain.issue(tx.encode())
    return chain.build_block(now)


def _balances(db: Database) -> dict[str, int]:
    return {
        str(v): int(b) for v, b in db.query("SELECT validation_id, balance FROM l1_fee_balances")
    }


def _setup(chain: PlatformChain) -> tuple[ID, tuple[L1Validator, ...], Wallet]:
    """A subnet and three L1 validators-to-be; the chain charges at a target of one."""
    chain.state.params = replace(chain.state.params, validator_fees=FEES)
    wallet = Wallet(chain)
    subnet_tx = wallet.build(lambda base: CreateSubnetTx(base, owner(EWOQ_KEY)))
    chain.issue(subnet_tx.encode())
    chain.build_block(START + 5)
    p_owner = PChainOwner(1, owner(KEY2).addresses)
    balances = (20_000, 3 * AVAX // 1000, 50 * AVAX // 1000)
    validators = tuple(
        L1Validator(bytes([0x10 + i]) * 20, 100, b, pop(b"fee %d" % i), p_owner, p_owner)
        for i, b in enumerate(balances)
    )
    return subnet_tx.id, validators, wallet


FIRST = START + DAY - 3_600  # an hour before a day ends
STEPS = (
    ("convert", FIRST),
    (None, FIRST + 1_800),
    ("base", FIRST + 7_200),  # across midnight
    (None, FIRST + DAY // 2),  # the small balance has run out by now
    ("topup", FIRST + DAY // 2 + 10),
    ("base", FIRST + DAY + 600),
    ("disable", FIRST + DAY + 900),
    ("base", FIRST + 2 * DAY),
)


def test_the_ledger_charges_what_the_chain_charged(tmp_path: Path) -> None:
    chain = new_chain()
    subnet, validators, wallet = _setup(chain)
    db = _db(tmp_path / "p.db")
    ids = [initial_validation_id(subnet, i) for i in range(len(validators))]

    def make(step: str | None) -> Tx | None:
        if step == "convert":
            return wallet.build(
                lambda base: ConvertSubnetToL1Tx(
                    base, subnet, ID(b"\x06" * 32), b"\x09" * 20, validators, Input((0,))
                ),
                spend=sum(v.balance for v in validators),
                auth=[[EWOQ_KEY]],
            )
        if step == "topup":
            return wallet.build(
                lambda base: IncreaseL1ValidatorBalanceTx(base, ids[0], AVAX // 100),
                spend=AVAX // 100,
            )
        if step == "disable":

            def disable(base: BaseTxFields) -> DisableL1ValidatorTx:
                return DisableL1ValidatorTx(base, ids[1], Input((0,)))

            return wallet.build(disable, auth=[[KEY2]])
        if step == "base":
            return wallet.build(BaseTx)
        return None

    written: list[AcceptedBlock] = []
    ran_out = False
    for step, now in STEPS:
        blocks = _accept(chain, make(step), now)
        if not blocks:
            continue
        _write(db, blocks)
        _write(db, blocks)  # a replayed batch charges nothing twice
        written += blocks
        got = _balances(db)
        for v in ids:
            if str(v) in got:
                assert got[str(v)] == chain.l1_validator(v).balance, (step, v)
        ran_out |= str(ids[0]) in got and got[str(ids[0])] == 0
    assert ran_out, "the small balance never ran out"
    assert chain.l1_validator(ids[1]).balance == 0  # disabled
    assert chain.l1_validator(ids[2]).balance > 0  # still paying at the end
    # the price rose above its minimum: a day at the minimum would cost 86,400
    expected = brute_l1_fees.days(db, PCHAIN)
    stored = {
        (str(s), str(m), int(d)): (int(f), int(p))
        for s, m, d, f, p in db.query(
            "SELECT scope, member, day, fees, payers FROM l1_fee_days WHERE pchain = ?", (PCHAIN,)
        )
    }
    assert stored == expected
    totals = {d: f for (s, _, d), (f, _) in expected.items() if s == "all"}
    assert len(totals) == 3 and max(totals.values()) > 3 * 86_400
    assert {p for (s, _, _), (_, p) in expected.items() if s == "all"} >= {2, 3}
    # deposits less the chain's balances is what the ledger says was paid
    paid = sum(f for (s, _, _), (f, _) in expected.items() if s == "all")
    deposits = sum(v.balance for v in validators) + AVAX // 100
    refunded = chain.balance([address(KEY2)]).unlocked  # what the disable gave back
    assert refunded > 0
    assert paid == deposits - sum(_balances(db).values()) - refunded

    # series: cumulative is the running sum of the daily fees
    last_day = max(totals)
    daily = l1_fees.series(db, PCHAIN, "all", "", "fees", last_day, start=None, end=None)
    running = l1_fees.series(db, PCHAIN, "all", "", "cumulative", last_day, start=None, end=None)
    assert daily == brute_l1_fees.series(expected, "all", "", "fees", last_day)
    assert [v for _, v in running] == [sum(v for _, v in daily[i:]) for i in range(len(daily))]

    # unwind to mid-way: what a ledger written only that far holds
    cut = written[len(written) // 2].height
    other = _db(tmp_path / "q.db")
    for b in written:
        if b.height <= cut:
            _write(other, [b])
    with db.transaction() as w:
        l1_fees.unwind(w, PCHAIN, cut)
    for table in ("l1_fee_days", "l1_fee_balances", "l1_fee_events", "l1_fee_ledger"):
        query = f"SELECT * FROM {table} ORDER BY 1, 2, 3"
        assert db.query(query) == other.query(query), table


def test_a_ledger_behind_the_checkpoint_says_where_to_replay_from(tmp_path: Path) -> None:
    """store/l1_fees.lag for a store indexed before the ledger: no L1 tx, the ledger starts at
    the checkpoint; an L1 tx, just before its block; in step, nothing."""
    chain = new_chain()
    subnet, validators, wallet = _setup(chain)
    db = _db(tmp_path / "p.db")
    _write(db, chain.blocks)  # the genesis and the subnet's block
    with db.transaction() as w:
        w.execute("DELETE FROM l1_fee_ledger")
    assert l1_fees.lag(db, PCHAIN, CONFIG) is None
    (height,) = db.query("SELECT height FROM l1_fee_ledger")[0]
    assert height == chain.height
    convert = wallet.build(
        lambda base: ConvertSubnetToL1Tx(
            base, subnet, ID(b"\x06" * 32), b"\x09" * 20, validators, Input((0,))
        ),
        spend=sum(v.balance for v in validators),
        auth=[[EWOQ_KEY]],
    )
    blocks = _accept(chain, convert, FIRST)
    _write(db, blocks + _accept(chain, wallet.build(BaseTx), FIRST + 100))
    assert l1_fees.lag(db, PCHAIN, CONFIG) is None  # in step
    with db.transaction() as w:
        w.execute("DELETE FROM l1_fee_ledger")
    assert l1_fees.lag(db, PCHAIN, CONFIG) == blocks[0].height
