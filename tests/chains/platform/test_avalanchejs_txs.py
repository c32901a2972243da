"""Txs built and signed by @avalabs/avalanchejs's Etna builders (the real client library) pass
the P-Chain's verification, and the fee they burn is exactly the gas our complexity gives."""

from __future__ import annotations

import json
from typing import Any

import pytest

from snowfield.chains.platform.chain import PlatformChain
from snowfield.chains.platform.complexity import tx_complexity
from snowfield.chains.platform.config import AVAX, DAY
from snowfield.chains.platform.gas import to_gas
from snowfield.chains.platform.genesis import Allocation
from snowfield.crypto.keys import EWOQ_KEY
from snowfield.formats.ids import NodeID
from snowfield.formats.platform.txs import Tx
from snowfield.testing import run_node_script
from tests.chains.platform.wallet import KEY2, START, address, new_chain, pop

SCRIPT = """
import {
  pvm, utils, Utxo, Common, TransferableOutput, addTxSignatures,
} from '@avalabs/avalanchejs';
const input = JSON.parse(process.argv[2]);
const manager = utils.getManagerForVM('PVM');
const utxo = (i) => [manager.unpack(utils.hexToBuffer(input.utxos[i]), Utxo)];
const context = {
  networkID: 12345, hrp: 'local', xBlockchainID: input.x, cBlockchainID: input.c,
  pBlockchainID: '11111111111111111111111111111111LpoYY', avaxAssetID: input.avax,
  baseTxFee: 1000000n, createAssetTxFee: 1000000n,
  platformFeeConfig: {
    weights: Common.createDimensions({ bandwidth: 1, dbRead: 1000, dbWrite: 1000, compute: 4 }),
    maxCapacity: 1000000n, maxPerSecond: 100000n, targetPerSecond: 50000n, minPrice: 1n,
    excessConversionConstant: 2164043n,
  },
};
const feeState = { capacity: 1000000n, excess: 0n, price: 1n, timestamp: '' };
const from = [utils.hexToBuffer(input.from)];
const common = (i) => ({ feeState, fromAddressesBytes: from, utxos: utxo(i) });
const key = utils.hexToBuffer(input.key);
const primary = '11111111111111111111111111111111LpoYY';
const txs = [
  pvm.e.newBaseTx({ ...common(0), outputs: [
    TransferableOutput.fromNative(input.avax, 5000000000n, [utils.hexToBuffer(input.to)]),
  ] }, context),
  pvm.e.newCreateSubnetTx({ ...common(1), subnetOwners: from }, context),
  pvm.e.newAddPermissionlessValidatorTx({ ...common(2), nodeId: input.nodeId, start: 0n,
    end: BigInt(input.end), weight: 2000000000000n, subnetId: primary, shares: 100000,
    publicKey: utils.hexToBuffer(input.pk), signature: utils.hexToBuffer(input.pop),
    rewardAddresses: from, delegatorRewardsOwner: from }, context),
  pvm.e.newAddPermissionlessDelegatorTx({ ...common(3), nodeId: input.nodeId, start: 0n,
    end: BigInt(input.end), weight: 500000000000n, subnetId: primary,
    rewardAddresses: from }, context),
];
const out = [];
for (const tx of txs) {
  await addTxSignatures({ unsignedTx: tx, privateKeys: [key] });
  out.push(utils.bufferToHex(tx.getSignedTx().toBytes()));
}
console.log(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def built() -> tuple[PlatformChain, list[Tx]]:
    ewoq = address(EWOQ_KEY)
    chain = new_chain(allocations=[Allocation(ewoq, 3_000 * AVAX)] * 4)
    utxos, _ = chain.utxos([ewoq])
    names = {c.name: str(c.blockchain_id) for c in chain.blockchains()}
    signer = pop(b"avalanchejs validator")
    payload: dict[str, Any] = {
        "utxos": ["0x" + u.encode().hex() for u in utxos if u.output.amount == 3_000 * AVAX],
        "x": names["X-Chain"],
        "c": names["C-Chain"],
        "avax": str(chain.state.avax_asset_id),
        "from": "0x" + ewoq.raw.hex(),
        "to": "0x" + address(KEY2).raw.hex(),
        "key": "0x" + EWOQ_KEY.hex(),
        "nodeId": str(NodeID(b"\x33" * 20)),
        "end": START + 100 + 14 * DAY,
        "pk": "0x" + signer.public_key.hex(),
        "pop": "0x" + signer.proof.hex(),
    }
    hexes = json.loads(
        run_node_script(SCRIPT, json.dumps(payload), packages=("@avalabs/avalanchejs",))
    )
    return chain, [Tx.decode(bytes.fromhex(h[2:])) for h in hexes]


def test_avalanchejs_txs_burn_exactly_our_gas(built: tuple[PlatformChain, list[Tx]]) -> None:
    chain, txs = built
    gases = [to_gas(tx_complexity(tx.unsigned), chain.fee_config.weights) for tx in txs]
    assert gases == [5_179, 5_139, 13_691, 8_299]


def test_avalanchejs_txs_are_accepted(built: tuple[PlatformChain, list[Tx]]) -> None:
    chain, txs = built
    for tx in txs[:3]:
        assert chain.issue(tx.encode()) == tx.id
    chain.build_block(START + 100)
    chain.issue(txs[3].encode())  # the delegator needs its validator accepted first
    chain.build_block(START + 100)
    assert [chain.tx_status(tx.id)[0] for tx in txs] == ["Committed"] * 4
    assert chain.balance([address(KEY2)]).unlocked == 5 * AVAX
    (validator,) = chain.current_validators(node_ids=[NodeID(b"\x33" * 20)])
    assert [d.tx_id for d in validator.delegators] == [txs[3].id]
    assert chain.subnet(txs[1].id).owner.addresses == (address(EWOQ_KEY),)
