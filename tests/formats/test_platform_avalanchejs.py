"""What we encode, @avalabs/avalanchejs (the real client library) parses and re-encodes unchanged:
txs with stakeable locks, multisig owners and BLS signers, UTXOs with their ids, warp messages."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from snowfield.crypto.keys import EWOQ_KEY
from snowfield.crypto.secp256k1 import recover_public_key, sign_recoverable
from snowfield.formats.bech32 import format_address
from snowfield.formats.ids import ID, NodeID, ShortID
from snowfield.formats.platform import l1_txs, staking_txs
from snowfield.formats.platform.components import (
    UTXO,
    UTXOID,
    BaseTxFields,
    TransferableInput,
    TransferableOutput,
)
from snowfield.formats.platform.secp256k1fx import (
    Credential,
    Input,
    OutputOwners,
    TransferInput,
    TransferOutput,
)
from snowfield.formats.platform.signer import ProofOfPossession
from snowfield.formats.platform.stakeable import LockIn, LockOut
from snowfield.formats.platform.txs import Tx
from snowfield.formats.warp.message import BitSetSignature, Message, UnsignedMessage
from snowfield.formats.warp.payload import AddressedCall, encode_payload
from snowfield.formats.warp.platform_messages import RegisterL1Validator, encode_message
from snowfield.testing import run_node_script

SCRIPT = """
import { Utxo, avaxSerial, pvmSerial, secp256k1, utils } from '@avalabs/avalanchejs';
import { sha256 } from '@noble/hashes/sha256';
const input = JSON.parse(process.argv[2]);
const manager = utils.getManagerForVM('PVM');
const codec = manager.getDefaultCodec();
const warp = pvmSerial.warp.getWarpManager();
const txs = input.txs.map((h) => {
  const signed = manager.unpack(utils.hexToBuffer(h), avaxSerial.SignedTx);
  const bytes = signed.toBytes();
  return { hex: utils.bufferToHex(bytes), id: utils.base58check.encode(sha256(bytes)) };
});
const utxos = input.utxos.map((h) => {
  const utxo = manager.unpack(utils.hexToBuffer(h), Utxo);
  return { hex: utils.bufferToHex(utxo.toBytes(codec)), id: utxo.ID() };
});
const messages = input.messages.map((h) => {
  const message = warp.unpack(utils.hexToBuffer(h), pvmSerial.warp.WarpMessage);
  return utils.bufferToHex(message.toBytes(warp.getDefaultCodec()));
});
const key = utils.hexToBuffer(input.key);
const signatures = [];
for (const h of input.txs) {
  const signed = manager.unpack(utils.hexToBuffer(h), avaxSerial.SignedTx);
  signatures.push(utils.bufferToHex(await secp256k1.sign(utils.packTx(signed.unsignedTx), key)));
}
console.log(JSON.stringify({ txs, utxos, messages, signatures }));
"""

LOCAL_STAKER = json.loads(
    (
        Path(__file__).parents[1] / "crypto/vectors/avalanchego_local/initial_stakers.json"
    ).read_text()
)[0]["signer"]
# avalanchejs checks BLS points, so these are a real key and proof (avalanchego's local node 1).
BLS_KEY = bytes.fromhex(LOCAL_STAKER["publicKey"][2:])
BLS_POP = bytes.fromhex(LOCAL_STAKER["proofOfPossession"][2:])
AVAX = ID(b"\xaa" * 32)
ADDRESSES = (ShortID(b"\x01" * 20), ShortID(b"\x02" * 20), ShortID(b"\x03" * 20))
MULTISIG = OutputOwners(1_700_000_000, 2, ADDRESSES)
SIG = bytes(range(65))


def _base() -> BaseTxFields:
    outputs = (
        TransferableOutput(AVAX, TransferOutput(5, MULTISIG)),
        TransferableOutput(
            AVAX, LockOut(1_800_000_000, TransferOutput(9, OutputOwners(0, 1, ADDRESSES[:1])))
        ),
    )
    inputs = (
        TransferableInput(UTXOID(ID(b"\x01" * 32), 3), AVAX, TransferInput(20, (0, 2))),
        TransferableInput(
            UTXOID(ID(b"\x02" * 32), 0), AVAX, LockIn(1_800_000_000, TransferInput(7, (1,)))
        ),
    )
    return BaseTxFields(12345, ID(bytes(32)), outputs, inputs, b"memo")


def _txs() -> list[Tx]:
    validator = staking_txs.Validator(NodeID(b"\x09" * 20), 1, 2, 2_000_000_000_000)
    pop = ProofOfPossession(BLS_KEY, BLS_POP)
    stake = (TransferableOutput(AVAX, TransferOutput(2_000_000_000_000, MULTISIG)),)
    add = staking_txs.AddPermissionlessValidatorTx(
        _base(), validator, ID(bytes(32)), pop, stake, MULTISIG, MULTISIG, 20_000
    )
    owner = l1_txs.PChainOwner(1, ADDRESSES[:1])
    convert = l1_txs.ConvertSubnetToL1Tx(
        _base(),
        ID(b"\x05" * 32),
        ID(b"\x06" * 32),
        b"\x07" * 20,
        (l1_txs.L1Validator(b"\x08" * 20, 10, 1_000_000_000, pop, owner, owner),),
        Input((0,)),
    )
    credentials = (Credential((SIG, SIG)), Credential((SIG,)))
    return [Tx(add, credentials), Tx(convert, (*credentials, Credential((SIG,))))]


def _utxos() -> list[UTXO]:
    return [
        UTXO(UTXOID(ID(bytes(range(32))), 5), AVAX, TransferOutput(7, MULTISIG)),
        UTXO(
            UTXOID(ID(b"\x03" * 32), 0), AVAX, LockOut(9, TransferOutput(1, OutputOwners(0, 0, ())))
        ),
    ]


def _messages() -> list[Message]:
    owner = l1_txs.PChainOwner(1, ADDRESSES[:1])
    register = RegisterL1Validator(
        ID(b"\x05" * 32), b"\x08" * 20, BLS_KEY, 1_700_000_000, owner, owner, 7
    )
    call = AddressedCall(b"\x0f" * 20, encode_message(register))
    unsigned = UnsignedMessage(5, ID(b"\x06" * 32), encode_payload(call))
    return [Message(unsigned, BitSetSignature.from_indices([0, 3, 9], BLS_POP))]


@pytest.fixture(scope="module")
def parsed() -> dict[str, Any]:
    payload = {
        "txs": ["0x" + tx.encode().hex() for tx in _txs()],
        "utxos": ["0x" + utxo.encode().hex() for utxo in _utxos()],
        "messages": ["0x" + message.encode().hex() for message in _messages()],
        "key": "0x" + EWOQ_KEY.hex(),
    }
    result: dict[str, Any] = json.loads(
        run_node_script(SCRIPT, json.dumps(payload), packages=("@avalabs/avalanchejs",))
    )
    return result


def test_avalanchejs_reads_our_txs(parsed: dict[str, Any]) -> None:
    for tx, theirs in zip(_txs(), parsed["txs"], strict=True):
        assert theirs["hex"] == "0x" + tx.encode().hex()
        assert theirs["id"] == str(tx.id)


def test_avalanchejs_reads_our_utxos(parsed: dict[str, Any]) -> None:
    for utxo, theirs in zip(_utxos(), parsed["utxos"], strict=True):
        assert theirs["hex"] == "0x" + utxo.encode()[2:].hex()  # avalanchejs drops the version
        assert theirs["id"] == str(utxo.id)


def test_avalanchejs_reads_our_warp_messages(parsed: dict[str, Any]) -> None:
    for message, theirs in zip(_messages(), parsed["messages"], strict=True):
        assert theirs == "0x" + message.encode()[2:].hex()  # avalanchejs drops the version


def test_avalanchejs_signs_our_unsigned_bytes_as_we_do(parsed: dict[str, Any]) -> None:
    """Credentials sign sha256(unsigned bytes): avalanchejs's signature over what it parsed from
    our bytes is ours (RFC 6979), and recovers to the signer's P-Chain address."""
    for tx, theirs in zip(_txs(), parsed["signatures"], strict=True):
        digest = hashlib.sha256(tx.unsigned_bytes()).digest()
        assert theirs == "0x" + sign_recoverable(EWOQ_KEY, digest).hex()
        public_key = recover_public_key(digest, bytes.fromhex(theirs[2:]))
        address = format_address("P", "local", ShortID.from_public_key(public_key).raw)
        assert address == "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
