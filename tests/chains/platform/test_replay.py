"""Replaying the journal of accepted block bytes on the genesis rebuilds the same state (what a
restart after kill -9 does); a block that does not extend the chain is refused."""

from __future__ import annotations

import pytest

from snowfield.chains.atomic import SharedMemory
from snowfield.chains.platform.chain import PlatformChain
from snowfield.chains.platform.config import AVAX, DAY
from snowfield.crypto.keys import EWOQ_KEY
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID
from snowfield.formats.platform.components import TransferableOutput
from snowfield.formats.platform.l1_txs import ConvertSubnetToL1Tx, L1Validator, PChainOwner
from snowfield.formats.platform.secp256k1fx import Input, TransferOutput
from snowfield.formats.platform.subnet_txs import CreateSubnetTx
from snowfield.formats.platform.transfer_txs import BaseTx, ExportTx
from tests.chains.platform.test_staking import NODE, _delegator_tx, _validator_tx
from tests.chains.platform.wallet import (
    AVAX_ID,
    KEY2,
    START,
    Wallet,
    genesis_config,
    owner,
    pop,
)


def _fingerprint(chain: PlatformChain) -> tuple[object, ...]:
    state = chain.state
    return (
        sorted((u.id, u.encode()) for u in state.utxos),
        sorted(state.stakers.by_tx.items()),
        sorted(state.subnets.items()),
        sorted(state.blockchains.items()),
        sorted(state.l1_validators.items()),
        sorted((tx_id, r.status, r.height) for tx_id, r in state.txs.items()),
        state.fee_state,
        state.validator_fee_state,
        state.current_supply,
        state.height,
        state.timestamp,
        state.last_block_id,
        state.history_heights,
        state.history_sets,
        sorted(state.reward_utxos.items()),
    )


def _scenario(chain: PlatformChain) -> None:
    wallet = Wallet(chain)
    send = TransferableOutput(AVAX_ID, TransferOutput(AVAX, owner(KEY2)))
    chain.issue(wallet.build(BaseTx, AVAX, (send,)).encode())
    chain.build_block(START + 5)
    chain.issue(_validator_tx(chain, START + 5 + 2 * DAY).encode())
    chain.build_block(START + 5)
    chain.issue(_delegator_tx(chain, START + 5 + DAY).encode())
    chain.build_block(START + 5)
    subnet = wallet.build(lambda base: CreateSubnetTx(base, owner(EWOQ_KEY)))
    chain.issue(subnet.encode())
    chain.build_block(START + 6)
    p_owner = PChainOwner(1, owner(KEY2).addresses)
    validator = L1Validator(b"\x08" * 20, 100, 10_000, pop(b"l1"), p_owner, p_owner)
    convert = wallet.build(
        lambda base: ConvertSubnetToL1Tx(
            base, subnet.id, ID(b"\x06" * 32), b"", (validator,), Input((0,))
        ),
        10_000,
        auth=[[EWOQ_KEY]],
    )
    chain.issue(convert.encode())
    chain.build_block(START + 7)
    x_chain = next(c.blockchain_id for c in chain.blockchains() if c.name == "X-Chain")
    exported = TransferableOutput(AVAX_ID, TransferOutput(AVAX, owner(KEY2)))
    export = wallet.build(lambda base: ExportTx(base, x_chain, (exported,)), AVAX)
    chain.issue(export.encode())
    chain.build_block(START + 5 + DAY)
    chain.observed_uptime = lambda node: (0.0, False) if node == NODE else (100.0, True)
    chain.build_block(START + 3 * DAY)


def test_replaying_the_accepted_blocks_rebuilds_the_same_state() -> None:
    live = PlatformChain.from_genesis(genesis_config(), SharedMemory())
    _scenario(live)
    kinds = {type(b.block).__name__ for b in live.blocks}
    assert {"BanffStandardBlock", "BanffProposalBlock", "BanffAbortBlock"} <= kinds
    assert "BanffCommitBlock" in kinds  # the delegator's validator was up when it ended

    replayed = PlatformChain.from_genesis(genesis_config(), SharedMemory())
    for block in live.blocks:
        assert replayed.apply_block(block.data).id == block.id
    assert _fingerprint(replayed) == _fingerprint(live)


def test_blocks_that_do_not_extend_the_chain_are_refused() -> None:
    live = PlatformChain.from_genesis(genesis_config(), SharedMemory())
    _scenario(live)
    replayed = PlatformChain.from_genesis(genesis_config(), SharedMemory())
    with pytest.raises(InvalidParams, match="does not extend"):
        replayed.apply_block(live.blocks[1].data)
    with pytest.raises(InvalidParams):
        replayed.apply_block(b"\x00\x00garbage")
    assert replayed.height == 0
