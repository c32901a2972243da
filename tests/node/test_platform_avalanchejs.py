"""@avalabs/avalanchejs drives the devnet's P-Chain end to end: Context from the node's URL,
UTXOs of ewoq, an Etna BaseTx built with the node's fee state, issued, Committed, balances."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from snowfield.chains.platform.config import AVAX
from snowfield.chains.platform.genesis import EWOQ_ADDRESS, LOCAL_EWOQ_AMOUNT
from snowfield.crypto.keys import EWOQ_KEY
from snowfield.crypto.secp256k1 import public_key_of
from snowfield.formats.bech32 import format_address
from snowfield.formats.ids import ShortID
from snowfield.testing import RunningNode, run_node_script, serve_devnet
from tests.node.test_node_apis import service

RECIPIENT = ShortID.from_public_key(public_key_of(hashlib.sha256(b"recipient").digest()))
AMOUNT = 7 * AVAX

SCRIPT = """
import { Context, pvm, utils, TransferableOutput, addTxSignatures } from '@avalabs/avalanchejs';
const [url, keyHex, toHex, amount] = process.argv.slice(2);
const context = await Context.getContextFromURI(url);
const api = new pvm.PVMApi(url);
const key = utils.hexToBuffer(keyHex);
const EWOQ = 'P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u';
const from = utils.bech32ToBytes(EWOQ);
const { utxos } = await api.getUTXOs({ addresses: [EWOQ] });
const feeState = await api.getFeeState();
const tx = pvm.e.newBaseTx({
  feeState, fromAddressesBytes: [from], utxos,
  outputs: [TransferableOutput.fromNative(context.avaxAssetID, BigInt(amount),
    [utils.hexToBuffer(toHex)])],
}, context);
await addTxSignatures({ unsignedTx: tx, privateKeys: [key] });
const { txID } = await api.issueSignedTx(tx.getSignedTx());
let status = '';
for (let i = 0; i < 20 && status !== 'Committed'; i++) {
  ({ status } = await api.getTxStatus({ txID }));
  if (status !== 'Committed') await new Promise((r) => setTimeout(r, 100));
}
const to = 'P-' + utils.formatBech32('local', utils.hexToBuffer(toHex));
const balance = await api.getBalance({ addresses: [to] });
const ewoq = await api.getBalance({ addresses: [EWOQ] });
console.log(JSON.stringify({
  txID, status, context: { networkID: context.networkID, hrp: context.hrp,
    avax: context.avaxAssetID, x: context.xBlockchainID, p: context.pBlockchainID,
    c: context.cBlockchainID },
  utxos: utxos.length, balance: balance.balance.toString(),
  unlocked: balance.unlocked.toString(), ewoq: ewoq.balance.toString(),
}));
"""


def send_base_tx(base: str) -> dict[str, Any]:
    """Runs SCRIPT against the node at `base`: ewoq sends AMOUNT to RECIPIENT."""
    args = ("0x" + EWOQ_KEY.hex(), "0x" + RECIPIENT.raw.hex(), str(AMOUNT))
    out = run_node_script(SCRIPT, base, *args, packages=("@avalabs/avalanchejs",))
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


@pytest.fixture(scope="module")
def devnet() -> Iterator[RunningNode]:
    with serve_devnet() as node:
        yield node


def test_ewoq_address_is_the_local_one() -> None:
    text = format_address("P", "local", EWOQ_ADDRESS.raw)
    assert text == "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"


def test_avalanchejs_base_tx_is_committed(devnet: RunningNode) -> None:
    result = send_base_tx(devnet.base)
    ids = devnet.node.ids
    assert result["status"] == "Committed"
    assert result["context"] == {
        "networkID": 12345,
        "hrp": "local",
        "avax": ids.avax_asset,
        "x": ids.x_chain,
        "p": "11111111111111111111111111111111LpoYY",
        "c": ids.c_chain,
    }
    assert result["utxos"] == 1
    assert result["balance"] == result["unlocked"] == str(AMOUNT)
    fee = LOCAL_EWOQ_AMOUNT - AMOUNT - int(result["ewoq"])
    assert 0 < fee < AVAX // 100  # the Etna fee at the minimum price: a few thousand nAVAX
    chain = devnet.node.chains["P"]
    assert chain.blockchain_id == "11111111111111111111111111111111LpoYY"


def test_accepted_blocks_replay_after_a_restart(tmp_path: Path) -> None:
    with serve_devnet(data_dir=tmp_path) as first:
        tx_id = send_base_tx(first.base)["txID"]
        height = first.node.chains["P"].runtime.chain.height
    assert height >= 1
    with serve_devnet(data_dir=tmp_path) as second:
        p = second.base + "/ext/bc/P"
        assert _call(p, "platform.getTxStatus", {"txID": tx_id}) == {"status": "Committed"}
        assert int(_call(p, "platform.getHeight")["height"]) >= height  # + a time advance
        to = format_address("P", "local", RECIPIENT.raw)
        assert _call(p, "platform.getBalance", {"addresses": [to]})["balance"] == str(AMOUNT)


def _call(url: str, method: str, params: dict[str, Any] | None = None) -> Any:
    reply = service(url, method, params)
    assert "error" not in reply, reply
    return reply["result"]
