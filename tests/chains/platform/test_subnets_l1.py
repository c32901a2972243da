"""Subnets, chains, ownership, permissioned validators, L1 conversion with continuous fees, and
atomic transfers through the network's shared memory."""

from __future__ import annotations

import pytest

from snowfield.chains.atomic import AtomicElement, AtomicRequests
from snowfield.chains.platform.chain import PlatformChain
from snowfield.chains.platform.config import AVAX, DAY
from snowfield.crypto.keys import EWOQ_KEY
from snowfield.errors import InvalidParams
from snowfield.formats.ids import ID, NodeID
from snowfield.formats.platform.components import (
    UTXO,
    UTXOID,
    BaseTxFields,
    TransferableInput,
    TransferableOutput,
)
from snowfield.formats.platform.l1_txs import (
    ConvertSubnetToL1Tx,
    DisableL1ValidatorTx,
    IncreaseL1ValidatorBalanceTx,
    L1Validator,
    PChainOwner,
    initial_validation_id,
)
from snowfield.formats.platform.secp256k1fx import Input, TransferInput, TransferOutput
from snowfield.formats.platform.staking_txs import (
    AddSubnetValidatorTx,
    RemoveSubnetValidatorTx,
    Validator,
)
from snowfield.formats.platform.subnet_txs import (
    CreateChainTx,
    CreateSubnetTx,
    TransferSubnetOwnershipTx,
)
from snowfield.formats.platform.transfer_txs import BaseTx, ExportTx, ImportTx
from snowfield.formats.platform.txs import Tx
from tests.chains.platform.wallet import (
    AVAX_ID,
    KEY2,
    START,
    Wallet,
    address,
    new_chain,
    owner,
    pop,
    sign,
)

GENESIS_NODE = NodeID(b"\x01" * 20)


def _accept(chain: PlatformChain, tx: Tx, now: int = START + 1) -> None:
    chain.issue(tx.encode())
    chain.build_block(now)
    assert chain.tx_status(tx.id)[0] == "Committed"


def _subnet(chain: PlatformChain) -> ID:
    tx = Wallet(chain).build(lambda base: CreateSubnetTx(base, owner(EWOQ_KEY)))
    _accept(chain, tx)
    return tx.id


def test_subnet_chain_ownership_and_permissioned_validators() -> None:
    chain = new_chain()
    wallet, subnet = Wallet(chain), _subnet(chain)
    assert chain.subnet(subnet).owner == owner(EWOQ_KEY)

    def create_chain(base: BaseTxFields) -> CreateChainTx:
        return CreateChainTx(base, subnet, "mychain", ID(b"\x0a" * 32), (), b"{}", Input((0,)))

    with pytest.raises(InvalidParams, match="unauthorized subnet modification: wrong signature"):
        chain.issue(wallet.build(create_chain, auth=[[KEY2]]).encode())
    created = wallet.build(create_chain, auth=[[EWOQ_KEY]])
    _accept(chain, created)
    record = next(c for c in chain.blockchains() if c.blockchain_id == created.id)
    assert (record.name, record.subnet_id, record.genesis_data) == ("mychain", subnet, b"{}")

    validator = Validator(GENESIS_NODE, 0, START + DAY, 7)
    add = wallet.build(
        lambda base: AddSubnetValidatorTx(base, validator, subnet, Input((0,))),
        auth=[[EWOQ_KEY]],
    )
    _accept(chain, add)
    assert chain.validators_at(chain.height, subnet)[GENESIS_NODE.raw][0] == 7

    transfer = wallet.build(
        lambda base: TransferSubnetOwnershipTx(base, subnet, Input((0,)), owner(KEY2)),
        auth=[[EWOQ_KEY]],
    )
    _accept(chain, transfer)
    assert chain.subnet(subnet).owner == owner(KEY2)
    remove = wallet.build(
        lambda base: RemoveSubnetValidatorTx(base, GENESIS_NODE, subnet, Input((0,))),
        auth=[[EWOQ_KEY]],
    )
    with pytest.raises(InvalidParams, match="unauthorized subnet modification"):
        chain.issue(remove.encode())
    remove = wallet.build(
        lambda base: RemoveSubnetValidatorTx(base, GENESIS_NODE, subnet, Input((0,))),
        auth=[[KEY2]],
    )
    _accept(chain, remove)
    assert chain.validators_at(chain.height, subnet) == {}


def test_convert_to_l1_burns_balances_continuously_and_refunds_on_disable() -> None:
    chain = new_chain()
    wallet, subnet = Wallet(chain), _subnet(chain)
    p_owner = PChainOwner(1, owner(KEY2).addresses)
    validator = L1Validator(b"\x08" * 20, 100, 1_000, pop(b"l1"), p_owner, p_owner)
    convert = wallet.build(
        lambda base: ConvertSubnetToL1Tx(
            base, subnet, ID(b"\x06" * 32), b"\x09" * 20, (validator,), Input((0,))
        ),
        spend=1_000,
        auth=[[EWOQ_KEY]],
    )
    _accept(chain, convert, START + 10)
    validation_id = initial_validation_id(subnet, 0)
    record = chain.l1_validator(validation_id)
    assert (record.weight, record.balance, record.start_time) == (100, 1_000, START + 10)
    assert chain.subnet(subnet).manager_chain_id == ID(b"\x06" * 32)
    assert not chain.subnet(subnet).is_permissioned
    assert chain.validator_fee_state.current == 1

    # A block 100 s later (a tx's: time moves with blocks) burns 100 s at 1 nAVAX per second.
    _accept(chain, wallet.build(BaseTx), START + 110)
    assert chain.l1_validator(validation_id).balance == 900
    chain.build_block(START + 2_000)  # the balance runs out: inactive, its key out of the set
    assert chain.l1_validator(validation_id).balance == 0
    # as avalanchego: its weight stays in the set, under the empty node id and with no key
    assert chain.validators_at(chain.height, subnet) == {bytes(20): (100, None)}
    assert chain.validator_fee_state.current == 0

    top_up = wallet.build(
        lambda base: IncreaseL1ValidatorBalanceTx(base, validation_id, 5 * AVAX), spend=5 * AVAX
    )
    _accept(chain, top_up, START + 2_000)
    assert chain.validators_at(chain.height, subnet)[b"\x08" * 20][0] == 100

    def disable(base: BaseTxFields) -> DisableL1ValidatorTx:
        return DisableL1ValidatorTx(base, validation_id, Input((0,)))

    with pytest.raises(InvalidParams, match="unauthorized modification"):
        chain.issue(wallet.build(disable, auth=[[EWOQ_KEY]]).encode())
    _accept(chain, wallet.build(disable, auth=[[KEY2]]), START + 2_000)
    assert chain.l1_validator(validation_id).balance == 0
    assert chain.validators_at(chain.height, subnet) == {bytes(20): (100, None)}
    assert chain.balance([address(KEY2)]).unlocked == 5 * AVAX


def test_export_to_and_import_from_a_primary_network_chain() -> None:
    chain = new_chain()
    x_chain = next(c.blockchain_id for c in chain.blockchains() if c.name == "X-Chain")
    exported = TransferableOutput(AVAX_ID, TransferOutput(3 * AVAX, owner(KEY2)))
    export = Wallet(chain).build(lambda base: ExportTx(base, x_chain, (exported,)), 3 * AVAX)
    _accept(chain, export)
    (element,) = chain.shared_memory.indexed(x_chain, chain.env.chain_id, [address(KEY2).raw])
    assert UTXO.decode(element[1].value).utxo_id == UTXOID(export.id, 1)

    # the X-Chain exports 7 AVAX to P (its side comes in a later issue; here by hand)
    incoming = UTXO(UTXOID(ID(b"\x77" * 32), 0), AVAX_ID, TransferOutput(7 * AVAX, owner(KEY2)))
    put = AtomicElement(incoming.id.raw, incoming.encode(), (address(KEY2).raw,))
    chain.shared_memory.apply(x_chain, {chain.env.chain_id: AtomicRequests(put=(put,))})
    assert len(chain.atomic_utxos(x_chain, [address(KEY2)])) == 1
    imported = (TransferableInput(incoming.utxo_id, AVAX_ID, TransferInput(7 * AVAX, (0,))),)
    change = (TransferableOutput(AVAX_ID, TransferOutput(6 * AVAX, owner(KEY2))),)
    base = BaseTxFields(12345, chain.env.chain_id, change, ())
    tx = sign(ImportTx(base, x_chain, imported), [[KEY2]])
    _accept(chain, tx)
    assert chain.balance([address(KEY2)]).unlocked == 6 * AVAX
    assert chain.atomic_utxos(x_chain, [address(KEY2)]) == []
    again = BaseTxFields(12345, chain.env.chain_id, change, (), b"again")
    with pytest.raises(InvalidParams, match="not found"):
        chain.issue(sign(ImportTx(again, x_chain, imported), [[KEY2]]).encode())
